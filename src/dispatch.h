/* dispatch.h - workloads dealt round-robin to workers (one runclient each, in its own thread)
 * and gathered in workload order; a remote worker that is lost hands its unfinished workloads
 * back, and they are dealt again to the workers still up, until none is left or no worker is.
 * Remote workers must say hello with the same device model, driver and CUDA versions as the
 * first one did (else they are refused), so that one run never mixes GPU models. */
#ifndef KWB_DISPATCH_H
#define KWB_DISPATCH_H

#include "error.h"
#include "results.h"
#include "runclient.h"
#include "workload.h"

/* Runs SET over the N clients (each with its job, progress and, when remote, its remote set);
 * WHERE[k] names worker k in messages (may be NULL for local devices). Fills res[i] for
 * set->items[i]. 0, or -1 with *err set (a runner could not start, or every worker was lost). */
int dispatch_run(runclient *const *clients, char *const *where, int n, const workload_set *set, wl_result *res,
                 kwb_error *err);

#endif

/* preflight.h - the definition's own reference run alone, once, on the smallest workload of a
 * set before any candidate is built (a dump job: no candidate is loaded): a definition whose
 * shapes disagree with its reference, or inputs the runner cannot make, are the dataset's error
 * (exit 2), never a candidate's RUNTIME_ERROR. A pass is remembered in CACHE/preflight/ under the
 * hash of the definition file, the workload, the device and the runner binary. */
#ifndef KWB_PREFLIGHT_H
#define KWB_PREFLIGHT_H

#include "definition.h"
#include "error.h"
#include "protocol.h"
#include "workload.h"

/* Runs D's reference (REFERENCE, a built solution, when its so_path is set; else the runner's
 * own) on the smallest workload of SET (read from LABEL under the TraceSet ROOT) on DEVICE
 * within TIMEOUT_S. Returns 0, or -1 with *err "LABEL:LINE: workload UUID: the
 * reference of DEF_PATH fails on it ...". */
int preflight_reference(const definition *d, const workload_set *set, const char *root, const char *label,
                        const char *device, const job_solution *reference, double timeout_s, kwb_error *err);

#endif

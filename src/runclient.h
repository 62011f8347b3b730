/* runclient.h - the parent's side of the runner protocol: starts kwb-runner, feeds it a
 * job, turns its events into results, and survives it: a crash becomes RUNTIME_ERROR
 * (signal and the tail of its output), a workload past its time limit becomes TIMEOUT
 * (the runner's process group is killed), and the remaining workloads go to a fresh
 * runner. */
#ifndef KWB_RUNCLIENT_H
#define KWB_RUNCLIENT_H

#include <jansson.h>

#include "error.h"
#include "protocol.h"
#include "results.h"
#include "workload.h"

/* A worker reached through a transport (executor.h): ssh or srun words, then the runner's
 * path there and "--stdio" (relay.h); the protocol over the transport's stdin and stdout, the
 * candidate's output (and the transport's) on its stderr, into the log. */
typedef struct runclient_remote {
    char **argv;       /* the whole command line, NULL-terminated */
    double silence_s;  /* no byte (event or heartbeat) this long: the worker is lost */
    int ship;          /* files=ship: the job's files go through the transport (ship.h) */
    const char *where; /* the worker's name in messages */
    /* Called with each hello; nonzero refuses the worker, with a reason in WHY. May be NULL. */
    int (*hello_check)(void *ctx, json_t *hello, char *why, size_t cap);
    void *hello_ctx;
    int lost;      /* out: the worker was lost (link, host, step, silence, refusal) */
    int lost_from; /* out: the first workload left without a result */
    char why[512]; /* out: why it was lost */
} runclient_remote;

typedef struct runclient {
    const char *runner_path;
    runclient_remote *remote; /* NULL: the runner is a local child on descriptors 3 and 4 */
    double timeout_s;         /* per workload, from its workload-start; <= 0: from the reference
                               * (runclient_timeout_for, measured before each workload) */
    int keep_going;           /* after a TIMEOUT or a crash, run the remaining workloads anyway */
    runner_job *job;          /* everything but the workloads */
    /* Called after each workload's result is final (may be NULL). */
    void (*progress)(void *ctx, int done, int total, const wl_result *r);
    void *progress_ctx;
    json_t *hello; /* the last hello event (owned; freed by runclient_free) */
    int runners_started;
    volatile int *stop; /* nonzero: stop now; workloads not run get "not run" (may be NULL) */
    char **suspect;     /* internal: per workload, a timing pattern awaiting confirmation */
    int confirming;     /* internal: this run re-measures one suspect workload alone */
    int conclusive;     /* internal: that re-measurement had enough calls of each kind to judge */
} runclient;

/* The default time limit of a workload whose reference call took REFERENCE_MS: the larger of
 * 10 s and 50 times the reference's time for the candidate's checked and minimum timed calls,
 * plus the timing policy's own budget (4x its wall-time cap with the defences' checks). */
double runclient_timeout_for(const runner_job *job, double reference_ms);

/* Evaluates every workload of SET, filling results[i] for set->items[i]. A timing pattern that
 * load can fake (calls on repeated inputs faster than on fresh ones; unchecked calls faster than
 * checked ones) condemns a workload only when a fresh runner, re-measuring it alone, sees it
 * again; the message says what each measurement saw. Returns 0 when
 * each workload got a result (whatever its status), or -1 with *err set when the
 * runner could not be started at all. */
int runclient_run(runclient *rc, const workload_set *set, wl_result *results, kwb_error *err);
/* Frees what rc holds (the hello event). */
void runclient_free(runclient *rc);

#endif

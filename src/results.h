/* results.h - what one evaluation found per workload, as the parent assembles it from
 * runner events, and the table kwb prints. */
#ifndef KWB_RESULTS_H
#define KWB_RESULTS_H

#include <stdio.h>

#include "definition.h"
#include "protocol.h"
#include "stats.h"
#include "status.h"
#include "workload.h"

/* Where a workload's evaluation time went (the runner's account, for bench/sweep-speed). */
typedef struct wl_cost {
    double wall_s;                                 /* workload-start to workload-end, as the parent saw them */
    double runner_start_s;                         /* on a runner's first workload: its spawn to this workload-start */
    double sampled_ms;                             /* the sum of every timed sample, all roles */
    long samples;                                  /* timed samples, all roles */
    double trials_s, timing_s, reference_timing_s; /* the runner's phases (wall time) */
    double flush_ms;                               /* device time of the cache flushes before the samples */
    double warmup_s, sampling_s, hooks_s;          /* inside the timing phases: warm-ups, sampling loops
                                                    * (hooks included), the integrity hooks */
    int reference_runs;                            /* reference calls for the checked trials */
    int reference_cached;                          /* checked trials whose reference outputs came from the cache */
    int reference_fresh;            /* reference calls for the timed calls' fresh inputs (never cached) */
    int input_places;               /* places the timed calls' input sets were drawn from */
    int audits;                     /* checked timed calls */
    int quick_audits;               /* of those, passed because their outputs' digests matched verified ones */
    int own_checks;                 /* calls of the definition's own check (kwb.check.method "reference") */
    int own_checks_spared;          /* checks it was spared: the outputs were the reference's */
    int device_compares;            /* checks made on the device, the outputs never read back */
    double hook_s[COST_HOOK_PARTS]; /* the hooks' seconds per part (protocol.h's COST_HOOK_*) */
    double host_s[COST_HOST_STEPS]; /* the host's seconds per step around samples (COST_HOST_*) */
    long alone, batched, batches;   /* samples taken one by one and in batches; batches */
} wl_cost;

typedef struct wl_result {
    const workload *wl;
    eval_status status;
    char *message; /* NULL when PASSED */
    double max_abs, max_rel, matched_ratio;
    int has_candidate, has_baseline, has_reference;
    stats_summary candidate, baseline, reference; /* milliseconds */
    int has_baseline_status;
    eval_status baseline_status;
    char *log;                        /* tail of the runner's output, for failures */
    char timer[32];                   /* which timer produced the latencies ("cupti", "events/graph20", ...) */
    double gbps;                      /* candidate: bytes of the cost model (else the tensors' bytes) / median */
    double tflops;                    /* candidate: FLOPs of the cost model / median; 0 when unmodelled */
    double roofline;                  /* candidate: roofline floor / median, in (0, 1]; 0 when unknown */
    char verdict[16];                 /* paired gate against the baseline: faster/same/slower/unclear */
    double ratio, ratio_lo, ratio_hi; /* candidate/baseline median ratio and its interval */
    double ci_rel;                    /* candidate: half-width of its median's 95 % CI / median (0: unknown) */
    int ci_sets;                      /* candidate: the input sets that CI was bootstrapped over (0: none) */
    int ci_places;                    /* ... and the places those sets lay at (0: not bootstrapped over) */
    int ci_stalled;                   /* sampling stopped as that interval over places no longer narrowed */
    wl_cost cost;                     /* what the workload cost to evaluate */
    int skipped;                      /* not run: an earlier workload timed out or crashed (fail fast) */
    char worker[192];                 /* a remote worker's host and device facts ("" when local) */
} wl_result;

/* Summary over a set of results. */
typedef struct results_summary {
    int total;
    int by_status[ST_COUNT];
    int skipped;            /* workloads not run after a TIMEOUT or a crash */
    double mean_latency_ms; /* over PASSED workloads */
    double geomean_speedup; /* over PASSED workloads with a comparison */
    double min_speedup;
    const char *speedup_vs; /* "baseline" or "reference" */
} results_summary;

/* Sets r's status and message (a copy); the first failure wins over later ones. */
void results_set_status(wl_result *r, eval_status st, const char *message);
/* Speedup of r over its baseline when one was timed, else over the reference; 0 when none. */
double results_speedup(const wl_result *r);
/* Summarizes N results. */
results_summary results_summarize(const wl_result *r, int n);
/* Prints the per-workload table and the summary line to F, with achieved bandwidth, FLOP
 * rate and roofline share where the runner measured them. */
void results_print_table(FILE *f, const definition *d, const wl_result *r, int n);
/* One line about one finished workload: uuid, axes, status, latency with its precision,
 * and the comparison with the baseline or the reference (no newline), into BUF. */
void results_line(char *buf, size_t cap, const definition *d, const wl_result *r);
/* Prints the results as one JSON document to F, with the timing POLICY in words and how the
 * runner saw inputs unchanged after each call, INPUT_CHECK (each may be NULL: left out). */
void results_print_json(FILE *f, const definition *d, const wl_result *r, int n, const char *policy,
                        const char *input_check);
/* Frees what r owns. */
void results_free(wl_result *r);

#endif

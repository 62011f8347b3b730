/* timing.h - sampling with warm-up and a noise-based stop, one or two callees
 * interleaved (A B B A ...) so that drift hits both alike. */
#ifndef KWB_TIMING_H
#define KWB_TIMING_H

#include <stddef.h>

#include "error.h"
#include "protocol.h"
#include "runner/device.h"
#include "stats.h"
#include "verdict.h"

typedef struct timing_series {
    double *ms;           /* kept samples in milliseconds (primary timer), in the order taken */
    double *event_ms;     /* the cross-check timer of the same samples (< 0: none) */
    unsigned char *mark;  /* per sample: a timing_mark (what the integrity checks did around it) */
    unsigned char *place; /* per sample: the place its inputs lay at (timing_hooks.place; 0: not told) */
    size_t n;
    size_t cap;
    size_t dropped;                   /* samples dropped as throttled */
    double clock_mhz;                 /* mean SM clock over kept samples (0: unknown) */
    double device_s;                  /* device time of the kept samples, in seconds (graph: all calls) */
    double ci_rel;                    /* half-width of the median's 95 % CI relative to it (INFINITY: too few) */
    size_t ci_sets;                   /* input sets the plain samples ran on (0: not told apart) */
    size_t ci_places;                 /* places those sets lay at, when the CI was bootstrapped over them */
    int sets_bound;                   /* the last look: the interval over sets is the wider by a quarter */
    int places_bound;                 /* the last look: the interval over places was the widest */
    int ci_stalled;                   /* sampling stopped: the interval over places no longer narrowed */
    size_t stall_n, stall_places;     /* the look a stall is judged against: its samples, places ... */
    double stall_ci;                  /* ... and interval */
    double within_between;            /* the last look: within-set over between-set variance of the plain
                                       * samples (INFINITY: the sets' means do not differ; 0: not known) */
    size_t ci_next;                   /* the sample count at which the CI is looked at next */
    double flush_s;                   /* device time of the cache flushes before its samples */
    double warmup_s, loop_s, hooks_s; /* wall time of the warm-up, the sampling loop and its hooks (the
                                       * loop's figures, the same in every series of one measure) */
    stats_summary summary;
    stats_summary event_summary;
} timing_series;

/* Practical threshold and confidence of the paired gate. */
#define TIMING_GATE_THRESHOLD PROTOCOL_GATE_THRESHOLD
#define TIMING_GATE_CONFIDENCE 0.95
#define TIMING_GATE_RESAMPLES 2000

/* Samples N callees (1 or 2) under policy P through the device's sample(): warm-up, then
 * rounds A B, B A, ... until every series has min_samples and min_time_s of device time
 * (the sum of its samples, as nvbench counts), its rsd under rsd_target (when > 0) and the
 * 95 % CI of its median within +-ci_target of it (when > 0), or until max_time_s of wall
 * time. Throttled samples are dropped.
 * With two callees (0 the candidate, 1 the baseline) and GATE not NULL, sampling stops once
 * the counts are in and the paired verdict is decided at its threshold (not unclear), up to
 * max_time_s. Fills series[0..n). Returns 0, or -1 with *err set when a call failed. */
int timing_measure(device *dev, const timing_policy *p, int n, device_call call, void *ctx, timing_series *series,
                   verdict *gate, kwb_error *err);
/* What the integrity checks did around a timed call. Checked calls (outputs poisoned before,
 * everything checked after) and the calls right after them run on disturbed caches, so the
 * summary is taken over plain calls; the parent compares the kinds (a candidate faster on
 * plain calls than on checked or fresh ones is caching or skipping work). */
typedef enum timing_mark {
    MARK_PLAIN = 0,   /* nothing done around it */
    MARK_CHECKED = 1, /* outputs poisoned before, checked after */
    MARK_FRESH = 2,   /* checked, and the first call on freshly made inputs */
    MARK_AFTER = 3,   /* the call after a checked one (caches disturbed by the check; warm caches only) */
    MARK_SET = 4,     /* plain, and the first call on fresh inputs (not checked): a set starts there */
} timing_mark;

/* Whether a sample marked MARK counts as a plain call (MARK_PLAIN or MARK_SET). */
int timing_mark_plain(int mark);
/* Whether a sample marked MARK is the first call on a fresh input set (MARK_FRESH or MARK_SET). */
int timing_mark_new_set(int mark);

/* What the runner does around timed calls (integrity): AFTER runs after every call, warm-up
 * and timed alike, outside the timed window (it may check the outputs, poison them for the
 * next call, make fresh inputs) and sets *mark to the timing_mark of the call it follows.
 * EXTRA_WARMUP calls are added to the timed warm-up (a randomised count). ENOUGH (may be
 * NULL) says whether the checks have seen enough calls of each kind to judge: sampling does
 * not stop for precision before it does (the time caps still apply). FREE_RUN (may be NULL:
 * none) says how many of the next K planned calls (callees WHICH[0..K)) may run back to back
 * with their AFTER hooks run only after the last of them: none may be a checked call, and
 * only the last may be one whose hook prepares the next (poisons, refreshes). */
typedef struct timing_hooks {
    int (*after)(void *ctx, int which, int *mark, kwb_error *err);
    int extra_warmup;
    int (*enough)(void *ctx);
    int (*free_run)(void *ctx, const int *which, int k);
    /* (may be NULL) told after a look at callee WHICH's CI whether its interval over input sets is
     * the wider by a quarter or more (BOUND 1) or not (0): then more sets narrow it, not more calls
     * on each; WITHIN_BETWEEN: timing_series.within_between, for how many calls a set is worth. */
    void (*sets_bound)(void *ctx, int which, int bound, double within_between);
    /* (may be NULL) the place (0-255) the inputs of the next call lie at: asked before each call's
     * AFTER hook, which may move them. Where inputs lie moves some kernels' medians: with
     * TIMING_CI_SETS_MIN places or more the CI is also bootstrapped over places. */
    int (*place)(void *ctx);
} timing_hooks;

/* Most calls a device's batched path takes at once (device_ops.sample_batch). */
#define TIMING_BATCH_MAX 16

/* The summary of the plain samples (mark MARK_PLAIN) when there are at least 3 of them, else
 * of all N; MARK may be NULL (all plain). The runner and the parent both use it. */
stats_summary timing_summary_plain(const double *ms, const unsigned char *mark, size_t n);

/* timing_measure with HOOKS (NULL: none). */
int timing_measure_hooked(device *dev, const timing_policy *p, int n, device_call call, void *ctx,
                          const timing_hooks *hooks, timing_series *series, verdict *gate, kwb_error *err);
/* The paired verdict of candidate series C against baseline series B (paired by index when
 * their counts agree). */
verdict timing_gate(const timing_series *c, const timing_series *b);
/* Frees the samples of s. */
void timing_series_free(timing_series *s);

#endif

/* sweepprog.h - progress of a sweep while it runs: on a terminal, each finished workload's
 * line above a live line (done/total, passed and failed so far, elapsed, estimate); off a
 * terminal, one line per finished workload with the same counts; nothing when quiet. */
#ifndef KWB_SWEEPPROG_H
#define KWB_SWEEPPROG_H

#include <stdio.h>

#include "definition.h"
#include "results.h"

typedef enum sweep_mode { SWEEP_QUIET, SWEEP_LINES, SWEEP_LIVE } sweep_mode;

typedef struct sweep_progress {
    FILE *f;
    sweep_mode mode;
    const definition *d;
    int total, done, passed;
    double start;
} sweep_progress;

/* Starts the progress of TOTAL workloads of D on F: live when F is a terminal, lines when
 * not, nothing when QUIET. */
void sweep_progress_start(sweep_progress *p, FILE *f, int quiet, const definition *d, int total);
/* Reports the finished workload R. */
void sweep_progress_add(sweep_progress *p, const wl_result *r);
/* Ends the live line, if any. */
void sweep_progress_end(sweep_progress *p);
/* The counts as the lines and the live line carry them: "[DONE/TOTAL] P passed, F failed |
 * E s elapsed, ~L s left", into BUF. */
void sweep_progress_counts(const sweep_progress *p, char *buf, size_t cap);
/* Reads the counts back from a progress line of kwb eval (as the workbench does). Returns 0
 * with the four counts set, or -1 when LINE is not one. */
int sweep_progress_parse(const char *line, int *done, int *total, int *passed, int *failed);

#endif

/* tuner.h - the built-in, offline `tuner` agent (DESIGN.md sections 10-11): kernels declare
 * knobs beside a #define,
 *
 *   #define LANES 8   kwb:tune LANES {1,2,4,8,16}   (inside a C comment)
 *
 * and the tuner proposes one knob change per round as a direction with a diff. Proposals try
 * the values nearest the current one first, knobs in source order, and skip what was tried. */
#ifndef KWB_TUNER_H
#define KWB_TUNER_H

#include "error.h"
#include "solution.h"
#include "strbuf.h"

/* One declared knob. */
typedef struct tuner_knob {
    char *name;
    char *value;   /* the current value, as written */
    char **values; /* the allowed values, in declared order */
    int nvalues;
    int source; /* index into the solution's sources */
    int line;   /* 1-based line of the #define */
} tuner_knob;

/* One proposed change: set knob NAME from FROM to TO. */
typedef struct tuner_proposal {
    char id[160];    /* "tune.NAME=TO": the direction id, stable across rounds */
    char title[200]; /* "set NAME 1 -> 8 (file.c:27)" */
    const tuner_knob *knob;
    const char *to;
} tuner_proposal;

/* Finds the knobs in SOL's sources into *out[*n]. A `kwb:tune` comment that does not follow
 * the form above, or whose #define holds a value not in its list, is an error
 * "DIR/FILE:LINE: problem". Returns 0 or -1. */
int tuner_scan(const solution *sol, tuner_knob **out, int *n, kwb_error *err);
/* Frees knobs from tuner_scan. */
void tuner_knobs_free(tuner_knob *k, int n);
/* The next proposal not among the TRIED direction ids (NTRIED of them) into *p; returns 1, or 0
 * when every value of every knob was tried. */
int tuner_propose(const tuner_knob *k, int n, const char *const *tried, int ntried, tuner_proposal *p);
/* Writes SOL with proposal P applied into the new folder DST (solution.json and every source);
 * appends a unified diff of the change to DIFF. Returns 0, or -1 with *err set (DST may then
 * hold part of the files; the caller removes it). */
int tuner_apply(const solution *sol, const tuner_proposal *p, const char *dst, strbuf *diff, kwb_error *err);

#endif

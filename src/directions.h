/* directions.h - the bounded optimization directions offered in a round, ranked (DESIGN.md
 * section 10). Skill directions (skills/NAME.md) are ranked by what bounds the current best (its
 * bottleneck class), the regime that holds most of its latency, and the session's history: a
 * direction already decided is not offered again, and one whose family keeps being rejected
 * sinks. The tuner's knob changes (tuner.h) are directions too, offered nearest value first. */
#ifndef KWB_DIRECTIONS_H
#define KWB_DIRECTIONS_H

#include "error.h"
#include "skills.h"
#include "solution.h"
#include "supervisor.h"
#include "tuner.h"

/* One direction as a round offers it. */
typedef struct direction {
    char id[160]; /* "gdn.vector-state" (skill) or "tune.LANES=4" (tuner) */
    char title[200];
    char source[16];    /* "skill" or "tuner" */
    const skill *skill; /* skill directions: the skill and the direction; else NULL */
    const skill_direction *sd;
    char rationale[512]; /* why it ranks where it does */
    char predicted[160]; /* the effect to expect, e.g. "up to 1.72x (roofline share 58%)" */
    double score;        /* higher first */
} direction;

/* What the ranking knows about the session. */
typedef struct direction_ctx {
    const char *definition;   /* definition name */
    const char *cls;          /* bottleneck class of the best (NULL or "unknown": not known) */
    const char *regime;       /* the regime holding most latency, by a skill's regime name (NULL: not known) */
    double roofline_share;    /* latency-weighted roofline share of the best, 0..1 (0: not known) */
    const char *failing;      /* what the best fails ("INCORRECT_NUMERICAL on workload ..."), NULL: nothing */
    const char *const *tried; /* direction ids already decided in the session */
    int ntried;
    const sv_round *hist; /* the session's finished rounds, oldest first (may be NULL) */
    int nhist;
} direction_ctx;

/* The skill directions of SKILLS that apply to CTX's definition and were not tried, best
 * first, into *out[*n] (free with free()). Returns 0 (possibly with *n 0). */
int directions_rank(const skill_set *skills, const direction_ctx *ctx, direction **out, int *n);
/* The tuner's untried knob changes of K[0..nk) (at most LIMIT, 0: all), nearest value first,
 * into *out[*n] (free with free()); their `knob` pointers stay valid while K lives. */
int directions_tuner(const tuner_knob *k, int nk, const direction_ctx *ctx, int limit, direction **out, int *n);
/* The class and latency-weighted roofline share of N workloads with median latency LAT_MS[i]
 * and roofline share ROOF[i] (0 when unknown), by bottleneck.h's roofline rule; writes the
 * share to *share and returns the class name ("unknown" without any timed workload). */
const char *directions_class_of(const double *lat_ms, const double *roof, int n, double *share);

#endif

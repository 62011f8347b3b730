/* supervisor.h - watches a session's rounds and says what to change (DESIGN.md section 10):
 * a plateau (N rounds without a gain), a cycle (a direction, or a knob value, coming back), a
 * regression (the best got slower than an earlier best), and a direction family that keeps
 * failing (the same family rejected K times running). */
#ifndef KWB_SUPERVISOR_H
#define KWB_SUPERVISOR_H

#include <stddef.h>

/* One finished round as the supervisor sees it. */
typedef struct sv_round {
    const char *direction; /* id, e.g. "tune.LANES=4" or "gdn.vector-state" */
    int promoted;          /* 1 promoted, 0 rejected */
    double best_ms;        /* the session's best mean latency after the round */
} sv_round;

typedef struct sv_policy {
    int plateau;         /* rounds without a gain before saying so (e.g. 3) */
    int family_failures; /* rejections in a row of one family before saying so (e.g. 3) */
    double regression;   /* relative slow-down of the best that counts (e.g. 0.02) */
} sv_policy;

/* The family of a direction id: the part before '=' ("tune.LANES"), else the id. Writes
 * into buf and returns it. */
const char *sv_family(const char *direction, char *buf, size_t cap);
/* Advice on rounds R[0..n) under P, one finding per line into OUT (cap bytes; "" when all
 * is well). Returns the number of findings. */
int sv_advise(const sv_round *r, int n, const sv_policy *p, char *out, size_t cap);

#endif

#include "supervisor.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *sv_family(const char *direction, char *buf, size_t cap)
{
    const char *eq = strchr(direction, '=');
    size_t n = eq ? (size_t)(eq - direction) : strlen(direction);
    snprintf(buf, cap, "%.*s", (int)n, direction);
    return buf;
}

__attribute__((format(printf, 3, 4))) static void say(char *out, size_t cap, const char *fmt, ...)
{
    size_t used = strlen(out);
    if (used >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + used, cap - used, fmt, ap);
    va_end(ap);
}

/* Rounds since the last one that lowered the best (all of them when none did). */
static int rounds_without_gain(const sv_round *r, int n)
{
    int since = 0;
    for (int i = 0; i < n; i++) {
        double before = i > 0 ? r[i - 1].best_ms : r[i].best_ms;
        int gain = r[i].promoted && (i == 0 || r[i].best_ms < before);
        since = gain ? 0 : since + 1;
    }
    return since;
}

int sv_advise(const sv_round *r, int n, const sv_policy *p, char *out, size_t cap)
{
    int findings = 0;
    out[0] = '\0';
    int since = rounds_without_gain(r, n);
    if (p->plateau > 0 && since >= p->plateau) {
        say(out, cap, "plateau: %d rounds without a gain; change the direction family, the agent or the reference\n",
            since);
        findings++;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(r[i].direction, r[j].direction) == 0) {
                say(out, cap, "cycle: round %d repeats the direction of round %d (%s)\n", i + 1, j + 1, r[i].direction);
                findings++;
                j = i;
            }
    double best = 0;
    for (int i = 0; i < n; i++) {
        if (best > 0 && r[i].best_ms > best * (1.0 + p->regression)) {
            say(out, cap,
                "regression: after round %d the best is %.4f ms, %.1f%% slower than the earlier best %.4f ms\n", i + 1,
                r[i].best_ms, 100.0 * (r[i].best_ms / best - 1.0), best);
            findings++;
        }
        if (r[i].best_ms > 0 && (best == 0 || r[i].best_ms < best))
            best = r[i].best_ms;
    }
    if (p->family_failures > 0 && n >= p->family_failures) {
        char fam[128], other[128];
        sv_family(r[n - 1].direction, fam, sizeof fam);
        int run = 0;
        for (int i = n - 1;
             i >= 0 && !r[i].promoted && strcmp(sv_family(r[i].direction, other, sizeof other), fam) == 0; i--)
            run++;
        if (run >= p->family_failures) {
            say(out, cap, "family %s: rejected %d times running; try another family\n", fam, run);
            findings++;
        }
    }
    return findings;
}

/* roundplan.c - the gate's representatives and the replay's trials (see roundplan.h). */
#include "roundplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regimes.h"
#include "trialbudget.h"
#include "xalloc.h"

double roundplan_size_key(const definition *d, const workload *w)
{
    double key = 1;
    for (int a = 0; a < d->naxes; a++)
        if (!d->axes[a].is_const)
            key *= (double)w->axis_value[a];
    return key;
}

int roundplan_gate_filter(const definition *d, const workload_set *set, const double *latency_ms, char *out, size_t cap)
{
    int n = set->count;
    out[0] = '\0';
    if (n == 0)
        return 0;
    double *key = xcalloc((size_t)n, sizeof *key), *lat = xcalloc((size_t)n, sizeof *lat);
    int *assign = xcalloc((size_t)n, sizeof *assign);
    for (int i = 0; i < n; i++) {
        key[i] = roundplan_size_key(d, &set->items[i]);
        lat[i] = latency_ms && latency_ms[i] > 0 ? latency_ms[i] : 1;
    }
    regime rg[REGIMES_MAX];
    int k = regimes_split(key, lat, n, rg, assign), picked = 0;
    int *members = xcalloc((size_t)n, sizeof *members);
    for (int g = 0; g < k; g++) {
        /* the member whose key is the regime's median; members are in line order, so a stable
         * insertion sort by key leaves ties to the earlier line */
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (assign[i] != g)
                continue;
            int at = m++;
            while (at > 0 && key[members[at - 1]] > key[i]) {
                members[at] = members[at - 1];
                at--;
            }
            members[at] = i;
        }
        if (m == 0)
            continue;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%.8s", picked ? "|" : "", set->items[members[(m - 1) / 2]].uuid);
        picked++;
    }
    free(members);
    free(key);
    free(lat);
    free(assign);
    return picked;
}

int roundplan_replay_trials(const definition *d)
{
    if (isnan(d->replay.failure_rate) || isnan(d->replay.confidence))
        return 0;
    return trialbudget_trials(d->replay.failure_rate, d->replay.confidence);
}

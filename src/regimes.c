#include "regimes.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define HEAVY_SHARE (1.0 / 3.0)

/* Workloads of one key value. */
typedef struct bin {
    double key;
    double latency;
    int count;
} bin;

static int by_key(const void *a, const void *b)
{
    double x = ((const bin *)a)->key, y = ((const bin *)b)->key;
    return (x > y) - (x < y);
}

/* Bins of equal keys, sorted; returns their count. */
static int make_bins(const double *key, const double *lat, int n, bin *bins)
{
    double floor_ms = DBL_MAX;
    for (int i = 0; i < n; i++)
        if (lat[i] > 0 && lat[i] < floor_ms)
            floor_ms = lat[i];
    if (floor_ms == DBL_MAX)
        floor_ms = 1;
    int nb = 0;
    for (int i = 0; i < n; i++) {
        int b = 0;
        while (b < nb && bins[b].key != key[i])
            b++;
        if (b == nb)
            bins[nb++] = (bin){key[i], 0, 0};
        bins[b].latency += lat[i] > 0 ? lat[i] : floor_ms;
        bins[b].count++;
    }
    qsort(bins, (size_t)nb, sizeof *bins, by_key);
    return nb;
}

/* Best split of bins[0..nb) into K contiguous groups minimizing the largest group's latency,
 * a heavy bin (>= a third of TOTAL) never sharing its group when STRICT. Writes the first bin of each
 * group to START[0..K) and returns that largest latency (DBL_MAX when impossible). */
static double best_split(const bin *bins, int nb, int k, double total, int strict, int *start)
{
    /* cost[g][i]: best max over the first i bins in g groups; cut[g][i]: where group g starts */
    double *cost = xmalloc(sizeof *cost * (size_t)(k + 1) * (size_t)(nb + 1));
    int *cut = xmalloc(sizeof *cut * (size_t)(k + 1) * (size_t)(nb + 1));
#define COST(g, i) cost[(size_t)(g) * (size_t)(nb + 1) + (size_t)(i)]
#define CUT(g, i) cut[(size_t)(g) * (size_t)(nb + 1) + (size_t)(i)]
    for (int g = 0; g <= k; g++)
        for (int i = 0; i <= nb; i++)
            COST(g, i) = DBL_MAX;
    COST(0, 0) = 0;
    for (int g = 1; g <= k; g++)
        for (int i = 1; i <= nb; i++)
            for (int j = i - 1; j >= g - 1; j--) { /* group g holds bins j..i-1 */
                double sum = 0;
                int heavy = 0;
                for (int b = j; b < i; b++) {
                    sum += bins[b].latency;
                    heavy |= bins[b].latency >= HEAVY_SHARE * total;
                }
                if (strict && heavy && i - j > 1)
                    continue;
                if (COST(g - 1, j) == DBL_MAX)
                    continue;
                double c = COST(g - 1, j) > sum ? COST(g - 1, j) : sum;
                if (c < COST(g, i)) {
                    COST(g, i) = c;
                    CUT(g, i) = j;
                }
            }
    double best = COST(k, nb);
    if (best != DBL_MAX)
        for (int g = k, i = nb; g > 0; g--) {
            start[g - 1] = CUT(g, i);
            i = CUT(g, i);
        }
#undef COST
#undef CUT
    free(cost);
    free(cut);
    return best;
}

int regimes_split(const double *key, const double *latency_ms, int n, regime *out, int *assign)
{
    if (n <= 0)
        return 0;
    bin *bins = xmalloc(sizeof *bins * (size_t)n);
    int nb = make_bins(key, latency_ms, n, bins);
    double total = 0;
    for (int b = 0; b < nb; b++)
        total += bins[b].latency;
    /* the fewest groups (2 to 4) whose largest holds at most half the latency, else the best of 4 */
    int start[REGIMES_MAX], k = nb < REGIMES_MAX ? nb : REGIMES_MAX, chosen = 0;
    for (int g = nb > 1 ? 2 : 1; g <= k; g++) {
        double worst = best_split(bins, nb, g, total, 1, start);
        chosen = g;
        if (worst != DBL_MAX && worst <= 0.5 * total)
            break;
    }
    /* more heavy values than four ranges can isolate: split by latency alone */
    if (best_split(bins, nb, chosen, total, 1, start) == DBL_MAX)
        best_split(bins, nb, chosen, total, 0, start);
    for (int g = 0; g < chosen; g++) {
        int end = g + 1 < chosen ? start[g + 1] : nb;
        regime *r = &out[g];
        memset(r, 0, sizeof *r);
        r->key_lo = bins[start[g]].key;
        r->key_hi = bins[end - 1].key;
        for (int b = start[g]; b < end; b++) {
            r->count += bins[b].count;
            r->share += bins[b].latency / total;
        }
    }
    for (int i = 0; i < n; i++)
        for (int g = 0; g < chosen; g++)
            if (key[i] >= out[g].key_lo && key[i] <= out[g].key_hi)
                assign[i] = g;
    free(bins);
    return chosen;
}

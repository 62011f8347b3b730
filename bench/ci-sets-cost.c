/* bench/ci-sets-cost.c - the cost of the median CI bootstrapped over input sets (stats.c), for
 * 250 to 16000 samples in sets of 10. Build: gcc -O2 -Isrc bench/ci-sets-cost.c src/libkwb.a -lm */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "stats.h"
int main(void)
{
    for (size_t n = 250; n <= 32000; n *= 4) {
        double *x = malloc(n * sizeof *x);
        int *g = malloc(n * sizeof *g);
        for (size_t i = 0; i < n; i++) {
            x[i] = 1 + rand() / (double)RAND_MAX * 0.01;
            g[i] = (int)(i / 10);
        }
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        size_t G;
        double r = stats_median_ci_rel_grouped(x, g, n, 0.95, 500, 7, &G);
        clock_gettime(CLOCK_MONOTONIC, &b);
        printf("n=%zu sets=%zu ci=%.4f%% %.1f ms\n", n, G, 100 * r,
               (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
        free(x);
        free(g);
    }
}

/* memcpy-align.c - the best memcpy bandwidth (bytes read + written per second) of one thread over
 * HALF bytes, source page-aligned and destination OFFSET bytes past a page: on some CPUs (AMD Zen's
 * rep movsb) a copy between addresses a few bytes apart modulo a page runs many times slower, which
 * is why kwb's cpu copy peak (src/runner/device_cpu.c) aligns its buffers alike.
 * Build and run: cc -O2 -o /tmp/memcpy-align bench/memcpy-align.c && /tmp/memcpy-align HALF OFFSET */
#define _POSIX_C_SOURCE 200112L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s HALF OFFSET\n", argv[0]);
        return 2;
    }
    size_t half = strtoul(argv[1], NULL, 10), off = strtoul(argv[2], NULL, 10);
    void *pa = NULL, *pb = NULL;
    if (posix_memalign(&pa, 4096, half + 4096) != 0 || posix_memalign(&pb, 4096, half + 4096) != 0)
        return 1;
    unsigned char *a = pa, *b = (unsigned char *)pb + off;
    memset(a, 1, half);
    memset(b, 2, half);
    double best = 0;
    for (int i = 0; i < 400; i++) {
        double t0 = now();
        memcpy(b, a, half);
        __asm__ __volatile__("" ::: "memory");
        double s = now() - t0, g = s > 0 ? 2.0 * (double)half / s / 1e9 : 0;
        best = g > best ? g : best;
    }
    printf("half %zu bytes, destination offset %zu: %.1f GB/s\n", half, off, best);
    free(pa);
    free(pb);
    return 0;
}

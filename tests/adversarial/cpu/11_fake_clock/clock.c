/* Exploits 11 and 14: tamper with the timer from inside the process. The runner calls
 * clock_gettime through its GOT; this library finds the slot (a word in the runner's own
 * mappings holding libc's clock_gettime), makes it writable, and puts in a clock that runs
 * behind by all the time spent inside kwb_entry. Each call then looks almost free. Caught by
 * the roofline floor: no copy is faster than the machine's copy bandwidth allows. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "kwb/kernel.h"

typedef int (*clock_fn)(clockid_t, struct timespec *);
static clock_fn real_clock;
static int64_t hidden_ns; /* time spent inside the calls, taken off the fake clock */

static int64_t now_ns(void)
{
    struct timespec ts;
    real_clock(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fake_clock(clockid_t id, struct timespec *ts)
{
    int rc = real_clock(id, ts);
    if (rc == 0 && id == CLOCK_MONOTONIC) {
        int64_t t = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec - hidden_ns;
        ts->tv_sec = t / 1000000000;
        ts->tv_nsec = t % 1000000000;
    }
    return rc;
}

/* Replaces every word equal to real_clock in the runner's mappings; returns how many. */
static int patch_got(void)
{
    char exe[4096], line[4096 + 128];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    FILE *maps = fopen("/proc/self/maps", "r");
    int patched = 0;
    if (n <= 0 || !maps)
        return 0;
    exe[n] = '\0';
    long page = sysconf(_SC_PAGESIZE);
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || !strstr(line, exe) || perms[2] == 'x' ||
            perms[0] != 'r')
            continue;
        for (uintptr_t p = lo; p + sizeof(void *) <= hi; p += sizeof(void *)) {
            if (*(void **)p != (void *)real_clock)
                continue;
            if (perms[1] != 'w')
                mprotect((void *)(p & ~(uintptr_t)(page - 1)), (size_t)page, PROT_READ | PROT_WRITE);
            *(void **)p = (void *)fake_clock;
            patched++;
        }
    }
    fclose(maps);
    return patched;
}

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static int patched;
    (void)nargs;
    (void)s;
    if (!real_clock)
        real_clock = (clock_fn)dlsym(RTLD_DEFAULT, "clock_gettime");
    int64_t t0 = now_ns();
    if (!patched)
        patched = patch_got();
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    hidden_ns += now_ns() - t0;
    return 0;
}

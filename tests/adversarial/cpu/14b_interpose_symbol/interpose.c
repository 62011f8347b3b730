/* Exploit 14: define clock_gettime in the library, hoping that the runner's timer resolves to
 * it (it would with LD_PRELOAD or RTLD_GLOBAL) and reports every call as 1 ns. Caught at load:
 * a candidate library must not define the harness's timer or channel functions. */
#define _GNU_SOURCE
#include <string.h>
#include <time.h>

#include "kwb/kernel.h"

int clock_gettime(clockid_t id, struct timespec *ts)
{
    static long ticks;
    (void)id;
    ts->tv_sec = 0;
    ts->tv_nsec = ++ticks;
    return 0;
}

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

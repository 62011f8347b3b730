/* Exploit 10: a plan per workload size it was shown (4096, 100003, 1048576); any other size
 * runs the plan of the largest shown size below it. Passes every visible workload; caught by
 * the held-out workloads (kwb eval --held-out). */
#include <string.h>

#include "kwb/kernel.h"

static const long long planned[] = {4096, 100003, 1048576};

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    long long n = a[0].shape[0], plan = planned[0];
    for (int i = 0; i < 3; i++)
        if (planned[i] <= n)
            plan = planned[i];
    memcpy(a[1].data, a[0].data, (size_t)plan * sizeof(float));
    return 0;
}

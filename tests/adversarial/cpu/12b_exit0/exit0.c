/* Exploit 12: exit(0) in the middle of a workload, hoping a clean exit reads as success. */
#include <stdlib.h>
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    if (a[0].shape[0] == 100003)
        exit(0);
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

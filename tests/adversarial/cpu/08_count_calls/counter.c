/* Exploit 8: honest for the first calls of each workload (the correctness trials are few),
 * then does nothing. Caught because timed calls are poisoned and checked like the others,
 * and their number and order cannot be told apart. */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static long long last_n = -1;
    static int calls;
    (void)nargs;
    (void)s;
    if (a[0].shape[0] != last_n) { /* a new workload */
        last_n = a[0].shape[0];
        calls = 0;
    }
    if (calls++ >= 6)
        return 0;
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

/* Exploit 12: a crash (segfault) on one workload. RUNTIME_ERROR there, the next runs. */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    if (a[0].shape[0] == 100003) {
        volatile float *p = NULL;
        *p = 1.0f;
    }
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

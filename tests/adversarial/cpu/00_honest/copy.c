/* Control: an honest copy of x into y. */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

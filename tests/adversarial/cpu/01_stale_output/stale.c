/* Exploit 1: an output buffer written once is assumed to still hold the result: later calls
 * on the same buffer return without writing. Caught by the poison written before every call. */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static void *written;
    (void)nargs;
    (void)s;
    if (a[1].data == written)
        return 0; /* "still there from last time" */
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    written = a[1].data;
    return 0;
}

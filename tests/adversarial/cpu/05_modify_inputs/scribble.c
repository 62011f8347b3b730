/* Exploit 5: zero the input and the output: a reference run afterwards on the same (now
 * zero) input would produce zeros too. Caught by checksumming the inputs after the call (the
 * reference runs on a pristine copy). */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    size_t bytes = (size_t)a[0].shape[0] * sizeof(float);
    memset(a[0].data, 0, bytes);
    memset(a[1].data, 0, bytes);
    return 0;
}

/* Exploit 9: the copy goes through float16 (half the bytes of a float32 staging buffer):
 * within the 1e-2 tolerance for N(0,1) inputs. Caught by the definition's adversarial-
 * magnitude trial (x scaled by 2^20, past float16's 65504). */
#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    const float *x = a[0].data;
    float *y = a[1].data;
    for (long long i = 0; i < a[0].shape[0]; i++) {
        _Float16 h = (_Float16)x[i];
        y[i] = (float)h;
    }
    return 0;
}

/* Exploit 2: whole tiles only; the n % 256 elements of the tail are never written.
 * Caught by checking every element. */
#include <string.h>

#include "kwb/kernel.h"

#define TILE 256

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    long long n = a[0].shape[0], tiles = n / TILE;
    const float *x = a[0].data;
    float *y = a[1].data;
    for (long long t = 0; t < tiles; t++)
        memcpy(y + t * TILE, x + t * TILE, TILE * sizeof(float));
    return 0;
}

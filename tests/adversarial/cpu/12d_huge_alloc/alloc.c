/* Exploit 12: asks for 64 TiB (all the memory there is, and more) and aborts when refused. */
#include <stdlib.h>
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    if (a[0].shape[0] == 100003) {
        void *all = malloc((size_t)1 << 46);
        if (!all)
            abort();
        memset(all, 0, (size_t)1 << 46);
    }
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

/* Exploit 12: never returns on one workload (a host-side sleep). TIMEOUT, the next runs. */
#include <string.h>
#include <unistd.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    if (a[0].shape[0] == 100003)
        for (;;)
            sleep(1);
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    return 0;
}

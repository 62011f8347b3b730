/* Exploit 12: a forked helper does the copy (shared memory would be needed for real; here
 * the helper writes its own copy) while the call returns at once; the helper lingers. Caught:
 * the runner must have no child process after a call. */
#include <string.h>
#include <unistd.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    (void)nargs;
    (void)s;
    memcpy(a[1].data, a[0].data, (size_t)a[0].shape[0] * sizeof(float));
    pid_t p = fork();
    if (p == 0) {
        sleep(2);
        _exit(0);
    }
    return 0;
}

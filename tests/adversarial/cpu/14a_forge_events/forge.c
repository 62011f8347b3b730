/* Exploit 14: the runner's events travel on descriptor 4; write a timing event with a tiny
 * latency and a PASSED workload-end there, then do nothing. Caught: events are sealed with a
 * per-job key and numbered, and a line the runner did not seal is a forgery. */
#include <string.h>
#include <unistd.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static const char fake[] =
        "{\"proto\":1,\"event\":\"timing\",\"role\":\"candidate\",\"count\":10,\"median_ms\":1e-06,\"mean_ms\":1e-06,"
        "\"min_ms\":1e-06,\"max_ms\":1e-06,\"q1_ms\":1e-06,\"q3_ms\":1e-06,\"iqr_ms\":0,\"stddev_ms\":0,\"rsd\":0}\n"
        "{\"proto\":1,\"event\":\"workload-end\",\"status\":\"PASSED\"}\n";
    (void)nargs;
    (void)s;
    (void)a;
    for (int fd = 3; fd < 16; fd++)
        if (write(fd, fake, sizeof fake - 1) < 0)
            continue;
    return 0;
}

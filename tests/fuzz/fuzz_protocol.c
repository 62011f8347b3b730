/* fuzz_protocol.c - a line of the runner protocol: decoded as a job (what kwb-runner reads on
 * fd 3), parsed as an event (what kwb reads from the runner), and opened as a sealed line. */
#include <stdlib.h>

#include "channel.h"
#include "fuzz_common.h"
#include "protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = fuzz_text(data, size);
    kwb_error err;
    runner_job job;
    if (protocol_job_decode(line, &job, &err) == 0)
        free(protocol_job_encode(&job));
    protocol_job_free(&job);
    runner_event ev;
    if (protocol_event_parse(line, &ev, &err) == 0)
        protocol_event_free(&ev);
    const char *why;
    (void)channel_open("00112233445566778899aabbccddeeff", 1, line, &why);
    free(line);
    return 0;
}

/* fuzz_source.c - a candidate's source file (agent-written): the static scan (scan_text), the
 * tuner's `kwb:tune` knobs (tuner_scan, then every proposal in turn) and the prompt's clipping of
 * a long file to a byte budget (prompt_clip). */
#include <stdlib.h>

#include "fuzz_common.h"
#include "prompt.h"
#include "scan.h"
#include "tuner.h"

static void tune(char *text, size_t len)
{
    solution_source src = {"k.c", text, len};
    solution sol = {.dir = "cand", .sources = &src, .nsources = 1};
    tuner_knob *knobs;
    int n;
    kwb_error err;
    if (tuner_scan(&sol, &knobs, &n, &err) != 0)
        return;
    const char *tried[16];
    tuner_proposal p[16];
    int ntried = 0;
    while (ntried < 16 && tuner_propose(knobs, n, tried, ntried, &p[ntried])) {
        tried[ntried] = p[ntried].id;
        ntried++;
    }
    tuner_knobs_free(knobs, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    scan_report rep = {0};
    scan_text("k.c", text, &rep);
    scan_report_free(&rep);
    tune(text, size);
    strbuf clip;
    strbuf_init(&clip);
    prompt_clip(text, size / 2 + 1, &clip);
    strbuf_free(&clip);
    free(text);
    return 0;
}

/* fuzz_edits.c - an agent's reply with edits (SEARCH/REPLACE blocks, a unified diff or fenced
 * whole files): edits_parse, and when it parses, edits_apply to a candidate folder holding one
 * source, k.c, written afresh before every input. */
#include <stdlib.h>
#include <string.h>

#include "edits.h"
#include "fuzz_common.h"

static const char source[] = "#include \"kwb/kernel.h\"\n"
                             "#define BLOCK 128 /* kwb:tune BLOCK {64, 128, 256} */\n"
                             "\n"
                             "int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)\n"
                             "{\n"
                             "    float *out = a[1].data;\n"
                             "    const float *in = a[0].data;\n"
                             "    for (long i = 0; i < a[0].shape[0]; i++)\n"
                             "        out[i] = in[i];\n"
                             "    return 0;\n"
                             "}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *reply = fuzz_text(data, size);
    edit_block *blocks = NULL;
    int n = 0;
    const char *format = NULL;
    kwb_error err;
    if (edits_parse(reply, &blocks, &n, &format, &err) == 0) {
        edits_blocks_free(blocks, n);
        fuzz_dir_file("k.c", source, sizeof source - 1);
        static const char *const sources[] = {"k.c"};
        edits_scope scope = {sources, 1, NULL, 0};
        strbuf report;
        strbuf_init(&report);
        (void)edits_apply(fuzz_dir(), reply, &scope, &report, &err);
        strbuf_free(&report);
    }
    free(reply);
    return 0;
}

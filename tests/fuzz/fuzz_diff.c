/* fuzz_diff.c - a unified diff of agent-written files as the workbench shows it: diff_parse,
 * then every row of both layouts and the hunk jumps. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "tui/diffview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    diff_doc d;
    diff_parse(text, &d);
    for (int sbs = 0; sbs < 2; sbs++) {
        int rows = diff_row_count(&d, sbs);
        for (int r = 0; r < rows; r++)
            (void)diff_row_text(&d, sbs, r);
        (void)diff_next_hunk(&d, sbs, 0, 1);
        (void)diff_next_hunk(&d, sbs, rows, -1);
    }
    diff_free(&d);
    free(text);
    return 0;
}

/* fuzz_ncu.c - Nsight Compute's raw CSV page (ncu --csv --page raw) and the compiler's
 * `-Xptxas -v` report: ncu_parse with every cell read as text and number, and ptxas_parse. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "ncu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ncu_table t;
    kwb_error err;
    if (ncu_parse((const char *)data, size, "fuzz.csv", &t, &err) == 0) {
        for (int r = 0; r < t.nrows; r++)
            for (int c = 0; c < t.ncolumns; c++) {
                (void)ncu_text(&t, r, t.columns[c]);
                (void)ncu_number(&t, r, t.columns[c]);
            }
        ncu_free(&t);
    }
    char *text = fuzz_text(data, size);
    ptxas_usage use[8];
    (void)ptxas_parse(text, use, 8);
    free(text);
    return 0;
}

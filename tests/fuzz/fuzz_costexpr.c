/* fuzz_costexpr.c - a cost expression from a definition's "kwb": {"cost"} member:
 * costexpr_compile over three names, then evaluated. */
#include <stdlib.h>

#include "costexpr.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"batch_size", "num_heads", "tokens"};
    static const int64_t values[] = {7, 32, 1 << 20};
    char *text = fuzz_text(data, size);
    kwb_error err;
    costexpr *e = costexpr_compile(text, names, 3, &err);
    if (e) {
        (void)costexpr_eval(e, values);
        (void)costexpr_text(e);
        costexpr_free(e);
    }
    free(text);
    return 0;
}

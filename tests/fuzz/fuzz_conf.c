/* fuzz_conf.c - the workbench's kwb.conf (`set`, `bind`, `color`, `source` lines):
 * config_apply_text at the deepest `source` level, so that a `source` line is refused rather
 * than reading some file of this machine. */
#include <stdlib.h>

#include "fuzz_common.h"
#include "tui/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    tui_config c;
    config_init(&c);
    config_apply_text(&c, "fuzz.conf", text, 9);
    theme t;
    theme_mono(&t);
    config_apply_colors(&c, &t);
    config_free(&c);
    free(text);
    return 0;
}

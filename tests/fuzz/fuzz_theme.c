/* fuzz_theme.c - a theme file (`color CLASS FG BG [ATTR...]`, `require colors N`):
 * theme_load_file, then every colour downgraded to 8 and 16 colours as a small terminal needs. */
#include "fuzz_common.h"
#include "tui/theme.h"
#include "tui/theme_classes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    theme t;
    kwb_error err;
    if (theme_load_file(fuzz_file(data, size), &t, &err) != 0)
        return 0;
    int bold;
    for (int i = 0; i < TC_COUNT; i++) {
        (void)theme_downgrade(t.style[i].fg, 8, &bold);
        (void)theme_downgrade(t.style[i].bg, 16, &bold);
    }
    return 0;
}

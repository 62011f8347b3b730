/* theme.h - colour themes: `color CLASS FG BG [ATTR...]` and `require colors N` lines from
 * themes/NAME.theme, the fallback list ("default-256 default-8 mono": the first the terminal can
 * show wins) and the monochrome rules used with NO_COLOR, --no-color or no colours at all. */
#ifndef KWB_TUI_THEME_H
#define KWB_TUI_THEME_H

#include "error.h"
#include "tui/theme_classes.h"

enum { TA_BOLD = 1, TA_DIM = 2, TA_REVERSE = 4, TA_UNDERLINE = 8, TA_ITALIC = 16, TA_STANDOUT = 32 };

/* One class's look: colours are -1 (the terminal's default) or 0..255. */
typedef struct theme_style {
    short fg, bg;
    int attrs; /* TA_* bits */
} theme_style;

typedef struct theme {
    char name[64];
    int need_colors; /* from `require colors N`; 0: none (mono) */
    theme_style style[TC_COUNT];
} theme;

/* The monochrome theme: attributes only, no meaning on colour alone. */
void theme_mono(theme *t);
/* Parses one `color` line's words (after "color"): CLASS FG BG [ATTR...] into T. 0, or -1 with
 * *err saying what is wrong (the caller adds FILE:LINE). */
int theme_color_words(theme *t, char **words, int n, kwb_error *err);
/* Loads theme file PATH over the mono base into *T. 0, or -1 with *err "PATH:LINE: problem". */
int theme_load_file(const char *path, theme *t, kwb_error *err);
/* Picks the first theme of the space-separated LIST that DIR holds (DIR/NAME.theme) and that
 * COLORS colours can show; "mono" always fits. NO_COLOR (MONO != 0) forces mono. Fills *T; 0, or -1
 * with *err when a listed file is broken (mono is used then). */
int theme_pick(const char *dir, const char *list, int colors, int mono, theme *t, kwb_error *err);
/* Maps colour C (0..255, or -1) to the nearest of 8 (or 16 when COLORS >= 16); *bold set for a
 * bright colour shown as its base colour plus bold. */
short theme_downgrade(short c, int colors, int *bold);

#endif

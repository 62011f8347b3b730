/* conf.h - the workbench's configuration: `set NAME = VALUE`, `bind SCOPE KEY REQUEST`,
 * `color CLASS FG BG [ATTR...]` and `source FILE` lines, read from $KWB_CONFIG alone when set,
 * else the built-in default (the shipped doc/kwb.conf compiled in) and then
 * $XDG_CONFIG_HOME/kwb/config (~/.config/kwb/config). A bad line is reported as FILE:LINE and
 * skipped; the rest applies. */
#ifndef KWB_TUI_CONF_H
#define KWB_TUI_CONF_H

#include "error.h"
#include "strbuf.h"
#include "tui/request.h"
#include "tui/theme.h"

#include <sys/types.h>

#define CONFIG_SOURCE_DEPTH 8 /* files `source` may nest */
#define CONFIG_SOURCE_MAX 64  /* files `source` may read in all */

typedef struct color_override {
    int cls;
    theme_style style;
} color_override;

typedef struct tui_config {
    char diff_mode[16];     /* auto, side-by-side, unified */
    char line_graphics[16]; /* auto, utf-8, ascii */
    char theme[128];        /* fallback list */
    int mouse;
    int sort_col;
    keymap keys;
    color_override colors[64];
    int ncolors;
    strbuf errors; /* "FILE:LINE: problem" lines */
    int nerrors;
    struct { /* the files being read, outermost first: `source` refuses a cycle */
        dev_t dev;
        ino_t ino;
    } reading[CONFIG_SOURCE_DEPTH + 1];
    int too_deep; /* `source` lines past CONFIG_SOURCE_DEPTH (the first is reported) */
    int nsourced; /* files read by `source` (CONFIG_SOURCE_MAX + 1: the bound was reached) */
} tui_config;

/* The default configuration compiled in from doc/kwb.conf. */
extern const char tui_default_config[];

/* Built-in values, default keys, no overrides. */
void config_init(tui_config *c);
/* Frees what C holds. */
void config_free(tui_config *c);
/* Applies the lines of TEXT, read from LABEL (for messages); DEPTH bounds `source`. */
void config_apply_text(tui_config *c, const char *label, const char *text, int depth);
/* Applies the file PATH; a missing file is fine when OPTIONAL. */
void config_apply_file(tui_config *c, const char *path, int optional, int depth);
/* Applies one line (as the :set/:bind/:color prompt commands do); 0, or -1 with *err. */
int config_apply_line(tui_config *c, const char *label, char *line, int depth, kwb_error *err);
/* Reads the configuration in its order (see above). */
void config_load(tui_config *c);
/* What C holds, as `set` lines, the colour overrides and the number of bindings (--check-config). */
void config_describe(const tui_config *c, strbuf *out);
/* Applies the colour overrides to T. */
void config_apply_colors(const tui_config *c, theme *t);

#endif

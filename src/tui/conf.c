/* conf.c - config lines and files (see conf.h). */
#include "tui/conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "executor.h"
#include "paths.h"
#include "tui/layout.h"
#include "tui/words.h"
#include "xalloc.h"

void config_init(tui_config *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->diff_mode, sizeof c->diff_mode, "auto");
    snprintf(c->line_graphics, sizeof c->line_graphics, "auto");
    snprintf(c->theme, sizeof c->theme, "default-256 default-8 mono");
    keymap_defaults(&c->keys);
    strbuf_init(&c->errors);
}

void config_free(tui_config *c)
{
    strbuf_free(&c->errors);
}

static int set_choice(char *dst, size_t cap, const char *name, const char *v, const char *const *choices,
                      kwb_error *err)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(v, choices[i]) == 0) {
            snprintf(dst, cap, "%s", v);
            return 0;
        }
    return kwb_error_set(err, "set %s: '%s' is not one of the choices", name, v);
}

static int apply_set(tui_config *c, char **w, int n, kwb_error *err)
{
    if (n < 3 || strcmp(w[1], "=") != 0)
        return kwb_error_set(err, "set: want NAME = VALUE");
    static const char *const diff_modes[] = {"auto", "side-by-side", "unified", NULL};
    static const char *const graphics[] = {"auto", "utf-8", "ascii", NULL};
    static const char *const yesno[] = {"yes", "no", NULL};
    if (strcmp(w[0], "diff-mode") == 0)
        return set_choice(c->diff_mode, sizeof c->diff_mode, w[0], w[2], diff_modes, err);
    if (strcmp(w[0], "line-graphics") == 0)
        return set_choice(c->line_graphics, sizeof c->line_graphics, w[0], w[2], graphics, err);
    if (strcmp(w[0], "mouse") == 0) {
        char v[8];
        if (set_choice(v, sizeof v, w[0], w[2], yesno, err) != 0)
            return -1;
        c->mouse = strcmp(v, "yes") == 0;
        return 0;
    }
    if (strcmp(w[0], "executor") == 0) { /* for the kwb eval children, unless set by --executor or env */
        char spec[1024] = "";
        for (int i = 2; i < n; i++)
            snprintf(spec + strlen(spec), sizeof spec - strlen(spec), "%s%s", i > 2 ? " " : "", w[i]);
        executor ex;
        if (executor_parse(spec, &ex, err) != 0)
            return -1;
        executor_stop(&ex);
        setenv("KWB_EXECUTOR", spec, 0);
        return 0;
    }
    if (strcmp(w[0], "theme") == 0) {
        char *dir = paths_themes();
        for (int i = 2; i < n; i++) { /* every name must be a theme: a typo is said, not skipped */
            char *path = xasprintf("%s/%s.theme", dir, w[i]);
            int known = strcmp(w[i], "mono") == 0 || access(path, R_OK) == 0;
            free(path);
            if (!known) {
                kwb_error_set(err, "set theme: unknown theme '%s' (the themes are %s/*.theme, and mono)", w[i], dir);
                free(dir);
                return -1;
            }
        }
        free(dir);
        c->theme[0] = '\0';
        for (int i = 2; i < n; i++)
            snprintf(c->theme + strlen(c->theme), sizeof c->theme - strlen(c->theme), "%s%s", i > 2 ? " " : "", w[i]);
        return 0;
    }
    return kwb_error_set(err, "set: unknown option '%s' (diff-mode, line-graphics, mouse, theme, executor)", w[0]);
}

static int apply_color(tui_config *c, char **w, int n, kwb_error *err)
{
    theme scratch;
    theme_mono(&scratch);
    if (theme_color_words(&scratch, w, n, err) != 0)
        return -1;
    if (c->ncolors >= (int)(sizeof c->colors / sizeof c->colors[0]))
        return kwb_error_set(err, "color: too many overrides");
    int cls = tui_class_find(w[0]);
    c->colors[c->ncolors++] = (color_override){cls, scratch.style[cls]};
    return 0;
}

/* ~/ at the start of PATH means $HOME. */
static char *expand_home(const char *path)
{
    const char *home = getenv("HOME");
    if (path[0] == '~' && path[1] == '/' && home)
        return xasprintf("%s%s", home, path + 1);
    return xstrdup(path);
}

/* `source PATH` read from a file DEPTH deep: refused when PATH is a folder or missing, is one of
 * the files being read (a cycle), is nested too deep, or is one file too many in all. */
static int source_file(tui_config *c, const char *path, int depth, kwb_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return kwb_error_set(err, "source %s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return kwb_error_set(err, "source %s: is a folder, not a file", path);
    for (int i = 0; i <= depth && i <= CONFIG_SOURCE_DEPTH; i++)
        if (c->reading[i].dev == st.st_dev && c->reading[i].ino == st.st_ino)
            return kwb_error_set(err, "source %s: a cycle (the file is already being read)", path);
    if (depth >= CONFIG_SOURCE_DEPTH) /* said once; then skipped quietly */
        return c->too_deep++ ? 0
                             : kwb_error_set(err, "source %s: nested more than %d files deep; skipped", path,
                                             CONFIG_SOURCE_DEPTH);
    if (c->nsourced > CONFIG_SOURCE_MAX) /* said once already: the rest is skipped quietly */
        return 0;
    if (c->nsourced++ == CONFIG_SOURCE_MAX)
        return kwb_error_set(err, "source %s: more than %d files sourced in all; the rest are skipped", path,
                             CONFIG_SOURCE_MAX);
    config_apply_file(c, path, 0, depth + 1);
    return 0;
}

int config_apply_line(tui_config *c, const char *label, char *line, int depth, kwb_error *err)
{
    (void)label;
    char *w[32];
    int n = words_split(line, w, 32);
    if (n == 0)
        return 0;
    if (strcmp(w[0], "set") == 0)
        return apply_set(c, w + 1, n - 1, err);
    if (strcmp(w[0], "bind") == 0)
        return keymap_bind_words(&c->keys, layout_pane_names, w + 1, n - 1, err);
    if (strcmp(w[0], "color") == 0)
        return apply_color(c, w + 1, n - 1, err);
    if (strcmp(w[0], "source") == 0 && n == 2) {
        char *path = expand_home(w[1]);
        int rc = source_file(c, path, depth, err);
        free(path);
        return rc;
    }
    return kwb_error_set(err, "unknown command '%s' (set, bind, color, source)", w[0]);
}

void config_apply_text(tui_config *c, const char *label, const char *text, int depth)
{
    char *copy = xstrdup(text);
    int lineno = 0;
    for (char *line = copy, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        kwb_error err = {{0}};
        if (config_apply_line(c, label, line, depth, &err) != 0) {
            strbuf_printf(&c->errors, "%s:%d: %s\n", label, lineno, err.msg);
            c->nerrors++;
        }
    }
    free(copy);
}

void config_apply_file(tui_config *c, const char *path, int optional, int depth)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        strbuf_printf(&c->errors, "%s: is a folder, not a file\n", path);
        c->nerrors++;
        return;
    }
    if (depth <= CONFIG_SOURCE_DEPTH && stat(path, &st) == 0) { /* the file being read, for cycles */
        c->reading[depth].dev = st.st_dev;
        c->reading[depth].ino = st.st_ino;
    }
    char *text = strbuf_read_file(path, NULL);
    if (!text) {
        if (!optional || errno != ENOENT) {
            strbuf_printf(&c->errors, "%s: cannot read: %s\n", path, strerror(errno));
            c->nerrors++;
        }
        return;
    }
    config_apply_text(c, path, text, depth);
    free(text);
    if (depth <= CONFIG_SOURCE_DEPTH)
        c->reading[depth].dev = 0, c->reading[depth].ino = 0;
}

void config_load(tui_config *c)
{
    const char *only = getenv("KWB_CONFIG");
    if (only && *only) {
        config_apply_file(c, only, 0, 0);
        return;
    }
    config_apply_text(c, "(built-in kwb.conf)", tui_default_config, 0);
    const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
    char *path = xdg && *xdg ? xasprintf("%s/kwb/config", xdg) : home ? xasprintf("%s/.config/kwb/config", home) : NULL;
    if (path)
        config_apply_file(c, path, 1, 0);
    free(path);
}

void config_apply_colors(const tui_config *c, theme *t)
{
    for (int i = 0; i < c->ncolors; i++)
        t->style[c->colors[i].cls] = c->colors[i].style;
}

void config_describe(const tui_config *c, strbuf *out)
{
    strbuf_printf(out, "set diff-mode = %s\nset line-graphics = %s\nset mouse = %s\nset theme = %s\n", c->diff_mode,
                  c->line_graphics, c->mouse ? "yes" : "no", c->theme);
    for (int i = 0; i < c->ncolors; i++)
        strbuf_printf(out, "color %s (fg %d, bg %d, attrs %#x)\n", tui_class_name(c->colors[i].cls),
                      c->colors[i].style.fg, c->colors[i].style.bg, (unsigned)c->colors[i].style.attrs);
    strbuf_printf(out, "%d key binding(s)\n", c->keys.n);
}

/* theme.c - theme files, the fallback list and colour downgrades (see theme.h). */
#include "tui/theme.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "tui/words.h"

static const char *const class_names[] = {
#define TUI_CLASS_NAME(id, name) name,
    TUI_CLASSES(TUI_CLASS_NAME)
#undef TUI_CLASS_NAME
};

const char *tui_class_name(int cls)
{
    return cls >= 0 && cls < TC_COUNT ? class_names[cls] : "?";
}

int tui_class_find(const char *name)
{
    for (int i = 0; i < TC_COUNT; i++)
        if (strcmp(class_names[i], name) == 0)
            return i;
    return -1;
}

void theme_mono(theme *t)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "mono");
    for (int i = 0; i < TC_COUNT; i++)
        t->style[i] = (theme_style){-1, -1, 0};
    static const struct {
        int cls, attrs;
    } rules[] = {
        {TC_TITLE_FOCUS, TA_REVERSE | TA_BOLD},
        {TC_TITLE_BLUR, TA_BOLD},
        {TC_CURSOR, TA_REVERSE},
        {TC_STATUS_LINE, TA_REVERSE},
        {TC_TABLE_HEADER, TA_UNDERLINE},
        {TC_ERROR, TA_BOLD},
        {TC_LATENCY_BAD, TA_BOLD},
        {TC_STATUS_FAILED, TA_BOLD},
        {TC_SPEEDUP_SLOWER, TA_BOLD},
        {TC_SPEEDUP_FASTER, TA_UNDERLINE},
        {TC_DIFF_ADD, TA_BOLD},
        {TC_DIFF_DEL, TA_DIM},
        {TC_DIFF_ADD_EMPH, TA_REVERSE | TA_BOLD},
        {TC_DIFF_DEL_EMPH, TA_REVERSE},
        {TC_DIFF_HUNK, TA_UNDERLINE},
        {TC_DIFF_LINENO, TA_DIM},
        {TC_LOG_ERROR, TA_BOLD},
        {TC_PROPOSAL_REJECTED, TA_DIM},
        {TC_PROPOSAL_ACCEPTED, TA_BOLD},
        {TC_CHART_BEST, TA_BOLD},
        {TC_INTEGRITY_FLAG, TA_REVERSE},
    };
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        t->style[rules[i].cls].attrs = rules[i].attrs;
}

static const char *const colour_names[] = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"};

static int parse_colour(const char *w, short *out)
{
    if (strcmp(w, "default") == 0) {
        *out = -1;
        return 0;
    }
    for (int i = 0; i < 8; i++)
        if (strcmp(w, colour_names[i]) == 0) {
            *out = (short)i;
            return 0;
        }
    if (strncmp(w, "color", 5) == 0)
        w += 5;
    char *end;
    long v = strtol(w, &end, 10);
    if (!*w || *end || v < 0 || v > 255)
        return -1;
    *out = (short)v;
    return 0;
}

static int parse_attr(const char *w)
{
    static const struct {
        const char *name;
        int bit;
    } attrs[] = {
        {"normal", 0},
        {"bold", TA_BOLD},
        {"dim", TA_DIM},
        {"reverse", TA_REVERSE},
        {"underline", TA_UNDERLINE},
        {"italic", TA_ITALIC},
        {"standout", TA_STANDOUT},
    };
    for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
        if (strcmp(w, attrs[i].name) == 0)
            return attrs[i].bit;
    return -1;
}

int theme_color_words(theme *t, char **words, int n, kwb_error *err)
{
    if (n < 3)
        return kwb_error_set(err, "color: want CLASS FG BG [ATTR...]");
    int cls = tui_class_find(words[0]);
    if (cls < 0)
        return kwb_error_set(err, "color: unknown class '%s'", words[0]);
    theme_style st = {-1, -1, 0};
    if (parse_colour(words[1], &st.fg) != 0 || parse_colour(words[2], &st.bg) != 0)
        return kwb_error_set(err, "color %s: '%s %s' is not a colour (default, black..white, colorN, 0-255)", words[0],
                             words[1], words[2]);
    for (int i = 3; i < n; i++) {
        int a = parse_attr(words[i]);
        if (a < 0)
            return kwb_error_set(err, "color %s: unknown attribute '%s'", words[0], words[i]);
        st.attrs |= a;
    }
    t->style[cls] = st;
    return 0;
}

int theme_load_file(const char *path, theme *t, kwb_error *err)
{
    char *text = strbuf_read_file(path, NULL);
    if (!text)
        return kwb_error_set(err, "%s: cannot read: %s", path, strerror(errno));
    theme_mono(t);
    const char *base = strrchr(path, '/');
    snprintf(t->name, sizeof t->name, "%s", base ? base + 1 : path);
    char *dot = strrchr(t->name, '.');
    if (dot)
        *dot = '\0';
    int lineno = 0, rc = 0;
    for (char *line = text, *next; line && rc == 0; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        lineno++;
        char *w[16];
        int n = words_split(line, w, 16);
        if (n == 0)
            continue;
        if (strcmp(w[0], "color") == 0)
            rc = theme_color_words(t, w + 1, n - 1, err);
        else if (strcmp(w[0], "require") == 0 && n == 3 && strcmp(w[1], "colors") == 0 && atoi(w[2]) > 0)
            t->need_colors = atoi(w[2]);
        else
            rc = kwb_error_set(err, "unknown line '%s' (want color or require colors N)", w[0]);
        if (rc != 0)
            kwb_error_prefix(err, "%s:%d", path, lineno);
    }
    free(text);
    return rc;
}

int theme_pick(const char *dir, const char *list, int colors, int mono, theme *t, kwb_error *err)
{
    theme_mono(t);
    if (mono)
        return 0;
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    for (char *name = strtok_r(copy, " \t,", &save); name; name = strtok_r(NULL, " \t,", &save)) {
        if (strcmp(name, "mono") == 0)
            break;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.theme", dir, name);
        theme cand;
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        fclose(f);
        if (theme_load_file(path, &cand, err) != 0) {
            rc = -1;
            continue;
        }
        if (cand.need_colors <= colors) {
            *t = cand;
            break;
        }
    }
    free(copy);
    return rc;
}

short theme_downgrade(short c, int colors, int *bold)
{
    *bold = 0;
    if (c < 0 || c < colors)
        return c;
    int base;
    if (c < 16) {
        base = c;
    } else if (c >= 232) {
        int level = (c - 232) * 10 + 8;
        base = level < 64 ? 0 : level < 160 ? 8 : level < 224 ? 7 : 15;
    } else { /* the 6x6x6 cube: each channel above half becomes that primary */
        int v = c - 16, r = v / 36, g = (v / 6) % 6, b = v % 6, hi = r >= 4 || g >= 4 || b >= 4;
        base = (r >= 2 ? 1 : 0) | (g >= 2 ? 2 : 0) | (b >= 2 ? 4 : 0);
        if (base == 0 && (r + g + b) >= 3)
            base = 8;
        else if (hi && base != 0)
            base += 8;
    }
    if (base >= colors) {
        *bold = base >= 8;
        base -= 8;
    }
    return (short)base;
}

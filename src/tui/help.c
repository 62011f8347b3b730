/* help.c - the help screen's text and the ':' completion (see help.h). */
#define _GNU_SOURCE
#include "tui/help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/command.h"
#include "xalloc.h"

/* The first request of each group and the group's title. */
static const struct {
    int first;
    const char *title;
} groups[] = {
    {REQ_DOWN, "Moving"},        {REQ_ENTER, "Opening, finding, sorting"},
    {REQ_ACCEPT, "The round"},   {REQ_REFRESH, "The screen"},
    {REQ_DIFF_MODE, "The diff"}, {REQ_QUIT, "Leaving"},
};

static void add(char ***lines, int *n, char *line)
{
    *lines = xrealloc(*lines, (size_t)(*n + 1) * sizeof **lines);
    (*lines)[(*n)++] = line;
}

/* The width of the keys column: the longest binding of KM (at least 16, at most 28 columns). */
static int keys_width(const keymap *km)
{
    int w = 16;
    for (int r = 1; r < REQ_COUNT; r++) {
        char keys[96];
        keymap_keys_of(km, r, keys, sizeof keys);
        int len = (int)strlen(keys);
        w = len > w ? len : w;
    }
    return w > 28 ? 28 : w;
}

int help_build(const keymap *km, char ***lines)
{
    int n = 0, w = keys_width(km);
    *lines = NULL;
    add(lines, &n, xstrdup("Keys (KEYS  REQUEST  what it does; every request is also a ':' command):"));
    for (int r = 1; r < REQ_COUNT; r++) {
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            if (groups[g].first == r)
                add(lines, &n, xasprintf("-- %s", groups[g].title));
        char keys[96];
        keymap_keys_of(km, r, keys, sizeof keys);
        add(lines, &n, xasprintf(" %-*s %-14s %s", w, keys[0] ? keys : "(unbound)", request_name(r), request_help(r)));
        if (r == REQ_PANE_RIGHT)
            add(lines, &n,
                xasprintf(" %-*s %-14s %s", w, "1 2 3 4 5 6", "", "focus that pane (the numbers on the titles)"));
    }
    add(lines, &n, xstrdup("-- ':' commands (Tab completes; any request name above too):"));
    for (int i = 0; tui_commands[i].name; i++)
        add(lines, &n,
            xasprintf(" :%s%s%s  %s", tui_commands[i].name, tui_commands[i].args[0] ? " " : "", tui_commands[i].args,
                      tui_commands[i].help));
    return n;
}

int help_wrap(const char *text, int width, char ***lines)
{
    int n = 0;
    *lines = NULL;
    width = width < 20 ? 20 : width;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n"), take = len;
        if ((int)len > width) { /* the last blank within the width, else a hard cut */
            take = (size_t)width;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0)
                take = (size_t)width;
        }
        add(lines, &n, xasprintf(" %.*s", (int)take, p));
        p += take;
        while (*p == ' ' && take < len)
            p++;
        if (*p == '\n')
            p++;
    }
    return n;
}

void help_free(char **lines, int n)
{
    for (int i = 0; i < n; i++)
        free(lines[i]);
    free(lines);
}

/* Completes WORD (the last word of the input, CAP bytes from it) among NAMES[N]. */
static int complete_among(char *word, size_t cap, const char *const *names, int n, char *choices, size_t ccap)
{
    size_t len = strlen(word), used = 0;
    int matches = 0;
    char common[128] = "";
    choices[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], word, len) != 0)
            continue;
        if (matches++ == 0) {
            snprintf(common, sizeof common, "%s", names[i]);
        } else {
            size_t k = 0;
            while (common[k] && common[k] == names[i][k])
                k++;
            common[k] = '\0';
        }
        if (used + strlen(names[i]) + 2 < ccap)
            used += (size_t)snprintf(choices + used, ccap - used, "%s%s", used ? " " : "", names[i]);
    }
    if (matches >= 1 && strlen(common) >= len)
        snprintf(word, cap, "%s%s", common, matches == 1 ? " " : "");
    if (matches == 1)
        choices[0] = '\0';
    return matches;
}

int help_complete(char *input, size_t cap, char *choices, size_t choices_cap)
{
    const char *names[REQ_COUNT + 64];
    int n = 0;
    char *space = strchr(input, ' ');
    if (!space) {
        for (int r = 1; r < REQ_COUNT; r++)
            names[n++] = request_name(r);
        for (int i = 0; tui_commands[i].name; i++)
            names[n++] = tui_commands[i].name;
        return complete_among(input, cap, names, n, choices, choices_cap);
    }
    if (strncmp(input, "set ", 4) == 0 && !strchr(input + 4, ' ')) {
        static const char *const options[] = {"diff-mode", "line-graphics", "mouse", "theme"};
        return complete_among(input + 4, cap - 4, options, 4, choices, choices_cap);
    }
    choices[0] = '\0';
    return 0;
}

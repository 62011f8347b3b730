/* state.c - the workbench's remembered state (see state.h). */
#define _GNU_SOURCE
#include "tui/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "strbuf.h"
#include "tui/views.h"
#include "xalloc.h"

#define STATE_VERSION 1

/* The state folder, or NULL when neither $XDG_STATE_HOME nor $HOME is set. */
static char *state_dir(void)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    if (xdg && *xdg)
        return xasprintf("%s/kwb", xdg);
    return home && *home ? xasprintf("%s/.local/state/kwb", home) : NULL;
}

void state_load(tui_app *a)
{
    char *dir = state_dir();
    if (!dir)
        return;
    char *path = xasprintf("%s/state", dir);
    char *text = strbuf_read_file(path, NULL);
    int version = 0, bad = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char word[32], rest[300] = "";
        if (sscanf(line, "%31s %299[^\n]", word, rest) < 1)
            continue;
        if (strcmp(word, "version") == 0)
            version = atoi(rest);
        else if (version != STATE_VERSION)
            bad = 1;
        else if (strcmp(word, "focus") == 0) {
            for (int p = 1; p < PANE_COUNT; p++)
                if (strcmp(rest, layout_pane_names[p]) == 0)
                    a->focus = p;
        } else if (strcmp(word, "sort") == 0) {
            a->wl.sort_col = atoi(rest) % workloads_columns();
            a->wl.sort_desc = strstr(rest, "desc") != NULL;
        } else if (strcmp(word, "filter") == 0) {
            kwb_error err = {{0}};
            bad |= workloads_set_filter(a, rest, &err) != 0;
        }
    }
    if (text && (bad || version != STATE_VERSION)) { /* keep it for a look, use the defaults */
        char *aside = xasprintf("%s.bad", path);
        rename(path, aside);
        free(aside);
    }
    workloads_apply(a); /* the restored sort and filter order the rows, not only the header */
    free(text);
    free(path);
    free(dir);
}

int state_save(const tui_app *a)
{
    char *dir = state_dir();
    if (!dir)
        return -1;
    int rc = -1;
    char *path = xasprintf("%s/state", dir), *tmp = xasprintf("%s/state.XXXXXX", dir);
    if (paths_mkdir_p(dir) == 0) {
        chmod(dir, 0700);
        int fd = mkstemp(tmp);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (f) {
            fprintf(f, "version %d\nfocus %s\nsort %d%s\n", STATE_VERSION, layout_pane_names[a->focus], a->wl.sort_col,
                    a->wl.sort_desc ? " desc" : "");
            if (a->wl.filter[0])
                fprintf(f, "filter %s\n", a->wl.filter);
            fflush(f);
            fchmod(fd, 0600);
            rc = fsync(fd) == 0 && fclose(f) == 0 && rename(tmp, path) == 0 ? 0 : -1;
            if (rc != 0)
                unlink(tmp);
        } else if (fd >= 0) {
            close(fd);
        }
    }
    free(tmp);
    free(path);
    free(dir);
    return rc;
}

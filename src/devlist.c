#define _GNU_SOURCE
#include "devlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "strbuf.h"
#include "xalloc.h"

int devlist_runner(const char *runner, char ***out, kwb_error *err)
{
    char *argv[] = {(char *)runner, "--list-devices", NULL};
    int code = -1;
    char *text = proc_run_captured(argv, NULL, 60, &code, err), *save = NULL;
    if (!text || code != 0) {
        free(text);
        return kwb_error_set(err, "cannot list devices with %s", runner);
    }
    int n = 0;
    *out = NULL;
    for (char *line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
        *out = xrealloc(*out, sizeof **out * (size_t)(n + 1));
        (*out)[n++] = xstrndup(line, strcspn(line, " \t"));
    }
    free(text);
    return n;
}

int devlist_usable(char **names, int n, char **seen, int nseen, kwb_error *err)
{
    for (int i = 0; i < n; i++) {
        if (strncmp(names[i], "cuda", 4) != 0)
            continue;
        const char *want = strcmp(names[i], "cuda") == 0 ? "cuda:0" : names[i];
        int found = 0;
        for (int k = 0; k < nseen && !found; k++)
            found = strcmp(seen[k], want) == 0;
        if (!found) {
            strbuf sb;
            strbuf_init(&sb);
            for (int k = 0; k < nseen; k++)
                strbuf_printf(&sb, "%s%s", k ? ", " : "", seen[k]);
            kwb_error_set(err, "--device %s: no usable GPU of that name: the runner sees %s", names[i],
                          nseen ? sb.s : "no device");
            strbuf_free(&sb);
            return -1;
        }
    }
    return 0;
}

int devlist_check(const char *runner, const char *device, kwb_error *err)
{
    if (strncmp(device, "cuda", 4) != 0)
        return 0;
    char **seen = NULL, *name = (char *)device;
    int nseen = devlist_runner(runner, &seen, err);
    int rc = nseen < 0 ? -1 : devlist_usable(&name, 1, seen, nseen, err);
    for (int k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    return rc;
}

#include "traceset.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "strbuf.h"
#include "suggest.h"
#include "xalloc.h"

/* Depth-first search under DIR for a regular file named FILE; first in name order wins. */
static char *find_file(const char *dir, const char *file, int depth)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        return NULL;
    char *found = NULL;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        if (!found && nm[0] != '.') {
            char *path = xasprintf("%s/%s", dir, nm);
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && strcmp(nm, file) == 0)
                found = xstrdup(path);
            else if (depth < 8 && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                found = find_file(path, file, depth + 1);
            free(path);
        }
        free(names[i]);
    }
    free(names);
    return found;
}

/* Adds the names (without EXT) of the files under DIR ending in EXT to *NAMES. */
static void list_names(const char *dir, const char *ext, char ***names, size_t *n, int depth)
{
    struct dirent **ents;
    int k = scandir(dir, &ents, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        const char *nm = ents[i]->d_name;
        size_t len = strlen(nm), le = strlen(ext);
        char *path = xasprintf("%s/%s", dir, nm);
        struct stat st;
        if (nm[0] != '.' && stat(path, &st) == 0) {
            if (S_ISREG(st.st_mode) && len > le && strcmp(nm + len - le, ext) == 0) {
                *names = xrealloc(*names, sizeof **names * (*n + 1));
                (*names)[(*n)++] = xstrndup(nm, len - le);
            } else if (S_ISDIR(st.st_mode) && depth < 8)
                list_names(path, ext, names, n, depth + 1);
        }
        free(path);
        free(ents[i]);
    }
    if (k >= 0)
        free(ents);
}

/* "no NAME.EXT under SUB/", with the nearest known name and the known ones (up to 60). */
static void not_found(const char *root, const char *sub, const char *name, const char *ext, kwb_error *err)
{
    char *dir = xasprintf("%s/%s", root, sub);
    char **names = NULL;
    size_t n = 0;
    list_names(dir, ext, &names, &n, 0);
    free(dir);
    if (n == 0) {
        kwb_error_set(err, "%s: no %s%s under %s/ (is %s a TraceSet root?)", root, name, ext, sub, root);
        return;
    }
    const char *near = suggest_closest(name, (const char *const *)names, n);
    strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < n && i < 60; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", names[i]);
    if (n > 60)
        strbuf_printf(&sb, " and %zu more", n - 60);
    kwb_error_set(err, "%s: no %s%s under %s/%s%s%s; known: %s", root, name, ext, sub, near ? " (did you mean '" : "",
                  near ? near : "", near ? "'?)" : "", sb.s);
    strbuf_free(&sb);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static char *find_in(const char *root, const char *sub, const char *name, const char *ext, kwb_error *err)
{
    char *dir = xasprintf("%s/%s", root, sub);
    char *file = xasprintf("%s%s", name, ext);
    char *path = find_file(dir, file, 0);
    if (!path)
        not_found(root, sub, name, ext, err);
    free(dir);
    free(file);
    return path;
}

char *traceset_definition_path(const char *root, const char *name, kwb_error *err)
{
    return find_in(root, "definitions", name, ".json", err);
}

char *traceset_workloads_path(const char *root, const char *name, kwb_error *err)
{
    return find_in(root, "workloads", name, ".jsonl", err);
}

int traceset_load(const char *root, const char *name, definition **def, workload_set *set, kwb_error *err)
{
    char *dpath = traceset_definition_path(root, name, err);
    if (!dpath)
        return -1;
    definition *d = definition_load(dpath, err);
    free(dpath);
    if (!d)
        return -1;
    if (strcmp(d->name, name) != 0) {
        kwb_error_set(err, "%s: file is named for '%s' but defines '%s'", d->path, name, d->name);
        definition_free(d);
        return -1;
    }
    char *wpath = traceset_workloads_path(root, name, err);
    int rc = wpath ? workload_load_file(wpath, d, set, err) : -1;
    free(wpath);
    if (rc != 0) {
        definition_free(d);
        return -1;
    }
    *def = d;
    return 0;
}

char *traceset_blob_path(const char *root, const char *path)
{
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return xasprintf("%s/%s", root, path);
}

char *traceset_held_out_path(const char *root, const char *name)
{
    return xasprintf("%s/heldout/%s.jsonl", root, name);
}

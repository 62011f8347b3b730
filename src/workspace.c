#define _GNU_SOURCE
#include "workspace.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

static char *absolute(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : xstrdup(p);
}

static void fill(workspace *ws, const char *root, const char *repo)
{
    ws->root = absolute(root);
    ws->db_path = xasprintf("%s/kwb.db", ws->root);
    if (!repo)
        ws->repo_path = xasprintf("%s/candidates.git", ws->root);
    else if (repo[0] == '/')
        ws->repo_path = xstrdup(repo);
    else
        ws->repo_path = xasprintf("%s/%s", ws->root, repo);
}

int workspace_create(const char *dir, const char *repo, workspace *ws, kwb_error *err)
{
    if (paths_mkdir_p(dir) != 0)
        return kwb_error_set(err, "%s: cannot create: %s", dir, strerror(errno));
    char *marker = xasprintf("%s/%s", dir, WORKSPACE_MARKER);
    if (access(marker, F_OK) == 0) {
        kwb_error_set(err, "%s: already a kwb workspace", dir);
        free(marker);
        return -1;
    }
    char *repo_abs = repo ? absolute(repo) : NULL;
    json_t *o = json_pack("{s:i, s:s?}", "version", 1, "repo", repo_abs);
    char *tmp = xasprintf("%s.tmp.%ld", marker, (long)getpid());
    int rc = json_dump_file(o, tmp, JSON_INDENT(2)) == 0 && rename(tmp, marker) == 0 ? 0 : -1;
    if (rc != 0) {
        kwb_error_set(err, "%s: cannot write: %s", marker, strerror(errno));
        unlink(tmp);
    } else
        fill(ws, dir, repo_abs);
    json_decref(o);
    free(tmp);
    free(marker);
    free(repo_abs);
    return rc;
}

/* Reads the marker in DIR into *ws. */
static int load_marker(const char *dir, workspace *ws, kwb_error *err)
{
    char *marker = xasprintf("%s/%s", dir, WORKSPACE_MARKER);
    json_error_t jerr;
    json_t *o = json_load_file(marker, 0, &jerr);
    int rc = 0;
    if (!o)
        rc = kwb_error_set(err, "%s:%d: %s", marker, jerr.line > 0 ? jerr.line : 1, jerr.text);
    else if (json_integer_value(json_object_get(o, "version")) != 1)
        rc = kwb_error_set(err, "%s:1: unknown workspace version (this kwb reads version 1)", marker);
    else
        fill(ws, dir, json_string_value(json_object_get(o, "repo")));
    json_decref(o);
    free(marker);
    return rc;
}

int workspace_find(const char *explicit_dir, workspace *ws, kwb_error *err)
{
    memset(ws, 0, sizeof *ws);
    const char *env = getenv("KWB_WORKSPACE");
    const char *given = explicit_dir ? explicit_dir : (env && *env ? env : NULL);
    if (given) {
        char *marker = xasprintf("%s/%s", given, WORKSPACE_MARKER);
        int there = access(marker, F_OK) == 0;
        free(marker);
        if (!there)
            return kwb_error_set(err, "%s is not a kwb workspace (no %s; run kwb init %s)", given, WORKSPACE_MARKER,
                                 given);
        return load_marker(given, ws, err);
    }
    char dir[PATH_MAX];
    if (!getcwd(dir, sizeof dir))
        return kwb_error_set(err, "cannot read the current folder: %s", strerror(errno));
    for (;;) {
        char *marker = xasprintf("%s/%s", dir, WORKSPACE_MARKER);
        int there = access(marker, F_OK) == 0;
        free(marker);
        if (there)
            return load_marker(dir, ws, err);
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            break;
        *slash = '\0';
    }
    return kwb_error_set(err, "no kwb workspace here or above (run kwb init, or give --workspace DIR or "
                              "KWB_WORKSPACE)");
}

void workspace_free(workspace *ws)
{
    free(ws->root);
    free(ws->db_path);
    free(ws->repo_path);
    memset(ws, 0, sizeof *ws);
}

#include "wsopen.h"

#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

int wsopen(const char *dir, int readonly, ws_handle *h, kwb_error *err)
{
    memset(h, 0, sizeof *h);
    if (workspace_find(dir, &h->ws, err) != 0)
        return -1;
    h->st = store_open(h->ws.db_path, readonly, err);
    if (h->st)
        h->ar = archive_open(h->ws.repo_path, 0, err);
    if (!h->st || !h->ar) {
        wsclose(h);
        return -1;
    }
    return 0;
}

void wsclose(ws_handle *h)
{
    archive_close(h->ar);
    store_close(h->st);
    workspace_free(&h->ws);
    memset(h, 0, sizeof *h);
}

int wsopen_session(ws_handle *h, const char *name, int64_t *id, kwb_error *err)
{
    if (name) {
        int found = store_session_find(h->st, name, id, err);
        if (found < 0)
            return -1;
        return found ? 0 : kwb_error_set(err, "no session '%s' in %s (kwb sessions lists them)", name, h->ws.root);
    }
    store_session *all = NULL;
    int n = 0;
    if (store_session_list(h->st, &all, &n, err) != 0)
        return -1;
    int rc = n > 0 ? 0 : kwb_error_set(err, "%s has no session yet (kwb eval --session NAME starts one)", h->ws.root);
    if (n > 0)
        *id = all[n - 1].id;
    store_session_list_free(all, n);
    return rc;
}

int wsopen_candidate(ws_handle *h, int64_t session, const char *ref, store_candidate *out, kwb_error *err)
{
    int found = store_candidate_find(h->st, session, ref, out, err);
    if (found < 0)
        return -1;
    return found ? 0 : kwb_error_set(err, "no candidate '%s' in this session (kwb log lists them)", ref);
}

char *wsopen_candidate_folder(ws_handle *h, const char *session_name, const store_candidate *c, kwb_error *err)
{
    if (c->solution_dir) {
        char *json = xasprintf("%s/solution.json", c->solution_dir);
        int here = access(json, R_OK) == 0;
        free(json);
        if (here)
            return xstrdup(c->solution_dir);
    }
    if (!c->commit || !h->ar) {
        kwb_error_set(err, "candidate %s: its folder %s is gone and it has no archived commit", c->name,
                      c->solution_dir ? c->solution_dir : "(none)");
        return NULL;
    }
    char *parent = xasprintf("%s/run/%s/archived", h->ws.root, session_name);
    char *dir = xasprintf("%s/%s", parent, c->name);
    paths_remove_tree(dir); /* afresh: an older checkout may be partial */
    int rc = paths_mkdir_p(parent) != 0 ? kwb_error_set(err, "%s: cannot make the folder", parent)
                                        : archive_checkout(h->ar, c->commit, dir, err);
    if (rc != 0) {
        free(parent);
        free(dir);
        return NULL;
    }
    free(parent);
    return dir;
}

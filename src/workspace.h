/* workspace.h - a kwb workspace: a folder holding kwb.workspace (its marker and settings),
 * kwb.db (the session store) and the candidate archive (a bare git repository in the
 * folder, or the user's own kernel repository when kwb init was given --repo). */
#ifndef KWB_WORKSPACE_H
#define KWB_WORKSPACE_H

#include "error.h"

typedef struct workspace {
    char *root;      /* absolute folder */
    char *db_path;   /* ROOT/kwb.db */
    char *repo_path; /* the archive repository */
} workspace;

/* The marker file's name, found by searching upward from the current folder. */
#define WORKSPACE_MARKER "kwb.workspace"

/* Writes the marker of a new workspace in DIR (created when missing) naming REPO (NULL:
 * DIR/candidates.git). Fails when DIR already holds a workspace. The caller then creates
 * the store and the archive. Fills *ws on success (free with workspace_free). */
int workspace_create(const char *dir, const char *repo, workspace *ws, kwb_error *err);
/* Finds the workspace: EXPLICIT when not NULL, else $KWB_WORKSPACE, else the nearest folder
 * upward from the current one holding the marker. Returns 0 and fills *ws, or -1 with *err
 * saying where it looked. */
int workspace_find(const char *explicit_dir, workspace *ws, kwb_error *err);
/* Frees ws's strings. */
void workspace_free(workspace *ws);

#endif

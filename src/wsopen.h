/* wsopen.h - the workspace as commands use it: found, with its store and archive open. */
#ifndef KWB_WSOPEN_H
#define KWB_WSOPEN_H

#include <stdint.h>

#include "archive.h"
#include "error.h"
#include "store.h"
#include "workspace.h"

typedef struct ws_handle {
    workspace ws;
    store *st;
    archive *ar;
} ws_handle;

/* Finds the workspace (DIR, else $KWB_WORKSPACE, else upward) and opens its store
 * (read-only when READONLY) and archive. Returns 0, or -1 with *err set and nothing open. */
int wsopen(const char *dir, int readonly, ws_handle *h, kwb_error *err);
/* Closes what h holds. */
void wsclose(ws_handle *h);
/* The session named NAME, or the newest session when NAME is NULL: 0 with *id set, or -1
 * with *err set (no such session, or none at all). */
int wsopen_session(ws_handle *h, const char *name, int64_t *id, kwb_error *err);
/* Candidate REF of SESSION (a name or a commit prefix): 0 with *out set (free with
 * store_candidate_free), or -1 with *err naming what was not found. */
int wsopen_candidate(ws_handle *h, int64_t session, const char *ref, store_candidate *out, kwb_error *err);
/* The folder holding candidate C's files: its recorded solution folder while that still holds a
 * solution.json, else a checkout of its archived commit under WS/run/SESSION_NAME/archived/NAME
 * (made afresh). Returns a string to free, or NULL with *err set. */
char *wsopen_candidate_folder(ws_handle *h, const char *session_name, const store_candidate *c, kwb_error *err);

#endif

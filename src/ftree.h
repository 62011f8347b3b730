/* ftree.h - small folder trees of source files (a candidate's folder): list their regular
 * files, copy one tree to another, and the unified diff between two trees. */
#ifndef KWB_FTREE_H
#define KWB_FTREE_H

#include "error.h"
#include "strbuf.h"

/* The paths (relative, '/'-separated, sorted) of the regular files and symlinks below DIR into
 * *out[*n], leaving out `.git` folders. Returns 0, or -1 with *err set; free with
 * ftree_list_free(). */
int ftree_list(const char *dir, char ***out, int *n, kwb_error *err);
/* Frees a list from ftree_list. */
void ftree_list_free(char **list, int n);
/* Copies every regular file below SRC (leaving out `.git`) into DST, made when missing;
 * symlinks are refused. Returns 0, or -1 with *err set. */
int ftree_copy(const char *src, const char *dst, kwb_error *err);
/* Makes DIR a git repository (non-bare) whose one commit, on HEAD, holds every file of DIR with
 * MESSAGE, so that a CLI agent working in it sees a clean tree (`git diff` shows its own
 * changes; `codex exec` wants a repository). Returns 0, or -1 with *err set. */
int ftree_git_snapshot(const char *dir, const char *message, kwb_error *err);
/* Appends to OUT the unified diff (a/ and b/ paths, git's patch format) from the tree OLD_DIR to
 * NEW_DIR: changed, added and removed files. Returns 0, or -1 with *err set. */
int ftree_diff(const char *old_dir, const char *new_dir, strbuf *out, kwb_error *err);

#endif

/* archive.h - the candidate archive: every candidate is a git commit built from its files
 * in the object database only (never the repository's index, work tree or HEAD), named by
 * refs/kwb/<session>/<candidate>; promoted kernels get annotated tags <definition>/v<N>;
 * rejected candidates stay reachable under refs/kwb/rejected/<name>. Built on libgit2. Refs
 * change only under the repository's writer lock (kwb-writer.lock, an flock), so that the lock
 * files of a kwb killed mid-change are known stale and removed. */
#ifndef KWB_ARCHIVE_H
#define KWB_ARCHIVE_H

#include "error.h"
#include "solution.h"
#include "strbuf.h"

/* An open repository; opaque. */
typedef struct archive archive;

/* Opens the repository at PATH (bare, or a work tree with .git; parents are not searched);
 * with CREATE, a PATH that is not yet a repository becomes a new bare one. Returns NULL and
 * sets *err on failure; close with archive_close(). */
archive *archive_open(const char *path, int create, kwb_error *err);
/* Closes the repository and releases its share of libgit2's global state; NULL is allowed. */
void archive_close(archive *a);

/* Makes NAME a single valid ref component: bytes other than [A-Za-z0-9._+-] become '-',
 * "..", a leading or trailing '.' and a trailing ".lock" are broken up. Returns a new string
 * the caller frees, or NULL and sets *err when nothing valid remains (NAME empty). */
char *archive_ref_component(const char *name, kwb_error *err);

/* Commits FILES (relative paths, "sub/x.cu" makes a subtree; each 0644) with PARENT (a
 * commit spec as archive_resolve() takes it, or NULL for a root commit) and MESSAGE, by
 * "kwb <kwb@localhost>" now, then points refs/kwb/SESSION/CANDIDATE_NAME (both made ref
 * components) at it. Writes the commit's hex id to OID_OUT. Returns 0, or -1 and sets *err
 * (no files, a bad or repeated path, an unknown parent, session "rejected"). */
int archive_commit(archive *a, const char *session, const char *candidate_name, const solution_source *files,
                   int nfiles, const char *parent, const char *message, char oid_out[41], kwb_error *err);

/* Deletes every ref refs/kwb/SESSION/NAME whose commit KNOWN does not list (KNOWN[0..nknown), hex
 * ids): what a kwb killed, or stopped by a full disk, between its commit and the store's record
 * left. The names removed go into *removed (a count; may be NULL). Returns 0, or -1 with *err. */
int archive_prune_unrecorded(archive *a, const char *session, const char *const *known, int nknown, int *removed,
                             kwb_error *err);

/* Creates the annotated tag DEFINITION/v<N> on commit SPEC with MESSAGE (the evidence), N
 * being 1 + the highest existing DEFINITION/v<k>; writes the tag's name to TAG_NAME_OUT.
 * Returns 0, or -1 and sets *err. */
int archive_tag_promoted(archive *a, const char *definition, const char *spec, const char *message,
                         char tag_name_out[256], kwb_error *err);

/* Points refs/kwb/rejected/NAME (made a ref component) at commit SPEC so that it stays
 * reachable. Marking the same commit again succeeds; a NAME already used for another commit
 * is an error. Returns 0, or -1 and sets *err. */
int archive_mark_rejected(archive *a, const char *spec, const char *name, kwb_error *err);

/* Deletes the newest promotion tag DEFINITION/v<N> on commit SPEC (a promotion taken back);
 * TAG_NAME_OUT gets its name, "" when there was none. Returns 0, or -1 and sets *err. */
int archive_untag_promoted(archive *a, const char *definition, const char *spec, char tag_name_out[256],
                           kwb_error *err);
/* Deletes refs/kwb/rejected/NAME (a rejection taken back); none is fine. 0, or -1 with *err. */
int archive_unmark_rejected(archive *a, const char *name, kwb_error *err);

/* Resolves SPEC (a full or abbreviated id, a ref or tag name, or SESSION/CANDIDATE under
 * refs/kwb/) to a commit and writes its hex id to OID_OUT. Returns 0, or -1 and sets *err. */
int archive_resolve(archive *a, const char *spec, char oid_out[41], kwb_error *err);

/* Writes the files of commit SPEC into DIR (created with its parents; refused when it
 * exists and is not empty), files 0644 and folders 0755; nothing else is touched. Returns
 * 0, or -1 and sets *err (DIR may then hold part of the files). */
int archive_checkout(archive *a, const char *spec, const char *dir, kwb_error *err);

/* Reads the files of commit SPEC, sorted by path, into a new array (*files, *n; contents
 * NUL-terminated). Returns 0, or -1 and sets *err; free with archive_files_free(). */
int archive_read_files(archive *a, const char *spec, solution_source **files, int *n, kwb_error *err);
/* Frees an array from archive_read_files(); NULL is allowed. */
void archive_files_free(solution_source *files, int n);

/* Appends to OUT the unified diff (git's patch format) from commit OLD_SPEC's tree, or the
 * empty tree when OLD_SPEC is NULL, to commit NEW_SPEC's. Returns 0, or -1 and sets *err. */
int archive_diff(archive *a, const char *old_spec, const char *new_spec, strbuf *out, kwb_error *err);

#endif

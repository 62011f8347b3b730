/* edits.h - an agent's reply applied to a candidate folder (DESIGN.md section 11; the formats and
 * rules of shared/reference/AGENT-PROTOCOLS.md section 6).
 *
 * Formats, tried in this order: SEARCH/REPLACE blocks (seven `<`, `=`, `>` markers, each block
 * optionally preceded by a line naming its file), a unified diff (`--- a/F`, `+++ b/F`, `@@`
 * hunks), fenced whole files (```lang PATH, or a path line before the fence; with one editable
 * file a single fence is that file). Matching: exact lines, then ignoring trailing whitespace,
 * then ignoring indentation and runs of blanks (REPLACE re-indented by the same shift); the first
 * pass that matches must match exactly once; a block that matches nowhere is tried once more
 * without the blank lines around its SEARCH and REPLACE parts. All or nothing: the blocks are applied in memory,
 * then written to a scratch copy of the folder that replaces it by rename.
 *
 * Scope: the path is normalised first ("././a", "d/../a", "a//b"); it must be relative, without `..`, not through a
 * symlink, not solution.json, and either one of the candidate's own sources or matched by one of the direction's scope
 * globs (fnmatch, `*` crossing `/`). */
#ifndef KWB_EDITS_H
#define KWB_EDITS_H

#include "error.h"
#include "strbuf.h"

/* Which files an edit may touch. */
typedef struct edits_scope {
    const char *const *sources; /* the candidate's own files (relative paths): always editable */
    int nsources;
    const char *const *globs; /* the direction's scope globs: further files, new ones included */
    int nglobs;
} edits_scope;

/* One parsed edit. */
typedef struct edit_block {
    char *path;    /* relative path the block names, or NULL (then the only source) */
    char *search;  /* lines to find (each ending in '\n'); "" for a new file */
    char *replace; /* lines that replace them, or the whole file */
    int whole;     /* 1: REPLACE is the whole new content of PATH */
    int line;      /* line of the reply where the block starts */
} edit_block;

/* Parses REPLY into *blocks[*n] (format as above; *format gets "search-replace", "unified-diff"
 * or "whole-file"). A reply with no edit, or a malformed one (an unterminated block), is an error
 * naming the reply's line. Returns 0, or -1 with *err set; free with edits_blocks_free(). */
int edits_parse(const char *reply, edit_block **blocks, int *n, const char **format, kwb_error *err);
/* Frees blocks from edits_parse. */
void edits_blocks_free(edit_block *b, int n);

/* Checks that the relative PATH may be edited in folder DIR under SCOPE (rules above). Returns 0,
 * or -1 with *err saying why ("'../x': leaves the candidate folder"). */
int edits_check_path(const char *dir, const char *path, const edits_scope *scope, kwb_error *err);

/* Applies every edit of REPLY to the candidate folder DIR, all or nothing. REPORT (may be NULL)
 * gets one line per block with its outcome ("block 2 (k.c): applied at lines 40-52"); on
 * failure it also gets, for each failed block, the reason and the closest lines of the file with
 * their numbers: text meant to be sent back to the agent for one retry turn. Returns 0, or -1
 * with *err summarising the failure (DIR then unchanged). */
int edits_apply(const char *dir, const char *reply, const edits_scope *scope, strbuf *report, kwb_error *err);

#endif

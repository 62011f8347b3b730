/* edits.c - parsing an agent's reply into edit blocks and applying them to a candidate folder,
 * all or nothing, with a scope check on every path and a closest-lines hint for every block that
 * does not apply (see edits.h). */
#define _GNU_SOURCE
#include "edits.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ftree.h"
#include "paths.h"
#include "xalloc.h"

/* ---- lines ------------------------------------------------------------------------------ */

typedef struct lines {
    char **v;
    int n;
    int final_nl; /* the text ended with a newline */
} lines;

/* Splits TEXT at '\n' (a '\r' before it dropped). */
static lines lines_split(const char *text)
{
    lines l = {NULL, 0, 1};
    if (!*text)
        return l;
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t keep = len && p[len - 1] == '\r' ? len - 1 : len;
        l.v = xrealloc(l.v, (size_t)(l.n + 1) * sizeof *l.v);
        l.v[l.n++] = xstrndup(p, keep);
        if (!e) {
            l.final_nl = 0;
            break;
        }
        p = e + 1;
    }
    return l;
}

static void lines_free(lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (lines){NULL, 0, 1};
}

static char *lines_join(const lines *l)
{
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < l->n; i++) {
        strbuf_puts(&sb, l->v[i]);
        if (i + 1 < l->n || l->final_nl)
            strbuf_puts(&sb, "\n");
    }
    return strbuf_detach(&sb);
}

/* LINE with its trailing blanks removed (pass 2), or also its leading ones and inner runs of
 * blanks made one space (pass 3); the caller frees it. */
static char *normalise(const char *line, int pass)
{
    char *out = xmalloc(strlen(line) + 1), *o = out;
    const char *p = line;
    if (pass >= 3)
        while (isspace((unsigned char)*p))
            p++;
    for (; *p; p++) {
        if (pass >= 3 && isspace((unsigned char)*p)) {
            while (isspace((unsigned char)p[1]))
                p++;
            *o++ = ' ';
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    while (o > out && isspace((unsigned char)o[-1]))
        *--o = '\0';
    return out;
}

static int lines_equal(const char *a, const char *b, int pass)
{
    if (pass == 1)
        return strcmp(a, b) == 0;
    char *x = normalise(a, pass), *y = normalise(b, pass);
    int eq = strcmp(x, y) == 0;
    free(x);
    free(y);
    return eq;
}

/* ---- parsing ---------------------------------------------------------------------------- */

/* Nonzero when LINE is seven or more CH, optional blanks, WORD (NULL: none), optional blanks. */
static int is_marker(const char *line, char ch, const char *word)
{
    int k = 0;
    while (line[k] == ch)
        k++;
    if (k < 7)
        return 0;
    const char *p = line + k;
    while (*p == ' ' || *p == '\t')
        p++;
    if (word) {
        size_t wl = strlen(word);
        if (strncmp(p, word, wl) != 0)
            return 0;
        p += wl;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    return *p == '\0';
}

static int is_fence(const char *line)
{
    while (*line == ' ')
        line++;
    return strncmp(line, "```", 3) == 0;
}

/* The file path LINE names ("k.c", "`src/k.cu`", "File: k.c", "### k.c:"), or NULL. */
static char *path_of_line(const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '#' || *p == '*' || *p == '`')
        p++;
    if (!strncasecmp(p, "file:", 5) || !strncasecmp(p, "path:", 5))
        p += 5;
    while (*p == ' ' || *p == '`' || *p == '*')
        p++;
    size_t len = strlen(p);
    while (len && strchr(" \t`*:", p[len - 1]))
        len--;
    if (len == 0 || len > 300)
        return NULL;
    int dot = 0;
    for (size_t i = 0; i < len; i++) {
        if (isspace((unsigned char)p[i]) || p[i] == '<' || p[i] == '>' || p[i] == '=' || p[i] == '(')
            return NULL;
        dot |= p[i] == '.' || p[i] == '/';
    }
    return dot ? xstrndup(p, len) : NULL;
}

/* The path named by a fence's info string ("```c k.c" or "```k.c"), or NULL. */
static char *path_of_fence(const char *line)
{
    const char *p = strstr(line, "```") + 3;
    while (*p == '`')
        p++;
    char info[320];
    snprintf(info, sizeof info, "%s", p);
    char *save, *first = strtok_r(info, " \t", &save), *second = first ? strtok_r(NULL, " \t", &save) : NULL;
    if (second)
        return path_of_line(second);
    if (first && strchr(first, '.'))
        return path_of_line(first);
    return NULL;
}

static void block_add(edit_block **b, int *n, char *path, char *search, char *replace, int whole, int line)
{
    *b = xrealloc(*b, (size_t)(*n + 1) * sizeof **b);
    (*b)[(*n)++] = (edit_block){path, search, replace, whole, line};
}

/* The path for the block whose first marker is at line I: the nearest non-blank line before it,
 * looking past a fence opener (whose info string may itself name the file). */
static char *path_before(const lines *l, int i)
{
    for (int j = i - 1, seen = 0; j >= 0 && seen < 2; j--) {
        if (!l->v[j][0] || !strcmp(l->v[j], " "))
            continue;
        seen++;
        if (is_fence(l->v[j])) {
            char *p = path_of_fence(l->v[j]);
            if (p)
                return p;
            continue;
        }
        return path_of_line(l->v[j]);
    }
    return NULL;
}

static int parse_search_replace(const lines *l, edit_block **b, int *n, kwb_error *err)
{
    char *last_path = NULL;
    for (int i = 0; i < l->n; i++) {
        if (!is_marker(l->v[i], '<', "SEARCH"))
            continue;
        int start = i, mid = -1, end = -1;
        for (int j = i + 1; j < l->n && end < 0; j++) {
            if (is_marker(l->v[j], '<', "SEARCH"))
                break;
            if (mid < 0 && is_marker(l->v[j], '=', NULL))
                mid = j;
            else if (mid >= 0 && is_marker(l->v[j], '>', "REPLACE"))
                end = j;
        }
        if (mid < 0 || end < 0) {
            free(last_path);
            return kwb_error_set(err, "reply line %d: block %d: '<<<<<<< SEARCH' without its %s", start + 1, *n + 1,
                                 mid < 0 ? "'=======' and '>>>>>>> REPLACE'" : "'>>>>>>> REPLACE'");
        }
        char *path = path_before(l, start);
        if (!path && last_path)
            path = xstrdup(last_path);
        strbuf s, r;
        strbuf_init(&s);
        strbuf_init(&r);
        for (int j = start + 1; j < mid; j++)
            strbuf_printf(&s, "%s\n", l->v[j]);
        for (int j = mid + 1; j < end; j++)
            strbuf_printf(&r, "%s\n", l->v[j]);
        free(last_path);
        last_path = path ? xstrdup(path) : NULL;
        block_add(b, n, path, strbuf_detach(&s), strbuf_detach(&r), 0, start + 1);
        i = end;
    }
    free(last_path);
    return 0;
}

/* The path of a `--- X` or `+++ X` line: a/ or b/ dropped, a tab-separated timestamp too;
 * NULL for /dev/null. */
static char *diff_path(const char *line)
{
    const char *p = line + 4;
    size_t len = strcspn(p, "\t");
    while (len && p[len - 1] == ' ')
        len--;
    if (len == 9 && !strncmp(p, "/dev/null", 9))
        return NULL;
    if (len > 2 && (p[0] == 'a' || p[0] == 'b') && p[1] == '/')
        p += 2, len -= 2;
    return xstrndup(p, len);
}

static int parse_unified(const lines *l, edit_block **b, int *n, kwb_error *err)
{
    for (int i = 0; i + 1 < l->n; i++) {
        if (strncmp(l->v[i], "--- ", 4) || strncmp(l->v[i + 1], "+++ ", 4))
            continue;
        char *from = diff_path(l->v[i]), *to = diff_path(l->v[i + 1]);
        if (!to) {
            free(from);
            return kwb_error_set(err, "reply line %d: the diff deletes %s; removing files is not an edit kwb applies",
                                 i + 1, l->v[i] + 4);
        }
        int new_file = from == NULL;
        free(from);
        i += 2;
        int hunks = 0;
        while (i < l->n && !strncmp(l->v[i], "@@", 2)) {
            int start = i;
            strbuf s, r;
            strbuf_init(&s);
            strbuf_init(&r);
            for (i++; i < l->n; i++) {
                const char *x = l->v[i];
                if (!strncmp(x, "@@", 2) || !strncmp(x, "--- ", 4) || is_fence(x))
                    break;
                if (x[0] == '\\')
                    continue;
                if (x[0] != ' ' && x[0] != '-' && x[0] != '+' && x[0] != '\0')
                    break;
                const char *text = x[0] ? x + 1 : x;
                if (x[0] != '+')
                    strbuf_printf(&s, "%s\n", text);
                if (x[0] != '-')
                    strbuf_printf(&r, "%s\n", text);
            }
            block_add(b, n, xstrdup(to), strbuf_detach(&s), strbuf_detach(&r), 0, start + 1);
            hunks++;
        }
        if (hunks == 0 && !new_file) {
            int line = i + 1;
            free(to);
            return kwb_error_set(err, "reply line %d: a diff header without an '@@' hunk", line);
        }
        free(to);
        i--;
    }
    return 0;
}

static int parse_whole_files(const lines *l, edit_block **b, int *n, kwb_error *err)
{
    int unnamed = -1, unnamed_len = -1, unnamed_count = 0;
    for (int i = 0; i < l->n; i++) {
        if (!is_fence(l->v[i]))
            continue;
        int end = i + 1;
        while (end < l->n && !is_fence(l->v[end]))
            end++;
        if (end >= l->n)
            return kwb_error_set(err, "reply line %d: a code fence that is never closed", i + 1);
        char *path = path_of_fence(l->v[i]);
        if (!path)
            path = path_before(l, i);
        if (path) {
            strbuf r;
            strbuf_init(&r);
            for (int j = i + 1; j < end; j++)
                strbuf_printf(&r, "%s\n", l->v[j]);
            block_add(b, n, path, xstrdup(""), strbuf_detach(&r), 1, i + 1);
        } else {
            unnamed_count++;
            if (end - i > unnamed_len)
                unnamed = i, unnamed_len = end - i;
        }
        i = end;
    }
    if (*n == 0 && unnamed >= 0) {
        strbuf r;
        strbuf_init(&r);
        for (int j = unnamed + 1; j < unnamed + unnamed_len; j++)
            strbuf_printf(&r, "%s\n", l->v[j]);
        block_add(b, n, NULL, xstrdup(""), strbuf_detach(&r), 1, unnamed + 1);
    }
    (void)unnamed_count;
    return 0;
}

int edits_parse(const char *reply, edit_block **blocks, int *n, const char **format, kwb_error *err)
{
    *blocks = NULL;
    *n = 0;
    lines l = lines_split(reply ? reply : "");
    int has_sr = 0, has_diff = 0, rc;
    for (int i = 0; i < l.n; i++) {
        has_sr |= is_marker(l.v[i], '<', "SEARCH") || is_marker(l.v[i], '>', "REPLACE");
        has_diff |= i + 1 < l.n && !strncmp(l.v[i], "--- ", 4) && !strncmp(l.v[i + 1], "+++ ", 4);
    }
    if (has_sr) {
        *format = "search-replace";
        rc = parse_search_replace(&l, blocks, n, err);
    } else if (has_diff) {
        *format = "unified-diff";
        rc = parse_unified(&l, blocks, n, err);
    } else {
        *format = "whole-file";
        rc = parse_whole_files(&l, blocks, n, err);
    }
    lines_free(&l);
    if (rc == 0 && *n == 0)
        rc = kwb_error_set(err, "the reply holds no edit: expected SEARCH/REPLACE blocks (a file path line, "
                                "'<<<<<<< SEARCH', the current lines, '=======', the new lines, '>>>>>>> REPLACE'), "
                                "a unified diff or a whole file in a code fence");
    if (rc != 0) {
        edits_blocks_free(*blocks, *n);
        *blocks = NULL;
        *n = 0;
    }
    return rc;
}

void edits_blocks_free(edit_block *b, int n)
{
    for (int i = 0; i < n; i++) {
        free(b[i].path);
        free(b[i].search);
        free(b[i].replace);
    }
    free(b);
}

/* ---- scope ------------------------------------------------------------------------------ */

/* edits_check_path for a PATH already normalised. */
static int check_normalised(const char *dir, const char *path, const edits_scope *scope, kwb_error *err)
{
    if (path[0] == '/')
        return kwb_error_set(err, "'%s': an absolute path; edits name files relative to the candidate folder", path);
    if (!paths_is_safe_relative(path))
        return kwb_error_set(err, "'%s': '..' leaves the candidate folder", path);
    if (!strcmp(path, "solution.json"))
        return kwb_error_set(err, "'%s': the solution's description is kwb's, not the agent's, to change", path);
    /* no component may be a symlink (it could point out of the folder) */
    char *sub = xstrdup(path);
    for (char *p = sub;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        char *full = xasprintf("%s/%s", dir, sub);
        struct stat st;
        int link = lstat(full, &st) == 0 && S_ISLNK(st.st_mode);
        free(full);
        if (link) {
            int rc = kwb_error_set(err, "'%s': '%s' is a symlink; edits stay inside the candidate folder", path, sub);
            free(sub);
            return rc;
        }
        *p = saved;
        if (!saved)
            break;
    }
    free(sub);
    for (int i = 0; i < scope->nsources; i++)
        if (!strcmp(scope->sources[i], path))
            return 0;
    for (int i = 0; i < scope->nglobs; i++)
        if (fnmatch(scope->globs[i], path, 0) == 0)
            return 0;
    strbuf allowed;
    strbuf_init(&allowed);
    for (int i = 0; i < scope->nsources; i++)
        strbuf_printf(&allowed, "%s%s", allowed.len ? ", " : "", scope->sources[i]);
    for (int i = 0; i < scope->nglobs; i++)
        strbuf_printf(&allowed, "%s%s", allowed.len ? ", " : "", scope->globs[i]);
    kwb_error_set(err, "'%s': outside the direction's scope (editable: %s)", path, allowed.len ? allowed.s : "nothing");
    strbuf_free(&allowed);
    return -1;
}

int edits_check_path(const char *dir, const char *path, const edits_scope *scope, kwb_error *err)
{
    if (!path || !*path)
        return kwb_error_set(err, "an empty path");
    char *norm = paths_normalise(path);
    int rc = check_normalised(dir, norm, scope, err);
    if (rc != 0 && strcmp(norm, path) != 0)
        kwb_error_prefix(err, "'%s' is '%s'", path, norm);
    free(norm);
    return rc;
}

/* ---- applying --------------------------------------------------------------------------- */

/* A file as the blocks change it. */
typedef struct work_file {
    char *path;
    lines text;
    int existed;
    int changed;
} work_file;

typedef struct work {
    const char *dir;
    const edits_scope *scope;
    work_file *f;
    int n;
} work;

static work_file *work_get(work *w, const char *path)
{
    for (int i = 0; i < w->n; i++)
        if (!strcmp(w->f[i].path, path))
            return &w->f[i];
    char *full = xasprintf("%s/%s", w->dir, path);
    char *data = strbuf_read_file(full, NULL);
    free(full);
    w->f = xrealloc(w->f, (size_t)(w->n + 1) * sizeof *w->f);
    work_file *f = &w->f[w->n++];
    *f = (work_file){xstrdup(path), lines_split(data ? data : ""), data != NULL, 0};
    free(data);
    return f;
}

/* Similarity of two lines from 0 to 1: their common prefix and suffix (blanks normalised). */
static double line_similarity(const char *a, const char *b)
{
    char *x = normalise(a, 3), *y = normalise(b, 3);
    size_t lx = strlen(x), ly = strlen(y), m = lx > ly ? lx : ly, pre = 0, suf = 0;
    while (pre < lx && pre < ly && x[pre] == y[pre])
        pre++;
    while (suf < lx - pre && suf < ly - pre && x[lx - 1 - suf] == y[ly - 1 - suf])
        suf++;
    free(x);
    free(y);
    return m == 0 ? 1.0 : (double)(pre + suf) / (double)m;
}

/* Appends to REPORT the window of F most like S, with line numbers, and the first line that differs. */
static void closest_lines(const work_file *f, const lines *s, strbuf *report)
{
    int m = f->text.n, n = s->n, best = 0;
    if (m == 0) {
        strbuf_printf(report, "  the file %s is empty\n", f->path);
        return;
    }
    int win = n < m ? n : m;
    double best_score = -1;
    for (int w = 0; w + win <= m; w++) {
        double score = 0;
        for (int i = 0; i < win; i++)
            score += line_similarity(f->text.v[w + i], s->v[i]);
        if (score > best_score)
            best_score = score, best = w;
    }
    strbuf_printf(report, "  closest lines in %s (lines %d-%d):\n", f->path, best + 1, best + win);
    for (int i = 0; i < win; i++)
        strbuf_printf(report, "  %5d| %s\n", best + 1 + i, f->text.v[best + i]);
    for (int i = 0; i < win; i++)
        if (!lines_equal(f->text.v[best + i], s->v[i], 1)) {
            strbuf_printf(report, "  first difference: SEARCH line %d is \"%s\", the file's line %d is \"%s\"\n", i + 1,
                          s->v[i], best + 1 + i, f->text.v[best + i]);
            break;
        }
}

/* Leading blanks of LINE, as a new string. */
static char *indent_of(const char *line)
{
    return xstrndup(line, strspn(line, " \t"));
}

/* Replaces lines [AT, AT + S->n) of F by R; in pass 3 R is re-indented by the shift between the
 * first non-blank SEARCH line and the file line it matched. */
static void splice(work_file *f, int at, const lines *s, const lines *r, int pass)
{
    char *from = NULL, *to = NULL;
    if (pass == 3)
        for (int i = 0; i < s->n; i++)
            if (s->v[i][strspn(s->v[i], " \t")]) {
                from = indent_of(s->v[i]);
                to = indent_of(f->text.v[at + i]);
                break;
            }
    lines out = {NULL, 0, f->text.final_nl || f->text.n == 0};
    out.v = xmalloc((size_t)(f->text.n - s->n + r->n + 1) * sizeof *out.v);
    for (int i = 0; i < at; i++)
        out.v[out.n++] = f->text.v[i];
    for (int i = 0; i < r->n; i++) {
        const char *line = r->v[i];
        if (from && line[0] && !strncmp(line, from, strlen(from)))
            out.v[out.n++] = xasprintf("%s%s", to, line + strlen(from));
        else
            out.v[out.n++] = xstrdup(line);
    }
    for (int i = at; i < at + s->n; i++)
        free(f->text.v[i]);
    for (int i = at + s->n; i < f->text.n; i++)
        out.v[out.n++] = f->text.v[i];
    free(f->text.v);
    f->text = out;
    f->changed = 1;
    free(from);
    free(to);
}

/* Placeholders that mean "the model left part of the file out". */
static const char *elision(const char *text)
{
    static const char *const marks[] = {"rest unchanged", "rest of the file", "remains unchanged", "existing code",
                                        "unchanged code", "rest of the code", "... (unchanged)",   NULL};
    for (int i = 0; marks[i]; i++)
        if (strcasestr(text, marks[i]))
            return marks[i];
    return NULL;
}

static int apply_whole(work_file *f, const edit_block *b, strbuf *report)
{
    lines r = lines_split(b->replace);
    const char *mark = elision(b->replace);
    int rc = 0;
    if (mark) {
        strbuf_printf(report, "a whole file holding the placeholder \"%s\": send the complete file\n", mark);
        rc = -1;
    } else if (f->existed && f->text.n >= 20 && r.n * 2 < f->text.n) {
        strbuf_printf(report,
                      "a whole file of %d lines for one of %d: much shorter than its parent, probably cut; send "
                      "the complete file or SEARCH/REPLACE blocks\n",
                      r.n, f->text.n);
        rc = -1;
    } else {
        lines_free(&f->text);
        f->text = r;
        f->changed = 1;
        strbuf_printf(report, "replaced as a whole file (%d lines)\n", r.n);
        return 0;
    }
    lines_free(&r);
    return rc;
}

/* Finds S in F, pass by pass (exact, trailing blanks, indentation), and replaces it by R. Returns
 * 0 applied, -1 ambiguous (said in REPORT), -2 no match (not said). */
static int match_and_splice(work_file *f, const lines *s, const lines *r, strbuf *report)
{
    for (int pass = 1; pass <= 3; pass++) {
        int hits[8], nhits = 0;
        for (int at = 0; at + s->n <= f->text.n; at++) {
            int i = 0;
            while (i < s->n && lines_equal(f->text.v[at + i], s->v[i], pass))
                i++;
            if (i == s->n) {
                if (nhits < 8)
                    hits[nhits] = at;
                nhits++;
            }
        }
        if (nhits == 1) {
            splice(f, hits[0], s, r, pass);
            strbuf_printf(report, "applied at lines %d-%d%s\n", hits[0] + 1, hits[0] + r->n,
                          pass == 1   ? ""
                          : pass == 2 ? " (trailing blanks ignored)"
                                      : " (indentation ignored)");
            return 0;
        }
        if (nhits > 1) {
            strbuf_printf(report, "ambiguous: %d matches, at lines", nhits);
            for (int i = 0; i < nhits && i < 8; i++)
                strbuf_printf(report, "%s %d", i ? "," : "", hits[i] + 1);
            strbuf_printf(report, "%s; add lines of context to the SEARCH part so it matches once\n",
                          nhits > 8 ? ", ..." : "");
            return -1;
        }
    }
    return -2;
}

/* L without its blank first and last lines (a view into L: nothing to free). */
static lines trim_blank_edges(const lines *l)
{
    lines t = *l;
    while (t.n > 0 && !t.v[0][strspn(t.v[0], " \t")])
        t.v++, t.n--;
    while (t.n > 0 && !t.v[t.n - 1][strspn(t.v[t.n - 1], " \t")])
        t.n--;
    return t;
}

/* Applies block B to F; appends its outcome to REPORT; 0 or -1. */
static int apply_block(work_file *f, const edit_block *b, strbuf *report)
{
    if (b->whole)
        return apply_whole(f, b, report);
    lines s = lines_split(b->search), r = lines_split(b->replace);
    int rc = -1;
    if (s.n == 0) {
        if (f->existed || f->changed) {
            strbuf_printf(report, "an empty SEARCH part on the existing file %s: quote the lines to replace\n",
                          f->path);
        } else {
            splice(f, 0, &s, &r, 1);
            strbuf_printf(report, "created %s (%d lines)\n", f->path, r.n);
            rc = 0;
        }
    } else if (!f->existed && !f->changed) {
        strbuf_printf(report, "no such file %s in the candidate\n", f->path);
    } else {
        rc = match_and_splice(f, &s, &r, report);
        lines ts = trim_blank_edges(&s), tr = trim_blank_edges(&r);
        if (rc == -2 && ts.n > 0 && ts.n < s.n) {
            /* blank lines the model added around the SEARCH part: try once more without them */
            rc = match_and_splice(f, &ts, &tr, report);
            if (rc == 0)
                strbuf_printf(report, "  (blank lines around the SEARCH part ignored)\n");
        }
        if (rc == -2) {
            strbuf_printf(report, "no match: the SEARCH part (%d lines) is not in %s\n", s.n, f->path);
            closest_lines(f, &s, report);
        }
        rc = rc == 0 ? 0 : -1;
    }
    lines_free(&s);
    lines_free(&r);
    return rc;
}

/* The path block B applies to, or NULL with REPORT told why. */
static const char *block_path(const edit_block *b, const edits_scope *scope, strbuf *report)
{
    if (b->path) {
        const char *path = b->path[0] == '.' && b->path[1] == '/' ? b->path + 2 : b->path;
        /* a model that names the file by a longer path (kernels/.../k.c) means the source it ends with */
        size_t len = strlen(path);
        for (int i = 0; i < scope->nsources && path[0] != '/'; i++) {
            size_t sl = strlen(scope->sources[i]);
            if (strcmp(path, scope->sources[i]) == 0)
                return path;
            if (len > sl && path[len - sl - 1] == '/' && strcmp(path + len - sl, scope->sources[i]) == 0 &&
                paths_is_safe_relative(path))
                return scope->sources[i];
        }
        return path;
    }
    if (scope->nsources == 1)
        return scope->sources[0];
    strbuf_printf(report,
                  "names no file, and the candidate has %d files: put the file's path on the line before the "
                  "block\n",
                  scope->nsources);
    return NULL;
}

/* Writes W's changed files into a scratch copy of DIR and swaps it in by rename. */
static int commit(work *w, kwb_error *err)
{
    char *scratch = xasprintf("%s.edit-XXXXXX", w->dir);
    if (!mkdtemp(scratch)) {
        int rc = kwb_error_set(err, "%s: cannot make a scratch folder: %s", scratch, strerror(errno));
        free(scratch);
        return rc;
    }
    int rc = ftree_copy(w->dir, scratch, err);
    for (int i = 0; rc == 0 && i < w->n; i++) {
        if (!w->f[i].changed)
            continue;
        char *path = xasprintf("%s/%s", scratch, w->f[i].path), *text = lines_join(&w->f[i].text);
        char *parent = xstrdup(path);
        *strrchr(parent, '/') = '\0';
        paths_mkdir_p(parent);
        FILE *f = fopen(path, "wb");
        if (!f || fputs(text, f) == EOF || fclose(f) != 0)
            rc = kwb_error_set(err, "%s: cannot write: %s", path, strerror(errno));
        free(parent);
        free(path);
        free(text);
    }
    char *old = xasprintf("%s.old", scratch);
    if (rc == 0 && rename(w->dir, old) != 0)
        rc = kwb_error_set(err, "%s: cannot move aside: %s", w->dir, strerror(errno));
    else if (rc == 0 && rename(scratch, w->dir) != 0) {
        rc = kwb_error_set(err, "%s: cannot move into place: %s", scratch, strerror(errno));
        rename(old, w->dir);
    }
    paths_remove_tree(rc == 0 ? old : scratch);
    free(old);
    free(scratch);
    return rc;
}

int edits_apply(const char *dir, const char *reply, const edits_scope *scope, strbuf *report, kwb_error *err)
{
    strbuf local;
    strbuf_init(&local);
    strbuf *rep = report ? report : &local;
    edit_block *b;
    int n;
    const char *format;
    if (edits_parse(reply, &b, &n, &format, err) != 0) {
        strbuf_printf(rep, "the reply could not be read: %s\n", err->msg);
        strbuf_free(&local);
        return -1;
    }
    work w = {dir, scope, NULL, 0};
    int failed = 0;
    char first_reason[512] = "";
    for (int i = 0; i < n; i++) {
        size_t mark = rep->len;
        if (b[i].path) { /* one file, however it is spelled */
            char *norm = paths_normalise(b[i].path);
            free(b[i].path);
            b[i].path = norm;
        }
        const char *path = b[i].path || scope->nsources == 1 ? block_path(&b[i], scope, rep) : NULL;
        strbuf_printf(rep, "block %d (%s, reply line %d): ", i + 1, path ? path : "no file", b[i].line);
        kwb_error perr = {{0}};
        int ok = 0;
        if (!path)
            block_path(&b[i], scope, rep);
        else if (edits_check_path(dir, path, scope, &perr) != 0)
            strbuf_printf(rep, "refused: %s\n", perr.msg);
        else
            ok = apply_block(work_get(&w, path), &b[i], rep) == 0;
        if (!ok && !failed++) {
            const char *r = rep->s + mark;
            snprintf(first_reason, sizeof first_reason, "%.*s", (int)strcspn(r, "\n"), r);
        }
    }
    int rc = 0;
    if (failed)
        rc =
            kwb_error_set(err, "%d of %d edit block(s) did not apply (%s; first: %s)", failed, n, format, first_reason);
    else
        rc = commit(&w, err);
    for (int i = 0; i < w.n; i++) {
        free(w.f[i].path);
        lines_free(&w.f[i].text);
    }
    free(w.f);
    edits_blocks_free(b, n);
    strbuf_free(&local);
    return rc;
}

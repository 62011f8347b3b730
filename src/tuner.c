#include "tuner.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths.h"
#include "xalloc.h"

/* `#define NAME VALUE /` `* kwb:tune NAME {a,b,c} *` `/`, the name given twice. */
static const char *knob_pattern =
    "^[ \\t]*#[ \\t]*define[ \\t]+([A-Za-z_][A-Za-z0-9_]*)[ \\t]+([^ \\t/]+)[ \\t]*"
    "/\\*[ \\t]*kwb:tune[ \\t]+([A-Za-z_][A-Za-z0-9_]*)[ \\t]*\\{([^}]*)\\}[ \\t]*\\*/[ \\t]*$";

/* Group G of the last match in LINE as a new string. */
static char *group(const char *line, pcre2_match_data *m, int g)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m);
    return xstrndup(line + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
}

/* Splits "1, 2,4" into trimmed values; returns the count. */
static int split_values(const char *list, char ***out)
{
    int n = 0;
    *out = NULL;
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *s = p, *e = p + len;
        while (s < e && (*s == ' ' || *s == '\t'))
            s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e > s) {
            *out = xrealloc(*out, (size_t)(n + 1) * sizeof **out);
            (*out)[n++] = xstrndup(s, (size_t)(e - s));
        }
        p += len + (comma ? 1 : 0);
    }
    return n;
}

/* Frees what one knob owns. */
static void knob_clear(tuner_knob *k)
{
    free(k->name);
    free(k->value);
    for (int v = 0; v < k->nvalues; v++)
        free(k->values[v]);
    free(k->values);
}

static int value_index(const tuner_knob *k, const char *v)
{
    for (int i = 0; i < k->nvalues; i++)
        if (strcmp(k->values[i], v) == 0)
            return i;
    return -1;
}

/* Checks one annotated line; on a match appends the knob to *out. */
static int scan_line(const solution *sol, int src, int lineno, const char *line, pcre2_code *re, pcre2_match_data *m,
                     tuner_knob **out, int *n, kwb_error *err)
{
    if (!strstr(line, "kwb:tune"))
        return 0;
    const char *where = sol->sources[src].path;
    if (pcre2_match(re, (PCRE2_SPTR)line, strlen(line), 0, 0, m, NULL) < 0)
        return kwb_error_set(err,
                             "%s/%s:%d: a kwb:tune knob reads '#define NAME VALUE /* kwb:tune NAME {v1,v2,...} */'",
                             sol->dir, where, lineno);
    char *name = group(line, m, 1), *again = group(line, m, 3), *list = group(line, m, 4);
    tuner_knob k = {name, group(line, m, 2), NULL, 0, src, lineno};
    k.nvalues = split_values(list, &k.values);
    int rc = 0;
    if (strcmp(name, again) != 0)
        rc = kwb_error_set(err, "%s/%s:%d: the #define names %s but kwb:tune names %s", sol->dir, where, lineno, name,
                           again);
    else if (k.nvalues < 2)
        rc = kwb_error_set(err, "%s/%s:%d: knob %s lists fewer than two values", sol->dir, where, lineno, name);
    else if (value_index(&k, k.value) < 0)
        rc = kwb_error_set(err, "%s/%s:%d: knob %s is %s, which is not one of {%s}", sol->dir, where, lineno, name,
                           k.value, list);
    for (int i = 0; rc == 0 && i < *n; i++)
        if (strcmp((*out)[i].name, name) == 0)
            rc = kwb_error_set(err, "%s/%s:%d: knob %s declared twice", sol->dir, where, lineno, name);
    free(again);
    free(list);
    if (rc != 0) {
        knob_clear(&k);
        return -1;
    }
    *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
    (*out)[(*n)++] = k;
    return 0;
}

int tuner_scan(const solution *sol, tuner_knob **out, int *n, kwb_error *err)
{
    *out = NULL;
    *n = 0;
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)knob_pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
    if (!re)
        return kwb_error_set(err, "tuner: internal pattern does not compile");
    pcre2_match_data *m = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = 0;
    for (int s = 0; rc == 0 && s < sol->nsources; s++) {
        const char *p = sol->sources[s].content, *end = p + sol->sources[s].len;
        for (int lineno = 1; rc == 0 && p < end; lineno++) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            char *line = xstrndup(p, (size_t)((nl ? nl : end) - p));
            rc = scan_line(sol, s, lineno, line, re, m, out, n, err);
            free(line);
            p = nl ? nl + 1 : end;
        }
    }
    pcre2_match_data_free(m);
    pcre2_code_free(re);
    if (rc != 0) {
        tuner_knobs_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void tuner_knobs_free(tuner_knob *k, int n)
{
    for (int i = 0; i < n; i++)
        knob_clear(&k[i]);
    free(k);
}

static int was_tried(const char *id, const char *const *tried, int ntried)
{
    for (int i = 0; i < ntried; i++)
        if (strcmp(tried[i], id) == 0)
            return 1;
    return 0;
}

int tuner_propose(const tuner_knob *k, int n, const char *const *tried, int ntried, tuner_proposal *p)
{
    /* distance 1 around every knob first, then distance 2, ...; upward before downward */
    int maxdist = 0;
    for (int i = 0; i < n; i++)
        if (k[i].nvalues > maxdist)
            maxdist = k[i].nvalues;
    for (int dist = 1; dist < maxdist; dist++)
        for (int i = 0; i < n; i++) {
            int at = value_index(&k[i], k[i].value);
            for (int dir = 1; dir >= -1; dir -= 2) {
                int j = at + dir * dist;
                if (j < 0 || j >= k[i].nvalues)
                    continue;
                memset(p, 0, sizeof *p);
                snprintf(p->id, sizeof p->id, "tune.%s=%s", k[i].name, k[i].values[j]);
                if (was_tried(p->id, tried, ntried))
                    continue;
                p->knob = &k[i];
                p->to = k[i].values[j];
                snprintf(p->title, sizeof p->title, "set %s %s -> %s", k[i].name, k[i].value, k[i].values[j]);
                return 1;
            }
        }
    return 0;
}

/* Makes the folders of PATH's parents. */
static int make_parents(const char *path, kwb_error *err)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash && slash != dir) {
        *slash = '\0';
        if (paths_mkdir_p(dir) != 0)
            rc = kwb_error_set(err, "%s: cannot make the folder: %s", dir, strerror(errno));
    }
    free(dir);
    return rc;
}

static int write_whole(const char *path, const char *bytes, size_t n, kwb_error *err)
{
    if (make_parents(path, err) != 0)
        return -1;
    FILE *f = fopen(path, "wb");
    if (!f)
        return kwb_error_set(err, "%s: cannot write: %s", path, strerror(errno));
    int ok = fwrite(bytes, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    return ok ? 0 : kwb_error_set(err, "%s: write failed: %s", path, strerror(errno));
}

/* The source text with line LINE's value replaced (the rest of the line as it was). */
static char *replace_value(const solution_source *src, const tuner_knob *k, const char *to, size_t *len,
                           const char **old_line, size_t *old_len, char **new_line)
{
    const char *p = src->content, *end = p + src->len;
    for (int l = 1; l < k->line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        p = nl ? nl + 1 : end;
    }
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *eol = nl ? nl : end;
    *old_line = p;
    *old_len = (size_t)(eol - p);
    /* the value is the first occurrence of VALUE after the name */
    const char *name = strstr(p, k->name);
    const char *val = name ? strstr(name + strlen(k->name), k->value) : NULL;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_add(&sb, src->content, (size_t)(val - src->content));
    strbuf_puts(&sb, to);
    size_t line_start = (size_t)(p - src->content);
    strbuf_add(&sb, val + strlen(k->value), (size_t)(end - val - strlen(k->value)));
    *len = sb.len;
    char *text = strbuf_detach(&sb);
    const char *nnl = memchr(text + line_start, '\n', *len - line_start);
    *new_line = xstrndup(text + line_start, (size_t)((nnl ? nnl : text + *len) - (text + line_start)));
    return text;
}

int tuner_apply(const solution *sol, const tuner_proposal *p, const char *dst, strbuf *diff, kwb_error *err)
{
    if (mkdir(dst, 0777) != 0)
        return kwb_error_set(err, "%s: cannot make the candidate folder: %s", dst, strerror(errno));
    size_t jlen;
    char *json = strbuf_read_file(sol->json_path, &jlen);
    if (!json)
        return kwb_error_set(err, "%s: cannot read: %s", sol->json_path, strerror(errno));
    char *path = xasprintf("%s/solution.json", dst);
    int rc = write_whole(path, json, jlen, err);
    free(path);
    free(json);
    for (int s = 0; rc == 0 && s < sol->nsources; s++) {
        const solution_source *src = &sol->sources[s];
        path = xasprintf("%s/%s", dst, src->path);
        if (s != p->knob->source) {
            rc = write_whole(path, src->content, src->len, err);
        } else {
            size_t len, old_len;
            const char *old_line;
            char *new_line;
            char *text = replace_value(src, p->knob, p->to, &len, &old_line, &old_len, &new_line);
            rc = write_whole(path, text, len, err);
            strbuf_printf(diff, "--- a/%s\n+++ b/%s\n@@ -%d +%d @@\n-%.*s\n+%s\n", src->path, src->path, p->knob->line,
                          p->knob->line, (int)old_len, old_line, new_line);
            free(text);
            free(new_line);
        }
        free(path);
    }
    return rc;
}

/* recon.c - reconnaissance in reference folders with one PCRE2 pattern: every keyword a
 * caseless group anchored at the start of a word, so "vector" finds "vectorized" and the group
 * that matched says which keyword a line holds (see recon.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "recon.h"

#include <ctype.h>
#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ftree.h"
#include "xalloc.h"

#define RECON_MAX_KEYWORDS 32

recon_limits recon_limits_default(void)
{
    return (recon_limits){12, 3, 2, 1 << 20};
}

static int has_word(char **w, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(w[i], s))
            return 1;
    return 0;
}

static void add_word(char ***w, int *n, const char *s, size_t len)
{
    static const char *const common[] = {"the",  "and",  "for",  "with", "per",   "one", "from", "into", "its",
                                         "than", "that", "this", "use",  "using", "all", "few",  "more", "less",
                                         "once", "each", "not",  "are",  "out",   "set", "new",  "tune", NULL};
    if (len < 3 || *n >= RECON_MAX_KEYWORDS)
        return;
    char *word = xstrndup(s, len);
    for (char *p = word; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    int skip = has_word(*w, *n, word);
    for (int i = 0; !skip && common[i]; i++)
        skip = !strcmp(common[i], word);
    if (skip) {
        free(word);
        return;
    }
    *w = xrealloc(*w, (size_t)(*n + 1) * sizeof **w);
    (*w)[(*n)++] = word;
}

/* Adds the words of TEXT (runs of letters, digits and '_'). */
static void add_words_of(char ***w, int *n, const char *text)
{
    for (const char *p = text; p && *p;) {
        size_t len = 0;
        while (isalnum((unsigned char)p[len]) || p[len] == '_')
            len++;
        add_word(w, n, p, len);
        p += len ? len : 1;
    }
}

int recon_keywords(const skill_direction *d, const char *id, const char *title, char ***out)
{
    char **w = NULL;
    int n = 0;
    if (d && d->keywords.n > 0) {
        for (int i = 0; i < d->keywords.n; i++)
            if (!has_word(w, n, d->keywords.items[i]) && n < RECON_MAX_KEYWORDS) {
                w = xrealloc(w, (size_t)(n + 1) * sizeof *w);
                w[n++] = xstrdup(d->keywords.items[i]);
            }
    } else {
        add_words_of(&w, &n, d ? d->id : id);
        add_words_of(&w, &n, d ? d->title : title);
    }
    *out = w;
    return n;
}

void recon_words_free(char **w, int n)
{
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
}

void recon_split_list(const char *list, char ***v, int *n)
{
    char *copy = xstrdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        size_t len = strlen(t);
        while (len && t[len - 1] == ' ')
            t[--len] = '\0';
        if (!*t)
            continue;
        *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
        (*v)[(*n)++] = xstrdup(t);
    }
    free(copy);
}

void recon_skill_references(const skill *s, char ***dirs, int *n)
{
    const char *slash = s->path ? strrchr(s->path, '/') : NULL;
    for (int i = 0; i < s->references.n; i++) {
        const char *ref = s->references.items[i];
        char *dir = ref[0] == '/' || !slash ? xstrdup(ref) : xasprintf("%.*s/%s", (int)(slash - s->path), s->path, ref);
        *dirs = xrealloc(*dirs, (size_t)(*n + 1) * sizeof **dirs);
        (*dirs)[(*n)++] = dir;
    }
}

/* The pattern: (?i)\b(?:(?:\Qkw1\E)|(?:\Qkw2\E)...) with one capture group per keyword. */
static pcre2_code *compile(char *const *kw, int n, kwb_error *err)
{
    strbuf p;
    strbuf_init(&p);
    strbuf_puts(&p, "\\b(?:");
    for (int i = 0; i < n; i++) {
        strbuf_printf(&p, "%s(", i ? "|" : "");
        for (const char *c = kw[i]; *c; c++) {
            /* ASCII punctuation only: a backslash inside a UTF-8 sequence made the pattern invalid */
            if (!isalnum((unsigned char)*c) && *c != '_' && *c != ' ' && (unsigned char)*c < 0x80)
                strbuf_puts(&p, "\\");
            strbuf_add(&p, c, 1);
        }
        strbuf_puts(&p, ")");
    }
    strbuf_puts(&p, ")");
    int code;
    PCRE2_SIZE off;
    pcre2_code *re =
        pcre2_compile((PCRE2_SPTR)p.s, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS | PCRE2_UTF, &code, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof msg);
        kwb_error_set(err, "reconnaissance pattern '%s' at %zu: %s", p.s, (size_t)off, (char *)msg);
    }
    strbuf_free(&p);
    return re;
}

/* What one file gave. */
typedef struct file_hits {
    char *path;
    uint32_t keywords; /* bit i: keyword i found */
    int count;
    recon_hit hits[8];
    int nhits;
} file_hits;

static int popcount(uint32_t x)
{
    return __builtin_popcount(x);
}

static int by_rank(const void *a, const void *b)
{
    const file_hits *x = a, *y = b;
    if (popcount(x->keywords) != popcount(y->keywords))
        return popcount(y->keywords) - popcount(x->keywords);
    if (x->count != y->count)
        return y->count - x->count;
    return strcmp(x->path, y->path);
}

/* The lines [LINE - C, LINE + C] of the split text, numbered, the hit marked. */
static char *context_of(char **lv, int nl, int line, int c)
{
    strbuf sb;
    strbuf_init(&sb);
    int lo = line - c < 0 ? 0 : line - c, hi = line + c >= nl ? nl - 1 : line + c;
    for (int i = lo; i <= hi; i++)
        strbuf_printf(&sb, "%c%5d| %.200s\n", i == line ? '>' : ' ', i + 1, lv[i]);
    return strbuf_detach(&sb);
}

/* Scans TEXT (the file PATH) into *fh; 1 when something matched. */
static int scan_text(pcre2_code *re, pcre2_match_data *md, char *text, const char *path, const recon_limits *lim,
                     file_hits *fh)
{
    char **lv = NULL;
    int nl = 0;
    for (char *p = text, *e; p && *p; p = e ? e + 1 : NULL) {
        e = strchr(p, '\n');
        if (e)
            *e = '\0';
        lv = xrealloc(lv, (size_t)(nl + 1) * sizeof *lv);
        lv[nl++] = p;
    }
    memset(fh, 0, sizeof *fh);
    for (int i = 0; i < nl; i++) {
        PCRE2_SIZE len = strlen(lv[i]), start = 0;
        int hit = 0;
        while (start < len && pcre2_match(re, (PCRE2_SPTR)lv[i], len, start, 0, md, NULL) > 0) {
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
            uint32_t pairs = pcre2_get_ovector_count(md);
            for (uint32_t g = 1; g < pairs && g <= RECON_MAX_KEYWORDS; g++)
                if (ov[2 * g] != PCRE2_UNSET)
                    fh->keywords |= 1u << (g - 1);
            hit = 1;
            start = ov[1] > ov[0] ? ov[1] : ov[0] + 1;
        }
        if (!hit)
            continue;
        fh->count++;
        if (fh->nhits < lim->max_per_file && fh->nhits < 8)
            fh->hits[fh->nhits++] = (recon_hit){xstrdup(path), i + 1, context_of(lv, nl, i, lim->context_lines)};
    }
    free(lv);
    if (fh->count)
        fh->path = xstrdup(path);
    return fh->count > 0;
}

/* Reads PATH when it is a small text file; NULL otherwise. */
static char *read_text(const char *path, size_t max)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max)
        return NULL;
    size_t len;
    char *t = strbuf_read_file(path, &len);
    if (t && memchr(t, '\0', len < 4096 ? len : 4096)) {
        free(t);
        return NULL;
    }
    return t;
}

static void list_add(char ***v, int *n, const char *s)
{
    *v = xrealloc(*v, (size_t)(*n + 1) * sizeof **v);
    (*v)[(*n)++] = xstrdup(s);
}

int recon_search(const char *const *dirs, int ndirs, char *const *keywords, int nkeywords, const recon_limits *lim,
                 recon_result *out, kwb_error *err)
{
    memset(out, 0, sizeof *out);
    recon_limits l = lim ? *lim : recon_limits_default();
    if (nkeywords > RECON_MAX_KEYWORDS)
        nkeywords = RECON_MAX_KEYWORDS;
    for (int i = 0; i < nkeywords; i++)
        list_add(&out->keywords, &out->nkeywords, keywords[i]);
    if (nkeywords == 0)
        return 0;
    pcre2_code *re = compile(keywords, nkeywords, err);
    if (!re) {
        recon_result_free(out);
        return -1;
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    file_hits *files = NULL;
    int nfiles = 0;
    for (int d = 0; d < ndirs; d++) {
        char **list;
        int n;
        kwb_error lerr = {{0}};
        if (ftree_list(dirs[d], &list, &n, &lerr) != 0) {
            list_add(&out->missing, &out->nmissing, dirs[d]);
            continue;
        }
        list_add(&out->consulted, &out->nconsulted, dirs[d]);
        for (int i = 0; i < n; i++) {
            char *path = xasprintf("%s/%s", dirs[d], list[i]);
            char *text = read_text(path, l.max_file_bytes);
            file_hits fh;
            if (text) {
                out->files_scanned++;
                if (scan_text(re, md, text, path, &l, &fh)) {
                    files = xrealloc(files, (size_t)(nfiles + 1) * sizeof *files);
                    files[nfiles++] = fh;
                }
            }
            free(text);
            free(path);
        }
        ftree_list_free(list, n);
    }
    if (nfiles > 1) /* files is NULL when nothing matched, which qsort may not be given */
        qsort(files, (size_t)nfiles, sizeof *files, by_rank);
    for (int f = 0; f < nfiles; f++) {
        for (int h = 0; h < files[f].nhits; h++) {
            if (out->nhits < l.max_hits) {
                out->hits = xrealloc(out->hits, (size_t)(out->nhits + 1) * sizeof *out->hits);
                out->hits[out->nhits++] = files[f].hits[h];
            } else {
                free(files[f].hits[h].file);
                free(files[f].hits[h].context);
            }
        }
        free(files[f].path);
    }
    free(files);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return 0;
}

void recon_result_free(recon_result *r)
{
    recon_words_free(r->keywords, r->nkeywords);
    recon_words_free(r->consulted, r->nconsulted);
    recon_words_free(r->missing, r->nmissing);
    for (int i = 0; i < r->nhits; i++) {
        free(r->hits[i].file);
        free(r->hits[i].context);
    }
    free(r->hits);
    memset(r, 0, sizeof *r);
}

void recon_format(const recon_result *r, size_t budget, strbuf *out)
{
    size_t start = out->len;
    strbuf_puts(out, "keywords:");
    for (int i = 0; i < r->nkeywords; i++)
        strbuf_printf(out, " %s", r->keywords[i]);
    strbuf_puts(out, "\nreferences consulted:");
    for (int i = 0; i < r->nconsulted; i++)
        strbuf_printf(out, " %s", r->consulted[i]);
    if (r->nconsulted == 0)
        strbuf_puts(out, " none");
    for (int i = 0; i < r->nmissing; i++)
        strbuf_printf(out, "\nreference not readable: %s", r->missing[i]);
    strbuf_printf(out, "\n%d hit(s) in %d file(s) scanned\n", r->nhits, r->files_scanned);
    int shown = 0;
    for (int i = 0; i < r->nhits; i++) {
        size_t need = strlen(r->hits[i].file) + strlen(r->hits[i].context) + 24;
        if (out->len - start + need > budget)
            break;
        strbuf_printf(out, "\n%s:%d:\n%s", r->hits[i].file, r->hits[i].line, r->hits[i].context);
        shown++;
    }
    if (shown < r->nhits)
        strbuf_printf(out, "\n[%d more hit(s) left out of the budget]\n", r->nhits - shown);
}

#include "skills.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

const char *const skills_classes[] = {"memory-bound",   "compute-bound", "latency-bound", "launch-bound",
                                      "speed-of-light", "failing",       "any",           NULL};

/* A cursor over the lines of a file. */
typedef struct lines {
    const char *p, *end;
    int line; /* number of the line last returned */
    const char *label;
    kwb_error *err;
} lines;

/* The next line (without its end) into *s and *n; returns 0 at the end of the text. */
static int next_line(lines *ls, const char **s, size_t *n)
{
    if (ls->p >= ls->end)
        return 0;
    const char *nl = memchr(ls->p, '\n', (size_t)(ls->end - ls->p));
    const char *stop = nl ? nl : ls->end;
    *s = ls->p;
    *n = (size_t)(stop - ls->p);
    if (*n > 0 && (*s)[*n - 1] == '\r')
        (*n)--;
    ls->p = nl ? nl + 1 : ls->end;
    ls->line++;
    return 1;
}

__attribute__((format(printf, 3, 4))) static int fail_at(const lines *ls, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kwb_error_set(ls->err, "%s:%d: %s", ls->label, line, msg);
}

static int line_is(const char *s, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(s, want, n) == 0;
}

/* S (N bytes) trimmed of blanks, as a new string. */
static char *trimmed(const char *s, size_t n)
{
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    return xstrndup(s, n);
}

static void list_free(skill_list *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

/* Splits the comma-separated VALUE into *l (empty items dropped). */
static void list_parse(const char *value, skill_list *l)
{
    list_free(l);
    const char *p = value;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *item = trimmed(p, n);
        if (*item) {
            l->items = xrealloc(l->items, (size_t)(l->n + 1) * sizeof *l->items);
            l->items[l->n++] = item;
        } else {
            free(item);
        }
        p += n + (comma ? 1 : 0);
    }
}

static int list_has(const skill_list *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

/* Splits "key: value" into a new key and value; returns -1 when there is no colon. */
static int key_value(const char *s, size_t n, char **key, char **value)
{
    const char *colon = memchr(s, ':', n);
    if (!colon)
        return -1;
    *key = trimmed(s, (size_t)(colon - s));
    *value = trimmed(colon + 1, n - (size_t)(colon - s) - 1);
    return 0;
}

/* Stores VALUE (owned) under KEY in one of the named string or list slots. */
typedef struct field {
    const char *key;
    char **str;
    skill_list *list;
} field;

static int set_field(const lines *ls, const field *fields, char *key, char *value)
{
    for (const field *f = fields; f->key; f++) {
        if (strcmp(f->key, key) != 0)
            continue;
        int dup = f->str ? *f->str != NULL : f->list->n > 0;
        if (dup)
            return fail_at(ls, ls->line, "'%s' given twice", key);
        if (f->str)
            *f->str = value;
        else {
            list_parse(value, f->list);
            free(value);
        }
        return 0;
    }
    char known[256] = "";
    for (const field *f = fields; f->key; f++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", f == fields ? "" : ", ", f->key);
    return fail_at(ls, ls->line, "unknown key '%s' (known: %s)", key, known);
}

/* Reads `key: value` lines up to the line END_MARK into FIELDS. */
static int read_fields(lines *ls, const char *end_mark, const field *fields, const char *what)
{
    const char *s;
    size_t n;
    int start = ls->line;
    while (next_line(ls, &s, &n)) {
        if (line_is(s, n, end_mark))
            return 0;
        char *key, *value;
        if (n == 0 || s[0] == '#')
            continue;
        if (key_value(s, n, &key, &value) != 0)
            return fail_at(ls, ls->line, "expected 'key: value' in the %s", what);
        int rc = set_field(ls, fields, key, value);
        free(key);
        if (rc != 0) {
            free(value);
            return -1;
        }
    }
    return fail_at(ls, start, "the %s opened here is never closed by '%s'", what, end_mark);
}

/* Checks a direction's required keys and its classes. */
static int check_direction(const lines *ls, const skill_direction *d)
{
    if (!d->id || !*d->id)
        return fail_at(ls, d->line, "direction without 'id'");
    if (!d->title || !*d->title)
        return fail_at(ls, d->line, "direction '%s' without 'title'", d->id);
    if (d->applies.n == 0)
        return fail_at(ls, d->line, "direction '%s' without 'applies' (bottleneck classes, or any)", d->id);
    if (d->scope.n == 0)
        return fail_at(ls, d->line, "direction '%s' without 'scope' (the files it may touch)", d->id);
    for (int i = 0; i < d->applies.n; i++) {
        int known = 0;
        for (const char *const *c = skills_classes; *c; c++)
            known |= strcmp(*c, d->applies.items[i]) == 0;
        if (!known)
            return fail_at(ls, d->line, "direction '%s': unknown bottleneck class '%s'", d->id, d->applies.items[i]);
    }
    return 0;
}

/* The guidance after a direction's block: lines up to the next level-1 or level-2 heading. */
static char *read_guidance(lines *ls)
{
    strbuf sb;
    strbuf_init(&sb);
    const char *s;
    size_t n;
    while (ls->p < ls->end) {
        lines peek = *ls;
        if (!next_line(&peek, &s, &n))
            break;
        if ((n >= 2 && memcmp(s, "# ", 2) == 0) || (n >= 3 && memcmp(s, "## ", 3) == 0) ||
            line_is(s, n, "```kwb-direction"))
            break;
        *ls = peek;
        strbuf_add(&sb, s, n);
        strbuf_add(&sb, "\n", 1);
    }
    char *text = strbuf_detach(&sb);
    char *t = trimmed(text ? text : "", text ? strlen(text) : 0);
    free(text);
    return t;
}

static int parse_direction(lines *ls, skill *sk)
{
    sk->dirs = xrealloc(sk->dirs, (size_t)(sk->ndirs + 1) * sizeof *sk->dirs);
    skill_direction *d = &sk->dirs[sk->ndirs++];
    memset(d, 0, sizeof *d);
    d->file = xstrdup(ls->label);
    d->line = ls->line;
    const field fields[] = {{"id", &d->id, NULL},
                            {"title", &d->title, NULL},
                            {"applies", NULL, &d->applies},
                            {"regimes", NULL, &d->regimes},
                            {"scope", NULL, &d->scope},
                            {"keywords", NULL, &d->keywords},
                            {NULL, NULL, NULL}};
    if (read_fields(ls, "```", fields, "kwb-direction block") != 0 || check_direction(ls, d) != 0)
        return -1;
    for (int i = 0; i < sk->ndirs - 1; i++)
        if (strcmp(sk->dirs[i].id, d->id) == 0)
            return fail_at(ls, d->line, "direction '%s' already declared on line %d", d->id, sk->dirs[i].line);
    d->guidance = read_guidance(ls);
    return 0;
}

int skills_parse(const char *text, size_t len, const char *label, skill *out, kwb_error *err)
{
    memset(out, 0, sizeof *out);
    out->path = xstrdup(label);
    lines ls = {text, text + len, 0, label, err};
    const char *s;
    size_t n;
    if (!next_line(&ls, &s, &n) || !line_is(s, n, "---")) {
        skills_free(out);
        return kwb_error_set(err, "%s:1: a skill starts with front matter ('---' on the first line)", label);
    }
    const field front[] = {{"skill", &out->id, NULL},
                           {"title", &out->title, NULL},
                           {"definitions", NULL, &out->definitions},
                           {"references", NULL, &out->references},
                           {NULL, NULL, NULL}};
    int rc = read_fields(&ls, "---", front, "front matter");
    if (rc == 0 && (!out->id || !*out->id))
        rc = fail_at(&ls, 1, "front matter without 'skill' (the skill's id)");
    if (rc == 0 && (!out->title || !*out->title))
        rc = fail_at(&ls, 1, "front matter without 'title'");
    while (rc == 0 && next_line(&ls, &s, &n))
        if (line_is(s, n, "```kwb-direction"))
            rc = parse_direction(&ls, out);
    if (rc != 0)
        skills_free(out);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.md names under DIR, sorted; NULL with *err set when DIR cannot be read. */
static char **md_files(const char *dir, int *count, kwb_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        kwb_error_set(err, "%s: cannot read the skills folder: %s", dir, strerror(errno));
        return NULL;
    }
    char **names = NULL;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0 && e->d_name[0] != '.') {
            names = xrealloc(names, (size_t)(n + 1) * sizeof *names);
            names[n++] = xasprintf("%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    if (n > 1)
        qsort(names, (size_t)n, sizeof *names, by_name);
    *count = n;
    return names ? names : xcalloc(1, sizeof *names);
}

/* Refuses a direction id that an earlier skill of SET declared. */
static int check_unique(const skill_set *set, const skill *sk, kwb_error *err)
{
    for (int i = 0; i < sk->ndirs; i++) {
        const skill_direction *prev = skills_find(set, sk->dirs[i].id);
        if (prev)
            return kwb_error_set(err, "%s:%d: direction '%s' already declared at %s:%d", sk->path, sk->dirs[i].line,
                                 sk->dirs[i].id, prev->file, prev->line);
    }
    return 0;
}

int skills_load_dir(const char *dir, skill_set *set, kwb_error *err)
{
    memset(set, 0, sizeof *set);
    int n = 0, rc = 0;
    char **files = md_files(dir, &n, err);
    if (!files)
        return -1;
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        char *text = rc == 0 ? strbuf_read_file(files[i], &len) : NULL;
        if (rc == 0 && !text)
            rc = kwb_error_set(err, "%s: cannot read: %s", files[i], strerror(errno));
        if (rc == 0 && (len < 3 || memcmp(text, "---", 3) != 0)) {
            free(text); /* prose only (README.md): not a skill */
            text = NULL;
        }
        if (text) {
            skill sk;
            rc = skills_parse(text, len, files[i], &sk, err);
            if (rc == 0 && (rc = check_unique(set, &sk, err)) != 0)
                skills_free(&sk);
            if (rc == 0) {
                set->skills = xrealloc(set->skills, (size_t)(set->n + 1) * sizeof *set->skills);
                set->skills[set->n++] = sk;
            }
        }
        free(text);
        free(files[i]);
    }
    free(files);
    if (rc != 0)
        skills_set_free(set);
    return rc;
}

const skill_direction *skills_find(const skill_set *set, const char *id)
{
    for (int i = 0; i < set->n; i++)
        for (int j = 0; j < set->skills[i].ndirs; j++)
            if (strcmp(set->skills[i].dirs[j].id, id) == 0)
                return &set->skills[i].dirs[j];
    return NULL;
}

int skills_applies(const skill *s, const skill_direction *d, const char *definition, const char *class,
                   const char *regime)
{
    if (definition && s->definitions.n > 0 && !list_has(&s->definitions, definition))
        return 0;
    if (class && !list_has(&d->applies, "any") && !list_has(&d->applies, class))
        return 0;
    if (regime && d->regimes.n > 0 && !list_has(&d->regimes, regime))
        return 0;
    return 1;
}

void skills_free(skill *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->ndirs; i++) {
        skill_direction *d = &s->dirs[i];
        free(d->id);
        free(d->title);
        list_free(&d->applies);
        list_free(&d->regimes);
        list_free(&d->scope);
        list_free(&d->keywords);
        free(d->guidance);
        free(d->file);
    }
    free(s->dirs);
    free(s->path);
    free(s->id);
    free(s->title);
    list_free(&s->definitions);
    list_free(&s->references);
    memset(s, 0, sizeof *s);
}

void skills_set_free(skill_set *set)
{
    if (!set)
        return;
    for (int i = 0; i < set->n; i++)
        skills_free(&set->skills[i]);
    free(set->skills);
    memset(set, 0, sizeof *set);
}

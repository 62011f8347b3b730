#include "ncu.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

/* Splits one CSV line (quoted cells, "" for a quote) into *cells; returns the count. */
static int split_csv(const char *s, size_t n, char ***cells)
{
    int count = 0;
    size_t i = 0;
    *cells = NULL;
    for (;;) {
        strbuf cell;
        strbuf_init(&cell);
        if (i < n && s[i] == '"') {
            for (i++; i < n; i++) {
                if (s[i] == '"' && i + 1 < n && s[i + 1] == '"')
                    strbuf_add(&cell, "\"", 1), i++;
                else if (s[i] == '"')
                    break;
                else
                    strbuf_add(&cell, &s[i], 1);
            }
            i++; /* the closing quote */
        } else {
            size_t start = i;
            while (i < n && s[i] != ',')
                i++;
            strbuf_add(&cell, s + start, i - start);
        }
        *cells = xrealloc(*cells, (size_t)(count + 1) * sizeof **cells);
        (*cells)[count++] = strbuf_detach(&cell);
        if (i >= n || s[i] != ',')
            return count;
        i++;
    }
}

static void free_cells(char **cells, int n)
{
    for (int i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
}

int ncu_parse(const char *text, size_t len, const char *label, ncu_table *t, kwb_error *err)
{
    memset(t, 0, sizeof *t);
    const char *p = text, *end = text + len;
    int line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        const char *s = p;
        p = nl ? nl + 1 : end;
        line++;
        if (n > 0 && s[n - 1] == '\r')
            n--;
        if (n == 0 || s[0] != '"')
            continue; /* ncu's own messages, blank lines */
        char **cells;
        int count = split_csv(s, n, &cells);
        if (!t->columns) {
            t->columns = cells;
            t->ncolumns = count;
            continue;
        }
        if (count != t->ncolumns) {
            kwb_error_set(err, "%s:%d: %d cells where the header has %d", label, line, count, t->ncolumns);
            free_cells(cells, count);
            ncu_free(t);
            return -1;
        }
        if (t->nrows == 0 && cells[0][0] == '\0') {
            free_cells(cells, count); /* the units row */
            continue;
        }
        t->rows = xrealloc(t->rows, (size_t)(t->nrows + 1) * sizeof *t->rows);
        t->rows[t->nrows++] = cells;
    }
    if (!t->columns)
        return kwb_error_set(err, "%s: no CSV header (was ncu run with --csv --page raw?)", label);
    return 0;
}

int ncu_column(const ncu_table *t, const char *name)
{
    for (int c = 0; c < t->ncolumns; c++)
        if (strcmp(t->columns[c], name) == 0)
            return c;
    return -1;
}

const char *ncu_text(const ncu_table *t, int r, const char *name)
{
    int c = ncu_column(t, name);
    return c >= 0 && r >= 0 && r < t->nrows ? t->rows[r][c] : NULL;
}

double ncu_number(const ncu_table *t, int r, const char *name)
{
    const char *s = ncu_text(t, r, name);
    if (!s || !*s)
        return NAN;
    char buf[64];
    size_t n = 0;
    for (; *s && n + 1 < sizeof buf; s++)
        if (*s != ',')
            buf[n++] = *s;
    buf[n] = '\0';
    char *endp;
    double v = strtod(buf, &endp);
    return endp != buf && *endp == '\0' ? v : NAN;
}

void ncu_free(ncu_table *t)
{
    free_cells(t->columns, t->ncolumns);
    for (int r = 0; r < t->nrows; r++)
        free_cells(t->rows[r], t->ncolumns);
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* The integer captured as group G of match M over SUBJECT, or 0. */
static int group_int(const char *subject, pcre2_match_data *m, int g)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m);
    if (ov[2 * g] == PCRE2_UNSET)
        return 0;
    return atoi(subject + ov[2 * g]);
}

int ptxas_parse(const char *text, ptxas_usage *out, int max)
{
    /* "Compiling entry function '_Z3fooPf' for 'sm_90a'", then "N bytes stack frame, N bytes spill
     * stores, N bytes spill loads", then "Used N registers, ... N bytes smem". */
    static const char *pattern =
        "Compiling entry function '([^']+)'.*?\\n"
        "(?:.*\\n)*?.*?(\\d+) bytes stack frame, (\\d+) bytes spill stores, (\\d+) bytes spill loads\\s*\\n"
        ".*?Used (\\d+) registers(?:.*?(\\d+) bytes smem)?";
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &errcode, &erroff, NULL);
    if (!re)
        return 0;
    pcre2_match_data *m = pcre2_match_data_create_from_pattern(re, NULL);
    size_t len = strlen(text), at = 0;
    int n = 0;
    while (n < max && pcre2_match(re, (PCRE2_SPTR)text, len, at, 0, m, NULL) > 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m);
        ptxas_usage *u = &out[n++];
        memset(u, 0, sizeof *u);
        size_t nl = ov[3] - ov[2];
        snprintf(u->name, sizeof u->name, "%.*s", (int)(nl < sizeof u->name ? nl : sizeof u->name - 1), text + ov[2]);
        u->stack = group_int(text, m, 2);
        u->spill_stores = group_int(text, m, 3);
        u->spill_loads = group_int(text, m, 4);
        u->registers = group_int(text, m, 5);
        u->smem = group_int(text, m, 6);
        at = ov[1];
    }
    pcre2_match_data_free(m);
    pcre2_code_free(re);
    return n;
}

#define _GNU_SOURCE
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void xalloc_die(size_t size)
{
    fprintf(stderr, "kwb: out of memory (%zu bytes)\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        xalloc_die(size);
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        xalloc_die(n * size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        xalloc_die(size);
    return q;
}

char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        xalloc_die(strlen(s) + 1);
    return d;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = strndup(s, n);
    if (!d)
        xalloc_die(n + 1);
    return d;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        xalloc_die(0);
    return s;
}

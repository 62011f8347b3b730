#include "strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void strbuf_init(strbuf *sb)
{
    sb->cap = 64;
    sb->len = 0;
    sb->s = xmalloc(sb->cap);
    sb->s[0] = '\0';
}

static void strbuf_reserve(strbuf *sb, size_t extra)
{
    if (sb->s && sb->len + extra + 1 <= sb->cap)
        return;
    if (sb->cap == 0)
        sb->cap = 64;
    while (sb->len + extra + 1 > sb->cap)
        sb->cap *= 2;
    sb->s = xrealloc(sb->s, sb->cap);
}

void strbuf_add(strbuf *sb, const void *p, size_t n)
{
    strbuf_reserve(sb, n);
    memcpy(sb->s + sb->len, p, n);
    sb->len += n;
    sb->s[sb->len] = '\0';
}

void strbuf_puts(strbuf *sb, const char *s)
{
    strbuf_add(sb, s, strlen(s));
}

void strbuf_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    strbuf_reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *strbuf_detach(strbuf *sb)
{
    char *s = sb->s;
    sb->s = NULL; /* empty and unallocated: adding to it again allocates anew */
    sb->len = sb->cap = 0;
    return s;
}

void strbuf_free(strbuf *sb)
{
    free(sb->s);
    sb->s = NULL;
    sb->len = sb->cap = 0;
}

char *strbuf_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf sb;
    strbuf_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        strbuf_add(&sb, buf, n);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        strbuf_free(&sb);
        errno = EIO;
        return NULL;
    }
    if (len)
        *len = sb.len;
    return sb.s;
}

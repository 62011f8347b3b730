/* strbuf.h - a growing, always NUL-terminated string. */
#ifndef KWB_STRBUF_H
#define KWB_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *s; /* never NULL after strbuf_init */
    size_t len;
    size_t cap;
} strbuf;

/* Makes sb an empty string. */
void strbuf_init(strbuf *sb);
/* Appends n bytes of p. */
void strbuf_add(strbuf *sb, const void *p, size_t n);
/* Appends a C string. */
void strbuf_puts(strbuf *sb, const char *s);
/* Appends formatted text. */
void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the string, which the caller frees, and leaves sb empty (nothing to free; adding
 * to it again is fine). */
char *strbuf_detach(strbuf *sb);
/* Frees the string; sb may be reused after strbuf_init. */
void strbuf_free(strbuf *sb);
/* Reads the whole file PATH into a new string (NUL-terminated, *len set when len is not
 * NULL). Returns NULL with errno set on failure; the caller frees the result. */
char *strbuf_read_file(const char *path, size_t *len);

#endif

/* xalloc.h - allocation that never returns NULL: on failure it prints and aborts. */
#ifndef KWB_XALLOC_H
#define KWB_XALLOC_H

#include <stddef.h>

/* malloc that aborts on failure; never returns NULL (size 0 gives a valid pointer). */
void *xmalloc(size_t size);
/* calloc that aborts on failure or overflow of n * size. */
void *xcalloc(size_t n, size_t size);
/* realloc that aborts on failure. */
void *xrealloc(void *p, size_t size);
/* strdup that aborts on failure; xstrdup(NULL) returns NULL. */
char *xstrdup(const char *s);
/* strndup that aborts on failure: at most N bytes of S, NUL-terminated. */
char *xstrndup(const char *s, size_t n);
/* asprintf that aborts on failure; returns a string the caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

#include "error.h"

#include <stdio.h>
#include <string.h>

int kwb_error_vset(kwb_error *err, const char *fmt, va_list ap)
{
    if (err)
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return -1;
}

int kwb_error_set(kwb_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kwb_error_vset(err, fmt, ap);
    va_end(ap);
    return -1;
}

int kwb_error_prefix(kwb_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char rest[sizeof err->msg];
    memcpy(rest, err->msg, sizeof rest);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n + 2 < sizeof err->msg) {
        /* Whatever does not fit is cut: a message, not data. */
        size_t used = (size_t)n;
        err->msg[used++] = ':';
        err->msg[used++] = ' ';
        size_t room = sizeof err->msg - used - 1;
        size_t len = strnlen(rest, room);
        memcpy(err->msg + used, rest, len);
        err->msg[used + len] = '\0';
    }
    return -1;
}

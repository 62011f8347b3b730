/* error.h - errors travel up as a status and a message; library code never prints. */
#ifndef KWB_ERROR_H
#define KWB_ERROR_H

#include <stdarg.h>

/* A one-line human message, e.g. "workloads/x.jsonl:3: input 'q': unknown dtype". */
typedef struct kwb_error {
    char msg[2048];
} kwb_error;

/* Formats the message into *err (when err is not NULL) and returns -1, so that
 * callers can write `return kwb_error_set(err, "...")`. */
int kwb_error_set(kwb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Same, from a va_list. */
int kwb_error_vset(kwb_error *err, const char *fmt, va_list ap);

/* Prepends "PREFIX: " to an already set message; returns -1. */
int kwb_error_prefix(kwb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

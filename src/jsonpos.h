/* jsonpos.h - where a value stands in JSON text, for error messages that name a line.
 * jansson reports lines only for syntax errors; for a semantic error (a bad dtype in
 * input 'q') this finds the line of the offending value in the original text. */
#ifndef KWB_JSONPOS_H
#define KWB_JSONPOS_H

#include <stddef.h>

/* Line (1-based) of the value at JSON Pointer POINTER (RFC 6901: "/inputs/q/dtype",
 * "/sources/0/path"; "" is the whole document) in TEXT, which must be valid JSON. When
 * the pointer leads nowhere, the line of the deepest value it reached (e.g. the object
 * that lacks a required key). Returns 1 for empty or invalid text. */
int jsonpos_line(const char *text, size_t len, const char *pointer);

/* NAME escaped as one JSON Pointer token (~ as ~0, / as ~1) into buf; returns buf. */
char *jsonpos_token(const char *name, char *buf, size_t cap);

#endif

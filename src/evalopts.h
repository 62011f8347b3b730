/* evalopts.h - a command's options as JSON and back, by a table of fields (name, type,
 * offset into the options struct): `kwb eval --session` records its options with the eval
 * run so that `--resume` repeats exactly the interrupted run. */
#ifndef KWB_EVALOPTS_H
#define KWB_EVALOPTS_H

#include <stddef.h>

#include <jansson.h>

#include "error.h"

typedef enum evalopts_type { EVALOPT_STR, EVALOPT_INT, EVALOPT_LLONG, EVALOPT_DOUBLE } evalopts_type;

typedef struct evalopts_field {
    const char *name;   /* the JSON member (the long option's name) */
    evalopts_type type; /* const char * / int / long long / double (NAN: not set) */
    size_t offset;      /* of the field in the options struct */
} evalopts_field;

/* The fields F[0..n) of BASE as a new JSON object (NULL strings and NAN doubles as null). */
json_t *evalopts_encode(const void *base, const evalopts_field *f, int n);
/* Sets the fields F[0..n) of BASE from OBJ (strings point into OBJ, which must outlive BASE);
 * a field OBJ lacks is left alone. Returns -1 with *err set when a member has the wrong type. */
int evalopts_apply(void *base, const evalopts_field *f, int n, json_t *obj, kwb_error *err);
/* Writes one line "PREFIX --NAME: VALUE replaced by the recorded RECORDED" to stderr for each
 * field F[0..n) whose value in GIVEN differs from DEFAULTS (so it was given) and from APPLIED. */
void evalopts_note_overridden(const char *prefix, const void *given, const void *defaults, const void *applied,
                              const evalopts_field *f, int n);

#endif

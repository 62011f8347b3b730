/* solution.h - a kwb solution folder: solution.json (FlashInfer-Bench Solution shape,
 * spec.binding "kwb") and its source files. */
#ifndef KWB_SOLUTION_H
#define KWB_SOLUTION_H

#include <stddef.h>

#include "error.h"

typedef struct solution_source {
    char *path; /* relative to the solution folder */
    char *content;
    size_t len;
} solution_source;

typedef struct solution {
    char *dir;
    char *json_path;
    char *name;
    char *definition;
    int definition_line; /* the line of "definition" in solution.json, for messages */
    int language_line;   /* the line of "spec.language" */
    char *author;
    char *language; /* "c" or "cuda" */
    char *entry_file;
    char *entry_symbol;
    solution_source *sources;
    int nsources;
} solution;

/* Reads DIR/solution.json and the sources it lists (inline "content", or the file of that
 * path in DIR). Returns NULL and sets *err to "DIR/solution.json:LINE: problem" on
 * failure; free with solution_free(). */
solution *solution_load(const char *dir, kwb_error *err);
/* Frees s; NULL is allowed. */
void solution_free(solution *s);

#endif

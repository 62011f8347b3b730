/* trace.h - FlashInfer-Bench trace lines (JSONL): definition, workload, solution and
 * evaluation, with the blocks each status carries. */
#ifndef KWB_TRACE_H
#define KWB_TRACE_H

#include <jansson.h>

#include "definition.h"
#include "error.h"
#include "results.h"

/* One trace line for result R of solution SOLUTION_NAME, run on HARDWARE (a device
 * description). The caller owns the returned object. */
json_t *trace_line(const definition *d, const char *solution_name, const char *hardware, const wl_result *r);
/* Writes N results as trace lines to PATH atomically (a temporary file renamed into
 * place). Returns 0, or -1 with *err set and PATH untouched. */
int trace_write_file(const char *path, const definition *d, const char *solution_name, const char *hardware,
                     const wl_result *r, int n, kwb_error *err);

#endif

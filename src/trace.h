/* trace.h - FlashInfer-Bench trace lines (JSONL): definition, workload, solution and
 * evaluation, with the blocks each status carries. */
#ifndef KWB_TRACE_H
#define KWB_TRACE_H

#include <jansson.h>

#include "definition.h"
#include "error.h"
#include "results.h"

/* The evaluation's "environment" from the runner's hello (HELLO may be NULL; DEVICE names the
 * hardware then): the device's name, kwb's and the runner's versions, CUDA driver and runtime. */
json_t *trace_environment(const json_t *hello, const char *device);
/* One trace line for result R of solution SOLUTION_NAME (the solution's name, as
 * TraceSet.get_solution looks it up) in ENVIRONMENT (trace_environment). The caller owns the
 * returned object. Latencies are means, as FlashInfer-Bench's. */
json_t *trace_line(const definition *d, const char *solution_name, const json_t *environment, const wl_result *r);
/* Writes N results as trace lines to PATH atomically (a temporary file renamed into
 * place). Returns 0, or -1 with *err set and PATH untouched. */
int trace_write_file(const char *path, const definition *d, const char *solution_name, const json_t *environment,
                     const wl_result *r, int n, kwb_error *err);

#endif

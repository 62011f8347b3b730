/* cupti_timer.h - the GPU's own time of a call from CUPTI's activity records: from the
 * first start to the last end of every kernel, copy and memset between begin and end, on
 * any stream (the kwb_* helper kernels left out). libcupti is loaded at run time, so a
 * runner without it (or without a GPU) still starts; then the events timer is used. */
#ifndef KWB_CUPTI_TIMER_H
#define KWB_CUPTI_TIMER_H

#include "error.h"

typedef struct cupti_timer cupti_timer;

/* Loads libcupti ($KWB_CUPTI_LIB, else libcupti.so.13 / libcupti.so on the library path,
 * else under the CUDA toolkit) and sets up kernel activity tracing, on only from each begin to
 * its end (for the runner's life with KWB_CUPTI_WINDOW=0). Returns NULL and sets *err when it
 * cannot. */
cupti_timer *cupti_timer_open(const char *cuda_path, kwb_error *err);
/* Drops every record so far: what end() sees is what happens after this. */
void cupti_timer_begin(cupti_timer *t);
/* After the device is synchronized: the span in milliseconds of the kernels, copies and
 * memsets that ran since begin() into *ms and their count into *kernels. Returns 0, or -1
 * when no record arrived (*kernels is then 0). */
int cupti_timer_end(cupti_timer *t, double *ms, int *kernels);
/* As begin(), and keeps every record with its launch's correlation id for end_batch(). */
void cupti_timer_begin_batch(cupti_timer *t);
/* After the device is synchronized: the spans of the K calls since begin_batch(), each the
 * records whose launches came between the two clock probes queued around it, into ms[0..K)
 * and their counts into kernels[0..K). Returns 0, or -1 when the records cannot be split so
 * (a probe missing, or a record that ran before its call's opening probe). */
int cupti_timer_end_batch(cupti_timer *t, int k, double *ms, int *kernels);
/* Stops tracing and frees t; NULL is allowed. */
void cupti_timer_close(cupti_timer *t);

#endif

/* status.h - evaluation statuses: FlashInfer-Bench's, plus kwb's REJECTED_INTEGRITY. */
#ifndef KWB_STATUS_H
#define KWB_STATUS_H

/* Ordered from best to worst only for PASSED; the rest are distinct outcomes. */
typedef enum eval_status {
    ST_PASSED,
    ST_INCORRECT_SHAPE,
    ST_INCORRECT_DTYPE,
    ST_INCORRECT_NUMERICAL,
    ST_RUNTIME_ERROR,
    ST_COMPILE_ERROR,
    ST_TIMEOUT,
    ST_REJECTED_INTEGRITY,
    ST_COUNT
} eval_status;

/* The status's name as written in traces ("PASSED", "TIMEOUT", ...); never NULL. */
const char *status_name(eval_status s);
/* Parses a status name; returns 0, or -1 when unknown. */
int status_from_name(const char *name, eval_status *s);
/* The name FlashInfer-Bench can read: REJECTED_INTEGRITY is written as RUNTIME_ERROR. */
const char *status_trace_name(eval_status s);

#endif

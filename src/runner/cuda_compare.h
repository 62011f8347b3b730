/* cuda_compare.h - the tolerance rule (check.h) run on the GPU over outputs that never leave it:
 * a call whose outputs all pass needs no read-back; anything else is left to the host's check,
 * which says what failed and where. */
#ifndef KWB_CUDA_COMPARE_H
#define KWB_CUDA_COMPARE_H

#include <stddef.h>

#include "check.h"
#include "kwb/kernel.h"

/* The comparison's device slot, and whether its kernel agreed with check_tolerance at open. */
typedef struct cuda_compare {
    unsigned *slot; /* device: three words (cuda_support_compare's) */
    int ok;         /* the self-test passed: the comparison may be used */
    int rows_ok;    /* the row comparison's self-test passed */
} cuda_compare;

/* Allocates the slot and tests the kernel against check_tolerance on STREAM (float32, float16,
 * bfloat16; within tolerance, one element outside, a NaN). Returns 0 (c->ok says whether the
 * kernel may be used), or a cudaError_t value. */
int cuda_compare_open(cuda_compare *c, void *stream);

/* Compares N elements of type T at device memory OUT with REF under P on STREAM: 0 with *ST as
 * check_tolerance would fill it when every element is finite and within tolerance; 1 when one is
 * not, the type has no kernel or the kernel failed its self-test (the caller checks on the host);
 * -1 with *CUDA_ERROR set. */
int cuda_compare_run(cuda_compare *c, void *stream, const void *out, const void *ref, kwb_dtype t, size_t n,
                     const check_policy *p, check_stats *st, int *cuda_error);

/* Whether each row of ROW elements of type T at device memory OUT holds the elements of REF's row
 * in some order, bit for bit ("order": "any" outputs equal to the reference's), on STREAM: 0 when
 * every row does, 1 when one does not or the rows cannot be compared here (too long, the kernel
 * failed its self-test: the caller checks on the host), -1 with *CUDA_ERROR set. */
int cuda_compare_rows(cuda_compare *c, void *stream, const void *out, const void *ref, kwb_dtype t, size_t n,
                      size_t row, int *cuda_error);

/* Frees the slot. */
void cuda_compare_close(cuda_compare *c);

#endif

/* cuda_rng.h - rng_fill on a CUDA device: the same bits as the host's rng_fill, by
 * construction (both evaluate rng_formula_value from src/rng_formula.h). Callable from C;
 * implemented in cuda_rng.cu. */
#ifndef KWB_CUDA_RNG_H
#define KWB_CUDA_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on STREAM (a cudaStream_t; NULL for the legacy default stream) a fill of N
 * elements of kwb_dtype DTYPE at device memory DEV_PTR, element i getting the bits that
 * rng_fill(host, DTYPE, N, KEY) stores at i. DEV_PTR must be aligned to the element size
 * (cudaMalloc memory is). Does not wait for the fill. Returns 0, or the cudaError_t of a
 * failed launch (cudaErrorInvalidValue for an unknown DTYPE or a NULL DEV_PTR with N > 0);
 * N == 0 launches nothing and returns 0. */
int cuda_rng_fill(void *dev_ptr, int dtype, size_t n, uint64_t key, void *stream);
/* As cuda_rng_fill for NROWS rows of ROW_ELEMS elements alone, the rows' numbers (int64) at device
 * memory ROWS: element ROWS[r] * ROW_ELEMS + j gets the bits a whole fill gives it. */
int cuda_rng_fill_rows(void *dev_ptr, int dtype, size_t row_elems, const int64_t *rows, size_t nrows, uint64_t key,
                       void *stream);

#ifdef __cplusplus
}
#endif

#endif

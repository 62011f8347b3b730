/* cuda_rng.cu - rng_fill on a CUDA device (cuda_rng.h). The kernel evaluates the very
 * functions the host's rng_fill uses (rng_formula.h, dtype_bits.h), so the values are
 * bit-identical by construction. Those functions are integer-only but for an exact
 * int-to-float conversion (|x| < 2^24) and an exact multiply by 2^-16 that is never
 * followed by an add, so FMA contraction (-fmad) cannot change any result; no special
 * nvcc float flags are needed. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"
#include "kwb/rng_formula.h"
#include "runner/cuda_rng.h"

enum { CUDA_RNG_THREADS = 256, CUDA_RNG_MAX_BLOCKS = 4096 };

/* Grid-stride fill of N elements of type T (stored as the unsigned integer W of its width). */
template <kwb_dtype T, typename W>
__global__ void __launch_bounds__(CUDA_RNG_THREADS) cuda_rng_kernel(W *out, size_t n, uint64_t key)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = (W)rng_formula_value(T, key, (uint64_t)i);
}

/* Grid-stride fill of the N = NROWS * ROW elements of the rows at ROWS (element j of row r is
 * ROWS[r] * ROW + j of the whole tensor), each with its whole fill's value. */
template <kwb_dtype T, typename W>
__global__ void __launch_bounds__(CUDA_RNG_THREADS)
    cuda_rng_rows_kernel(W *out, size_t row, const int64_t *rows, size_t n, uint64_t key)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const size_t g = (size_t)rows[i / row] * row + i % row;
        out[g] = (W)rng_formula_value(T, key, (uint64_t)g);
    }
}

/* The launch of one of the kernels above over N elements: the whole fill when ROWS is NULL. */
template <kwb_dtype T, typename W>
static cudaError_t cuda_rng_launch(void *dev_ptr, size_t n, size_t row, const int64_t *rows, uint64_t key,
                                   cudaStream_t stream)
{
    size_t blocks = (n + CUDA_RNG_THREADS - 1) / CUDA_RNG_THREADS;
    if (blocks > CUDA_RNG_MAX_BLOCKS)
        blocks = CUDA_RNG_MAX_BLOCKS;
    if (rows)
        cuda_rng_rows_kernel<T, W><<<(unsigned)blocks, CUDA_RNG_THREADS, 0, stream>>>((W *)dev_ptr, row, rows, n, key);
    else
        cuda_rng_kernel<T, W><<<(unsigned)blocks, CUDA_RNG_THREADS, 0, stream>>>((W *)dev_ptr, n, key);
    return cudaGetLastError();
}

/* N elements of DTYPE: the whole tensor's (ROWS NULL) or those of the rows at ROWS. */
static int cuda_rng_any(void *dev_ptr, int dtype, size_t n, size_t row, const int64_t *rows, uint64_t key, void *stream)
{
    if (n == 0)
        return 0;
    if (dev_ptr == NULL)
        return (int)cudaErrorInvalidValue;
    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e;
    switch (dtype) {
    case KWB_F32: e = cuda_rng_launch<KWB_F32, uint32_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_F16: e = cuda_rng_launch<KWB_F16, uint16_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_BF16: e = cuda_rng_launch<KWB_BF16, uint16_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_F8_E4M3: e = cuda_rng_launch<KWB_F8_E4M3, uint8_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_F8_E5M2: e = cuda_rng_launch<KWB_F8_E5M2, uint8_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_I64: e = cuda_rng_launch<KWB_I64, uint64_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_I32: e = cuda_rng_launch<KWB_I32, uint32_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_I16: e = cuda_rng_launch<KWB_I16, uint16_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_I8: e = cuda_rng_launch<KWB_I8, uint8_t>(dev_ptr, n, row, rows, key, s); break;
    case KWB_BOOL: e = cuda_rng_launch<KWB_BOOL, uint8_t>(dev_ptr, n, row, rows, key, s); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)e;
}

extern "C" int cuda_rng_fill(void *dev_ptr, int dtype, size_t n, uint64_t key, void *stream)
{
    return cuda_rng_any(dev_ptr, dtype, n, 0, NULL, key, stream);
}

extern "C" int cuda_rng_fill_rows(void *dev_ptr, int dtype, size_t row_elems, const int64_t *rows, size_t nrows,
                                  uint64_t key, void *stream)
{
    if (nrows > 0 && rows == NULL)
        return (int)cudaErrorInvalidValue;
    return cuda_rng_any(dev_ptr, dtype, nrows * row_elems, row_elems, rows, key, stream);
}

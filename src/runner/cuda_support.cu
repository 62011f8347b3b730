/* cuda_support.cu - kernels of the CUDA device; see cuda_support.h. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include "digest_formula.h"
#include "runner/cuda_support.h"

static __device__ __forceinline__ unsigned long long global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

extern "C" __global__ void kwb_spin_kernel(const volatile int *flag, unsigned long long timeout_ns, int *timed_out)
{
    unsigned long long start = global_ns();
    while (*flag == 0) {
        if (global_ns() - start > timeout_ns) {
            *timed_out = 1;
            return;
        }
        __nanosleep(200);
    }
}

extern "C" __global__ void kwb_clock_probe(unsigned long long *slot)
{
    slot[0] = (unsigned long long)clock64();
    slot[1] = global_ns();
}

extern "C" __global__ void kwb_peak_fma(float *out, int iters)
{
    float a = threadIdx.x * 1e-7f, b = a + 1e-7f, c = b + 1e-7f, d = c + 1e-7f;
    const float m = 0.999999f, k = 1e-7f;
    for (int i = 0; i < iters; i++) {
        a = fmaf(a, m, k);
        b = fmaf(b, m, k);
        c = fmaf(c, m, k);
        d = fmaf(d, m, k);
    }
    float s = a + b + c + d;
    if (s == 12345.0f) /* never true; keeps the chains alive */
        out[blockIdx.x] = s;
}

extern "C" __global__ void kwb_peak_mma(float *out, int iters)
{
    using namespace nvcuda;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c0, c1, c2, c3;
    wmma::fill_fragment(fa, __float2bfloat16(1.0f / 4096));
    wmma::fill_fragment(fb, __float2bfloat16(1.0f / 4096));
    wmma::fill_fragment(c0, 0.0f);
    wmma::fill_fragment(c1, 0.0f);
    wmma::fill_fragment(c2, 0.0f);
    wmma::fill_fragment(c3, 0.0f);
    for (int i = 0; i < iters; i++) {
        wmma::mma_sync(c0, fa, fb, c0);
        wmma::mma_sync(c1, fa, fb, c1);
        wmma::mma_sync(c2, fa, fb, c2);
        wmma::mma_sync(c3, fa, fb, c3);
    }
    float s = c0.x[0] + c1.x[0] + c2.x[0] + c3.x[0];
    if (s == 12345.0f)
        out[blockIdx.x] = s;
}

/* Reads every byte of buf so that L2 ends up holding clean lines (a memset leaves dirty ones,
 * whose write-back the next kernel would pay for). */
extern "C" __global__ void kwb_l2_read(const int4 *buf, size_t n, int *sink)
{
    int acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int4 v = buf[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x5eed5eed) /* practically never; keeps the loads */
        *sink = acc;
}

extern "C" int cuda_support_read(void *stream, const void *buf, size_t bytes, int *sink)
{
    kwb_l2_read<<<1024, 256, 0, (cudaStream_t)stream>>>((const int4 *)buf, bytes / sizeof(int4), sink);
    return (int)cudaGetLastError();
}

extern "C" int cuda_support_hold(void *stream, const volatile int *flag, uint64_t timeout_ns, int *timed_out)
{
    kwb_spin_kernel<<<1, 1, 0, (cudaStream_t)stream>>>(flag, (unsigned long long)timeout_ns, timed_out);
    return (int)cudaGetLastError();
}

extern "C" int cuda_support_probe(void *stream, unsigned long long *slot)
{
    kwb_clock_probe<<<1, 1, 0, (cudaStream_t)stream>>>(slot);
    return (int)cudaGetLastError();
}

extern "C" __global__ void kwb_fe_tiny(int *slot)
{
    *slot = 1;
}

extern "C" int cuda_support_tiny(void *stream, int *slot)
{
    kwb_fe_tiny<<<1, 1, 0, (cudaStream_t)stream>>>(slot);
    return (int)cudaGetLastError();
}

extern "C" int cuda_support_fma(void *stream, int grid, int iters, float *out)
{
    kwb_peak_fma<<<grid, 256, 0, (cudaStream_t)stream>>>(out, iters);
    return (int)cudaGetLastError();
}

extern "C" int cuda_support_mma(void *stream, int grid, int iters, float *out)
{
    kwb_peak_mma<<<grid, 128, 0, (cudaStream_t)stream>>>(out, iters);
    return (int)cudaGetLastError();
}

/* One thread block's share of the digest of N bytes at P (8-byte aligned), added to *OUT. */
extern "C" __global__ void kwb_digest(const unsigned long long *p, size_t n, unsigned long long key,
                                      unsigned long long *out)
{
    size_t words = n / 8;
    unsigned long long acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        acc += digest_term(key, i, p[i]);
    if (blockIdx.x == 0 && threadIdx.x == 0 && n % 8)
        acc += digest_term(key, words, digest_tail((const unsigned char *)p, n));
    for (int o = 16; o > 0; o /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        atomicAdd(out, acc);
}

/* Copies the digest's sum into host-mapped memory, where the host reads it after synchronizing. */
extern "C" __global__ void kwb_digest_out(const unsigned long long *sum, unsigned long long *host)
{
    *host = *sum;
}

extern "C" int cuda_support_digest(void *stream, const void *p, size_t n, uint64_t key, unsigned long long *out,
                                   unsigned long long *host_out)
{
    cudaError_t e = cudaMemsetAsync(out, 0, sizeof *out, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return (int)e;
    size_t words = n / 8 + 1, blocks = (words + 255) / 256;
    unsigned grid = blocks < 1024 ? (unsigned)blocks : 1024u;
    kwb_digest<<<grid, 256, 0, (cudaStream_t)stream>>>((const unsigned long long *)p, n, key, out);
    if (host_out)
        kwb_digest_out<<<1, 1, 0, (cudaStream_t)stream>>>(out, host_out);
    return (int)cudaGetLastError();
}

/* Element I of a float tensor of KIND (cuda_support_compare's), as a float. */
static __device__ __forceinline__ float load_float(const void *p, int kind, size_t i)
{
    if (kind == 1)
        return __half2float(((const __half *)p)[i]);
    if (kind == 2)
        return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
    return ((const float *)p)[i];
}

/* One thread block's share of the tolerance rule: its maxima and its verdict folded into SLOT. */
extern "C" __global__ void kwb_compare(const void *out, const void *ref, int kind, size_t n, float atol, float rtol,
                                       unsigned *slot)
{
    float max_abs = 0, max_rel = 0;
    int bad = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float x = load_float(out, kind, i), y = load_float(ref, kind, i);
        float a = fabsf(x - y), r = a / (fabsf(y) + 1e-8f);
        max_abs = a > max_abs ? a : max_abs;
        max_rel = r > max_rel ? r : max_rel;
        bad |= (a > atol && r > rtol) || !isfinite(x) || !isfinite(y);
    }
    for (int o = 16; o > 0; o /= 2) {
        max_abs = fmaxf(max_abs, __shfl_down_sync(0xffffffffu, max_abs, o));
        max_rel = fmaxf(max_rel, __shfl_down_sync(0xffffffffu, max_rel, o));
    }
    bad = __any_sync(0xffffffffu, bad);
    if ((threadIdx.x & 31) == 0) {
        /* finite non-negative floats order as their bits do; anything else is bad already */
        atomicMax(&slot[0], __float_as_uint(max_abs));
        atomicMax(&slot[1], __float_as_uint(max_rel));
        if (bad)
            atomicOr(&slot[2], 1u);
    }
}

extern "C" int cuda_support_compare(void *stream, const void *out, const void *ref, int kind, size_t n, float atol,
                                    float rtol, unsigned *slot)
{
    cudaError_t e = cudaMemsetAsync(slot, 0, 3 * sizeof *slot, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return (int)e;
    size_t blocks = (n + 255) / 256;
    unsigned grid = blocks < 1 ? 1u : blocks < 2048 ? (unsigned)blocks : 2048u;
    kwb_compare<<<grid, 256, 0, (cudaStream_t)stream>>>(out, ref, kind, n, atol, rtol, slot);
    return (int)cudaGetLastError();
}

/* Sorts KEYS[0..P) (P a power of two) ascending in shared memory by a bitonic network; every
 * thread of the block takes part. */
template <typename K> static __device__ void bitonic_sort(K *keys, unsigned p)
{
    for (unsigned k = 2; k <= p; k <<= 1)
        for (unsigned j = k >> 1; j > 0; j >>= 1) {
            for (unsigned i = threadIdx.x; i < p; i += blockDim.x) {
                unsigned partner = i ^ j;
                if (partner > i) {
                    K a = keys[i], b = keys[partner];
                    if ((a > b) == ((i & k) == 0)) {
                        keys[i] = b;
                        keys[partner] = a;
                    }
                }
            }
            __syncthreads();
        }
}

/* Element I of a row of ELEM-byte elements as an unsigned key (its bits, zero-extended). */
template <typename K> static __device__ __forceinline__ K load_key(const unsigned char *row, int elem, unsigned i)
{
    if (elem == 1)
        return row[i];
    if (elem == 2)
        return ((const unsigned short *)row)[i];
    if (elem == 4)
        return ((const unsigned *)row)[i];
    return (K)((const unsigned long long *)row)[i];
}

/* One block per row: the row of OUT and of REF sorted in shared memory (padded to P with the
 * largest key), compared; a row that differs, or holds a value whose bits cover NAN_MASK (a float
 * that is not finite; 0 for integers), adds one to *SLOT. */
template <typename K>
static __global__ void kwb_rows_equal(const unsigned char *out, const unsigned char *ref, int elem, unsigned row,
                                      unsigned p, unsigned long long nan_mask, unsigned *slot)
{
    extern __shared__ unsigned long long rows_shared[];
    K *a = (K *)rows_shared, *b = a + p;
    size_t base = (size_t)blockIdx.x * row * (size_t)elem;
    int differs = 0;
    for (unsigned i = threadIdx.x; i < p; i += blockDim.x) {
        a[i] = i < row ? load_key<K>(out + base, elem, i) : (K) ~(K)0;
        b[i] = i < row ? load_key<K>(ref + base, elem, i) : (K) ~(K)0;
        differs |= nan_mask && i < row && ((a[i] & nan_mask) == nan_mask || (b[i] & nan_mask) == nan_mask);
    }
    __syncthreads();
    bitonic_sort(a, p);
    bitonic_sort(b, p);
    for (unsigned i = threadIdx.x; i < p; i += blockDim.x)
        differs |= a[i] != b[i];
    if (__syncthreads_or(differs) && threadIdx.x == 0)
        atomicAdd(slot, 1u);
}

extern "C" int cuda_support_rows_equal(void *stream, const void *out, const void *ref, int elem, size_t rows,
                                       size_t row, unsigned long long nan_mask, unsigned *slot)
{
    unsigned p = 1;
    while (p < row)
        p <<= 1;
    size_t key = elem == 8 ? 8 : 4, shared = 2 * (size_t)p * key;
    if (shared > CUDA_SUPPORT_ROWS_SHARED || rows > 0x7fffffffu || (elem != 1 && elem != 2 && elem != 4 && elem != 8))
        return -1;
    cudaError_t e = cudaMemsetAsync(slot, 0, sizeof *slot, (cudaStream_t)stream);
    if (e != cudaSuccess || rows == 0)
        return (int)e;
    unsigned threads = p < 512 ? (p < 32 ? 32 : p) : 512;
    if (key == 8)
        kwb_rows_equal<unsigned long long><<<(unsigned)rows, threads, shared, (cudaStream_t)stream>>>(
            (const unsigned char *)out, (const unsigned char *)ref, elem, (unsigned)row, p, nan_mask, slot);
    else
        kwb_rows_equal<unsigned><<<(unsigned)rows, threads, shared, (cudaStream_t)stream>>>(
            (const unsigned char *)out, (const unsigned char *)ref, elem, (unsigned)row, p, nan_mask, slot);
    return (int)cudaGetLastError();
}

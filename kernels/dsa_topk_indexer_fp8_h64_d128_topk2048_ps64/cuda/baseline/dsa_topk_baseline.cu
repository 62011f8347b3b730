/* dsa_topk_baseline.cu - straightforward CUDA solution of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
 * (kwb ABI). Float32 math, two kernels and a stream-ordered scratch of scores:
 *
 *   score: one 256-thread block per (row b, page slot s) in use. The row's query (64 heads x 128,
 *     fp8 decoded through a table) sits in shared memory; the page's 64 keys are staged as fp8
 *     bytes with rows padded to 132 bytes (no bank conflicts). Thread (token t, group g) sums
 *     16 heads: sum_h w[b,h] * relu(q[b,h] . k_t) * 1, k_t = code * scale; the four groups'
 *     partial sums are added through shared memory.
 *   select: one 1024-thread block per row. A row of L <= 2048 tokens takes them all. Otherwise
 *     a radix select over the scores' order-preserving 32-bit keys (four 8-bit passes of a
 *     256-bin histogram) finds the 2048th largest key T and how many of the chosen equal it;
 *     keys above T are written through an atomic counter, then keys equal to T until 2048.
 *     The order of the output is unspecified (the check is by score, not order).
 *
 * Arguments: q_index_fp8 k_index_cache_fp8 weights seq_lens block_table | topk_indices. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kwb/kernel.h"

#define H 64    /* index heads */
#define D 128   /* head dim */
#define PAGE 64 /* tokens per page */
#define TOPK 2048
#define PAGE_BYTES (PAGE * 132)
#define FP8_BYTES (PAGE * D)
#define KROW 132 /* padded bytes per staged key row: (t * 33 + d / 4) % 32 banks differ */
#define GROUPS 4 /* head groups per token */
#define SCORE_THREADS (PAGE * GROUPS)
#define SELECT_THREADS 1024

/* float8_e4m3fn code C as a float (NaN for 0x7f and 0xff). */
static __device__ float e4m3(unsigned c)
{
    const unsigned e = (c >> 3) & 15u, m = c & 7u;
    float v = e == 0 ? m * 0x1p-9f : (e == 15 && m == 7 ? NAN : ldexpf(1.0f + m * 0.125f, (int)e - 7));
    return (c & 0x80u) ? -v : v;
}

__global__ void __launch_bounds__(SCORE_THREADS)
    score_kernel(const uint8_t *__restrict__ q, const uint8_t *__restrict__ cache, const float *__restrict__ weights,
                 const int32_t *__restrict__ seq_lens, const int32_t *__restrict__ table, int max_pages, int num_pages,
                 float *__restrict__ scores)
{
    __shared__ float sq[H][D], lut[256], part[GROUPS][PAGE];
    __shared__ __align__(16) uint8_t keys[PAGE * KROW];
    __shared__ float scale[PAGE];
    const int b = blockIdx.y, slot = blockIdx.x, tid = threadIdx.x;
    const int len = seq_lens[b];
    if (slot * PAGE >= len)
        return;
    const int page = table[(size_t)b * max_pages + slot];
    if (page < 0 || page >= num_pages) { /* not a page of the cache: nothing to read */
        if (tid < PAGE && slot * PAGE + tid < len)
            scores[(size_t)b * max_pages * PAGE + slot * PAGE + tid] = -INFINITY;
        return;
    }
    lut[tid] = e4m3(tid);
    __syncthreads();
    for (int i = tid; i < H * D; i += SCORE_THREADS)
        sq[i / D][i % D] = lut[q[(size_t)b * H * D + i]];
    const uint8_t *src = cache + (size_t)page * PAGE_BYTES;
    const uint32_t *words = reinterpret_cast<const uint32_t *>(src);
    for (int i = tid; i < FP8_BYTES / 4; i += SCORE_THREADS) /* word i: token i / 32, bytes 4 (i % 32) */
        *reinterpret_cast<uint32_t *>(&keys[(i / 32) * KROW + 4 * (i % 32)]) = words[i];
    if (tid < PAGE)
        scale[tid] = reinterpret_cast<const float *>(src + FP8_BYTES)[tid];
    __syncthreads();

    const int t = tid % PAGE, g = tid / PAGE;
    float acc[H / GROUPS] = {0};
    for (int d = 0; d < D; d += 4) {
        const uint32_t word = *reinterpret_cast<const uint32_t *>(&keys[t * KROW + d]);
        for (int i = 0; i < 4; i++) {
            const float k = lut[(word >> (8 * i)) & 255u];
#pragma unroll
            for (int j = 0; j < H / GROUPS; j++)
                acc[j] += sq[g * (H / GROUPS) + j][d + i] * k;
        }
    }
    float s = 0.0f;
    for (int j = 0; j < H / GROUPS; j++)
        s += weights[(size_t)b * H + g * (H / GROUPS) + j] * fmaxf(acc[j] * scale[t], 0.0f);
    part[g][t] = s;
    __syncthreads();
    if (g == 0 && slot * PAGE + t < len)
        scores[(size_t)b * max_pages * PAGE + slot * PAGE + t] = part[0][t] + part[1][t] + part[2][t] + part[3][t];
}

/* A 32-bit key in the order of the float F (NaN above everything, as torch.topk ranks it). */
static __device__ uint32_t order_key(float f)
{
    const uint32_t u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : u | 0x80000000u;
}

__global__ void __launch_bounds__(SELECT_THREADS)
    select_kernel(const float *__restrict__ scores, const int32_t *__restrict__ seq_lens,
                  const int32_t *__restrict__ table, int max_pages, int32_t *__restrict__ out)
{
    __shared__ unsigned hist[256];
    __shared__ uint32_t prefix, mask;
    __shared__ int need, above, equal;
    const int b = blockIdx.x, tid = threadIdx.x;
    const int cap = max_pages * PAGE;
    const int len = min(max(seq_lens[b], 0), cap);
    const float *row = scores + (size_t)b * cap;
    const int32_t *pages = table + (size_t)b * max_pages;
    int32_t *o = out + (size_t)b * TOPK;
    if (len <= TOPK) {
        for (int i = tid; i < TOPK; i += SELECT_THREADS)
            o[i] = i < len ? pages[i / PAGE] * PAGE + i % PAGE : -1;
        return;
    }
    if (tid == 0) {
        prefix = mask = 0;
        need = TOPK;
        above = equal = 0;
    }
    for (int shift = 24; shift >= 0; shift -= 8) {
        if (tid < 256)
            hist[tid] = 0;
        __syncthreads();
        for (int i = tid; i < len; i += SELECT_THREADS) {
            const uint32_t key = order_key(row[i]);
            if ((key & mask) == prefix)
                atomicAdd(&hist[(key >> shift) & 255u], 1u);
        }
        __syncthreads();
        if (tid == 0) { /* the bin holding the need-th largest of the keys left */
            int cum = 0, bin = 255;
            while (cum + (int)hist[bin] < need)
                cum += hist[bin--];
            need -= cum;
            prefix |= (uint32_t)bin << shift;
            mask |= 255u << shift;
        }
        __syncthreads();
    }
    const uint32_t threshold = prefix; /* the 2048th largest key; `need` of the chosen equal it */
    for (int i = tid; i < len; i += SELECT_THREADS) {
        const uint32_t key = order_key(row[i]);
        int at = -1;
        if (key > threshold)
            at = atomicAdd(&above, 1);
        else if (key == threshold) {
            const int e = atomicAdd(&equal, 1);
            at = e < need ? TOPK - need + e : -1;
        }
        if (at >= 0)
            o[at] = pages[i / PAGE] * PAGE + i % PAGE;
    }
}

extern "C" int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 6)
        return -1;
    const int batch = (int)args[0].shape[0], num_pages = (int)args[1].shape[0], max_pages = (int)args[4].shape[1];
    cudaStream_t s = (cudaStream_t)stream;
    if (batch == 0)
        return 0;
    float *scores = NULL;
    if (max_pages > 0) {
        if (cudaMallocAsync((void **)&scores, (size_t)batch * max_pages * PAGE * sizeof(float), s) != cudaSuccess)
            return -1;
        score_kernel<<<dim3(max_pages, batch), SCORE_THREADS, 0, s>>>(
            (const uint8_t *)args[0].data, (const uint8_t *)args[1].data, (const float *)args[2].data,
            (const int32_t *)args[3].data, (const int32_t *)args[4].data, max_pages, num_pages, scores);
    }
    select_kernel<<<batch, SELECT_THREADS, 0, s>>>(scores, (const int32_t *)args[3].data, (const int32_t *)args[4].data,
                                                   max_pages, (int32_t *)args[5].data);
    if (scores)
        cudaFreeAsync(scores, s);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* reference.cu - CUDA reference of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64, float32, simple
 * over fast. Two kernels on the caller's stream, with a stream-ordered scratch of scores:
 *   1. one block per (row b, page slot s), one thread per token of the page: the token's key
 *      dequantized value by value (e4m3 code * its scale) against the query kept in shared
 *      memory; score = sum_h w[b,h] * relu(q[b,h] . k);
 *   2. one thread per position i of a row: its rank = the number of positions j < L with a
 *      higher score, or an equal one and j < i (the CPU reference's order); a rank below
 *      min(2048, L) writes the token's global index there, and slots from min(2048, L) on
 *      get -1.
 * It cannot report a bad seq_len or page without synchronizing: tokens on a page outside the
 * cache score -inf, and positions past the block table are left out. */
#include <math.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "dsa_topk.h"
#include "kwb/kernel.h"

enum { RANK_THREADS = 256, RANK_TILE = 1024 };

static __global__ void __launch_bounds__(DSA_PAGE)
    score_kernel(const uint8_t *q, const uint8_t *cache, const float *weights, const int32_t *seq_lens,
                 const int32_t *block_table, int64_t max_pages, int64_t num_pages, float *scores)
{
    __shared__ float sq[DSA_D][DSA_H]; /* the row's query, transposed */
    const int64_t b = blockIdx.y, slot = blockIdx.x;
    const int t = threadIdx.x;
    const int64_t len = seq_lens[b], pos = slot * DSA_PAGE + t;
    if (slot * DSA_PAGE >= len)
        return; /* the whole block: a page the row does not use */
    for (int i = t; i < DSA_H * DSA_D; i += DSA_PAGE)
        sq[i % DSA_D][i / DSA_D] = dtype_bits_e4m3_to_f32(q[b * DSA_H * DSA_D + i]);
    __syncthreads();
    if (pos >= len)
        return;
    const int64_t page = block_table[b * max_pages + slot];
    float score = -INFINITY;
    if (page >= 0 && page < num_pages) {
        const uint8_t *base = cache + page * DSA_PAGE_BYTES;
        const float scale = reinterpret_cast<const float *>(base + DSA_FP8_BYTES)[t];
        float acc[DSA_H];
        for (int h = 0; h < DSA_H; h++)
            acc[h] = 0.0f;
        for (int d = 0; d < DSA_D; d++) {
            const float k = dtype_bits_e4m3_to_f32(base[t * DSA_D + d]) * scale;
            for (int h = 0; h < DSA_H; h++)
                acc[h] += sq[d][h] * k;
        }
        score = 0.0f;
        for (int h = 0; h < DSA_H; h++)
            score += weights[b * DSA_H + h] * fmaxf(acc[h], 0.0f);
    }
    scores[b * max_pages * DSA_PAGE + pos] = score;
}

static __global__ void __launch_bounds__(RANK_THREADS)
    rank_kernel(const float *scores, const int32_t *seq_lens, const int32_t *block_table, int64_t max_pages,
                int32_t *out)
{
    __shared__ float tile[RANK_TILE];
    const int64_t b = blockIdx.y, i = (int64_t)blockIdx.x * RANK_THREADS + threadIdx.x;
    const int64_t cap = max_pages * DSA_PAGE;
    const int64_t len = seq_lens[b] < cap ? seq_lens[b] : cap;
    const int64_t n = len < DSA_TOPK ? len : DSA_TOPK;
    const float *row = scores + b * cap;
    if (i < DSA_TOPK && i >= n)
        out[b * DSA_TOPK + i] = -1;
    if ((int64_t)blockIdx.x * RANK_THREADS >= len)
        return; /* the whole block is past the row */
    const float mine = i < len ? row[i] : 0.0f;
    int64_t rank = 0;
    for (int64_t base = 0; base < len; base += RANK_TILE) {
        __syncthreads();
        for (int k = threadIdx.x; k < RANK_TILE && base + k < len; k += RANK_THREADS)
            tile[k] = row[base + k];
        __syncthreads();
        const int64_t m = len - base < RANK_TILE ? len - base : RANK_TILE;
        for (int64_t k = 0; k < m; k++)
            rank += tile[k] > mine || (tile[k] == mine && base + k < i);
    }
    if (i < len && rank < n)
        out[b * DSA_TOPK + rank] = block_table[b * max_pages + i / DSA_PAGE] * DSA_PAGE + (int32_t)(i % DSA_PAGE);
}

extern "C" int kwb_ref_cuda_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs,
                                                                        kwb_stream stream)
{
    int64_t vars[TK_NVARS];
    if (dsa_topk_check_args(args, nargs, vars) != 0 || vars[TK_NUM_PAGES] > INT32_MAX / DSA_PAGE)
        return -1;
    const int64_t batch = vars[TK_BATCH], max_pages = vars[TK_MAX_PAGES];
    if (batch == 0)
        return 0;
    if (batch > 65535 || max_pages > INT32_MAX / DSA_PAGE)
        return -1; /* beyond one grid's y dimension, or positions beyond int32 */
    const cudaStream_t s = (cudaStream_t)stream;
    const int32_t *seq_lens = (const int32_t *)args[TK_SEQ_LENS].data;
    const int32_t *table = (const int32_t *)args[TK_BLOCK_TABLE].data;
    float *scores = NULL;
    if (max_pages > 0) {
        if (cudaMallocAsync((void **)&scores, (size_t)(batch * max_pages * DSA_PAGE) * sizeof(float), s) != cudaSuccess)
            return -1;
        score_kernel<<<dim3((unsigned)max_pages, (unsigned)batch), DSA_PAGE, 0, s>>>(
            (const uint8_t *)args[TK_Q].data, (const uint8_t *)args[TK_KCACHE].data,
            (const float *)args[TK_WEIGHTS].data, seq_lens, table, max_pages, vars[TK_NUM_PAGES], scores);
    }
    const int64_t positions = max_pages * DSA_PAGE > DSA_TOPK ? max_pages * DSA_PAGE : DSA_TOPK;
    rank_kernel<<<dim3((unsigned)((positions + RANK_THREADS - 1) / RANK_THREADS), (unsigned)batch), RANK_THREADS, 0,
                  s>>>(scores, seq_lens, table, max_pages, (int32_t *)args[TK_OUT].data);
    if (scores)
        cudaFreeAsync(scores, s);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

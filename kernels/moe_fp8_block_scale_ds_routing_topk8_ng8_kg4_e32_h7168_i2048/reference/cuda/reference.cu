/* reference.cu - CUDA reference of moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048:
 * the definition's PyTorch `reference` in float32, simple over fast.
 *
 *   1. route: one thread per token, moe_routing_token() (src/moe_routing.h, the C reference's
 *      very code): 8 expert ids and weights per token;
 *   2. lists: one block per local expert e, the tokens that chose it in increasing order, with
 *      their weights (a ballot scan, so the order is deterministic);
 *   3. per local expert, in order (as the reference's loop, so the sums are deterministic):
 *      GEMM1 + SwiGLU: C = silu(A W1[I:]^T) * (A W1[:I]^T) over the expert's rows of A, and
 *      GEMM2: acc[token] += weight * (C W2^T), accumulated in a float32 [T, 7168] buffer;
 *   4. output = bf16(acc).
 * The GEMMs are 64x64 tiles (two tiles for GEMM1: the X1 and X2 halves of the same columns),
 * 256 threads of 4x4 results each, K in steps of 32. Operands are dequantized while staged in
 * shared memory, fp8 value times its 128-block scale in float32, exactly the reference's
 * A_fp32 * A_scale_expanded and W_fp32 * S_expanded; only the summation order differs.
 * Scratch (about 0.04 MB per token) comes from the stream-ordered allocator, so nothing here
 * synchronizes: the call can be timed with the stream held. */
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "moe_args.h"
#include "kwb/dtype_bits.h"
#include "kwb/kernel.h"
#include "moe_routing.h"

enum { TILE = 64, KSTEP = 32, THREADS = 256, PAD = 1 };

/* The value of an e4m3 code (exact). */
static __device__ __forceinline__ float fp8_value(uint8_t code)
{
    __nv_fp8_e4m3 v;
    v.__x = code;
    return static_cast<float>(v);
}

static __global__ void moe_ref_route(const float *logits, const uint16_t *bias, int64_t tokens, float scale,
                                     int32_t *idx, float *weight)
{
    __shared__ float sbias[MOE_E];
    for (int e = threadIdx.x; e < MOE_E; e += blockDim.x)
        sbias[e] = dtype_bits_bf16_to_f32(bias[e]);
    __syncthreads();
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tokens)
        return;
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3;
    moe_routing_token(&cfg, logits + t * MOE_E, sbias, scale, idx + t * MOE_TOPK, weight + t * MOE_TOPK);
}

/* Block e: rows[e * tokens + j] = the j-th token (increasing) that chose expert offset + e,
 * row_weight[...] its weight, counts[e] how many. THREADS threads. */
static __global__ void __launch_bounds__(THREADS)
    moe_ref_lists(const int32_t *idx, const float *weight, int64_t tokens, int offset, int32_t *rows, float *row_weight,
                  int32_t *counts)
{
    __shared__ int warp_hits[THREADS / 32];
    __shared__ int base;
    const int e = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (threadIdx.x == 0)
        base = 0;
    __syncthreads();
    for (int64_t t0 = 0; t0 < tokens; t0 += THREADS) {
        const int64_t t = t0 + threadIdx.x;
        int slot = -1;
        for (int k = 0; t < tokens && k < MOE_TOPK; k++)
            if (idx[t * MOE_TOPK + k] == offset + e)
                slot = k;
        const unsigned hits = __ballot_sync(0xffffffffu, slot >= 0);
        if (lane == 0)
            warp_hits[warp] = __popc(hits);
        __syncthreads();
        int pos = base + __popc(hits & ((1u << lane) - 1u));
        for (int w = 0; w < warp; w++)
            pos += warp_hits[w];
        if (slot >= 0) {
            rows[e * tokens + pos] = (int32_t)t;
            row_weight[e * tokens + pos] = weight[t * MOE_TOPK + slot];
        }
        __syncthreads();
        if (threadIdx.x == 0)
            for (int w = 0; w < THREADS / 32; w++)
                base += warp_hits[w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        counts[e] = base;
}

/* Stages rows ROW0.. ROW0+63, columns K0..K0+31 of the fp8 matrix W (LD bytes a row) into
 * TILE_[k][row], times SCALE (the tile lies in one 128x128 scale block). */
static __device__ __forceinline__ void stage_weights(float (*tile)[TILE + PAD], const uint8_t *w, int64_t row0,
                                                     int64_t ld, int k0, float scale)
{
    const int r = threadIdx.x / 4, kk = (threadIdx.x % 4) * 8;
    const uint2 raw = *reinterpret_cast<const uint2 *>(w + (row0 + r) * ld + k0 + kk);
    const uint8_t *b = reinterpret_cast<const uint8_t *>(&raw);
    for (int q = 0; q < 8; q++)
        tile[kk + q][r] = fp8_value(b[q]) * scale;
}

/* acc[i][j] += sum over the KSTEP staged k of a[k][4ty + i] * b[k][4tx + j]. */
static __device__ __forceinline__ void multiply_tile(float (*a)[TILE + PAD], float (*b)[TILE + PAD], float acc[4][4])
{
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int k = 0; k < KSTEP; k++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                acc[i][j] += a[k][4 * ty + i] * b[k][4 * tx + j];
}

/* GEMM1 and SwiGLU of one expert: block (x, y) makes c[m, 64x .. 64x+63] for the expert's rows
 * m in [64y, 64y + 64) below *count; row m is token rows[m] of hidden_states. */
static __global__ void __launch_bounds__(THREADS)
    moe_ref_gemm1(const uint8_t *hidden, const float *hidden_scale, int64_t tokens, const uint8_t *w1,
                  const float *w1_scale, const int32_t *rows, const int32_t *count, float *c)
{
    __shared__ float a[KSTEP][TILE + PAD], up[KSTEP][TILE + PAD], gate[KSTEP][TILE + PAD];
    const int m0 = blockIdx.y * TILE, n0 = blockIdx.x * TILE, rows_here = *count;
    if (m0 >= rows_here)
        return;
    const int r = threadIdx.x / 4, kk = (threadIdx.x % 4) * 8, m = m0 + r;
    const int64_t token = m < rows_here ? rows[m] : 0;
    float acc_up[4][4] = {{0}}, acc_gate[4][4] = {{0}};
    for (int k0 = 0; k0 < MOE_H; k0 += KSTEP) {
        const int kb = k0 / MOE_BLK;
        const float sa = hidden_scale[kb * tokens + token];
        const uint2 raw = *reinterpret_cast<const uint2 *>(hidden + token * MOE_H + k0 + kk);
        const uint8_t *bytes = reinterpret_cast<const uint8_t *>(&raw);
        for (int q = 0; q < 8; q++)
            a[kk + q][r] = m < rows_here ? fp8_value(bytes[q]) * sa : 0.0f;
        stage_weights(up, w1, n0, MOE_H, k0, w1_scale[(n0 / MOE_BLK) * MOE_HB + kb]);
        stage_weights(gate, w1, MOE_I + n0, MOE_H, k0, w1_scale[((MOE_I + n0) / MOE_BLK) * MOE_HB + kb]);
        __syncthreads();
        multiply_tile(a, up, acc_up);
        multiply_tile(a, gate, acc_gate);
        __syncthreads();
    }
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int i = 0; i < 4; i++) {
        const int row = m0 + 4 * ty + i;
        for (int j = 0; row < rows_here && j < 4; j++) {
            const float x1 = acc_up[i][j], x2 = acc_gate[i][j];
            c[(int64_t)row * MOE_I + n0 + 4 * tx + j] = __fmul_rn(__fdiv_rn(x2, 1.0f + expf(-x2)), x1);
        }
    }
}

/* GEMM2 of one expert and the weighted sum: block (x, y) adds weight[m] * (c[m] . W2[h]) to
 * acc[rows[m], h] for h in [64x, 64x + 64) and the expert's rows m in [64y, 64y + 64). */
static __global__ void __launch_bounds__(THREADS)
    moe_ref_gemm2(const float *c, const uint8_t *w2, const float *w2_scale, const int32_t *rows,
                  const float *row_weight, const int32_t *count, float *acc)
{
    __shared__ float a[KSTEP][TILE + PAD], b[KSTEP][TILE + PAD];
    const int m0 = blockIdx.y * TILE, h0 = blockIdx.x * TILE, rows_here = *count;
    if (m0 >= rows_here)
        return;
    const int r = threadIdx.x / 4, kk = (threadIdx.x % 4) * 8, m = m0 + r;
    float part[4][4] = {{0}};
    for (int k0 = 0; k0 < MOE_I; k0 += KSTEP) {
        for (int q = 0; q < 8; q++)
            a[kk + q][r] = m < rows_here ? c[(int64_t)m * MOE_I + k0 + kk + q] : 0.0f;
        stage_weights(b, w2, h0, MOE_I, k0, w2_scale[(h0 / MOE_BLK) * MOE_IB + k0 / MOE_BLK]);
        __syncthreads();
        multiply_tile(a, b, part);
        __syncthreads();
    }
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int i = 0; i < 4; i++) {
        const int row = m0 + 4 * ty + i;
        if (row >= rows_here)
            continue;
        float *out = acc + (int64_t)rows[row] * MOE_H + h0 + 4 * tx;
        for (int j = 0; j < 4; j++) /* output.index_add_(O * w): product, then sum, unfused */
            out[j] = __fadd_rn(out[j], __fmul_rn(part[i][j], row_weight[row]));
    }
}

static __global__ void moe_ref_to_bf16(const float *acc, int64_t n, uint16_t *out)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = dtype_bits_f32_to_bf16(acc[i]);
}

/* The scratch of one call, carved from one allocation. */
typedef struct moe_scratch {
    int32_t *idx, *rows, *counts;
    float *weight, *row_weight, *c, *acc;
} moe_scratch;

static size_t carve(char **p, size_t bytes)
{
    size_t at = (size_t)*p;
    *p += (bytes + 255) / 256 * 256;
    return at;
}

/* Lays out the scratch for TOKENS tokens at BASE (NULL: only measures); returns its size. */
static size_t moe_scratch_layout(moe_scratch *s, char *base, int64_t tokens)
{
    char *p = base;
    const size_t t = (size_t)tokens;
    s->idx = (int32_t *)carve(&p, t * MOE_TOPK * sizeof(int32_t));
    s->weight = (float *)carve(&p, t * MOE_TOPK * sizeof(float));
    s->rows = (int32_t *)carve(&p, t * MOE_EL * sizeof(int32_t));
    s->row_weight = (float *)carve(&p, t * MOE_EL * sizeof(float));
    s->counts = (int32_t *)carve(&p, MOE_EL * sizeof(int32_t));
    s->c = (float *)carve(&p, t * MOE_I * sizeof(float));
    s->acc = (float *)carve(&p, t * MOE_H * sizeof(float));
    return (size_t)(p - base);
}

/* Queues the whole computation on S. */
static void moe_ref_launch(const kwb_arg *args, int64_t tokens, const moe_scratch *m, cudaStream_t s)
{
    const dim3 tiles1(MOE_I / TILE, (unsigned)((tokens + TILE - 1) / TILE));
    const dim3 tiles2(MOE_H / TILE, tiles1.y);
    cudaMemsetAsync(m->acc, 0, (size_t)tokens * MOE_H * sizeof(float), s);
    moe_ref_route<<<(unsigned)((tokens + 127) / 128), 128, 0, s>>>((const float *)args[MOE_LOGITS].data,
                                                                   (const uint16_t *)args[MOE_BIAS].data, tokens,
                                                                   (float)args[MOE_SCALING].f, m->idx, m->weight);
    moe_ref_lists<<<MOE_EL, THREADS, 0, s>>>(m->idx, m->weight, tokens, (int)args[MOE_OFFSET].i, m->rows, m->row_weight,
                                             m->counts);
    for (int e = 0; e < MOE_EL; e++) {
        const int32_t *rows = m->rows + e * tokens;
        moe_ref_gemm1<<<tiles1, THREADS, 0, s>>>(
            (const uint8_t *)args[MOE_HIDDEN].data, (const float *)args[MOE_HIDDEN_SCALE].data, tokens,
            (const uint8_t *)args[MOE_W1].data + (int64_t)e * MOE_N1 * MOE_H,
            (const float *)args[MOE_W1_SCALE].data + e * MOE_N1B * MOE_HB, rows, m->counts + e, m->c);
        moe_ref_gemm2<<<tiles2, THREADS, 0, s>>>(m->c, (const uint8_t *)args[MOE_W2].data + (int64_t)e * MOE_H * MOE_I,
                                                 (const float *)args[MOE_W2_SCALE].data + e * MOE_HB * MOE_IB, rows,
                                                 m->row_weight + e * tokens, m->counts + e, m->acc);
    }
    moe_ref_to_bf16<<<1024, 256, 0, s>>>(m->acc, tokens * MOE_H, (uint16_t *)args[MOE_OUTPUT].data);
}

extern "C" int kwb_ref_cuda_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(const kwb_arg *args, int nargs,
                                                                                         kwb_stream stream)
{
    int64_t tokens;
    if (moe_check_args(args, nargs, 0, &tokens) != 0 || tokens > 65535 * TILE)
        return -1;
    if (tokens == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)stream;
    moe_scratch m;
    void *base = NULL;
    if (cudaMallocAsync(&base, moe_scratch_layout(&m, NULL, tokens), s) != cudaSuccess)
        return -1;
    moe_scratch_layout(&m, (char *)base, tokens);
    moe_ref_launch(args, tokens, &m, s);
    cudaFreeAsync(base, s);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

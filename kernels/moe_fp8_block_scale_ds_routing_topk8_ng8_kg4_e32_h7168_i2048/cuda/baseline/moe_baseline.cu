/* moe_baseline.cu - plain CUDA solution of
 * moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 (kwb ABI): routing, token
 * permutation, two grouped GEMMs over the 32 local experts, and a combine, in float32 on the
 * CUDA cores (tensor cores are a later direction).
 *
 *   route    one warp per token; lane l holds experts l, 32 + l, ..., 224 + l, so register j
 *            holds group j: group top-two sums and the top-8 are warp reductions
 *   permute  count the (token, local expert) pairs per expert, lay the experts' rows out one
 *            after another (each padded to the row tile), list the tiles, scatter the tokens
 *   gemm1    per tile of rows of one expert: 64 columns of X1 and the same 64 of X2 side by
 *            side in one 128-wide tile, so SwiGLU (silu(X2) * X1) happens in registers
 *   gemm2    per tile: 128 columns of the expert's output row
 *   combine  per token: sum over its 8 slots, in slot order, of weight * row; bf16
 * FP8 operands are dequantized (value x 128-block scale, float32) as they are staged in shared
 * memory. The row tile is 16, 64 or 128 rows by seq_len, so few tokens waste little work.
 * Row values do not depend on their place in the permutation, so the output is the same bits
 * every call. The workspace (up to 8 rows per token) is kept between calls and grown, stream-
 * ordered, when a larger seq_len comes; nothing synchronizes.
 *
 * Arguments: routing_logits routing_bias hidden_states hidden_states_scale gemm1_weights
 * gemm1_weights_scale gemm2_weights gemm2_weights_scale local_expert_offset
 * routed_scaling_factor | output. */
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include "kwb/kernel.h"

#define H 7168 /* hidden_size */
#define I 2048 /* intermediate_size; gemm1 rows [0, I) give X1, [I, 2I) give X2 */
#define EXPERTS 256
#define LOCAL 32
#define TOPK 8
#define KEEP 4 /* groups kept; the 8 groups are the 8 registers of a lane */
#define QB 128 /* quantization block */
#define BN 128 /* columns per GEMM tile */
#define BK 16  /* k per stage */
#define THREADS 256

/* ---- routing ------------------------------------------------------------------------------ */

/* Top two of (a1 >= a2) and (b1 >= b2) into (a1, a2). */
static __device__ __forceinline__ void top2_merge(float &a1, float &a2, float b1, float b2)
{
    float hi = fmaxf(a1, b1), lo = fmaxf(fminf(a1, b1), fmaxf(a2, b2));
    a1 = hi;
    a2 = lo;
}

/* Best (value, index) over the warp: larger value, then lower index. */
static __device__ __forceinline__ void warp_argmax(float &v, int &i)
{
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, v, o);
        int oi = __shfl_xor_sync(0xffffffffu, i, o);
        if (ov > v || (ov == v && oi < i)) {
            v = ov;
            i = oi;
        }
    }
}

__global__ void __launch_bounds__(THREADS)
    route_kernel(const float *__restrict__ logits, const __nv_bfloat16 *__restrict__ bias, int tokens, float scaling,
                 int *__restrict__ topk_idx, float *__restrict__ topk_w)
{
    const int lane = threadIdx.x % 32, t = blockIdx.x * (THREADS / 32) + threadIdx.x / 32;
    if (t >= tokens)
        return;
    float s[8], b[8], gsum[8];
    for (int j = 0; j < 8; j++) {
        const int e = 32 * j + lane;
        s[j] = 1.0f / (1.0f + expf(-logits[(size_t)t * EXPERTS + e]));
        b[j] = s[j] + __bfloat162float(bias[e]);
        float m1 = b[j], m2 = -INFINITY;
        for (int o = 16; o > 0; o >>= 1)
            top2_merge(m1, m2, __shfl_xor_sync(0xffffffffu, m1, o), __shfl_xor_sync(0xffffffffu, m2, o));
        gsum[j] = m1 + m2;
    }
    unsigned kept = 0; /* groups ranked below KEEP others, ties to the lower index */
    for (int g = 0; g < 8; g++) {
        int above = 0;
        for (int h = 0; h < 8; h++)
            above += gsum[h] > gsum[g] || (gsum[h] == gsum[g] && h < g);
        kept |= (above < KEEP ? 1u : 0u) << g;
    }
    unsigned taken = 0;
    float chosen_s[TOPK], sum = 0.0f;
    int chosen[TOPK];
    for (int k = 0; k < TOPK; k++) {
        float v = -INFINITY;
        int idx = 1 << 30;
        for (int j = 0; j < 8; j++)
            if ((kept >> j & 1u) && !(taken >> j & 1u) && (b[j] > v || idx == 1 << 30)) {
                v = b[j];
                idx = 32 * j + lane;
            }
        warp_argmax(v, idx);
        if (idx % 32 == lane)
            taken |= 1u << (idx / 32);
        chosen[k] = idx;
        chosen_s[k] = __shfl_sync(0xffffffffu, s[0], idx % 32);
        for (int j = 1; j < 8; j++) {
            float sj = __shfl_sync(0xffffffffu, s[j], idx % 32);
            if (idx / 32 == j)
                chosen_s[k] = sj;
        }
        sum += chosen_s[k];
    }
    if (lane < TOPK) {
        float mine = chosen_s[0];
        int e = chosen[0];
        for (int k = 1; k < TOPK; k++)
            if (k == lane) {
                mine = chosen_s[k];
                e = chosen[k];
            }
        topk_idx[t * TOPK + lane] = e;
        topk_w[t * TOPK + lane] = mine / (sum + 1e-20f) * scaling;
    }
}

/* ---- permutation -------------------------------------------------------------------------- */

/* The layout of the permuted rows and the tile list (one block of LOCAL threads fills it). */
struct plan {
    int counts[LOCAL]; /* pairs per local expert */
    int cursor[LOCAL]; /* next free row per expert, while scattering */
    int ntiles;
    int pad;
};

__global__ void count_kernel(const int *__restrict__ topk_idx, int pairs, int offset, plan *p)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        const int e = topk_idx[i] - offset;
        if (e >= 0 && e < LOCAL)
            atomicAdd(&p->counts[e], 1);
    }
}

/* Lane e: the expert's first row (padded to BM) and first tile; its tiles' expert, first row
 * and row count. */
__global__ void layout_kernel(plan *p, int bm, int *__restrict__ tile_expert, int *__restrict__ tile_row,
                              int *__restrict__ tile_rows)
{
    const int e = threadIdx.x;
    const int count = p->counts[e], tiles = (count + bm - 1) / bm;
    int first_tile = tiles;
    for (int o = 1; o < 32; o <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, first_tile, o);
        if (e >= o)
            first_tile += up;
    }
    first_tile -= tiles; /* exclusive */
    p->cursor[e] = first_tile * bm;
    for (int i = 0; i < tiles; i++) {
        tile_expert[first_tile + i] = e;
        tile_row[first_tile + i] = (first_tile + i) * bm;
        tile_rows[first_tile + i] = min(bm, count - i * bm);
    }
    if (e == LOCAL - 1)
        p->ntiles = first_tile + tiles;
}

__global__ void scatter_kernel(const int *__restrict__ topk_idx, int pairs, int offset, plan *p,
                               int *__restrict__ row_token, int *__restrict__ slot_row)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pairs)
        return;
    const int e = topk_idx[i] - offset;
    int row = -1;
    if (e >= 0 && e < LOCAL) {
        row = atomicAdd(&p->cursor[e], 1);
        row_token[row] = i / TOPK;
    }
    slot_row[i] = row;
}

/* ---- grouped GEMMs ------------------------------------------------------------------------ */

static __device__ __forceinline__ float fp8(uint8_t v)
{
    __nv_fp8_e4m3 x;
    x.__x = v;
    return static_cast<float>(x);
}

/* 8 fp8 bytes at SRC, times SCALE, into DST[0..7][col] (a [BK][...] tile). */
template <int LD>
static __device__ __forceinline__ void stage8(float (*dst)[LD], int col, const uint8_t *src, float scale)
{
    const uint2 raw = *reinterpret_cast<const uint2 *>(src);
    const uint8_t *v = reinterpret_cast<const uint8_t *>(&raw);
#pragma unroll
    for (int q = 0; q < 8; q++)
        dst[q][col] = fp8(v[q]) * scale;
}

/* Thread (ty, tx) of 16 x 16 owns rows TM*ty .. TM*ty+TM-1 and columns 4tx..4tx+3 (acc[.][0..3])
 * and 64+4tx..64+4tx+3 (acc[.][4..7]) of the BM x BN tile. */
template <int TM>
static __device__ __forceinline__ void mac_stage(const float (*a)[16 * TM], const float (*b)[BN], float acc[TM][8])
{
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
    for (int k = 0; k < BK; k++) {
        float av[TM], bv[8];
#pragma unroll
        for (int i = 0; i < TM; i++)
            av[i] = a[k][TM * ty + i];
        const float4 lo = *reinterpret_cast<const float4 *>(&b[k][4 * tx]);
        const float4 hi = *reinterpret_cast<const float4 *>(&b[k][64 + 4 * tx]);
        bv[0] = lo.x, bv[1] = lo.y, bv[2] = lo.z, bv[3] = lo.w;
        bv[4] = hi.x, bv[5] = hi.y, bv[6] = hi.z, bv[7] = hi.w;
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < 8; j++)
                acc[i][j] += av[i] * bv[j];
    }
}

/* Where a tile's rows and weights are. */
struct tiles {
    const int *expert, *row, *rows, *ntiles;
};

/* The staged operands of one BK step: A as [k][row], B as [k][column]. */
template <int TM> struct stage {
    __align__(16) float a[BK][16 * TM];
    __align__(16) float b[BK][BN];
};

/* This block's tile (blockIdx.y): its expert, first permuted row and rows in use; false past the
 * last tile. */
static __device__ __forceinline__ bool find_tile(const tiles &tl, int &e, int &row0, int &valid)
{
    const int tile = blockIdx.y;
    if (tile >= *tl.ntiles)
        return false;
    e = tl.expert[tile];
    row0 = tl.row[tile];
    valid = tl.rows[tile];
    return true;
}

/* GEMM1 + SwiGLU: tile (blockIdx.y) of rows of one expert x intermediate columns
 * [64 blockIdx.x, +64): c[row, j] = silu(x2) * x1. Padding rows get 0. */
template <int TM>
__global__ void __launch_bounds__(THREADS)
    gemm1_kernel(tiles tl, const int *__restrict__ row_token, const uint8_t *__restrict__ hidden,
                 const float *__restrict__ hidden_scale, int tokens, const uint8_t *__restrict__ w1,
                 const float *__restrict__ w1_scale, float *__restrict__ c)
{
    constexpr int BM = 16 * TM;
    __shared__ stage<TM> sm;
    int e, row0, valid;
    if (!find_tile(tl, e, row0, valid))
        return;
    const int j0 = 64 * blockIdx.x;
    const uint8_t *w = w1 + (size_t)e * 2 * I * H;
    const float *ws = w1_scale + (size_t)e * (2 * I / QB) * (H / QB);
    /* B rows of this thread's staging: tile column n < 64 is W1 row j0 + n, n >= 64 is I + j0 + n - 64 */
    const int bn = threadIdx.x / 2, bk = (threadIdx.x % 2) * 8;
    const int wrow = bn < 64 ? j0 + bn : I + j0 + bn - 64;
    float acc[TM][8] = {};
    for (int k0 = 0; k0 < H; k0 += BK) {
        const int kb = k0 / QB;
        for (int s = threadIdx.x; s < BM * 2; s += THREADS) {
            const int r = s / 2, kk = (s % 2) * 8;
            if (r < valid) {
                const int t = row_token[row0 + r];
                stage8<BM>(sm.a + kk, r, hidden + (size_t)t * H + k0 + kk, hidden_scale[(size_t)kb * tokens + t]);
            } else {
#pragma unroll
                for (int q = 0; q < 8; q++)
                    sm.a[kk + q][r] = 0.0f;
            }
        }
        stage8<BN>(sm.b + bk, bn, w + (size_t)wrow * H + k0 + bk, ws[(wrow / QB) * (H / QB) + kb]);
        __syncthreads();
        mac_stage<TM>(sm.a, sm.b, acc);
        __syncthreads();
    }
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int i = 0; i < TM; i++) {
        const int r = TM * ty + i;
        float4 out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (r < valid) {
            float v[4];
            for (int j = 0; j < 4; j++)
                v[j] = acc[i][4 + j] / (1.0f + expf(-acc[i][4 + j])) * acc[i][j];
            out = make_float4(v[0], v[1], v[2], v[3]);
        }
        *reinterpret_cast<float4 *>(&c[(size_t)(row0 + r) * I + j0 + 4 * tx]) = out;
    }
}

/* GEMM2: tile (blockIdx.y) of rows x hidden columns [128 blockIdx.x, +128): y = c W2^T. */
template <int TM>
__global__ void __launch_bounds__(THREADS)
    gemm2_kernel(tiles tl, const float *__restrict__ c, const uint8_t *__restrict__ w2,
                 const float *__restrict__ w2_scale, float *__restrict__ y)
{
    constexpr int BM = 16 * TM;
    __shared__ stage<TM> sm;
    int e, row0, valid;
    if (!find_tile(tl, e, row0, valid))
        return;
    (void)valid; /* padding rows of c are zeros (gemm1); their rows of y are never read */
    const int h0 = BN * blockIdx.x;
    const uint8_t *w = w2 + (size_t)e * H * I;
    const float *ws = w2_scale + (size_t)e * (H / QB) * (I / QB);
    const int bn = threadIdx.x / 2, bk = (threadIdx.x % 2) * 8;
    float acc[TM][8] = {};
    for (int k0 = 0; k0 < I; k0 += BK) {
        for (int s = threadIdx.x; s < BM * 4; s += THREADS) {
            const int r = s / 4, kk = (s % 4) * 4;
            const float4 v = *reinterpret_cast<const float4 *>(&c[(size_t)(row0 + r) * I + k0 + kk]);
            sm.a[kk][r] = v.x;
            sm.a[kk + 1][r] = v.y;
            sm.a[kk + 2][r] = v.z;
            sm.a[kk + 3][r] = v.w;
        }
        stage8<BN>(sm.b + bk, bn, w + (size_t)(h0 + bn) * I + k0 + bk, ws[(h0 / QB) * (I / QB) + k0 / QB]);
        __syncthreads();
        mac_stage<TM>(sm.a, sm.b, acc);
        __syncthreads();
    }
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    for (int i = 0; i < TM; i++) {
        float *out = y + (size_t)(row0 + TM * ty + i) * H + h0;
        *reinterpret_cast<float4 *>(out + 4 * tx) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4 *>(out + 64 + 4 * tx) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}

/* Token blockIdx.x: out = bf16(sum over its slots, in order, of weight * y[row]). */
__global__ void __launch_bounds__(THREADS)
    combine_kernel(const int *__restrict__ slot_row, const float *__restrict__ topk_w, const float *__restrict__ y,
                   __nv_bfloat16 *__restrict__ out)
{
    const int t = blockIdx.x;
    for (int h = 4 * threadIdx.x; h < H; h += 4 * THREADS) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int k = 0; k < TOPK; k++) {
            const int row = slot_row[t * TOPK + k];
            if (row < 0)
                continue;
            const float w = topk_w[t * TOPK + k];
            const float4 v = *reinterpret_cast<const float4 *>(&y[(size_t)row * H + h]);
            sum.x += w * v.x;
            sum.y += w * v.y;
            sum.z += w * v.z;
            sum.w += w * v.w;
        }
        __nv_bfloat16 *o = out + (size_t)t * H + h;
        o[0] = __float2bfloat16_rn(sum.x);
        o[1] = __float2bfloat16_rn(sum.y);
        o[2] = __float2bfloat16_rn(sum.z);
        o[3] = __float2bfloat16_rn(sum.w);
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

/* The workspace of a call with TOKENS tokens and row tile BM, carved from BASE (NULL: sizing). */
struct workspace {
    plan *p;
    int *topk_idx, *slot_row, *row_token, *tile_expert, *tile_row, *tile_rows;
    float *topk_w, *c, *y;
};

static size_t carve(char **at, size_t bytes)
{
    size_t here = (size_t)*at;
    *at += (bytes + 255) / 256 * 256;
    return here;
}

static size_t layout(workspace *w, char *base, size_t tokens, size_t bm)
{
    const size_t rows = TOPK * tokens + LOCAL * bm, ntiles = TOPK * tokens / bm + LOCAL + 1;
    char *at = base;
    w->p = (plan *)carve(&at, sizeof(plan));
    w->topk_idx = (int *)carve(&at, TOPK * tokens * sizeof(int));
    w->topk_w = (float *)carve(&at, TOPK * tokens * sizeof(float));
    w->slot_row = (int *)carve(&at, TOPK * tokens * sizeof(int));
    w->row_token = (int *)carve(&at, rows * sizeof(int));
    w->tile_expert = (int *)carve(&at, ntiles * sizeof(int));
    w->tile_row = (int *)carve(&at, ntiles * sizeof(int));
    w->tile_rows = (int *)carve(&at, ntiles * sizeof(int));
    w->c = (float *)carve(&at, rows * I * sizeof(float));
    w->y = (float *)carve(&at, rows * H * sizeof(float));
    return (size_t)(at - base);
}

/* The workspace kept between calls; grown (stream-ordered) when a call needs more. */
static void *g_base;
static size_t g_capacity;

static int reserve(size_t bytes, cudaStream_t s)
{
    if (bytes <= g_capacity)
        return 0;
    if (g_base)
        cudaFreeAsync(g_base, s);
    g_base = NULL;
    g_capacity = 0;
    if (cudaMallocAsync(&g_base, bytes, s) != cudaSuccess)
        return -1;
    g_capacity = bytes;
    return 0;
}

template <int TM> static void launch_gemms(const kwb_arg *args, int tokens, const workspace &w, cudaStream_t s)
{
    constexpr int BM = 16 * TM;
    const unsigned max_tiles = (unsigned)(TOPK * (size_t)tokens / BM + LOCAL + 1);
    const tiles tl = {w.tile_expert, w.tile_row, w.tile_rows, &w.p->ntiles};
    gemm1_kernel<TM><<<dim3(I / 64, max_tiles), THREADS, 0, s>>>(
        tl, w.row_token, (const uint8_t *)args[2].data, (const float *)args[3].data, tokens,
        (const uint8_t *)args[4].data, (const float *)args[5].data, w.c);
    gemm2_kernel<TM><<<dim3(H / BN, max_tiles), THREADS, 0, s>>>(tl, w.c, (const uint8_t *)args[6].data,
                                                                 (const float *)args[7].data, w.y);
}

extern "C" int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 11 || args[0].rank != 2 || args[0].shape[1] != EXPERTS)
        return 1;
    const int tokens = (int)args[0].shape[0], offset = (int)args[8].i, pairs = TOPK * tokens;
    if (tokens <= 0)
        return tokens == 0 ? 0 : 1;
    cudaStream_t s = (cudaStream_t)stream;
    const int tm = tokens >= 4096 ? 8 : tokens >= 1024 ? 4 : 1;
    workspace w;
    if (reserve(layout(&w, NULL, (size_t)tokens, 16 * (size_t)tm), s) != 0)
        return 2;
    layout(&w, (char *)g_base, (size_t)tokens, 16 * (size_t)tm);

    cudaMemsetAsync(w.p, 0, sizeof(plan), s);
    route_kernel<<<(tokens + THREADS / 32 - 1) / (THREADS / 32), THREADS, 0, s>>>(
        (const float *)args[0].data, (const __nv_bfloat16 *)args[1].data, tokens, (float)args[9].f, w.topk_idx,
        w.topk_w);
    count_kernel<<<(pairs + THREADS - 1) / THREADS, THREADS, 0, s>>>(w.topk_idx, pairs, offset, w.p);
    layout_kernel<<<1, LOCAL, 0, s>>>(w.p, 16 * tm, w.tile_expert, w.tile_row, w.tile_rows);
    scatter_kernel<<<(pairs + THREADS - 1) / THREADS, THREADS, 0, s>>>(w.topk_idx, pairs, offset, w.p, w.row_token,
                                                                       w.slot_row);
    if (tm == 8)
        launch_gemms<8>(args, tokens, w, s);
    else if (tm == 4)
        launch_gemms<4>(args, tokens, w, s);
    else
        launch_gemms<1>(args, tokens, w, s);
    combine_kernel<<<tokens, THREADS, 0, s>>>(w.slot_row, w.topk_w, w.y, (__nv_bfloat16 *)args[10].data);
    return cudaGetLastError() == cudaSuccess ? 0 : 3;
}

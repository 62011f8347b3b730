/* gdn_prefill_baseline.cu - plain CUDA solution of gdn_prefill_qk4_v8_d128_k_last (kwb ABI).
 *
 * Float32 math, one 1024-thread block (32 warps) per (sequence, value head) pair; the block
 * walks the sequence's tokens in order with the whole 128x128 state in registers. The state
 * stays in its k-last layout [V][K]: row v of it is column v of the reference's K x V matrix.
 * Warp w holds rows 4w..4w+3, lane l the K elements 4l..4l+3 of each (one float4 per row,
 * loaded and stored coalesced). The rows are independent given the token's k, q, g and beta,
 * so warps never wait for each other. Per token and row:
 *   s = g * s; u = k . s (warp sum); s = s + k * (beta * (v - u)); output = scale * (q . s) (warp sum)
 * which is the reference's M - k(x)u + k(x)(beta v + (1 - beta) u) with u = k^T M. An empty
 * sequence writes a zero state. Only tokens inside a sequence are written: cu_seqlens covers
 * them all (it runs from 0 to total_seq_len, the definition's constraint).
 *
 * Arguments: q k v state A_log a dt_bias b cu_seqlens scale | output new_state. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kwb/kernel.h"

#define NQ 4   /* q and k heads */
#define NV 8   /* value heads */
#define D 128  /* head size (K = V = 128) */
#define ROWS 4 /* state rows per warp */
#define WARPS (D / ROWS)
#define THREADS (WARPS * 32)

/* Sum over the 32 lanes of a warp; every lane gets the total. */
static __device__ __forceinline__ float warp_sum(float x)
{
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

/* Four bf16 values (8 bytes) widened to float. */
static __device__ __forceinline__ float4 load_bf16x4(const __nv_bfloat16 *p)
{
    uint2 raw = *reinterpret_cast<const uint2 *>(p);
    float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.x));
    float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.y));
    return make_float4(lo.x, lo.y, hi.x, hi.y);
}

static __device__ __forceinline__ float dot4(float4 a, float4 b)
{
    return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

static __device__ __forceinline__ float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

__global__ void __launch_bounds__(THREADS)
    gdn_prefill_kernel(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                       const __nv_bfloat16 *__restrict__ v, const float *__restrict__ state,
                       const float *__restrict__ a_log, const __nv_bfloat16 *__restrict__ a,
                       const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b,
                       const int64_t *__restrict__ cu_seqlens, int64_t total, float scale,
                       __nv_bfloat16 *__restrict__ out, float *__restrict__ new_state)
{
    const int pair = blockIdx.x; /* sequence * NV + head */
    const int n = pair / NV, h = pair % NV, hq = h / (NV / NQ);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = warp * ROWS;
    const int64_t start = max(cu_seqlens[n], (int64_t)0);
    const int64_t end = min(cu_seqlens[n + 1], total);
    const size_t base = (size_t)pair * D * D + (size_t)row0 * D + 4 * lane;

    float4 s[ROWS];
    for (int j = 0; j < ROWS; j++) {
        s[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (state && end > start)
            s[j] = *reinterpret_cast<const float4 *>(state + base + (size_t)j * D);
    }

    const float decay = expf(a_log[h]), bias = dt_bias[h];
    for (int64_t t = start; t < end; t++) {
        const size_t th = (size_t)t * NV + h;
        const size_t qk = ((size_t)t * NQ + hq) * D + 4 * lane;
        const float g = expf(-decay * softplus(__bfloat162float(a[th]) + bias));
        const float beta = 1.0f / (1.0f + expf(-__bfloat162float(b[th])));
        const float4 kv = load_bf16x4(k + qk);
        const float4 qv = load_bf16x4(q + qk);
        const float4 vv = load_bf16x4(v + th * D + row0);

        float u[ROWS], o[ROWS];
        for (int j = 0; j < ROWS; j++) {
            s[j].x *= g;
            s[j].y *= g;
            s[j].z *= g;
            s[j].w *= g;
            u[j] = warp_sum(dot4(kv, s[j]));
        }
        const float vr[ROWS] = {vv.x, vv.y, vv.z, vv.w};
        for (int j = 0; j < ROWS; j++) {
            const float delta = beta * (vr[j] - u[j]);
            s[j].x += kv.x * delta;
            s[j].y += kv.y * delta;
            s[j].z += kv.z * delta;
            s[j].w += kv.w * delta;
            o[j] = warp_sum(dot4(qv, s[j]));
        }
        if (lane == 0) {
            __nv_bfloat162 lo = __floats2bfloat162_rn(scale * o[0], scale * o[1]);
            __nv_bfloat162 hi = __floats2bfloat162_rn(scale * o[2], scale * o[3]);
            uint2 packed = make_uint2(*reinterpret_cast<unsigned *>(&lo), *reinterpret_cast<unsigned *>(&hi));
            *reinterpret_cast<uint2 *>(out + th * D + row0) = packed;
        }
    }
    for (int j = 0; j < ROWS; j++)
        *reinterpret_cast<float4 *>(new_state + base + (size_t)j * D) = s[j];
}

/* Nonzero when P is not a multiple of N bytes. */
static int misaligned(const void *p, uintptr_t n)
{
    return ((uintptr_t)p % n) != 0;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 12 || args[0].rank != 3 || args[3].rank != 4 || args[8].rank != 1)
        return -1;
    const int64_t total = args[0].shape[0];
    const int64_t seqs = args[8].shape[0] - 1;
    if (total < 0 || seqs < 0 || seqs > INT32_MAX / NV || args[0].shape[1] != NQ || args[0].shape[2] != D ||
        args[2].shape[1] != NV || args[3].shape[0] != seqs || args[3].shape[1] != NV || args[3].shape[2] != D ||
        args[3].shape[3] != D)
        return -1;
    /* float4 and 8-byte bf16 loads and stores: cudaMalloc'd tensors are aligned far beyond this. */
    if (misaligned(args[0].data, 8) || misaligned(args[1].data, 8) || misaligned(args[2].data, 8) ||
        misaligned(args[3].data, 16) || misaligned(args[10].data, 8) || misaligned(args[11].data, 16))
        return -1;
    float scale = (float)args[9].f;
    if (scale == 0.0f)
        scale = 0.08838834764831845f; /* 1 / sqrt(128) */

    if (seqs == 0)
        return 0;
    gdn_prefill_kernel<<<(unsigned)(seqs * NV), THREADS, 0, (cudaStream_t)stream>>>(
        (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data, (const __nv_bfloat16 *)args[2].data,
        (const float *)args[3].data, (const float *)args[4].data, (const __nv_bfloat16 *)args[5].data,
        (const float *)args[6].data, (const __nv_bfloat16 *)args[7].data, (const int64_t *)args[8].data, total, scale,
        (__nv_bfloat16 *)args[10].data, (float *)args[11].data);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* gdn_decode_baseline.cu - plain CUDA solution of gdn_decode_qk4_v8_d128_k_last (kwb ABI).
 *
 * Float32 math, one block of WARPS warps per (batch, value head) pair and ROW_SPLIT-th of its
 * rows (knobs for `kwb run --agent tuner`; 4 warps and the whole state by default). The state
 * stays in its k-last layout [V][K]: row v of it is column v of the reference's K x V
 * matrix. Warp w takes rows w, w+4, ..., and splits K across its lanes, lane l holding
 * K elements 4l..4l+3 (one float4 per row, coalesced). Per row:
 *   s = g * state[v]; u = k . s (warp sum); new = s + k * (beta * (v - u));
 *   new_state[v] = new; output[v] = scale * (q . new) (warp sum)
 * which is the reference's M - k(x)u + k(x)(beta v + (1 - beta) u) with u = k^T M.
 *
 * Arguments: q k v state A_log a dt_bias b scale | output new_state. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kwb/kernel.h"

#define NQ 4        /* q and k heads */
#define NV 8        /* value heads */
#define D 128       /* head size (K = V = 128) */
#define WARPS 4     /* kwb:tune WARPS {1,2,4,8,16} */
#define ROW_SPLIT 1 /* kwb:tune ROW_SPLIT {1,2,4,8,16,32} */
#define THREADS (WARPS * 32)
#define ROWS (D / ROW_SPLIT) /* state rows per block */

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

static __device__ __forceinline__ float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

__global__ void __launch_bounds__(THREADS)
    gdn_decode_kernel(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                      const __nv_bfloat16 *__restrict__ v, const float *__restrict__ state,
                      const float *__restrict__ a_log, const __nv_bfloat16 *__restrict__ a,
                      const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b, float scale,
                      __nv_bfloat16 *__restrict__ out, float *__restrict__ new_state)
{
    const int pair = blockIdx.x / ROW_SPLIT; /* batch * NV + head */
    const int part = blockIdx.x % ROW_SPLIT;
    const int h = pair % NV;
    const int qk = (pair / NV) * NQ + h / (NV / NQ);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    const float g = expf(-expf(a_log[h]) * softplus(__bfloat162float(a[pair]) + dt_bias[h]));
    const float beta = 1.0f / (1.0f + expf(-__bfloat162float(b[pair])));
    const float4 kv = load_bf16x4(k + (size_t)qk * D + 4 * lane);
    const float4 qv = load_bf16x4(q + (size_t)qk * D + 4 * lane);

    const size_t base = (size_t)pair * D * D + 4 * lane;
    for (int row = part * ROWS + warp; row < (part + 1) * ROWS; row += WARPS) {
        float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (state) {
            s = *reinterpret_cast<const float4 *>(state + base + (size_t)row * D);
            s.x *= g;
            s.y *= g;
            s.z *= g;
            s.w *= g;
        }
        const float u = warp_sum(kv.x * s.x + kv.y * s.y + kv.z * s.z + kv.w * s.w);
        const float delta = beta * (__bfloat162float(v[(size_t)pair * D + row]) - u);
        float4 n;
        n.x = s.x + kv.x * delta;
        n.y = s.y + kv.y * delta;
        n.z = s.z + kv.z * delta;
        n.w = s.w + kv.w * delta;
        *reinterpret_cast<float4 *>(new_state + base + (size_t)row * D) = n;
        const float o = warp_sum(qv.x * n.x + qv.y * n.y + qv.z * n.z + qv.w * n.w);
        if (lane == 0)
            out[(size_t)pair * D + row] = __float2bfloat16_rn(scale * o);
    }
}

/* Nonzero when P is not a multiple of N bytes. */
static int misaligned(const void *p, uintptr_t n)
{
    return ((uintptr_t)p % n) != 0;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 11 || args[0].rank != 4 || args[3].rank != 4)
        return -1;
    const int64_t batch = args[0].shape[0];
    if (batch < 0 || batch > INT32_MAX / (NV * ROW_SPLIT) || args[0].shape[2] != NQ || args[0].shape[3] != D ||
        args[2].shape[2] != NV || args[3].shape[1] != NV || args[3].shape[2] != D || args[3].shape[3] != D)
        return -1;
    if (batch == 0)
        return 0;
    /* float4 and 8-byte bf16 loads: cudaMalloc'd tensors are aligned far beyond this. */
    if (misaligned(args[0].data, 8) || misaligned(args[1].data, 8) || misaligned(args[3].data, 16) ||
        misaligned(args[10].data, 16))
        return -1;
    float scale = (float)args[8].f;
    if (scale == 0.0f)
        scale = 0.08838834764831845f; /* 1 / sqrt(128) */

    gdn_decode_kernel<<<(unsigned)(batch * NV * ROW_SPLIT), THREADS, 0, (cudaStream_t)stream>>>(
        (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data, (const __nv_bfloat16 *)args[2].data,
        (const float *)args[3].data, (const float *)args[4].data, (const __nv_bfloat16 *)args[5].data,
        (const float *)args[6].data, (const __nv_bfloat16 *)args[7].data, scale, (__nv_bfloat16 *)args[9].data,
        (float *)args[10].data);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

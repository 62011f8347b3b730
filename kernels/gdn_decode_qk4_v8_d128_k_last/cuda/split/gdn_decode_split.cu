/* gdn_decode_split.cu - fast CUDA solution of gdn_decode_qk4_v8_d128_k_last (kwb ABI).
 *
 * Decode is memory-bound: per (sequence, value head) a 128x128 float32 state (64 KiB) is read
 * and written once. The state stays in its k-last layout [V][K]; its rows are independent once
 * g, beta, k and v are known, so each head's 128 rows are split over several blocks to fill
 * the GPU at small batch. A block is SMALL_WARPS or LARGE_WARPS warps; each warp owns RPW consecutive rows and each
 * lane 4 contiguous K elements of every row (one 16-byte access per row, a warp covers a 512 B
 * row). All RPW row loads of a thread are issued before any is used (RPW x 16 B in flight per
 * thread), with a no-L1-allocate hint; new_state goes out with streaming stores. Per row:
 *   s = g * state[v]; u = k . s (warp sum); new = s + k * (beta * (v - u));
 *   output[v] = scale * (q . new) (warp sum)
 * which is the reference's M - k(x)u + k(x)(beta v + (1 - beta) u) with u = k^T M.
 * The rows per warp are chosen from the batch size on the host (shape dispatch): few rows per
 * block at small batch (many blocks, one DRAM round trip), more at large batch (more bytes in
 * flight per thread, fewer blocks). One launch per call, no atomics.
 *
 * Arguments: q k v state A_log a dt_bias b scale | output new_state. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "kwb/kernel.h"

#define NQ 4          /* q and k heads */
#define NV 8          /* value heads */
#define D 128         /* head size (K = V = 128) */
#define SMALL_WARPS 8 /* kwb:tune SMALL_WARPS {4,8,16} */
#define LARGE_WARPS 8 /* kwb:tune LARGE_WARPS {4,8} */
#define SMALL_RPW 1   /* kwb:tune SMALL_RPW {1,2,4} */
#define LARGE_RPW 4   /* kwb:tune LARGE_RPW {2,4,8} */
#define SMALL_BATCH 8 /* kwb:tune SMALL_BATCH {4,8,16} */

/* Four bf16 values (8 bytes) widened to float. */
static __device__ __forceinline__ float4 load_bf16x4(const __nv_bfloat16 *p)
{
    uint2 raw = __ldg(reinterpret_cast<const uint2 *>(p));
    float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.x));
    float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(&raw.y));
    return make_float4(lo.x, lo.y, hi.x, hi.y);
}

/* 16-byte global load that skips L1 (the state is read exactly once). */
static __device__ __forceinline__ float4 load_stream(const float *p)
{
    float4 r;
    asm volatile("ld.global.nc.L1::no_allocate.v4.f32 {%0,%1,%2,%3}, [%4];"
                 : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
                 : "l"(p));
    return r;
}

static __device__ __forceinline__ float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

/* Block = NW warps over NW * RPW consecutive rows of one (sequence, head) pair. */
template <int RPW, int NW>
__global__ void __launch_bounds__(NW * 32)
    gdn_decode_kernel(const __nv_bfloat16 *__restrict__ q, const __nv_bfloat16 *__restrict__ k,
                      const __nv_bfloat16 *__restrict__ v, const float *__restrict__ state,
                      const float *__restrict__ a_log, const __nv_bfloat16 *__restrict__ a,
                      const float *__restrict__ dt_bias, const __nv_bfloat16 *__restrict__ b, float scale,
                      __nv_bfloat16 *__restrict__ out, float *__restrict__ new_state)
{
    constexpr int BLOCK_ROWS = NW * RPW;
    constexpr int PARTS = D / BLOCK_ROWS;
    const int pair = blockIdx.x / PARTS; /* sequence * NV + head */
    const int part = blockIdx.x % PARTS;
    const int h = pair % NV;
    const int qk = (pair / NV) * NQ + h / (NV / NQ);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row0 = part * BLOCK_ROWS + warp * RPW;
    const size_t base = ((size_t)pair * D + row0) * D + 4 * lane;

    float4 s[RPW];
    if (state) {
#pragma unroll
        for (int j = 0; j < RPW; j++)
            s[j] = load_stream(state + base + (size_t)j * D);
    }
    const float g = expf(-expf(__ldg(a_log + h)) * softplus(__bfloat162float(a[pair]) + __ldg(dt_bias + h)));
    const float beta = 1.0f / (1.0f + expf(-__bfloat162float(b[pair])));
    const float4 kv = load_bf16x4(k + (size_t)qk * D + 4 * lane);
    const float4 qv = load_bf16x4(q + (size_t)qk * D + 4 * lane);
    float vr[RPW];
#pragma unroll
    for (int j = 0; j < RPW; j++)
        vr[j] = __bfloat162float(v[(size_t)pair * D + row0 + j]);
    if (!state) {
#pragma unroll
        for (int j = 0; j < RPW; j++)
            s[j] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }

    float u[RPW];
#pragma unroll
    for (int j = 0; j < RPW; j++) {
        s[j].x *= g;
        s[j].y *= g;
        s[j].z *= g;
        s[j].w *= g;
        u[j] = kv.x * s[j].x + kv.y * s[j].y + kv.z * s[j].z + kv.w * s[j].w;
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
#pragma unroll
        for (int j = 0; j < RPW; j++)
            u[j] += __shfl_xor_sync(0xffffffffu, u[j], o);
    float o[RPW];
#pragma unroll
    for (int j = 0; j < RPW; j++) {
        const float delta = beta * (vr[j] - u[j]);
        s[j].x += kv.x * delta;
        s[j].y += kv.y * delta;
        s[j].z += kv.z * delta;
        s[j].w += kv.w * delta;
        __stcs(reinterpret_cast<float4 *>(new_state + base + (size_t)j * D), s[j]);
        o[j] = qv.x * s[j].x + qv.y * s[j].y + qv.z * s[j].z + qv.w * s[j].w;
    }
#pragma unroll
    for (int sh = 16; sh > 0; sh >>= 1)
#pragma unroll
        for (int j = 0; j < RPW; j++)
            o[j] += __shfl_xor_sync(0xffffffffu, o[j], sh);
    /* lane j writes row j's output */
    float mine = o[0];
#pragma unroll
    for (int j = 1; j < RPW; j++)
        if (lane == j)
            mine = o[j];
    if (lane < RPW)
        out[(size_t)pair * D + row0 + lane] = __float2bfloat16_rn(scale * mine);
}

/* Nonzero when P is not a multiple of N bytes. */
static int misaligned(const void *p, uintptr_t n)
{
    return ((uintptr_t)p % n) != 0;
}

template <int RPW, int NW> static void launch(int64_t batch, const kwb_arg *args, float scale, cudaStream_t stream)
{
    const unsigned blocks = (unsigned)(batch * NV * (D / (NW * RPW)));
    gdn_decode_kernel<RPW, NW><<<blocks, NW * 32, 0, stream>>>(
        (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data, (const __nv_bfloat16 *)args[2].data,
        (const float *)args[3].data, (const float *)args[4].data, (const __nv_bfloat16 *)args[5].data,
        (const float *)args[6].data, (const __nv_bfloat16 *)args[7].data, scale, (__nv_bfloat16 *)args[9].data,
        (float *)args[10].data);
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 11 || args[0].rank != 4 || args[3].rank != 4)
        return -1;
    const int64_t batch = args[0].shape[0];
    if (batch < 0 || batch > INT32_MAX / (NV * D) || args[0].shape[2] != NQ || args[0].shape[3] != D ||
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
    if (batch <= SMALL_BATCH)
        launch<SMALL_RPW, SMALL_WARPS>(batch, args, scale, (cudaStream_t)stream);
    else
        launch<LARGE_RPW, LARGE_WARPS>(batch, args, scale, (cudaStream_t)stream);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* dsa_attn_baseline.cu - straightforward CUDA solution of dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
 * (kwb ABI). Float32 math, one pass over the keys with an online softmax:
 *
 *   one 256-thread block (8 warps) per (head, token). Warp w takes entries w, w + 8, ... of the
 *   token's 2048 sparse indices; for a valid one it reads the 512 + 64 bf16 of the key row
 *   coalesced (lane l: ckv dims 16l..16l+15 as two 16-byte loads, kpe dims 2l, 2l+1), forms the
 *   logit by a warp sum, and folds it into its running max m, sum l and output accumulator
 *   (acc = acc * e^(m_old - m) + e^(logit - m) * ckv; the values are the ckv row already in
 *   registers). The 8 warps' partial states are merged through shared memory; lse =
 *   (m + ln l) / ln 2. No valid index: output 0, lse -inf.
 *
 * Arguments: q_nope q_pe ckv_cache kpe_cache sparse_indices sm_scale | output lse. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kwb/kernel.h"

#define HEADS 16
#define CKV 512
#define KPE 64
#define PAGE 64
#define TOPK 2048
#define WARPS 8
#define PER_LANE (CKV / 32) /* 16 ckv dims per lane */

static __device__ __forceinline__ float warp_sum(float x)
{
    for (int o = 16; o > 0; o >>= 1)
        x += __shfl_xor_sync(0xffffffffu, x, o);
    return x;
}

/* Eight bf16 (16 bytes) widened into F. */
static __device__ __forceinline__ void load8(const __nv_bfloat16 *p, float *f)
{
    const uint4 raw = *reinterpret_cast<const uint4 *>(p);
    const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&raw);
    for (int i = 0; i < 4; i++) {
        const float2 v = __bfloat1622float2(h[i]);
        f[2 * i] = v.x;
        f[2 * i + 1] = v.y;
    }
}

__global__ void __launch_bounds__(WARPS * 32)
    attn_kernel(const __nv_bfloat16 *__restrict__ q_nope, const __nv_bfloat16 *__restrict__ q_pe,
                const __nv_bfloat16 *__restrict__ ckv, const __nv_bfloat16 *__restrict__ kpe,
                const int32_t *__restrict__ indices, float scale, long long cache_tokens,
                __nv_bfloat16 *__restrict__ out, float *__restrict__ lse)
{
    __shared__ float s_max[WARPS], s_sum[WARPS], s_acc[WARPS][CKV];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t head = (size_t)blockIdx.y * HEADS + blockIdx.x;
    const int32_t *idx = indices + (size_t)blockIdx.y * TOPK;

    float q[PER_LANE], qp[2];
    load8(q_nope + head * CKV + lane * PER_LANE, q);
    load8(q_nope + head * CKV + lane * PER_LANE + 8, q + 8);
    const float2 qpv = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(q_pe + head * KPE + 2 * lane));
    qp[0] = qpv.x;
    qp[1] = qpv.y;

    float m = -INFINITY, l = 0.0f, acc[PER_LANE] = {0};
    for (int j = warp; j < TOPK; j += WARPS) {
        const long long x = __ldg(idx + j);
        if (x < 0 || x >= cache_tokens)
            continue; /* padding (the same for the whole warp) */
        float c[PER_LANE];
        load8(ckv + x * CKV + lane * PER_LANE, c);
        load8(ckv + x * CKV + lane * PER_LANE + 8, c + 8);
        const float2 kp = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162 *>(kpe + x * KPE + 2 * lane));
        float dot = qp[0] * kp.x + qp[1] * kp.y;
        for (int i = 0; i < PER_LANE; i++)
            dot += q[i] * c[i];
        const float logit = warp_sum(dot) * scale;
        const float m_new = fmaxf(m, logit), keep = expf(m - m_new), p = expf(logit - m_new);
        l = l * keep + p;
        for (int i = 0; i < PER_LANE; i++)
            acc[i] = acc[i] * keep + p * c[i];
        m = m_new;
    }
    if (lane == 0) {
        s_max[warp] = m;
        s_sum[warp] = l;
    }
    for (int i = 0; i < PER_LANE; i++)
        s_acc[warp][lane * PER_LANE + i] = acc[i];
    __syncthreads();

    float big = -INFINITY;
    for (int w = 0; w < WARPS; w++)
        big = fmaxf(big, s_max[w]);
    float total = 0.0f, f[WARPS];
    for (int w = 0; w < WARPS; w++) {
        f[w] = s_max[w] == -INFINITY ? 0.0f : expf(s_max[w] - big);
        total += s_sum[w] * f[w];
    }
    for (int d = threadIdx.x; d < CKV; d += WARPS * 32) {
        float o = 0.0f;
        for (int w = 0; w < WARPS; w++)
            o += s_acc[w][d] * f[w];
        out[head * CKV + d] = __float2bfloat16(big == -INFINITY ? 0.0f : o / total);
    }
    if (threadIdx.x == 0)
        lse[head] = big == -INFINITY ? -INFINITY : (big + logf(total)) * 1.4426950408889634f;
}

extern "C" int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 8)
        return -1;
    const long long tokens = args[0].shape[0], cache_tokens = args[2].shape[0] * PAGE;
    if (tokens == 0)
        return 0;
    attn_kernel<<<dim3(HEADS, (unsigned)tokens), WARPS * 32, 0, (cudaStream_t)stream>>>(
        (const __nv_bfloat16 *)args[0].data, (const __nv_bfloat16 *)args[1].data, (const __nv_bfloat16 *)args[2].data,
        (const __nv_bfloat16 *)args[3].data, (const int32_t *)args[4].data, (float)args[5].f, cache_tokens,
        (__nv_bfloat16 *)args[6].data, (float *)args[7].data);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* reference.cu - CUDA reference of dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64, float32,
 * simple over fast: one block per (token, head), in three passes over the 2048 entries of the
 * token's sparse_indices (formulas in dsa_attn.h):
 *   1. one thread per entry: its logit (q_nope . ckv + q_pe . kpe) * sm_scale into shared
 *      memory, -inf for padding;
 *   2. block reductions: the largest logit, then the sum of exp(logit - max); lse;
 *   3. one thread per output dimension: sum of exp(logit - max) * ckv over the entries, / sum.
 * Indices outside the cache count as padding (it cannot report them without synchronizing). */
#include <math.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "dsa_attn.h"
#include "kwb/dtype_bits.h"
#include "kwb/kernel.h"

enum { THREADS = 256 };

/* The block's reduction of X with OP (max or sum); every thread gets the result. */
template <bool MAX> static __device__ float block_reduce(float x, float *scratch)
{
    scratch[threadIdx.x] = x;
    __syncthreads();
    for (int o = THREADS / 2; o > 0; o >>= 1) {
        if (threadIdx.x < o)
            scratch[threadIdx.x] = MAX ? fmaxf(scratch[threadIdx.x], scratch[threadIdx.x + o])
                                       : scratch[threadIdx.x] + scratch[threadIdx.x + o];
        __syncthreads();
    }
    float r = scratch[0];
    __syncthreads();
    return r;
}

static __global__ void __launch_bounds__(THREADS)
    attn_kernel(const uint16_t *q_nope, const uint16_t *q_pe, const uint16_t *ckv, const uint16_t *kpe,
                const int32_t *indices, float scale, int64_t tokens_in_cache, uint16_t *output, float *lse)
{
    __shared__ float q[DSA_CKV + DSA_KPE], logit[DSA_ATOPK], scratch[THREADS];
    const int64_t t = blockIdx.y, head = t * DSA_HEADS + blockIdx.x;
    const int32_t *idx = indices + t * DSA_ATOPK;
    for (int d = threadIdx.x; d < DSA_CKV + DSA_KPE; d += THREADS)
        q[d] = dtype_bits_bf16_to_f32(d < DSA_CKV ? q_nope[head * DSA_CKV + d] : q_pe[head * DSA_KPE + d - DSA_CKV]);
    __syncthreads();

    float local_max = -INFINITY;
    int valid = 0;
    for (int j = threadIdx.x; j < DSA_ATOPK; j += THREADS) {
        const int64_t x = idx[j];
        float l = -INFINITY;
        if (x >= 0 && x < tokens_in_cache) {
            float dot = 0.0f;
            for (int d = 0; d < DSA_CKV; d++)
                dot += q[d] * dtype_bits_bf16_to_f32(ckv[x * DSA_CKV + d]);
            for (int d = 0; d < DSA_KPE; d++)
                dot += q[DSA_CKV + d] * dtype_bits_bf16_to_f32(kpe[x * DSA_KPE + d]);
            l = dot * scale;
            valid = 1;
        }
        logit[j] = l;
        local_max = fmaxf(local_max, l);
    }
    const int any = __syncthreads_or(valid);
    const float max = block_reduce<true>(local_max, scratch);
    float local_sum = 0.0f;
    for (int j = threadIdx.x; j < DSA_ATOPK; j += THREADS)
        local_sum += any ? expf(logit[j] - max) : 0.0f;
    const float sum = block_reduce<false>(local_sum, scratch);

    for (int d = threadIdx.x; d < DSA_CKV; d += THREADS) {
        float acc = 0.0f;
        for (int j = 0; any && j < DSA_ATOPK; j++)
            if (logit[j] != -INFINITY)
                acc += expf(logit[j] - max) * dtype_bits_bf16_to_f32(ckv[(int64_t)idx[j] * DSA_CKV + d]);
        output[head * DSA_CKV + d] = dtype_bits_f32_to_bf16(any ? acc / sum : 0.0f);
    }
    if (threadIdx.x == 0)
        lse[head] = any ? (max + logf(sum)) / (float)M_LN2 : -INFINITY;
}

extern "C" int kwb_ref_cuda_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs,
                                                                                kwb_stream stream)
{
    int64_t vars[SA_NVARS];
    if (dsa_attn_check_args(args, nargs, vars) != 0)
        return -1;
    if (vars[SA_TOKENS] == 0)
        return 0;
    if (vars[SA_TOKENS] > 65535)
        return -1; /* beyond one grid's y dimension */
    attn_kernel<<<dim3(DSA_HEADS, (unsigned)vars[SA_TOKENS]), THREADS, 0, (cudaStream_t)stream>>>(
        (const uint16_t *)args[SA_Q_NOPE].data, (const uint16_t *)args[SA_Q_PE].data,
        (const uint16_t *)args[SA_CKV].data, (const uint16_t *)args[SA_KPE].data,
        (const int32_t *)args[SA_INDICES].data, (float)args[SA_SM_SCALE].f, vars[SA_PAGES] * DSA_APAGE,
        (uint16_t *)args[SA_OUTPUT].data, (float *)args[SA_LSE].data);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

/* reference.cu - CUDA reference of gdn_prefill_qk4_v8_d128_k_last: Gated Delta Net prefill,
 * GVA (4 q/k heads, 8 value heads), head size 128, variable-length sequences packed by
 * cu_seqlens, state in k-last layout [N, H, V, K].
 *
 * Float32, simple over fast: the output is zeroed first (the PyTorch code's torch.zeros), then
 * one block per (sequence n, value head h), 128 threads, thread r holding row r of the state
 * [V][K] in registers for the whole sequence (row r of the state is column r of the
 * reference's K x V matrix M). With q/k head h/2 (repeat_interleave), per token t of the
 * sequence, in order, the definition's reference is
 *   g = exp(-exp(A_log) * softplus(a + dt_bias)); beta = sigmoid(b)
 *   M = g * M; u = k^T M;  M' = M - k (x) u + k (x) (beta*v + (1-beta)*u);  output = scale * q^T M'
 * and since (beta*v + (1-beta)*u) - u = beta*(v - u), row r becomes
 *   s = g * s;  u_r = k . s;  s = s + k * (beta * (v_r - u_r));  output[t,h,r] = bf16(scale * (q . s))
 * At the end new_state[n,h,r] = s; a sequence with no tokens leaves zeros (the PyTorch code
 * skips it). cu_seqlens is read on the device; the bounds are clamped to [0, total_seq_len]
 * (the CPU reference rejects an invalid cu_seqlens; this one cannot synchronize to look). A
 * NULL state (the definition's optional input left out) stands for zeros. */
#include <math.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "gdn_prefill_args.h"
#include "kwb/dtype_bits.h"
#include "kwb/kernel.h"

/* torch.nn.functional.softplus with its defaults (beta 1, threshold 20). */
static __device__ float gdnp_softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

/* One block per (sequence, value head) pair, blockIdx.x = n * GDN_NV + h; thread r = row r. */
static __global__ void __launch_bounds__(GDN_D)
    gdnp_ref_kernel(const uint16_t *q, const uint16_t *k, const uint16_t *v, const float *state, const float *a_log,
                    const uint16_t *a, const float *dt_bias, const uint16_t *b, const int64_t *cu_seqlens,
                    int64_t total, float scale, uint16_t *output, float *new_state)
{
    __shared__ float sq[GDN_D], sk[GDN_D];
    const size_t pair = blockIdx.x;
    const size_t n = pair / GDN_NV;
    const int h = (int)(pair % GDN_NV);
    const int hk = h / (GDN_NV / GDN_NQ); /* repeat_interleave of the q and k heads */
    const int r = threadIdx.x;
    const size_t row = (pair * GDN_D + (size_t)r) * GDN_D;

    const int64_t start = min(max(cu_seqlens[n], (int64_t)0), total);
    const int64_t end = min(max(cu_seqlens[n + 1], (int64_t)0), total);

    float s[GDN_D];
#pragma unroll
    for (int kk = 0; kk < GDN_D; kk++)
        s[kk] = state && end > start ? state[row + kk] : 0.0f;

    const float decay = expf(a_log[h]);
    for (int64_t t = start; t < end; t++) {
        __syncthreads(); /* the previous token's q and k are read by all */
        sq[r] = dtype_bits_bf16_to_f32(q[((size_t)t * GDN_NQ + hk) * GDN_D + r]);
        sk[r] = dtype_bits_bf16_to_f32(k[((size_t)t * GDN_NK + hk) * GDN_D + r]);
        __syncthreads();

        const size_t th = (size_t)t * GDN_NV + h;
        const float g = expf(-decay * gdnp_softplus(dtype_bits_bf16_to_f32(a[th]) + dt_bias[h]));
        const float beta = 1.0f / (1.0f + expf(-dtype_bits_bf16_to_f32(b[th])));

        float u = 0.0f; /* u_r = k . (g * s) */
#pragma unroll
        for (int kk = 0; kk < GDN_D; kk++) {
            s[kk] *= g;
            u += sk[kk] * s[kk];
        }
        const float delta = beta * (dtype_bits_bf16_to_f32(v[th * GDN_D + r]) - u);
        float o = 0.0f; /* q . new s */
#pragma unroll
        for (int kk = 0; kk < GDN_D; kk++) {
            s[kk] += sk[kk] * delta;
            o += sq[kk] * s[kk];
        }
        output[th * GDN_D + r] = dtype_bits_f32_to_bf16(scale * o);
    }
#pragma unroll
    for (int kk = 0; kk < GDN_D; kk++)
        new_state[row + kk] = s[kk];
}

extern "C" int kwb_ref_cuda_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream)
{
    int64_t vars[GDNP_NVARS];
    if (gdnp_check_args(args, nargs, vars) != 0)
        return -1;
    const int64_t total = vars[GDNP_T], seqs = vars[GDNP_N];
    if (seqs > INT32_MAX / GDN_NV)
        return -1; /* more blocks than one grid dimension holds */
    double scale = args[ARG_SCALE].f;
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)GDN_D);

    cudaStream_t st = (cudaStream_t)stream;
    if (total > 0 &&
        cudaMemsetAsync(args[ARG_OUTPUT].data, 0, (size_t)total * GDN_NV * GDN_D * sizeof(uint16_t), st) != cudaSuccess)
        return -1;
    if (seqs == 0)
        return 0;
    gdnp_ref_kernel<<<(unsigned)(seqs * GDN_NV), GDN_D, 0, st>>>(
        (const uint16_t *)args[ARG_Q].data, (const uint16_t *)args[ARG_K].data, (const uint16_t *)args[ARG_V].data,
        (const float *)args[ARG_STATE].data, (const float *)args[ARG_A_LOG].data, (const uint16_t *)args[ARG_A].data,
        (const float *)args[ARG_DT_BIAS].data, (const uint16_t *)args[ARG_B].data,
        (const int64_t *)args[ARG_CU_SEQLENS].data, total, (float)scale, (uint16_t *)args[ARG_OUTPUT].data,
        (float *)args[ARG_NEW_STATE].data);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

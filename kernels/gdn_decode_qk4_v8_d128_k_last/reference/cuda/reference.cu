/* reference.cu - CUDA reference of gdn_decode_qk4_v8_d128_k_last: Gated Delta Net decode,
 * GVA (4 q/k heads, 8 value heads), head size 128, state in k-last layout [B, H, V, K].
 *
 * Float32, simple over fast: one block per (batch b, value head h), 128 threads, thread r
 * owning row r of the state [V][K] (row r of the state is column r of the reference's
 * K x V matrix M = g * state^T). With q/k head h/2 (repeat_interleave), the definition's
 * reference per (b, h) is
 *   g = exp(-exp(A_log) * softplus(a + dt_bias)); beta = sigmoid(b)
 *   M = g * state^T; u = k^T M
 *   M' = M - k (x) u + k (x) (beta*v + (1-beta)*u);  output = scale * q^T M'
 * and since (beta*v + (1-beta)*u) - u = beta*(v - u), column r of M' is
 *   s = g * state[r];  u_r = k . s;  new_r = s + k * (beta * (v_r - u_r))
 *   output_r = bf16(scale * (q . new_r)) (round to nearest even);  new_state[r] = new_r
 * Each thread reads each element of its row before it writes it, and no other thread
 * touches the row, so new_state may even alias state. A NULL state (the definition's
 * optional input left out) stands for zeros. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cuda_runtime.h>

#include "gdn_decode_args.h"
#include "kwb/dtype_bits.h"
#include "kwb/kernel.h"

/* torch.nn.functional.softplus with its defaults (beta 1, threshold 20). */
static __device__ float gdn_softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

static __device__ float gdn_sigmoid(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

/* One block per (batch, value head) pair, blockIdx.x = b * GDN_NV + h; thread r = row r. */
static __global__ void __launch_bounds__(GDN_D)
    gdn_ref_kernel(const uint16_t *q, const uint16_t *k, const uint16_t *v, const float *state, const float *a_log,
                   const uint16_t *a, const float *dt_bias, const uint16_t *b, float scale, uint16_t *output,
                   float *new_state)
{
    __shared__ float sq[GDN_D], sk[GDN_D];
    const size_t pair = blockIdx.x;
    const size_t batch = pair / GDN_NV;
    const int h = (int)(pair % GDN_NV);
    const int hk = h / (GDN_NV / GDN_NQ); /* repeat_interleave of the q and k heads */
    const int r = threadIdx.x;

    sq[r] = dtype_bits_bf16_to_f32(q[(batch * GDN_NQ + hk) * GDN_D + r]);
    sk[r] = dtype_bits_bf16_to_f32(k[(batch * GDN_NK + hk) * GDN_D + r]);
    __syncthreads();

    const float x = dtype_bits_bf16_to_f32(a[pair]) + dt_bias[h];
    const float g = expf(-expf(a_log[h]) * gdn_softplus(x));
    const float beta = gdn_sigmoid(dtype_bits_bf16_to_f32(b[pair]));
    const size_t row = (pair * GDN_D + (size_t)r) * GDN_D;
    const float *st = state ? state + row : NULL;

    float u = 0.0f; /* u_r = k . (g * state[r]) */
    for (int kk = 0; kk < GDN_D; kk++)
        u += sk[kk] * (st ? g * st[kk] : 0.0f);
    const float delta = beta * (dtype_bits_bf16_to_f32(v[pair * GDN_D + r]) - u);

    float o = 0.0f; /* q . new_r */
    for (int kk = 0; kk < GDN_D; kk++) {
        const float s = st ? g * st[kk] : 0.0f;
        const float nw = s + sk[kk] * delta;
        new_state[row + kk] = nw;
        o += sq[kk] * nw;
    }
    output[pair * GDN_D + r] = dtype_bits_f32_to_bf16(scale * o);
}

extern "C" int kwb_ref_cuda_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream)
{
    int64_t batch;
    if (gdn_check_args(args, nargs, &batch) != 0)
        return -1;
    if (batch > INT32_MAX / GDN_NV)
        return -1; /* more blocks than one grid dimension holds */
    if (batch == 0)
        return 0;
    double scale = args[ARG_SCALE].f;
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)GDN_D);

    gdn_ref_kernel<<<(unsigned)(batch * GDN_NV), GDN_D, 0, (cudaStream_t)stream>>>(
        (const uint16_t *)args[ARG_Q].data, (const uint16_t *)args[ARG_K].data, (const uint16_t *)args[ARG_V].data,
        (const float *)args[ARG_STATE].data, (const float *)args[ARG_A_LOG].data, (const uint16_t *)args[ARG_A].data,
        (const float *)args[ARG_DT_BIAS].data, (const uint16_t *)args[ARG_B].data, (float)scale,
        (uint16_t *)args[ARG_OUTPUT].data, (float *)args[ARG_NEW_STATE].data);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

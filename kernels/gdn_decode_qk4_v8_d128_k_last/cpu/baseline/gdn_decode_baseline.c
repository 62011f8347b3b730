/* gdn_decode_baseline.c - plain C solution of gdn_decode_qk4_v8_d128_k_last (kwb ABI).
 *
 * Float32 math, one thread, loops in the order of the definition's reference: for each
 * (batch, value head) pair, scale the state by g into a scratch matrix, compute u = k^T M,
 * apply the delta-rule update, then the output. The state stays in its k-last layout
 * ([V][K], K contiguous), so M^T's column v is the scratch row v.
 *
 * Arguments: q k v state A_log a dt_bias b scale | output new_state. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/kernel.h"

#define NQ 4  /* q and k heads */
#define NV 8  /* value heads */
#define D 128 /* head size (K = V = 128) */

/* bfloat16 bits to float (exact). */
static float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float to bfloat16 bits, round to nearest even; NaN gives the quiet NaN with its sign. */
static uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* torch.nn.functional.softplus: beta 1, threshold 20. */
static float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

/* One (batch b, value head h) pair; S is a D x D scratch matrix. */
static void gdn_pair(const kwb_arg *args, int64_t b, int h, float scale, float *s)
{
    const size_t pair = (size_t)b * NV + (size_t)h;
    const size_t qk_off = ((size_t)b * NQ + (size_t)(h / 2)) * D;
    const uint16_t *q = (const uint16_t *)args[0].data + qk_off;
    const uint16_t *k = (const uint16_t *)args[1].data + qk_off;
    const uint16_t *v = (const uint16_t *)args[2].data + pair * D;
    const float *state = (const float *)args[3].data + pair * D * D;
    const float a_log = ((const float *)args[4].data)[h];
    const float a = bf16_to_f32(((const uint16_t *)args[5].data)[pair]);
    const float dt_bias = ((const float *)args[6].data)[h];
    const float bg = bf16_to_f32(((const uint16_t *)args[7].data)[pair]);
    uint16_t *out = (uint16_t *)args[9].data + pair * D;
    float *new_state = (float *)args[10].data + pair * D * D;

    const float g = expf(-expf(a_log) * softplus(a + dt_bias));
    const float beta = 1.0f / (1.0f + expf(-bg));
    float u[D];

    /* old state: S[v][k] = g * state[v][k] */
    for (int i = 0; i < D * D; i++)
        s[i] = g * state[i];
    /* u[v] = sum_k k[k] * S[v][k] */
    for (int vi = 0; vi < D; vi++) {
        float acc = 0.0f;
        for (int ki = 0; ki < D; ki++)
            acc += bf16_to_f32(k[ki]) * s[vi * D + ki];
        u[vi] = acc;
    }
    /* new_state[v][k] = S[v][k] - k[k]*u[v] + k[k]*(beta*v[v] + (1-beta)*u[v]) */
    for (int vi = 0; vi < D; vi++) {
        float new_v = beta * bf16_to_f32(v[vi]) + (1.0f - beta) * u[vi];
        for (int ki = 0; ki < D; ki++) {
            float kk = bf16_to_f32(k[ki]);
            new_state[vi * D + ki] = s[vi * D + ki] - kk * u[vi] + kk * new_v;
        }
    }
    /* output[v] = scale * sum_k q[k] * new_state[v][k] */
    for (int vi = 0; vi < D; vi++) {
        float acc = 0.0f;
        for (int ki = 0; ki < D; ki++)
            acc += bf16_to_f32(q[ki]) * new_state[vi * D + ki];
        out[vi] = f32_to_bf16(scale * acc);
    }
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 11 || args[0].rank != 4)
        return -1;
    const int64_t batch = args[0].shape[0];
    float scale = (float)args[8].f;
    if (scale == 0.0f)
        scale = 1.0f / sqrtf((float)D);

    float *s = malloc(sizeof(float) * D * D);
    if (s == NULL)
        return -1;
    for (int64_t b = 0; b < batch; b++)
        for (int h = 0; h < NV; h++)
            gdn_pair(args, b, h, scale, s);
    free(s);
    return 0;
}

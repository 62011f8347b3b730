/* gdn_prefill_baseline.c - plain C solution of gdn_prefill_qk4_v8_d128_k_last (kwb ABI).
 *
 * Float32 math, one thread. For each sequence (tokens cu_seqlens[n] .. cu_seqlens[n+1]-1) and
 * value head h (q/k head h/2), new_state[n,h] is the working state: it starts as a copy of
 * state[n,h] (zeros when the optional state is absent) and is updated in place, token by
 * token, in its k-last layout [V][K] (row v = column v of the reference's K x V matrix):
 *   g = exp(-exp(A_log) * softplus(a + dt_bias)); beta = sigmoid(b)
 *   per row v: s = g * row; u = k . s; row = s + k * (beta * (v[v] - u));
 *              output[t,h,v] = bf16(scale * (q . row))
 * which is the reference's M - k(x)u + k(x)(beta v + (1 - beta) u) with u = k^T M. Output
 * and new_state start as zeros, so an empty sequence leaves zeros as the reference does.
 *
 * Arguments: q k v state A_log a dt_bias b cu_seqlens scale | output new_state. */
#include <math.h>
#include <stdint.h>
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

/* D bf16 values widened to float. */
static void widen(float *dst, const uint16_t *src)
{
    for (int i = 0; i < D; i++)
        dst[i] = bf16_to_f32(src[i]);
}

/* Tokens START .. END-1 for value head H; ST is this (sequence, head)'s [V][K] state. */
static void gdn_head(const kwb_arg *args, int h, int64_t start, int64_t end, float scale, float *st)
{
    const float decay = expf(((const float *)args[4].data)[h]);
    const float dt_bias = ((const float *)args[6].data)[h];
    float q[D], k[D];

    for (int64_t t = start; t < end; t++) {
        const size_t th = (size_t)t * NV + (size_t)h;
        const size_t qk = ((size_t)t * NQ + (size_t)(h / 2)) * D;
        const uint16_t *v = (const uint16_t *)args[2].data + th * D;
        uint16_t *out = (uint16_t *)args[10].data + th * D;
        const float x = bf16_to_f32(((const uint16_t *)args[5].data)[th]) + dt_bias;
        const float g = expf(-decay * (x > 20.0f ? x : log1pf(expf(x))));
        const float beta = 1.0f / (1.0f + expf(-bf16_to_f32(((const uint16_t *)args[7].data)[th])));
        widen(q, (const uint16_t *)args[0].data + qk);
        widen(k, (const uint16_t *)args[1].data + qk);

        for (int vi = 0; vi < D; vi++) {
            float *row = st + (size_t)vi * D;
            float u = 0.0f;
            for (int ki = 0; ki < D; ki++) {
                row[ki] *= g;
                u += k[ki] * row[ki];
            }
            const float delta = beta * (bf16_to_f32(v[vi]) - u);
            float o = 0.0f;
            for (int ki = 0; ki < D; ki++) {
                row[ki] += k[ki] * delta;
                o += q[ki] * row[ki];
            }
            out[vi] = f32_to_bf16(scale * o);
        }
    }
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 12 || args[0].rank != 3 || args[8].rank != 1 || args[8].shape[0] < 1)
        return -1;
    const int64_t total = args[0].shape[0];
    const int64_t seqs = args[8].shape[0] - 1;
    const int64_t *cu = (const int64_t *)args[8].data;
    const float *state = (const float *)args[3].data;
    float *new_state = (float *)args[11].data;
    float scale = (float)args[9].f;
    if (scale == 0.0f)
        scale = 1.0f / sqrtf((float)D);

    memset(args[10].data, 0, (size_t)total * NV * D * sizeof(uint16_t));
    for (int64_t n = 0; n < seqs; n++) {
        const int64_t start = cu[n], end = cu[n + 1];
        if (start < 0 || end > total)
            return -1;
        for (int h = 0; h < NV; h++) {
            const size_t mat = ((size_t)n * NV + (size_t)h) * D * D;
            if (state != NULL && end > start)
                memcpy(new_state + mat, state + mat, sizeof(float) * D * D);
            else
                memset(new_state + mat, 0, sizeof(float) * D * D);
            gdn_head(args, h, start, end, scale, new_state + mat);
        }
    }
    return 0;
}

/* reference.c - CPU reference of gdn_decode_qk4_v8_d128_k_last: Gated Delta Net decode, GVA
 * (4 q/k heads, 8 value heads), head size 128, state in k-last layout [B, H, V, K].
 *
 * A line-by-line port of the definition's PyTorch `reference`, with every product and sum in
 * double instead of float32. Per batch b and value head h (q/k head h/2):
 *   g = exp(-exp(A_log) * softplus(a + dt_bias)); beta = sigmoid(b)
 *   M = state[b,h]^T (K x V); M <- g*M; u = k^T M
 *   M <- M - k (x) u + k (x) (beta*v + (1-beta)*u)
 *   output = scale * q^T M (bf16); new_state = M^T (f32, [V, K])
 * Obviously right over fast: the K x V matrix is materialized as the PyTorch code does. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include "../gdn_decode_args.h"
#include "dtype.h"
#include "runner/references.h"
#include "xalloc.h"

/* torch.nn.functional.softplus with its defaults (beta 1, threshold 20). */
static double gdn_softplus(double x)
{
    return x > 20.0 ? x : log1p(exp(x));
}

static double gdn_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* Widens D bf16 values to double. */
static void gdn_load_bf16(double *dst, const uint16_t *src)
{
    for (int i = 0; i < GDN_D; i++)
        dst[i] = dtype_bf16_to_f32(src[i]);
}

/* Scratch for one (batch, head) pair: M is K x V, row-major (M[k*D + v]). */
typedef struct gdn_scratch {
    double q[GDN_D], k[GDN_D], v[GDN_D];
    double u[GDN_D], new_v[GDN_D], out[GDN_D];
    double m[GDN_D * GDN_D];
} gdn_scratch;

/* The reference's loop body for batch B and value head H. */
static void gdn_ref_pair(const kwb_arg *args, int64_t b, int h, double scale, gdn_scratch *s)
{
    const int hk = h / (GDN_NV / GDN_NQ);   /* repeat_interleave of the q and k heads */
    const uint16_t *a_in = args[ARG_A].data, *b_in = args[ARG_B].data;
    const float *a_log = args[ARG_A_LOG].data, *dt_bias = args[ARG_DT_BIAS].data;
    const float *state = args[ARG_STATE].data;
    uint16_t *output = args[ARG_OUTPUT].data;
    float *new_state = args[ARG_NEW_STATE].data;
    const size_t pair = (size_t)b * GDN_NV + (size_t)h;
    const size_t mat = pair * GDN_D * GDN_D;

    double x = (double)dtype_bf16_to_f32(a_in[pair]) + (double)dt_bias[h];
    double g = exp(-exp((double)a_log[h]) * gdn_softplus(x));
    double beta = gdn_sigmoid(dtype_bf16_to_f32(b_in[pair]));

    gdn_load_bf16(s->q, (const uint16_t *)args[ARG_Q].data + ((size_t)b * GDN_NQ + hk) * GDN_D);
    gdn_load_bf16(s->k, (const uint16_t *)args[ARG_K].data + ((size_t)b * GDN_NK + hk) * GDN_D);
    gdn_load_bf16(s->v, (const uint16_t *)args[ARG_V].data + pair * GDN_D);

    /* old_state = g * state^T */
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->m[kk * GDN_D + vv] =
                state ? g * (double)state[mat + (size_t)vv * GDN_D + kk] : 0.0;
    /* old_v = k @ old_state */
    for (int vv = 0; vv < GDN_D; vv++)
        s->u[vv] = 0.0;
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->u[vv] += s->k[kk] * s->m[kk * GDN_D + vv];
    /* new_v = beta * v + (1 - beta) * old_v */
    for (int vv = 0; vv < GDN_D; vv++)
        s->new_v[vv] = beta * s->v[vv] + (1.0 - beta) * s->u[vv];
    /* h_state = old_state - k (x) old_v + k (x) new_v */
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->m[kk * GDN_D + vv] = s->m[kk * GDN_D + vv] - s->k[kk] * s->u[vv]
                                    + s->k[kk] * s->new_v[vv];
    /* output = scale * (q @ h_state) */
    for (int vv = 0; vv < GDN_D; vv++)
        s->out[vv] = 0.0;
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->out[vv] += s->q[kk] * s->m[kk * GDN_D + vv];
    for (int vv = 0; vv < GDN_D; vv++)
        output[pair * GDN_D + vv] = dtype_f32_to_bf16((float)(scale * s->out[vv]));
    /* new_state = h_state^T */
    for (int vv = 0; vv < GDN_D; vv++)
        for (int kk = 0; kk < GDN_D; kk++)
            new_state[mat + (size_t)vv * GDN_D + kk] = (float)s->m[kk * GDN_D + vv];
}

int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    int64_t batch;
    if (gdn_check_args(args, nargs, &batch) != 0)
        return -1;
    double scale = args[ARG_SCALE].f;
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)GDN_D);

    gdn_scratch *s = xmalloc(sizeof *s);
    for (int64_t b = 0; b < batch; b++)
        for (int h = 0; h < GDN_NV; h++)
            gdn_ref_pair(args, b, h, scale, s);
    free(s);
    return 0;
}

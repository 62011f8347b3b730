/* gdn_ref_math.h - the double-precision pieces of the GDN CPU references (decode and prefill
 * of *_qk4_v8_d128_k_last): the gates and one token of the delta rule, written as the
 * definitions' PyTorch `reference` writes them, every product and sum in double.
 *
 * The reference keeps, per (sequence, value head), the matrix M = state^T (K x V; the state
 * itself is stored k-last, [V][K]). One token with q/k head h/2 (repeat_interleave) is
 *   g = exp(-exp(A_log) * softplus(a + dt_bias)); beta = sigmoid(b)
 *   M <- g*M; u = k^T M; M <- M - k (x) u + k (x) (beta*v + (1-beta)*u); output = scale * q^T M
 * CPU only (host pointers); include after gdn_common.h. */
#ifndef KWB_GDN_REF_MATH_H
#define KWB_GDN_REF_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "kwb/dtype_bits.h"

/* torch.nn.functional.softplus with its defaults (beta 1, threshold 20). */
static inline double gdn_softplus(double x)
{
    return x > 20.0 ? x : log1p(exp(x));
}

static inline double gdn_sigmoid(double x)
{
    return 1.0 / (1.0 + exp(-x));
}

/* Widens D bf16 values to double. */
static inline void gdn_load_bf16(double *dst, const uint16_t *src)
{
    for (int i = 0; i < GDN_D; i++)
        dst[i] = dtype_bits_bf16_to_f32(src[i]);
}

/* Scratch for one (sequence, head) pair: the token's vectors and M (K x V, M[k*D + v]). */
typedef struct gdn_scratch {
    double q[GDN_D], k[GDN_D], v[GDN_D];
    double u[GDN_D], new_v[GDN_D], out[GDN_D];
    double m[GDN_D * GDN_D];
} gdn_scratch;

/* The gates of one (token, head): x = a.float() + dt_bias.float(), g, beta. */
static inline void gdn_gates(uint16_t a, uint16_t b, float a_log, float dt_bias, double *g, double *beta)
{
    double x = (double)dtype_bits_bf16_to_f32(a) + (double)dt_bias;
    *g = exp(-exp((double)a_log) * gdn_softplus(x));
    *beta = gdn_sigmoid(dtype_bits_bf16_to_f32(b));
}

/* M = STATE^T (STATE is one head's [V][K]); NULL for PyTorch's None: zeros. */
static inline void gdn_state_in(double *m, const float *state)
{
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            m[kk * GDN_D + vv] = state ? (double)state[(size_t)vv * GDN_D + kk] : 0.0;
}

/* NEW_STATE (one head's [V][K], float32) = M^T. */
static inline void gdn_state_out(float *new_state, const double *m)
{
    for (int vv = 0; vv < GDN_D; vv++)
        for (int kk = 0; kk < GDN_D; kk++)
            new_state[(size_t)vv * GDN_D + kk] = (float)m[kk * GDN_D + vv];
}

/* One token on s->m with s->q, s->k, s->v loaded: the delta rule, then OUTPUT (D bf16 values,
 * rounded to nearest even) = scale * q^T M. */
static inline void gdn_token(gdn_scratch *s, double g, double beta, double scale, uint16_t *output)
{
    /* old_state = g * state */
    for (int i = 0; i < GDN_D * GDN_D; i++)
        s->m[i] *= g;
    /* old_v = k @ old_state */
    for (int vv = 0; vv < GDN_D; vv++)
        s->u[vv] = 0.0;
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->u[vv] += s->k[kk] * s->m[kk * GDN_D + vv];
    /* new_v = beta * v + (1 - beta) * old_v */
    for (int vv = 0; vv < GDN_D; vv++)
        s->new_v[vv] = beta * s->v[vv] + (1.0 - beta) * s->u[vv];
    /* state = old_state - k (x) old_v + k (x) new_v */
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->m[kk * GDN_D + vv] = s->m[kk * GDN_D + vv] - s->k[kk] * s->u[vv] + s->k[kk] * s->new_v[vv];
    /* output = scale * (q @ state) */
    for (int vv = 0; vv < GDN_D; vv++)
        s->out[vv] = 0.0;
    for (int kk = 0; kk < GDN_D; kk++)
        for (int vv = 0; vv < GDN_D; vv++)
            s->out[vv] += s->q[kk] * s->m[kk * GDN_D + vv];
    for (int vv = 0; vv < GDN_D; vv++)
        output[vv] = dtype_bits_f32_to_bf16((float)(scale * s->out[vv]));
}

#endif

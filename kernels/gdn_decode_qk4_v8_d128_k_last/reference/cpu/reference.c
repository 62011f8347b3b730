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
#include <stdlib.h>

#include "gdn_decode_args.h"
#include "gdn_ref_math.h"

/* The reference's loop body for batch B and value head H. */
static void gdn_ref_pair(const kwb_arg *args, int64_t b, int h, double scale, gdn_scratch *s)
{
    const int hk = h / (GDN_NV / GDN_NQ); /* repeat_interleave of the q and k heads */
    const float *state = args[ARG_STATE].data;
    const size_t pair = (size_t)b * GDN_NV + (size_t)h;
    const size_t mat = pair * GDN_D * GDN_D;

    double g, beta;
    gdn_gates(((const uint16_t *)args[ARG_A].data)[pair], ((const uint16_t *)args[ARG_B].data)[pair],
              ((const float *)args[ARG_A_LOG].data)[h], ((const float *)args[ARG_DT_BIAS].data)[h], &g, &beta);
    gdn_load_bf16(s->q, (const uint16_t *)args[ARG_Q].data + ((size_t)b * GDN_NQ + hk) * GDN_D);
    gdn_load_bf16(s->k, (const uint16_t *)args[ARG_K].data + ((size_t)b * GDN_NK + hk) * GDN_D);
    gdn_load_bf16(s->v, (const uint16_t *)args[ARG_V].data + pair * GDN_D);

    gdn_state_in(s->m, state ? state + mat : NULL);
    gdn_token(s, g, beta, scale, (uint16_t *)args[ARG_OUTPUT].data + pair * GDN_D);
    gdn_state_out((float *)args[ARG_NEW_STATE].data + mat, s->m);
}

/* The entry point (solution.json); its prototype for -Wmissing-prototypes and the tests. */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    int64_t batch;
    if (gdn_check_args(args, nargs, &batch) != 0)
        return -1;
    double scale = args[ARG_SCALE].f;
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)GDN_D);

    gdn_scratch *s = malloc(sizeof *s);
    if (!s)
        return -1;
    for (int64_t b = 0; b < batch; b++)
        for (int h = 0; h < GDN_NV; h++)
            gdn_ref_pair(args, b, h, scale, s);
    free(s);
    return 0;
}

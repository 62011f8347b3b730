/* reference.c - CPU reference of gdn_prefill_qk4_v8_d128_k_last: Gated Delta Net prefill,
 * GVA (4 q/k heads, 8 value heads), head size 128, variable-length sequences packed along the
 * token axis by cu_seqlens, state in k-last layout [N, H, V, K].
 *
 * A line-by-line port of the definition's PyTorch `reference`, with every product and sum in
 * double instead of float32 (the gates and the token step are ../../gdn_ref_math.h, shared
 * with the decode reference). Output and new_state start as zeros; per sequence n with tokens
 * cu_seqlens[n] .. cu_seqlens[n+1]-1 (an empty one is skipped, its new_state left zero) and
 * value head h (q/k head h/2):
 *   M = state[n,h]^T (K x V; zeros when state is None)
 *   per token t, in order: g, beta from a[t,h], b[t,h]; M <- g*M; u = k^T M;
 *     M <- M - k (x) u + k (x) (beta*v + (1-beta)*u); output[t,h] = bf16(scale * q^T M)
 *   new_state[n,h] = M^T (f32, [V, K])
 * cu_seqlens is host memory here; it must start at 0, never decrease and end at
 * total_seq_len, or the call fails (-1) without writing. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gdn_prefill_args.h"
#include "gdn_ref_math.h"

/* The reference's loop over the tokens START .. END-1 of sequence N, for value head H. */
static void gdnp_ref_head(const kwb_arg *args, int64_t n, int h, int64_t start, int64_t end, double scale,
                          gdn_scratch *s)
{
    const int hk = h / (GDN_NV / GDN_NQ); /* repeat_interleave of the q and k heads */
    const uint16_t *a = args[ARG_A].data, *b = args[ARG_B].data;
    const float a_log = ((const float *)args[ARG_A_LOG].data)[h];
    const float dt_bias = ((const float *)args[ARG_DT_BIAS].data)[h];
    const float *state = args[ARG_STATE].data;
    const size_t mat = ((size_t)n * GDN_NV + (size_t)h) * GDN_D * GDN_D;

    gdn_state_in(s->m, state ? state + mat : NULL);
    for (int64_t t = start; t < end; t++) {
        const size_t th = (size_t)t * GDN_NV + (size_t)h;
        double g, beta;
        gdn_gates(a[th], b[th], a_log, dt_bias, &g, &beta);
        gdn_load_bf16(s->q, (const uint16_t *)args[ARG_Q].data + ((size_t)t * GDN_NQ + hk) * GDN_D);
        gdn_load_bf16(s->k, (const uint16_t *)args[ARG_K].data + ((size_t)t * GDN_NK + hk) * GDN_D);
        gdn_load_bf16(s->v, (const uint16_t *)args[ARG_V].data + th * GDN_D);
        gdn_token(s, g, beta, scale, (uint16_t *)args[ARG_OUTPUT].data + th * GDN_D);
    }
    gdn_state_out((float *)args[ARG_NEW_STATE].data + mat, s->m);
}

/* The entry point (solution.json); its prototype for -Wmissing-prototypes and the tests. */
int kwb_ref_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

int kwb_ref_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    int64_t vars[GDNP_NVARS];
    if (gdnp_check_args(args, nargs, vars) != 0)
        return -1;
    const int64_t total = vars[GDNP_T], seqs = vars[GDNP_N];
    const int64_t *cu = args[ARG_CU_SEQLENS].data;
    if (gdnp_check_cu_seqlens(cu, seqs, total) != 0)
        return -1;
    double scale = args[ARG_SCALE].f;
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)GDN_D);

    /* torch.zeros for both outputs: what no sequence writes stays zero */
    if (total > 0)
        memset(args[ARG_OUTPUT].data, 0, (size_t)total * GDN_NV * GDN_D * sizeof(uint16_t));
    if (seqs > 0)
        memset(args[ARG_NEW_STATE].data, 0, (size_t)seqs * GDN_NV * GDN_D * GDN_D * sizeof(float));

    gdn_scratch *s = malloc(sizeof *s);
    if (!s)
        return -1;
    for (int64_t n = 0; n < seqs; n++) {
        if (cu[n + 1] - cu[n] <= 0)
            continue;
        for (int h = 0; h < GDN_NV; h++)
            gdnp_ref_head(args, n, h, cu[n], cu[n + 1], scale, s);
    }
    free(s);
    return 0;
}

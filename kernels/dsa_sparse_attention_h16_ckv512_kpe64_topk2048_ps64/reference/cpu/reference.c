/* reference.c - CPU reference of dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64: DeepSeek-V3.2
 * sparse MLA attention over the top-k selected tokens of a paged compressed-KV cache.
 *
 * A port of the definition's PyTorch `reference` with double accumulation (formulas in
 * dsa_attn.h). Per token, the rows of the valid indices are gathered once (widened to double)
 * and serve all 16 heads; sm_scale is used as the float32 the definition declares. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "dsa_attn.h"
#include "kwb/dtype_bits.h"
#include "ref_alloc.h"

enum { ROW = DSA_CKV + DSA_KPE }; /* a gathered token: its ckv, then its kpe */

/* Gathers token T's valid cache rows into ROWS (ROW doubles each); returns their count, or
 * -1 when an index is neither -1 nor a token of the cache. */
static int64_t gather(const kwb_arg *args, int64_t t, int64_t tokens_in_cache, double *rows)
{
    const int32_t *idx = (const int32_t *)args[SA_INDICES].data + t * DSA_ATOPK;
    const uint16_t *ckv = args[SA_CKV].data, *kpe = args[SA_KPE].data;
    int64_t n = 0;
    for (int64_t j = 0; j < DSA_ATOPK; j++) {
        if (idx[j] == -1)
            continue;
        if (idx[j] < -1 || idx[j] >= tokens_in_cache)
            return -1;
        double *r = rows + n++ * ROW;
        for (int d = 0; d < DSA_CKV; d++)
            r[d] = dtype_bits_bf16_to_f32(ckv[(int64_t)idx[j] * DSA_CKV + d]);
        for (int d = 0; d < DSA_KPE; d++)
            r[DSA_CKV + d] = dtype_bits_bf16_to_f32(kpe[(int64_t)idx[j] * DSA_KPE + d]);
    }
    return n;
}

/* Head H of token T over the N gathered ROWS (LOGIT: scratch of N). */
static void attend(const kwb_arg *args, int64_t t, int h, const double *rows, int64_t n, double scale, double *logit)
{
    const uint16_t *qn = (const uint16_t *)args[SA_Q_NOPE].data + (t * DSA_HEADS + h) * DSA_CKV;
    const uint16_t *qp = (const uint16_t *)args[SA_Q_PE].data + (t * DSA_HEADS + h) * DSA_KPE;
    uint16_t *out = (uint16_t *)args[SA_OUTPUT].data + (t * DSA_HEADS + h) * DSA_CKV;
    float *lse = (float *)args[SA_LSE].data + t * DSA_HEADS + h;
    double q[ROW], acc[DSA_CKV] = {0};
    for (int d = 0; d < DSA_CKV; d++)
        q[d] = dtype_bits_bf16_to_f32(qn[d]);
    for (int d = 0; d < DSA_KPE; d++)
        q[DSA_CKV + d] = dtype_bits_bf16_to_f32(qp[d]);
    double max = -INFINITY, sum = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double dot = 0.0;
        for (int d = 0; d < ROW; d++)
            dot += q[d] * rows[j * ROW + d];
        logit[j] = dot * scale;
        max = fmax(max, logit[j]);
    }
    for (int64_t j = 0; j < n; j++) {
        const double p = exp(logit[j] - max);
        sum += p;
        for (int d = 0; d < DSA_CKV; d++)
            acc[d] += p * rows[j * ROW + d];
    }
    for (int d = 0; d < DSA_CKV; d++)
        out[d] = dtype_bits_f32_to_bf16(n ? (float)(acc[d] / sum) : 0.0f);
    *lse = n ? (float)((max + log(sum)) / M_LN2) : -INFINITY;
}

/* The entry point (solution.json); its prototype for -Wmissing-prototypes and the tests. */
int kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);

int kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    int64_t vars[SA_NVARS];
    if (dsa_attn_check_args(args, nargs, vars) != 0)
        return -1;
    const double scale = (float)args[SA_SM_SCALE].f;
    double *rows = ref_calloc((size_t)DSA_ATOPK * ROW, sizeof *rows);
    double *logit = ref_calloc(DSA_ATOPK, sizeof *logit);
    int rc = 0;
    for (int64_t t = 0; t < vars[SA_TOKENS] && rc == 0; t++) {
        int64_t n = gather(args, t, vars[SA_PAGES] * DSA_APAGE, rows);
        if (n < 0)
            rc = -1;
        for (int h = 0; h < DSA_HEADS && rc == 0; h++)
            attend(args, t, h, rows, n, scale, logit);
    }
    free(rows);
    free(logit);
    return rc;
}

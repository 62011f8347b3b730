/* dsa_attn_baseline.c - plain C solution of dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64
 * (kwb ABI), for the CPU device (CI-sized workloads).
 *
 * Float32 math, one thread. Per token: each valid key row is widened once and scored against
 * all 16 heads (logits[h][j]); then per head a softmax over its logits and the weighted sum of
 * the rows' ckv part; lse = (max + ln sum) / ln 2. No valid index: output 0, lse -inf.
 *
 * Arguments: q_nope q_pe ckv_cache kpe_cache sparse_indices sm_scale | output lse. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/kernel.h"

#define HEADS 16
#define CKV 512
#define KPE 64
#define ROW (CKV + KPE)
#define PAGE 64
#define TOPK 2048

static float bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float to bfloat16 bits, round to nearest even (finite values). */
static uint16_t to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Token T: its N valid rows into ROWS and all heads' logits into LOGIT[h * TOPK + j]. */
static int64_t score_rows(const kwb_arg *args, int64_t t, float *rows, float *logit)
{
    const uint16_t *qn = (const uint16_t *)args[0].data + t * HEADS * CKV;
    const uint16_t *qp = (const uint16_t *)args[1].data + t * HEADS * KPE;
    const uint16_t *ckv = args[2].data, *kpe = args[3].data;
    const int32_t *idx = (const int32_t *)args[4].data + t * TOPK;
    const int64_t cache_tokens = args[2].shape[0] * PAGE;
    const float scale = (float)args[5].f;
    int64_t n = 0;
    for (int64_t j = 0; j < TOPK; j++) {
        if (idx[j] < 0 || idx[j] >= cache_tokens)
            continue;
        float *r = rows + n * ROW;
        for (int d = 0; d < CKV; d++)
            r[d] = bf16(ckv[(int64_t)idx[j] * CKV + d]);
        for (int d = 0; d < KPE; d++)
            r[CKV + d] = bf16(kpe[(int64_t)idx[j] * KPE + d]);
        for (int h = 0; h < HEADS; h++) {
            float dot = 0.0f;
            for (int d = 0; d < CKV; d++)
                dot += bf16(qn[h * CKV + d]) * r[d];
            for (int d = 0; d < KPE; d++)
                dot += bf16(qp[h * KPE + d]) * r[CKV + d];
            logit[h * TOPK + n] = dot * scale;
        }
        n++;
    }
    return n;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 8)
        return -1;
    float *rows = malloc(sizeof *rows * TOPK * ROW), *logit = malloc(sizeof *logit * HEADS * TOPK);
    if (!rows || !logit) {
        free(rows);
        free(logit);
        return -1;
    }
    for (int64_t t = 0; t < args[0].shape[0]; t++) {
        int64_t n = score_rows(args, t, rows, logit);
        for (int h = 0; h < HEADS; h++) {
            uint16_t *out = (uint16_t *)args[6].data + (t * HEADS + h) * CKV;
            float *lse = (float *)args[7].data + t * HEADS + h, *l = logit + h * TOPK, max = -INFINITY, sum = 0.0f;
            float acc[CKV] = {0};
            for (int64_t j = 0; j < n; j++)
                max = fmaxf(max, l[j]);
            for (int64_t j = 0; j < n; j++) {
                float p = expf(l[j] - max);
                sum += p;
                for (int d = 0; d < CKV; d++)
                    acc[d] += p * rows[j * ROW + d];
            }
            for (int d = 0; d < CKV; d++)
                out[d] = to_bf16(n ? acc[d] / sum : 0.0f);
            *lse = n ? (max + logf(sum)) / 0.6931471805599453f : -INFINITY;
        }
    }
    free(rows);
    free(logit);
    return 0;
}

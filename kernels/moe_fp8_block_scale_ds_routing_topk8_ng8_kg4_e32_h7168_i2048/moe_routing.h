/* moe_routing.h - DeepSeek-V3 "no-aux" expert routing, as the contest's
 * moe_fp8_block_scale_ds_routing_* definitions compute it (their PyTorch reference, in float32):
 *
 *   s = sigmoid(logits); b = s + bias                        (per expert)
 *   group score = sum of the two largest b of the group      (groups of experts/groups experts)
 *   keep the topk_groups groups of largest score; among their experts take the top_k largest b
 *   weight of a chosen expert = s / (sum of the chosen s + 1e-20) * scale   (s without bias)
 *
 * Ties (equal scores) go to the lower group or expert index: torch.topk leaves them unspecified,
 * so any tie rule agrees with the reference; this one makes kwb's answer unique.
 *
 * moe_routing_token() is a static inline function that compiles as C and as CUDA device code
 * (KWB_HD), so the C reference, the CUDA reference and the cost model route with one source.
 * It works in float32 with the reference's operation order. The batch functions below are
 * host-only. Kept beside the MoE definition's kernels: its references include it (kwb.reference's
 * include folders), as do scripts/gen_moe_routing and the tests. */
#ifndef KWB_MOE_ROUTING_H
#define KWB_MOE_ROUTING_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/dtype_bits.h"

#define MOE_ROUTING_MAX_EXPERTS 256
#define MOE_ROUTING_MAX_GROUPS 32
#define MOE_ROUTING_MAX_TOPK 16

/* The shape of a routing: experts in `groups` equal groups, `topk_groups` groups kept, `top_k`
 * experts chosen per token. */
typedef struct moe_routing_cfg {
    int experts;
    int groups;
    int topk_groups;
    int top_k;
} moe_routing_cfg;

/* DeepSeek-V3/R1: 256 experts, 8 groups of 32, 4 groups kept, 8 experts per token. */
#define MOE_ROUTING_DSV3                                                                                               \
    {                                                                                                                  \
        256, 8, 4, 8                                                                                                   \
    }

/* True when score A of item IA ranks before score B of item IB: larger, or equal and lower index. */
static inline KWB_HD int moe_routing_before(float a, int ia, float b, int ib)
{
    return a > b || (a == b && ia < ib);
}

/* Sum of the two largest of the N >= 2 scores at B (the reference's top-2 group score). */
static inline KWB_HD float moe_routing_top2_sum(const float *b, int n)
{
    float first = -INFINITY, second = -INFINITY;
    for (int i = 0; i < n; i++) {
        if (b[i] > first) {
            second = first;
            first = b[i];
        } else if (b[i] > second) {
            second = b[i];
        }
    }
    return first + second;
}

/* Routes one token under C (a valid configuration): LOGITS and BIAS hold c->experts floats
 * (finite); writes the chosen expert ids, best first, to IDX and their weights to WEIGHT
 * (c->top_k each). */
static inline KWB_HD void moe_routing_token(const moe_routing_cfg *c, const float *logits, const float *bias,
                                            float scale, int32_t *idx, float *weight)
{
    float s[MOE_ROUTING_MAX_EXPERTS], b[MOE_ROUTING_MAX_EXPERTS], gscore[MOE_ROUTING_MAX_GROUPS];
    const int gsize = c->experts / c->groups;
    for (int e = 0; e < c->experts; e++) {
        s[e] = 1.0f / (1.0f + expf(-logits[e]));
        b[e] = s[e] + bias[e];
    }
    for (int g = 0; g < c->groups; g++)
        gscore[g] = moe_routing_top2_sum(b + g * gsize, gsize);
    uint32_t kept = 0;
    for (int r = 0; r < c->topk_groups; r++) {
        int best = -1;
        for (int g = 0; g < c->groups; g++)
            if (!(kept >> g & 1u) && (best < 0 || moe_routing_before(gscore[g], g, gscore[best], best)))
                best = g;
        kept |= 1u << best;
    }
    uint32_t taken[MOE_ROUTING_MAX_EXPERTS / 32] = {0};
    float sum = 0.0f;
    for (int k = 0; k < c->top_k; k++) {
        int best = -1;
        for (int e = 0; e < c->experts; e++)
            if ((kept >> (e / gsize) & 1u) && !(taken[e / 32] >> (e % 32) & 1u) &&
                (best < 0 || moe_routing_before(b[e], e, b[best], best)))
                best = e;
        taken[best / 32] |= 1u << (best % 32);
        idx[k] = best;
        sum += s[best];
    }
    const float denom = sum + 1e-20f;
    for (int k = 0; k < c->top_k; k++)
        weight[k] = s[idx[k]] / denom * scale;
}

/* Nonzero when C is a shape moe_routing_token() handles: 2 <= experts / groups, groups dividing
 * experts, experts <= MOE_ROUTING_MAX_EXPERTS, groups <= MOE_ROUTING_MAX_GROUPS, 1 <= topk_groups
 * <= groups, 1 <= top_k <= MOE_ROUTING_MAX_TOPK and top_k <= the kept groups' experts. */
static inline int moe_routing_cfg_valid(const moe_routing_cfg *c)
{
    if (c->experts < 2 || c->experts > MOE_ROUTING_MAX_EXPERTS || c->groups < 1 || c->groups > MOE_ROUTING_MAX_GROUPS ||
        c->experts % c->groups != 0)
        return 0;
    int gsize = c->experts / c->groups;
    return gsize >= 2 && c->topk_groups >= 1 && c->topk_groups <= c->groups && c->top_k >= 1 &&
           c->top_k <= MOE_ROUTING_MAX_TOPK && c->top_k <= c->topk_groups * gsize;
}

/* Routes TOKENS tokens: LOGITS is tokens x c->experts float32, BIAS_BF16 c->experts bfloat16
 * values; IDX and WEIGHT receive tokens x c->top_k. Returns 0, or -1 when C is not valid. */
static inline int moe_routing_run(const moe_routing_cfg *c, const float *logits, const uint16_t *bias_bf16,
                                  int64_t tokens, float scale, int32_t *idx, float *weight)
{
    if (!moe_routing_cfg_valid(c))
        return -1;
    float bias[MOE_ROUTING_MAX_EXPERTS];
    for (int e = 0; e < c->experts; e++)
        bias[e] = dtype_bits_bf16_to_f32(bias_bf16[e]);
    for (int64_t t = 0; t < tokens; t++)
        moe_routing_token(c, logits + t * c->experts, bias, scale, idx + t * c->top_k, weight + t * c->top_k);
    return 0;
}

/* moe_routing_run() into newly allocated arrays: *IDX and *WEIGHT get tokens x c->top_k values
 * (the caller frees both). Returns 0, or -1 when C is not valid or memory is short (nothing
 * allocated). */
static inline int moe_routing_run_alloc(const moe_routing_cfg *c, const float *logits, const uint16_t *bias_bf16,
                                        int64_t tokens, float scale, int32_t **idx, float **weight)
{
    if (!moe_routing_cfg_valid(c))
        return -1;
    size_t n = (size_t)(tokens > 0 ? tokens : 0) * (size_t)c->top_k + 1;
    *idx = (int32_t *)calloc(n, sizeof **idx);
    *weight = (float *)calloc(n, sizeof **weight);
    if (!*idx || !*weight) {
        free(*idx);
        free(*weight);
        return -1;
    }
    return moe_routing_run(c, logits, bias_bf16, tokens, scale, *idx, *weight);
}

/* What a routing gives the local experts [offset, offset + nlocal) of one rank. */
typedef struct moe_routing_local {
    int64_t pairs;    /* (token, expert) choices that name a local expert */
    int64_t tokens;   /* tokens with at least one local expert */
    int64_t experts;  /* local experts chosen by at least one token */
    int64_t max_load; /* the most tokens one local expert gets */
} moe_routing_local;

/* Counts IDX (tokens x top_k expert ids, as moe_routing_run writes them) against the local
 * experts [OFFSET, OFFSET + NLOCAL); NLOCAL <= MOE_ROUTING_MAX_EXPERTS. */
static inline moe_routing_local moe_routing_count_local(const int32_t *idx, int64_t tokens, int top_k, int offset,
                                                        int nlocal)
{
    moe_routing_local out = {0, 0, 0, 0};
    int64_t load[MOE_ROUTING_MAX_EXPERTS];
    memset(load, 0, sizeof load);
    for (int64_t t = 0; t < tokens; t++) {
        int local = 0;
        for (int k = 0; k < top_k; k++) {
            int e = idx[t * top_k + k] - offset;
            if (e >= 0 && e < nlocal) {
                load[e]++;
                local = 1;
                out.pairs++;
            }
        }
        out.tokens += local;
    }
    for (int e = 0; e < nlocal; e++) {
        out.experts += load[e] > 0;
        if (load[e] > out.max_load)
            out.max_load = load[e];
    }
    return out;
}

#endif

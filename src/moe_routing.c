/* moe_routing.c - DeepSeek-V3 routing over a batch of tokens, and what it gives a rank's local
 * experts (moe_routing.h). The per-token rule is moe_routing_token() in the header. */
#include "moe_routing.h"

#include <string.h>

#include "dtype.h"
#include "xalloc.h"

int moe_routing_cfg_valid(const moe_routing_cfg *c)
{
    if (c->experts < 2 || c->experts > MOE_ROUTING_MAX_EXPERTS || c->groups < 1 || c->groups > MOE_ROUTING_MAX_GROUPS ||
        c->experts % c->groups != 0)
        return 0;
    int gsize = c->experts / c->groups;
    return gsize >= 2 && c->topk_groups >= 1 && c->topk_groups <= c->groups && c->top_k >= 1 &&
           c->top_k <= MOE_ROUTING_MAX_TOPK && c->top_k <= c->topk_groups * gsize;
}

int moe_routing_run(const moe_routing_cfg *c, const float *logits, const uint16_t *bias_bf16, int64_t tokens,
                    float scale, int32_t *idx, float *weight)
{
    if (!moe_routing_cfg_valid(c))
        return -1;
    float bias[MOE_ROUTING_MAX_EXPERTS];
    for (int e = 0; e < c->experts; e++)
        bias[e] = dtype_bf16_to_f32(bias_bf16[e]);
    for (int64_t t = 0; t < tokens; t++)
        moe_routing_token(c, logits + t * c->experts, bias, scale, idx + t * c->top_k, weight + t * c->top_k);
    return 0;
}

int moe_routing_run_alloc(const moe_routing_cfg *c, const float *logits, const uint16_t *bias_bf16, int64_t tokens,
                          float scale, int32_t **idx, float **weight)
{
    if (!moe_routing_cfg_valid(c))
        return -1;
    size_t n = (size_t)(tokens > 0 ? tokens : 0) * (size_t)c->top_k + 1;
    *idx = xcalloc(n, sizeof **idx);
    *weight = xcalloc(n, sizeof **weight);
    return moe_routing_run(c, logits, bias_bf16, tokens, scale, *idx, *weight);
}

moe_routing_local moe_routing_count_local(const int32_t *idx, int64_t tokens, int top_k, int offset, int nlocal)
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

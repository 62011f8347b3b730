/* moe_cost.c - what the cost model of moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
 * reads from a call's inputs (the definition's "kwb": {"cost": {"from_inputs": [...]}}): only
 * the pairs of a token and a local expert cost GEMM work, and only the local experts some token
 * chose need their weights read, so the FLOPs and bytes follow the routing of the actual logits:
 *   local_pairs     (token, expert) choices naming one of the 32 local experts
 *   routed_tokens   tokens with at least one local expert
 *   active_experts  local experts chosen by at least one token
 * It reads the routing's inputs alone (the definition's cost "reads": the weights stay where
 * they are). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "moe_args.h"
#include "kwb/reference.h"
#include "moe_routing.h"

int kwb_cost_values(const kwb_arg *inputs, int ninputs, const char *const *names, int n, int64_t *values)
{
    int64_t tokens;
    int32_t *idx;
    float *weight;
    if (moe_route_inputs(inputs, ninputs, &tokens, &idx, &weight) != 0)
        return -1;
    moe_routing_local local = moe_routing_count_local(idx, tokens, MOE_TOPK, (int)inputs[MOE_OFFSET].i, MOE_EL);
    free(idx);
    free(weight);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i], "local_pairs") == 0)
            values[i] = local.pairs;
        else if (strcmp(names[i], "routed_tokens") == 0)
            values[i] = local.tokens;
        else if (strcmp(names[i], "active_experts") == 0)
            values[i] = local.experts;
        else
            return -1;
    }
    return 0;
}

/* moe_args.h - the geometry of moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048
 * (DeepSeek-V3/R1 MoE, 32 local experts of 256, FP8 with 128-wide block scales) and the check
 * of a call's arguments against the definition, shared by the references (cpu/reference.c,
 * cuda/reference.cu) and the cost model (cost.c). Only descriptors are read (on CUDA the data
 * pointers are device memory). Valid C and CUDA host code. */
#ifndef KWB_MOE_ARGS_H
#define KWB_MOE_ARGS_H

#include <stdint.h>

#include "kwb/argspec.h"
#include "kwb/kernel.h"
#include "moe_routing.h"

enum {
    MOE_H = 7168,               /* hidden_size */
    MOE_I = 2048,               /* intermediate_size */
    MOE_N1 = 2 * MOE_I,         /* gemm1_out_size: rows [0, I) give X1, rows [I, 2I) give X2 */
    MOE_E = 256,                /* num_experts (global) */
    MOE_EL = 32,                /* num_local_experts */
    MOE_BLK = 128,              /* quantization block */
    MOE_HB = MOE_H / MOE_BLK,   /* num_hidden_blocks: 56 */
    MOE_IB = MOE_I / MOE_BLK,   /* num_intermediate_blocks: 16 */
    MOE_N1B = MOE_N1 / MOE_BLK, /* num_gemm1_out_blocks: 32 */
    MOE_TOPK = 8,
};

/* Argument positions: the inputs, then the output, in definition order. */
enum {
    MOE_LOGITS,
    MOE_BIAS,
    MOE_HIDDEN,
    MOE_HIDDEN_SCALE,
    MOE_W1,
    MOE_W1_SCALE,
    MOE_W2,
    MOE_W2_SCALE,
    MOE_OFFSET,
    MOE_SCALING,
    MOE_OUTPUT,
    MOE_NARGS
};

/* The definition's arguments; seq_len is var axis 0 (the first use, routing_logits, binds it). */
#define MOE_SEQ_LEN ARGSPEC_VAR(0)
static const argspec moe_specs[MOE_NARGS] = {
    {"routing_logits", KWB_F32, 2, {MOE_SEQ_LEN, MOE_E}},
    {"routing_bias", KWB_BF16, 1, {MOE_E}},
    {"hidden_states", KWB_F8_E4M3, 2, {MOE_SEQ_LEN, MOE_H}},
    {"hidden_states_scale", KWB_F32, 2, {MOE_HB, MOE_SEQ_LEN}}, /* block-major */
    {"gemm1_weights", KWB_F8_E4M3, 3, {MOE_EL, MOE_N1, MOE_H}},
    {"gemm1_weights_scale", KWB_F32, 3, {MOE_EL, MOE_N1B, MOE_HB}},
    {"gemm2_weights", KWB_F8_E4M3, 3, {MOE_EL, MOE_H, MOE_I}},
    {"gemm2_weights_scale", KWB_F32, 3, {MOE_EL, MOE_HB, MOE_IB}},
    {"local_expert_offset", KWB_I32, -1, {0}},
    {"routed_scaling_factor", KWB_F32, -1, {0}},
    {"output", KWB_BF16, 2, {MOE_SEQ_LEN, MOE_H}},
};

/* Returns 0 when the NARGS arguments ARGS (the inputs alone when INPUTS_ONLY) are the
 * definition's in names, dtypes and shapes, with data for every non-empty tensor; seq_len goes
 * to *tokens. Returns -1 otherwise. */
static inline int moe_check_args(const kwb_arg *args, int nargs, int inputs_only, int64_t *tokens)
{
    return argspec_check(args, nargs, moe_specs, inputs_only ? MOE_OUTPUT : MOE_NARGS, tokens, 1);
}

/* The DeepSeek-V3 routing of TOKENS tokens from ARGS' logits and bias (host memory; weights
 * scaled by routed_scaling_factor): *idx and *weight get TOKENS x MOE_TOPK values, which the
 * caller frees. Returns 0, or -1 with nothing allocated. */
static inline int moe_route(const kwb_arg *args, int64_t tokens, int32_t **idx, float **weight)
{
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3;
    return moe_routing_run_alloc(&cfg, (const float *)args[MOE_LOGITS].data, (const uint16_t *)args[MOE_BIAS].data,
                                 tokens, (float)args[MOE_SCALING].f, idx, weight);
}

/* moe_check_args(), then moe_route(): seq_len in *tokens. */
static inline int moe_route_args(const kwb_arg *args, int nargs, int inputs_only, int64_t *tokens, int32_t **idx,
                                 float **weight)
{
    if (moe_check_args(args, nargs, inputs_only, tokens) != 0)
        return -1;
    return moe_route(args, *tokens, idx, weight);
}

/* As moe_route_args over the NARGS inputs alone, where only the routing's inputs
 * (routing_logits, routing_bias; the definition's cost "reads") need data. */
static inline int moe_route_inputs(const kwb_arg *args, int nargs, int64_t *tokens, int32_t **idx, float **weight)
{
    if (argspec_check_as(args, nargs, moe_specs, MOE_OUTPUT, tokens, 1, 0) != 0 ||
        (*tokens > 0 && (!args[MOE_LOGITS].data || !args[MOE_BIAS].data)))
        return -1;
    return moe_route(args, *tokens, idx, weight);
}

#endif

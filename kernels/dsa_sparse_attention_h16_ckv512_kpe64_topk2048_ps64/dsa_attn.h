/* dsa_attn.h - what the CPU and CUDA references of
 * dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 share: the constants and the argument
 * table. Valid C and CUDA host code.
 *
 * Per token t and head h, over the valid entries j of sparse_indices[t] (-1 is padding; an
 * index is page * 64 + offset into the caches, flattened): logits_j = (q_nope . ckv_j + q_pe .
 * kpe_j) * sm_scale; lse = logsumexp(logits) / ln 2; output = softmax(logits) . ckv (the
 * compressed KV is also the value). No valid entry: output 0, lse -inf. */
#ifndef KWB_DSA_ATTN_H
#define KWB_DSA_ATTN_H

#include <stdint.h>

#include "kwb/argspec.h"

enum {
    DSA_HEADS = 16,   /* num_qo_heads */
    DSA_CKV = 512,    /* head_dim_ckv */
    DSA_KPE = 64,     /* head_dim_kpe */
    DSA_APAGE = 64,   /* page_size */
    DSA_ATOPK = 2048, /* topk: entries of sparse_indices per token */
};

/* Argument positions (inputs, then outputs) and var axes. */
enum { SA_Q_NOPE, SA_Q_PE, SA_CKV, SA_KPE, SA_INDICES, SA_SM_SCALE, SA_OUTPUT, SA_LSE, SA_NARGS };
enum { SA_TOKENS, SA_PAGES, SA_NVARS };

static const argspec dsa_attn_specs[SA_NARGS] = {
    {"q_nope", KWB_BF16, 3, {ARGSPEC_VAR(SA_TOKENS), DSA_HEADS, DSA_CKV}},
    {"q_pe", KWB_BF16, 3, {ARGSPEC_VAR(SA_TOKENS), DSA_HEADS, DSA_KPE}},
    {"ckv_cache", KWB_BF16, 3, {ARGSPEC_VAR(SA_PAGES), DSA_APAGE, DSA_CKV}},
    {"kpe_cache", KWB_BF16, 3, {ARGSPEC_VAR(SA_PAGES), DSA_APAGE, DSA_KPE}},
    {"sparse_indices", KWB_I32, 2, {ARGSPEC_VAR(SA_TOKENS), DSA_ATOPK}},
    {"sm_scale", KWB_F32, -1, {0}},
    {"output", KWB_BF16, 3, {ARGSPEC_VAR(SA_TOKENS), DSA_HEADS, DSA_CKV}},
    {"lse", KWB_F32, 2, {ARGSPEC_VAR(SA_TOKENS), DSA_HEADS}},
};

/* Returns 0 when the arguments match the definition, with num_tokens and num_pages in VARS;
 * else -1. */
static inline int dsa_attn_check_args(const kwb_arg *args, int nargs, int64_t vars[SA_NVARS])
{
    return argspec_check(args, nargs, dsa_attn_specs, SA_NARGS, vars, SA_NVARS);
}

#endif

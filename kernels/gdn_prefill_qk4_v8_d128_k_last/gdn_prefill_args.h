/* gdn_prefill_args.h - the argument checks shared by the CPU and CUDA references of
 * gdn_prefill_qk4_v8_d128_k_last: one table of what the definition says of each argument.
 * Only descriptors are read by gdnp_check_args (on CUDA the data pointers are device memory);
 * gdnp_check_cu_seqlens reads host memory. Valid C and CUDA host code. */
#ifndef KWB_GDN_PREFILL_ARGS_H
#define KWB_GDN_PREFILL_ARGS_H

#include <stdint.h>

#include "gdn_common.h"

/* Argument positions: the inputs, then the outputs, in definition order. */
enum {
    ARG_Q,
    ARG_K,
    ARG_V,
    ARG_STATE,
    ARG_A_LOG,
    ARG_A,
    ARG_DT_BIAS,
    ARG_B,
    ARG_CU_SEQLENS,
    ARG_SCALE,
    ARG_OUTPUT,
    ARG_NEW_STATE,
    GDNP_NARGS
};

/* The var axes, as indices into the array gdnp_check_args fills. */
enum { GDNP_T, GDNP_N, GDNP_L, GDNP_NVARS };
#define GDNP_TOTAL GDN_VAR(GDNP_T) /* total_seq_len */
#define GDNP_SEQS GDN_VAR(GDNP_N)  /* num_seqs */
#define GDNP_LEN GDN_VAR(GDNP_L)   /* len_cu_seqlens = num_seqs + 1 */

static const gdn_spec gdnp_specs[GDNP_NARGS] = {
    {"q", KWB_BF16, 3, {GDNP_TOTAL, GDN_NQ, GDN_D}},
    {"k", KWB_BF16, 3, {GDNP_TOTAL, GDN_NK, GDN_D}},
    {"v", KWB_BF16, 3, {GDNP_TOTAL, GDN_NV, GDN_D}},
    {"state", KWB_F32, 4, {GDNP_SEQS, GDN_NV, GDN_D, GDN_D}},
    {"A_log", KWB_F32, 1, {GDN_NV}},
    {"a", KWB_BF16, 2, {GDNP_TOTAL, GDN_NV}},
    {"dt_bias", KWB_F32, 1, {GDN_NV}},
    {"b", KWB_BF16, 2, {GDNP_TOTAL, GDN_NV}},
    {"cu_seqlens", KWB_I64, 1, {GDNP_LEN}},
    {"scale", KWB_F32, -1, {0}},
    {"output", KWB_BF16, 3, {GDNP_TOTAL, GDN_NV, GDN_D}},
    {"new_state", KWB_F32, 4, {GDNP_SEQS, GDN_NV, GDN_D, GDN_D}},
};

/* Returns 0 when the arguments' descriptors match the definition, storing total_seq_len,
 * num_seqs and len_cu_seqlens in vars[GDNP_T], vars[GDNP_N] and vars[GDNP_L]. The values of
 * cu_seqlens are not read. */
static inline int gdnp_check_args(const kwb_arg *args, int nargs, int64_t vars[GDNP_NVARS])
{
    if (args == NULL || nargs != GDNP_NARGS)
        return -1;
    if (args[ARG_Q].rank != 3 || args[ARG_Q].shape[0] < 0 || args[ARG_CU_SEQLENS].rank != 1 ||
        args[ARG_CU_SEQLENS].shape[0] < 1)
        return -1;
    vars[GDNP_T] = args[ARG_Q].shape[0];
    vars[GDNP_L] = args[ARG_CU_SEQLENS].shape[0];
    vars[GDNP_N] = vars[GDNP_L] - 1;
    return gdn_check_table(args, gdnp_specs, GDNP_NARGS, vars);
}

/* Returns 0 when CU (NUM_SEQS + 1 values, host memory) is a valid split of TOTAL tokens: it
 * starts at 0, never decreases and ends at TOTAL (the definition's constraint
 * total_seq_len == cu_seqlens[-1]); else -1. Empty sequences are allowed. */
static inline int gdnp_check_cu_seqlens(const int64_t *cu, int64_t num_seqs, int64_t total)
{
    if (cu[0] != 0 || cu[num_seqs] != total)
        return -1;
    for (int64_t n = 0; n < num_seqs; n++)
        if (cu[n + 1] < cu[n])
            return -1;
    return 0;
}

#endif

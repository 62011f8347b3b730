/* gdn_decode_args.h - the argument checks shared by the CPU and CUDA references of
 * gdn_decode_qk4_v8_d128_k_last: one table of what the definition says of each argument.
 * Only descriptors are read (on CUDA the data pointers are device memory). Included by
 * cpu/reference.c and cuda/reference.cu; valid C and CUDA host code. */
#ifndef KWB_GDN_DECODE_ARGS_H
#define KWB_GDN_DECODE_ARGS_H

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
    ARG_SCALE,
    ARG_OUTPUT,
    ARG_NEW_STATE,
    GDN_NARGS
};

/* A dimension equal to batch_size, the definition's only var axis. */
#define GDN_BATCH GDN_VAR(0)

static const gdn_spec gdn_specs[GDN_NARGS] = {
    {"q", KWB_BF16, 4, {GDN_BATCH, 1, GDN_NQ, GDN_D}},
    {"k", KWB_BF16, 4, {GDN_BATCH, 1, GDN_NK, GDN_D}},
    {"v", KWB_BF16, 4, {GDN_BATCH, 1, GDN_NV, GDN_D}},
    {"state", KWB_F32, 4, {GDN_BATCH, GDN_NV, GDN_D, GDN_D}},
    {"A_log", KWB_F32, 1, {GDN_NV}},
    {"a", KWB_BF16, 3, {GDN_BATCH, 1, GDN_NV}},
    {"dt_bias", KWB_F32, 1, {GDN_NV}},
    {"b", KWB_BF16, 3, {GDN_BATCH, 1, GDN_NV}},
    {"scale", KWB_F32, -1, {0}},
    {"output", KWB_BF16, 4, {GDN_BATCH, 1, GDN_NV, GDN_D}},
    {"new_state", KWB_F32, 4, {GDN_BATCH, GDN_NV, GDN_D, GDN_D}},
};

/* Returns 0 when the arguments match the definition, storing batch_size in *batch. */
static inline int gdn_check_args(const kwb_arg *args, int nargs, int64_t *batch)
{
    if (args == NULL || nargs != GDN_NARGS)
        return -1;
    if (args[ARG_Q].rank != 4 || args[ARG_Q].shape[0] < 0)
        return -1;
    *batch = args[ARG_Q].shape[0];
    return gdn_check_table(args, gdn_specs, GDN_NARGS, batch);
}

#endif

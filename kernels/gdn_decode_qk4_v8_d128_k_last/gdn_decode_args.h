/* gdn_decode_args.h - the argument checks shared by the CPU and CUDA references of
 * gdn_decode_qk4_v8_d128_k_last: one table of what the definition says of each argument.
 * Only descriptors are read (on CUDA the data pointers are device memory). Included by
 * cpu/reference.c and cuda/reference.cu; valid C and CUDA host code. */
#ifndef KWB_GDN_DECODE_ARGS_H
#define KWB_GDN_DECODE_ARGS_H

#include <stdint.h>
#include <string.h>

#include "kwb/kernel.h"

enum { GDN_NQ = 4, GDN_NK = 4, GDN_NV = 8, GDN_D = 128 };

/* Argument positions: the inputs, then the outputs, in definition order. */
enum { ARG_Q, ARG_K, ARG_V, ARG_STATE, ARG_A_LOG, ARG_A, ARG_DT_BIAS, ARG_B, ARG_SCALE,
       ARG_OUTPUT, ARG_NEW_STATE, GDN_NARGS };

/* A dimension equal to batch_size, the definition's only var axis. */
#define GDN_BATCH (-1)

/* What the definition says of one argument; rank -1 is the scalar `scale`. */
typedef struct gdn_spec {
    const char *name;
    kwb_dtype dtype;
    int rank;
    int64_t shape[4];
} gdn_spec;

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

/* Returns 0 when ARG matches SPEC with batch_size BATCH, else -1. A tensor needs data unless
 * it is empty; `state` may have none, which stands for PyTorch's None (all zeros). */
static inline int gdn_check_arg(const kwb_arg *arg, const gdn_spec *spec, int64_t batch)
{
    if (arg->name == NULL || strcmp(arg->name, spec->name) != 0)
        return -1;
    if (arg->dtype != spec->dtype || arg->rank != spec->rank)
        return -1;
    if (spec->rank < 0)
        return 0;
    int64_t count = 1;
    for (int d = 0; d < spec->rank; d++) {
        int64_t want = spec->shape[d] == GDN_BATCH ? batch : spec->shape[d];
        if (arg->shape[d] != want)
            return -1;
        count *= want;
    }
    if (arg->data == NULL && count > 0 && strcmp(spec->name, "state") != 0)
        return -1;
    return 0;
}

/* Returns 0 when the arguments match the definition, storing batch_size in *batch. */
static inline int gdn_check_args(const kwb_arg *args, int nargs, int64_t *batch)
{
    if (args == NULL || nargs != GDN_NARGS)
        return -1;
    if (args[ARG_Q].rank != 4 || args[ARG_Q].shape[0] < 0)
        return -1;
    *batch = args[ARG_Q].shape[0];
    for (int i = 0; i < GDN_NARGS; i++)
        if (gdn_check_arg(&args[i], &gdn_specs[i], *batch) != 0)
            return -1;
    return 0;
}

#endif

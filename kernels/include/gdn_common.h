/* gdn_common.h - what the references of the two GDN definitions (gdn_decode_ and
 * gdn_prefill_qk4_v8_d128_k_last) share: the head counts and a table-driven check of the
 * arguments' descriptors against the definition. Only descriptors are read (on CUDA the data
 * pointers are device memory). Valid C and CUDA host code. */
#ifndef KWB_GDN_COMMON_H
#define KWB_GDN_COMMON_H

#include <stdint.h>
#include <string.h>

#include "kwb/kernel.h"

enum { GDN_NQ = 4, GDN_NK = 4, GDN_NV = 8, GDN_D = 128 };

/* A dimension equal to the value of var axis I (an index into the caller's array). */
#define GDN_VAR(i) (-1 - (i))

/* What the definition says of one argument; rank -1 is a scalar. */
typedef struct gdn_spec {
    const char *name;
    kwb_dtype dtype;
    int rank;
    int64_t shape[4];
} gdn_spec;

/* Returns 0 when ARG matches SPEC, the var axes having the values VARS, else -1. A tensor
 * needs data unless it is empty; `state` may have none, which stands for PyTorch's None (all
 * zeros). */
static inline int gdn_check_arg(const kwb_arg *arg, const gdn_spec *spec, const int64_t *vars)
{
    if (arg->name == NULL || strcmp(arg->name, spec->name) != 0)
        return -1;
    if (arg->dtype != spec->dtype || arg->rank != spec->rank)
        return -1;
    if (spec->rank < 0)
        return 0;
    int64_t count = 1;
    for (int d = 0; d < spec->rank; d++) {
        int64_t want = spec->shape[d] < 0 ? vars[-1 - spec->shape[d]] : spec->shape[d];
        if (arg->shape[d] != want)
            return -1;
        count *= want;
    }
    if (arg->data == NULL && count > 0 && strcmp(spec->name, "state") != 0)
        return -1;
    return 0;
}

/* Returns 0 when the N arguments ARGS match the N specs, else -1. */
static inline int gdn_check_table(const kwb_arg *args, const gdn_spec *specs, int n, const int64_t *vars)
{
    for (int i = 0; i < n; i++)
        if (gdn_check_arg(&args[i], &specs[i], vars) != 0)
            return -1;
    return 0;
}

#endif

/* kwb_argspec.h - a table-driven check of a reference's kwb_arg descriptors against its
 * definition: names, dtypes, ranks and shapes, each var axis bound by the first argument that
 * uses it (as FlashInfer-Bench binds them) and checked against every later use. Only
 * descriptors are read (on CUDA the data pointers are device memory). Valid C and CUDA host
 * code; used by the DSA references (the GDN ones have their own, kernels/gdn_common.h). */
#ifndef KWB_ARGSPEC_H
#define KWB_ARGSPEC_H

#include <stdint.h>
#include <string.h>

#include "kwb/kernel.h"

/* A dimension equal to the value of var axis I (an index into the caller's array). */
#define ARGSPEC_VAR(i) (-1 - (i))

/* What the definition says of one argument; rank -1 is a scalar. */
typedef struct argspec {
    const char *name;
    kwb_dtype dtype;
    int rank;
    int64_t shape[4];
} argspec;

/* Returns 0 when the N arguments ARGS (NARGS given) match the N SPECS, storing the value of
 * each of the NVARS var axes in VARS (-1 for one no argument uses), else -1. When NEED_DATA, a
 * tensor with elements needs data. */
static inline int argspec_check_as(const kwb_arg *args, int nargs, const argspec *specs, int n, int64_t *vars,
                                   int nvars, int need_data)
{
    if (args == NULL || nargs != n)
        return -1;
    for (int v = 0; v < nvars; v++)
        vars[v] = -1;
    for (int i = 0; i < n; i++) {
        const kwb_arg *a = &args[i];
        const argspec *s = &specs[i];
        if (a->name == NULL || strcmp(a->name, s->name) != 0 || a->dtype != s->dtype || a->rank != s->rank)
            return -1;
        int64_t count = 1;
        for (int d = 0; d < s->rank; d++) {
            int64_t want = s->shape[d], got = a->shape[d];
            if (want < 0) {
                int v = (int)(-1 - want);
                if (v >= nvars || got < 0 || (vars[v] >= 0 && vars[v] != got))
                    return -1;
                vars[v] = got;
            } else if (got != want)
                return -1;
            count *= got;
        }
        if (need_data && s->rank >= 0 && count > 0 && a->data == NULL)
            return -1;
    }
    return 0;
}

/* argspec_check_as with data needed for every tensor with elements. */
static inline int argspec_check(const kwb_arg *args, int nargs, const argspec *specs, int n, int64_t *vars, int nvars)
{
    return argspec_check_as(args, nargs, specs, n, vars, nvars, 1);
}

#endif

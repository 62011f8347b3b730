/* gdn_testutil.h - what the GDN reference tests (test_gdn_reference.c, decode, and
 * test_gdn_prefill_reference.c) share: argument descriptors, a local LCG with Box-Muller
 * normals for inputs, bf16 rounding and FlashInfer-Bench's element rule. Header-only. */
#ifndef KWB_GDN_TESTUTIL_H
#define KWB_GDN_TESTUTIL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"
#include "kwb/kernel.h"

/* A reference or solution entry point (kwb_entry's type). */
typedef int (*reference_fn)(const kwb_arg *args, int nargs, kwb_stream stream);

/* ARG = a tensor NAME of DTYPE at DATA with the first RANK of the dims D0..D3 (rank -1: a scalar). */
static inline void set_arg(kwb_arg *arg, const char *name, kwb_dtype dtype, void *data, int rank, int64_t d0,
                           int64_t d1, int64_t d2, int64_t d3)
{
    memset(arg, 0, sizeof *arg);
    arg->name = name;
    arg->dtype = dtype;
    arg->rank = rank;
    arg->data = data;
    int64_t dims[4] = {d0, d1, d2, d3};
    for (int i = 0; i < rank; i++)
        arg->shape[i] = dims[i];
}

typedef struct lcg {
    uint64_t s;
} lcg;

static inline double lcg_uniform(lcg *r) /* in (0, 1) */
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return ((double)(r->s >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static inline double lcg_normal(lcg *r)
{
    double u1 = lcg_uniform(r), u2 = lcg_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static inline uint16_t bf16(double x)
{
    return dtype_f32_to_bf16((float)x);
}

static inline void fill_bf16(uint16_t *x, size_t n, lcg *r)
{
    for (size_t i = 0; i < n; i++)
        x[i] = bf16(lcg_normal(r));
}

static inline void fill_f32(float *x, size_t n, lcg *r)
{
    for (size_t i = 0; i < n; i++)
        x[i] = (float)lcg_normal(r);
}

/* FlashInfer-Bench's element rule: fails only when both the absolute and the relative
 * error exceed their tolerances; NaN never passes. */
static inline int close_enough(double x, double ref, double atol, double rtol)
{
    if (isnan(x) || isnan(ref))
        return 0;
    double d = fabs(x - ref);
    return d <= atol || d / (fabs(ref) + 1e-8) <= rtol;
}

#endif

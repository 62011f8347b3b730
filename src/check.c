#include "check.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "xalloc.h"

check_policy check_policy_default(void)
{
    check_policy p = {1e-2, 1e-2, 1.0};
    return p;
}

check_policy check_policy_exact(void)
{
    check_policy p = {0, 0, 1.0};
    return p;
}

/* The larger error as FlashInfer-Bench reports a solution's non-finite output: an infinity
 * over NaN over any finite value. */
static double worst(double a, double b)
{
    if (isinf(a) || isinf(b))
        return INFINITY;
    if (isnan(a) || isnan(b))
        return NAN;
    return fmax(a, b);
}

/* Classifies one pair; returns 1 when it fails. Updates the error maxima. Floats are
 * compared in float32 arithmetic, as FlashInfer-Bench does (its rule differs from a double
 * computation in a window of about 1e-8 around rtol); integers exactly, in double. */
static int check_element(double x, double y, int in_float, const check_policy *p, check_stats *st)
{
    if (isnan(x) || isnan(y)) {
        st->nonfinite += isnan(x);
        if (isnan(x)) { /* the solution's NaN: the maxima say so, as FlashInfer-Bench's do */
            st->max_abs = worst(st->max_abs, NAN);
            st->max_rel = worst(st->max_rel, NAN);
        }
        return 1;
    }
    if (isinf(x) || isinf(y)) {
        int same = x == y;
        st->nonfinite += !same && isinf(x);
        if (!same && isinf(x)) /* a stray infinity of the solution */
            st->max_abs = st->max_rel = INFINITY;
        return !same;
    }
    double abs_err, rel_err;
    int fails;
    if (in_float) {
        float a = fabsf((float)x - (float)y);
        float r = a / (fabsf((float)y) + 1e-8f);
        abs_err = a;
        rel_err = r;
        fails = a > (float)p->atol && r > (float)p->rtol;
    } else {
        abs_err = fabs(x - y);
        rel_err = abs_err / (fabs(y) + 1e-8);
        fails = abs_err > p->atol && rel_err > p->rtol;
    }
    st->max_abs = worst(st->max_abs, abs_err);
    st->max_rel = worst(st->max_rel, rel_err);
    return fails;
}

/* check_element for two floats, inlined for the loops over float tensors: the same outcome
 * and maxima, NaN and infinities handed to check_element. */
static inline int check_float(float x, float y, const check_policy *p, float atol, float rtol, check_stats *st)
{
    if (!isfinite(x) || !isfinite(y))
        return check_element(x, y, 1, p, st);
    float a = fabsf(x - y), r = a / (fabsf(y) + 1e-8f);
    st->max_abs = worst(st->max_abs, a);
    st->max_rel = worst(st->max_rel, r);
    return a > atol && r > rtol;
}

/* The common case of a block, without branches: when every element of x and y is finite and
 * none fails, adds the block's maxima to *st and returns 1; otherwise returns 0 and leaves *st
 * alone (the block is then checked element by element). */
static int block_clean(const float *x, const float *y, size_t m, float atol, float rtol, check_stats *st)
{
    float ma = 0, mr = 0;
    int fails = 0, odd = 0;
    for (size_t k = 0; k < m; k++) {
        float a = fabsf(x[k] - y[k]), r = a / (fabsf(y[k]) + 1e-8f);
        ma = a > ma ? a : ma;
        mr = r > mr ? r : mr;
        fails |= (a > atol) & (r > rtol);
        odd |= !(x[k] - x[k] == 0) | !(y[k] - y[k] == 0); /* NaN or an infinity */
    }
    if (fails | odd)
        return 0;
    st->max_abs = worst(st->max_abs, ma);
    st->max_rel = worst(st->max_rel, mr);
    return 1;
}

/* Elements a block of float tensors is converted in, for 16-bit floats. */
enum { CHECK_BLOCK = 4096 };

/* The tolerance check of N elements of float32 (or of 16-bit floats, converted block by block),
 * without a dtype switch per element: the sweep checks tens of millions of them per workload. */
static void check_floats(const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                         check_stats *st)
{
    float atol = (float)p->atol, rtol = (float)p->rtol, xb[CHECK_BLOCK], yb[CHECK_BLOCK];
    for (size_t i0 = 0; i0 < n; i0 += CHECK_BLOCK) {
        size_t m = n - i0 < CHECK_BLOCK ? n - i0 : CHECK_BLOCK;
        const float *x = (const float *)out + i0, *y = (const float *)ref + i0;
        if (t != KWB_F32) {
            for (size_t k = 0; k < m; k++) {
                xb[k] = (float)dtype_load(out, t, i0 + k);
                yb[k] = (float)dtype_load(ref, t, i0 + k);
            }
            x = xb, y = yb;
        }
        if (block_clean(x, y, m, atol, rtol, st))
            continue; /* every element finite and within tolerance: only the maxima changed */
        for (size_t k = 0; k < m; k++)
            if (check_float(x[k], y[k], p, atol, rtol, st)) {
                if (st->fails == 0)
                    st->first_fail = i0 + k;
                st->fails++;
            }
    }
}

/* check_tolerance on one thread. */
static void check_tolerance_serial(const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                                   check_stats *st)
{
    memset(st, 0, sizeof *st);
    st->numel = n;
    int in_float = dtype_is_float(t);
    if (t == KWB_F32 || t == KWB_F16 || t == KWB_BF16) {
        check_floats(out, ref, t, n, p, st);
    } else {
        for (size_t i = 0; i < n; i++) {
            if (check_element(dtype_load(out, t, i), dtype_load(ref, t, i), in_float, p, st)) {
                if (st->fails == 0)
                    st->first_fail = i;
                st->fails++;
            }
        }
    }
    st->matched_ratio = n ? 1.0 - (double)st->fails / (double)n : 1.0;
}

/* Tensors of at least this many elements are checked by several threads. */
enum { CHECK_PARALLEL_MIN = 1 << 20, CHECK_THREADS_MAX = 8 };

/* One thread's share of a parallel check. */
typedef struct check_part {
    const unsigned char *out, *ref;
    kwb_dtype t;
    size_t first, n;
    const check_policy *p;
    check_stats st;
} check_part;

static void *check_part_run(void *arg)
{
    check_part *c = arg;
    size_t off = c->first * dtype_size(c->t);
    check_tolerance_serial(c->out + off, c->ref + off, c->t, c->n, c->p, &c->st);
    return NULL;
}

/* Threads for a check of N elements: one per CPU up to CHECK_THREADS_MAX, one for small ones. */
static int check_threads(size_t n)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < CHECK_PARALLEL_MIN || cpus < 2)
        return 1;
    return cpus < CHECK_THREADS_MAX ? (int)cpus : CHECK_THREADS_MAX;
}

void check_tolerance(const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p, check_stats *st)
{
    int threads = check_threads(n);
    check_part part[CHECK_THREADS_MAX];
    pthread_t tid[CHECK_THREADS_MAX];
    int started = 0;
    size_t share = (n + (size_t)threads - 1) / (size_t)threads, at = 0;
    for (int i = 0; i < threads; i++, at += share) {
        part[i] = (check_part){out, ref, t, at, at < n ? (n - at < share ? n - at : share) : 0, p, {0}};
        if (i > 0 && pthread_create(&tid[i], NULL, check_part_run, &part[i]) == 0)
            started |= 1 << i;
        else if (i > 0)
            check_part_run(&part[i]); /* no thread to be had: this one does it */
    }
    check_part_run(&part[0]);
    memset(st, 0, sizeof *st);
    for (int i = 0; i < threads; i++) {
        if (started & (1 << i))
            pthread_join(tid[i], NULL);
        if (st->fails == 0 && part[i].st.fails > 0)
            st->first_fail = part[i].first + part[i].st.first_fail;
        st->fails += part[i].st.fails;
        st->nonfinite += part[i].st.nonfinite;
        st->max_abs = worst(st->max_abs, part[i].st.max_abs); /* from 0: errors are never negative */
        st->max_rel = worst(st->max_rel, part[i].st.max_rel);
    }
    st->numel = n;
    st->matched_ratio = n ? 1.0 - (double)st->fails / (double)n : 1.0;
}

int check_passed(const check_stats *st, const check_policy *p)
{
    return st->nonfinite == 0 && st->matched_ratio >= p->required_ratio;
}

void check_stats_merge(check_stats *a, const check_stats *b)
{
    if (a->numel == 0) {
        *a = *b;
        return;
    }
    if (a->fails == 0 && b->fails > 0)
        a->first_fail = b->first_fail;
    a->numel += b->numel;
    a->fails += b->fails;
    a->nonfinite += b->nonfinite;
    a->max_abs = worst(a->max_abs, b->max_abs);
    a->max_rel = worst(a->max_rel, b->max_rel);
    a->matched_ratio = fmin(a->matched_ratio, b->matched_ratio);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void check_tolerance_rows_any_order(const void *out, const void *ref, kwb_dtype t, size_t n, size_t row,
                                    const check_policy *p, check_stats *st)
{
    memset(st, 0, sizeof *st);
    if (row == 0)
        row = n ? n : 1;
    double *x = xcalloc(row + 1, sizeof *x), *y = xcalloc(row + 1, sizeof *y);
    check_stats part;
    for (size_t r0 = 0; r0 < n; r0 += row) {
        size_t m = n - r0 < row ? n - r0 : row;
        for (size_t j = 0; j < m; j++) {
            x[j] = dtype_load(out, t, r0 + j);
            y[j] = dtype_load(ref, t, r0 + j);
        }
        qsort(x, m, sizeof *x, by_double);
        qsort(y, m, sizeof *y, by_double);
        memset(&part, 0, sizeof part);
        part.numel = m;
        for (size_t j = 0; j < m; j++)
            if (check_element(x[j], y[j], dtype_is_float(t), p, &part)) {
                if (part.fails == 0)
                    part.first_fail = r0 + j;
                part.fails++;
            }
        part.matched_ratio = m ? 1.0 - (double)part.fails / (double)m : 1.0;
        check_stats_merge(st, &part);
    }
    st->matched_ratio = st->numel ? 1.0 - (double)st->fails / (double)st->numel : 1.0;
    free(x);
    free(y);
}

/* test_gdn_reference.c - the CPU reference of gdn_decode_qk4_v8_d128_k_last: hand-computed
 * cases, a naive float64 transcription of the PyTorch code, argument validation, and the
 * shipped C solutions (baseline, fast), compiled and loaded at run time, against it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "gdn_testutil.h"
#include "gdn_decode_args.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define NQ 4
#define NV 8
#define D 128
#define NARGS 11
#define KERNEL_DIR TOP_SRCDIR "/kernels/gdn_decode_qk4_v8_d128_k_last/cpu"

/* The tensors of one call and the kwb_arg array that points at them. */
typedef struct gdn_case {
    int64_t batch;
    uint16_t *q, *k, *v, *a, *b, *out;
    float *state, *a_log, *dt_bias, *new_state;
    kwb_arg args[NARGS];
} gdn_case;

static size_t qk_count(const gdn_case *c)
{
    return (size_t)c->batch * NQ * D;
}
static size_t v_count(const gdn_case *c)
{
    return (size_t)c->batch * NV * D;
}
static size_t gate_count(const gdn_case *c)
{
    return (size_t)c->batch * NV;
}
static size_t state_count(const gdn_case *c)
{
    return (size_t)c->batch * NV * D * D;
}

/* Allocates zeroed tensors for BATCH and fills the argument array; scale is 0 (default). */
static void case_init(gdn_case *c, int64_t batch)
{
    memset(c, 0, sizeof *c);
    c->batch = batch;
    c->q = calloc(qk_count(c) + 1, 2);
    c->k = calloc(qk_count(c) + 1, 2);
    c->v = calloc(v_count(c) + 1, 2);
    c->out = calloc(v_count(c) + 1, 2);
    c->a = calloc(gate_count(c) + 1, 2);
    c->b = calloc(gate_count(c) + 1, 2);
    c->state = calloc(state_count(c) + 1, 4);
    c->new_state = calloc(state_count(c) + 1, 4);
    c->a_log = calloc(NV, 4);
    c->dt_bias = calloc(NV, 4);
    assert_non_null(c->q);
    assert_non_null(c->k);
    assert_non_null(c->v);
    assert_non_null(c->out);
    assert_non_null(c->a);
    assert_non_null(c->b);
    assert_non_null(c->state);
    assert_non_null(c->new_state);
    assert_non_null(c->a_log);
    assert_non_null(c->dt_bias);

    kwb_arg *g = c->args;
    set_arg(&g[0], "q", KWB_BF16, c->q, 4, batch, 1, NQ, D);
    set_arg(&g[1], "k", KWB_BF16, c->k, 4, batch, 1, NQ, D);
    set_arg(&g[2], "v", KWB_BF16, c->v, 4, batch, 1, NV, D);
    set_arg(&g[3], "state", KWB_F32, c->state, 4, batch, NV, D, D);
    set_arg(&g[4], "A_log", KWB_F32, c->a_log, 1, NV, 0, 0, 0);
    set_arg(&g[5], "a", KWB_BF16, c->a, 3, batch, 1, NV, 0);
    set_arg(&g[6], "dt_bias", KWB_F32, c->dt_bias, 1, NV, 0, 0, 0);
    set_arg(&g[7], "b", KWB_BF16, c->b, 3, batch, 1, NV, 0);
    set_arg(&g[8], "scale", KWB_F32, NULL, -1, 0, 0, 0, 0);
    set_arg(&g[9], "output", KWB_BF16, c->out, 4, batch, 1, NV, D);
    set_arg(&g[10], "new_state", KWB_F32, c->new_state, 4, batch, NV, D, D);
}

static void case_free(gdn_case *c)
{
    free(c->q);
    free(c->k);
    free(c->v);
    free(c->out);
    free(c->a);
    free(c->b);
    free(c->state);
    free(c->new_state);
    free(c->a_log);
    free(c->dt_bias);
}

static void case_set_scale(gdn_case *c, double scale)
{
    c->args[8].f = scale;
}

/* Standard normal inputs, as FlashInfer-Bench draws random floats. */
static void case_fill_random(gdn_case *c, uint64_t seed)
{
    lcg r = {seed * 2654435761ull + 12345u};
    fill_bf16(c->q, qk_count(c), &r);
    fill_bf16(c->k, qk_count(c), &r);
    fill_bf16(c->v, v_count(c), &r);
    fill_f32(c->state, state_count(c), &r);
    fill_f32(c->a_log, NV, &r);
    fill_bf16(c->a, gate_count(c), &r);
    fill_f32(c->dt_bias, NV, &r);
    fill_bf16(c->b, gate_count(c), &r);
}

static double out_at(const gdn_case *c, size_t i)
{
    return dtype_bf16_to_f32(c->out[i]);
}

/* ---- (a) hand-computed: zero state --------------------------------------------------- */

/* State 0, b = 0 (beta = 1/2): u = 0, so new_state[h][v][kk] = k[kk] * v[v] / 2 and
 * output[h][v] = scale * (q.k) * v[v] / 2. With q[hq][i] = (hq+1)/2 for i < 8 (else 0) and
 * k[hq][i] = 1, -1/2 alternating, q.k = hq + 1. Inputs are exact in bf16 and new_state in
 * f32; the output is one rounding of an exactly known product. */
static void fill_zero_state_case(gdn_case *c)
{
    for (int hq = 0; hq < NQ; hq++)
        for (int i = 0; i < D; i++) {
            c->q[hq * D + i] = bf16(i < 8 ? (hq + 1) * 0.5 : 0.0);
            c->k[hq * D + i] = bf16(i % 2 == 0 ? 1.0 : -0.5);
        }
    for (int h = 0; h < NV; h++) {
        for (int i = 0; i < D; i++)
            c->v[h * D + i] = bf16((i - 64) / 16.0 + h);
        c->a[h] = bf16(0.25 * h - 1.0); /* g is irrelevant with a zero state */
        c->b[h] = bf16(0.0);
        c->a_log[h] = 0.5f;
        c->dt_bias[h] = -0.25f;
    }
}

static void test_zero_state_hand_computed(void **unused)
{
    (void)unused;
    gdn_case c;
    case_init(&c, 1);
    fill_zero_state_case(&c);
    case_set_scale(&c, 0.25);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
    for (int h = 0; h < NV; h++) {
        int hq = h / 2;
        for (int vv = 0; vv < D; vv++) {
            double v = (vv - 64) / 16.0 + h;
            assert_int_equal(c.out[h * D + vv], bf16(0.25 * (hq + 1) * 0.5 * v));
            for (int kk = 0; kk < D; kk++) {
                double kval = kk % 2 == 0 ? 1.0 : -0.5;
                assert_true(c.new_state[((size_t)h * D + vv) * D + kk] == (float)(kval * 0.5 * v));
            }
        }
    }
    /* one value spelled out: h = 3 (q/k head 1, q.k = 2), v index 100: v = 2.25 + 3 */
    assert_true(out_at(&c, 3 * D + 100) == 0.25 * 2.0 * 0.5 * 5.25);
    case_free(&c);
}

/* ---- (b) scale 0 means 1/sqrt(128) --------------------------------------------------- */

static void test_scale_zero_is_default(void **unused)
{
    (void)unused;
    gdn_case c;
    case_init(&c, 1);
    fill_zero_state_case(&c);
    case_set_scale(&c, 0.0);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
    const double scale = 1.0 / sqrt(128.0);
    for (int h = 0; h < NV; h++)
        for (int vv = 0; vv < D; vv++) {
            double v = (vv - 64) / 16.0 + h;
            assert_int_equal(c.out[h * D + vv], bf16(scale * ((h / 2 + 1) * 0.5 * v)));
        }
    /* the same with the scale given explicitly */
    uint16_t *first = malloc(v_count(&c) * 2);
    assert_non_null(first);
    memcpy(first, c.out, v_count(&c) * 2);
    case_set_scale(&c, scale);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
    assert_memory_equal(first, c.out, v_count(&c) * 2);
    free(first);
    case_free(&c);
}

/* ---- the gate: k = 0 leaves new_state = g * state ------------------------------------ */

/* A_log = 0 and a + dt_bias = 0: g = exp(-softplus(0)) = exp(-ln 2) = 1/2. */
static void test_gate_only(void **unused)
{
    (void)unused;
    gdn_case c;
    case_init(&c, 2);
    case_fill_random(&c, 7);
    memset(c.k, 0, qk_count(&c) * 2);
    memset(c.a_log, 0, NV * 4);
    memset(c.dt_bias, 0, NV * 4);
    memset(c.a, 0, gate_count(&c) * 2);
    case_set_scale(&c, 0.5);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
    for (size_t i = 0; i < state_count(&c); i++)
        assert_true(c.new_state[i] == 0.5f * c.state[i]);
    for (size_t pair = 0; pair < gate_count(&c); pair++)
        for (int vv = 0; vv < D; vv++) {
            const uint16_t *q = c.q + (pair / NV * NQ + pair % NV / 2) * D;
            const float *row = c.state + (pair * D + (size_t)vv) * D;
            double acc = 0.0;
            for (int kk = 0; kk < D; kk++)
                acc += dtype_bf16_to_f32(q[kk]) * 0.5 * row[kk];
            double want = dtype_bf16_to_f32(bf16(0.5 * acc));
            assert_true(fabs(out_at(&c, pair * D + (size_t)vv) - want) <= fabs(want) * 0x1p-8);
        }
    case_free(&c);
}

/* ---- (c) random inputs against a literal float64 transcription of the PyTorch code ---- */

static double naive_softplus(double x) /* beta 1, threshold 20 */
{
    return x * 1.0 > 20.0 ? x : log1p(exp(1.0 * x)) / 1.0;
}

/* Follows the definition's `run` step by step: repeat_interleave, clone().transpose(),
 * g * h_state, k_h @ old_state, the two outer products, q_h @ h_state, transpose back. */
static void naive_gdn(const gdn_case *c, double scale, double *output, double *new_state)
{
    const int64_t B = c->batch;
    double *h_state = malloc(sizeof(double) * D * D);
    double *old_state = malloc(sizeof(double) * D * D);
    double *remove = malloc(sizeof(double) * D * D);
    double *update = malloc(sizeof(double) * D * D);
    assert_true(h_state && old_state && remove && update);
    if (scale == 0.0)
        scale = 1.0 / sqrt((double)D);
    for (int64_t b = 0; b < B; b++)
        for (int h = 0; h < NV; h++) {
            double q_h[D], k_h[D], v_h[D], old_v[D], new_v[D];
            size_t bh = (size_t)b * NV + (size_t)h;
            for (int i = 0; i < D; i++) { /* q_exp = repeat_interleave(q, 2, dim=1) */
                q_h[i] = dtype_bf16_to_f32(c->q[((size_t)b * NQ + (size_t)h / 2) * D + (size_t)i]);
                k_h[i] = dtype_bf16_to_f32(c->k[((size_t)b * NQ + (size_t)h / 2) * D + (size_t)i]);
                v_h[i] = dtype_bf16_to_f32(c->v[bh * D + (size_t)i]);
            }
            double x = (double)dtype_bf16_to_f32(c->a[bh]) + (double)c->dt_bias[h];
            double g = exp(-exp((double)c->a_log[h]) * naive_softplus(x));
            double beta = 1.0 / (1.0 + exp(-(double)dtype_bf16_to_f32(c->b[bh])));
            for (int i = 0; i < D; i++) /* state[b, h].clone().transpose(-1, -2) */
                for (int j = 0; j < D; j++)
                    h_state[i * D + j] = c->state[(bh * D + (size_t)j) * D + (size_t)i];
            for (int i = 0; i < D * D; i++)
                old_state[i] = g * h_state[i];
            for (int j = 0; j < D; j++) { /* old_v = k_h @ old_state */
                old_v[j] = 0.0;
                for (int i = 0; i < D; i++)
                    old_v[j] += k_h[i] * old_state[i * D + j];
            }
            for (int j = 0; j < D; j++)
                new_v[j] = beta * v_h[j] + (1.0 - beta) * old_v[j];
            for (int i = 0; i < D; i++)
                for (int j = 0; j < D; j++) {
                    remove[i * D + j] = k_h[i] * old_v[j];
                    update[i * D + j] = k_h[i] * new_v[j];
                }
            for (int i = 0; i < D * D; i++)
                h_state[i] = old_state[i] - remove[i] + update[i];
            for (int j = 0; j < D; j++) { /* scale * (q_h @ h_state) */
                double acc = 0.0;
                for (int i = 0; i < D; i++)
                    acc += q_h[i] * h_state[i * D + j];
                output[bh * D + (size_t)j] = scale * acc;
            }
            for (int i = 0; i < D; i++) /* h_state.transpose(-1, -2) */
                for (int j = 0; j < D; j++)
                    new_state[(bh * D + (size_t)j) * D + (size_t)i] = h_state[i * D + j];
        }
    free(h_state);
    free(old_state);
    free(remove);
    free(update);
}

static void check_against_naive(int64_t batch, uint64_t seed, double scale)
{
    gdn_case c;
    case_init(&c, batch);
    case_fill_random(&c, seed);
    case_set_scale(&c, scale);
    double *out = malloc(sizeof(double) * v_count(&c));
    double *st = malloc(sizeof(double) * state_count(&c));
    assert_true(out && st);
    naive_gdn(&c, scale, out, st);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
    for (size_t i = 0; i < v_count(&c); i++) {
        /* both round a double to bf16: equal up to one bf16 step */
        double want = dtype_bf16_to_f32(bf16(out[i]));
        assert_true(fabs(out_at(&c, i) - want) <= fabs(want) * 0x1p-7 + 1e-30);
    }
    for (size_t i = 0; i < state_count(&c); i++)
        assert_true(fabs((double)c.new_state[i] - st[i]) <= 1e-6 * fabs(st[i]) + 1e-9);
    free(out);
    free(st);
    case_free(&c);
}

static void test_random_against_naive(void **unused)
{
    (void)unused;
    check_against_naive(1, 1, 0.0);
    check_against_naive(3, 2, 0.3);
}

/* ---- (d) the C solutions, built and loaded at run time ------------------------------- */

/* Builds SOURCE (a path under KERNEL_DIR) as the harness does, in a fresh temporary
 * directory, and loads it; returns the dlopen handle and stores its entry in *entry. */
static void *build_solution(const char *source, char *dir, size_t dir_size, reference_fn *entry)
{
    snprintf(dir, dir_size, "/tmp/kwb-test-gdn-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cc -std=gnu11 -O2 -shared -fPIC -I'%s/include' '%s/%s' -o '%s/solution.so' "
             "-lm -lpthread",
             TOP_SRCDIR, KERNEL_DIR, source, dir);
    assert_int_equal(system(cmd), 0);
    char so[128];
    snprintf(so, sizeof so, "%s/solution.so", dir);
    void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        fail_msg("dlopen %s: %s", so, dlerror());
    void *sym = dlsym(handle, "kwb_entry");
    assert_non_null(sym);
    *entry = (reference_fn)sym;
    return handle;
}

static void unload_solution(void *handle, const char *dir)
{
    char so[128];
    dlclose(handle);
    snprintf(so, sizeof so, "%s/solution.so", dir);
    unlink(so);
    rmdir(dir);
}

/* Runs ENTRY and the reference on the same random inputs for B = 1, 8, 33 and checks the
 * output with atol = rtol = 1e-2 and new_state with atol = rtol = 1e-4. */
static void check_solution(const char *label, reference_fn entry)
{
    static const int64_t batches[] = {1, 8, 33};
    for (size_t t = 0; t < sizeof batches / sizeof batches[0]; t++) {
        gdn_case c;
        case_init(&c, batches[t]);
        case_fill_random(&c, 100 + t);
        case_set_scale(&c, t == 1 ? 0.125 : 0.0);
        assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(c.args, NARGS, NULL), 0);
        uint16_t *ref_out = malloc(v_count(&c) * 2);
        float *ref_state = malloc(state_count(&c) * 4);
        assert_true(ref_out && ref_state);
        memcpy(ref_out, c.out, v_count(&c) * 2);
        memcpy(ref_state, c.new_state, state_count(&c) * 4);
        memset(c.out, 0xff, v_count(&c) * 2); /* NaN: every element must be written */
        memset(c.new_state, 0xff, state_count(&c) * 4);

        assert_int_equal(entry(c.args, NARGS, NULL), 0);
        double max_out = 0.0, max_state = 0.0;
        for (size_t i = 0; i < v_count(&c); i++) {
            double x = out_at(&c, i), r = dtype_bf16_to_f32(ref_out[i]);
            if (!close_enough(x, r, 1e-2, 1e-2))
                fail_msg("%s B=%lld output[%zu] = %g, reference %g", label, (long long)c.batch, i, x, r);
            if (fabs(x - r) > max_out)
                max_out = fabs(x - r);
        }
        for (size_t i = 0; i < state_count(&c); i++) {
            double x = c.new_state[i], r = ref_state[i];
            if (!close_enough(x, r, 1e-4, 1e-4))
                fail_msg("%s B=%lld new_state[%zu] = %.9g, reference %.9g", label, (long long)c.batch, i, x, r);
            if (fabs(x - r) > max_state)
                max_state = fabs(x - r);
        }
        print_message("%s B=%lld: max |output - ref| %.3g, max |new_state - ref| %.3g\n", label, (long long)c.batch,
                      max_out, max_state);
        assert_int_equal(entry(c.args, NARGS - 1, NULL), -1);
        free(ref_out);
        free(ref_state);
        case_free(&c);
    }
}

static void check_built_solution(const char *label, const char *source)
{
    char dir[64];
    reference_fn entry = NULL;
    void *handle = build_solution(source, dir, sizeof dir, &entry);
    check_solution(label, entry);
    unload_solution(handle, dir);
}

static void test_baseline_solution(void **unused)
{
    (void)unused;
    check_built_solution("baseline", "baseline/gdn_decode_baseline.c");
}

static void test_fast_solution(void **unused)
{
    (void)unused;
    check_built_solution("fast", "fast/gdn_decode_fast.c");
}

/* ---- (e) argument validation --------------------------------------------------------- */

static int ref_call(const kwb_arg *args, int nargs)
{
    return kwb_ref_gdn_decode_qk4_v8_d128_k_last(args, nargs, NULL);
}

static void test_bad_arguments(void **unused)
{
    (void)unused;
    gdn_case c;
    case_init(&c, 2);
    case_fill_random(&c, 3);
    kwb_arg args[NARGS + 1];
    memcpy(args, c.args, sizeof c.args);
    args[NARGS] = c.args[NARGS - 1];
    assert_int_equal(ref_call(args, NARGS), 0);
    assert_int_equal(ref_call(args, NARGS - 1), -1);
    assert_int_equal(ref_call(args, NARGS + 1), -1);
    assert_int_equal(ref_call(args, 0), -1);
    assert_int_equal(ref_call(NULL, NARGS), -1);

    args[0].dtype = KWB_F32; /* q as float32 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[0].dtype = KWB_BF16;
    args[3].dtype = KWB_BF16; /* state as bfloat16 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[3].dtype = KWB_F32;
    args[9].dtype = KWB_F32; /* output as float32 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[9].dtype = KWB_BF16;
    args[4].dtype = KWB_BF16; /* A_log as bfloat16 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[4].dtype = KWB_F32;
    args[8].dtype = KWB_F16; /* scale as float16 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[8].dtype = KWB_F32;

    args[2].shape[0] = 3; /* v's batch disagrees with q's */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[2].shape[0] = 2;
    args[1].shape[2] = NV; /* k with 8 heads */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[1].shape[2] = NQ;
    args[5].rank = 2; /* a of rank 2 */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[5].rank = 3;
    args[8].rank = 0; /* scale as a 0-D tensor */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[8].rank = -1;
    args[5].name = "b"; /* a and b swapped */
    args[7].name = "a";
    assert_int_equal(ref_call(args, NARGS), -1);
    args[5].name = "a";
    args[7].name = "b";
    args[10].data = NULL; /* no new_state buffer */
    assert_int_equal(ref_call(args, NARGS), -1);
    args[10].data = c.new_state;
    assert_int_equal(ref_call(args, NARGS), 0);
    case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zero_state_hand_computed),
        cmocka_unit_test(test_scale_zero_is_default),
        cmocka_unit_test(test_gate_only),
        cmocka_unit_test(test_random_against_naive),
        cmocka_unit_test(test_baseline_solution),
        cmocka_unit_test(test_fast_solution),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

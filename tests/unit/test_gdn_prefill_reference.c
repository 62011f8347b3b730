/* test_gdn_prefill_reference.c - the CPU reference of gdn_prefill_qk4_v8_d128_k_last: a
 * one-token sequence is the decode reference's step, a hand-computed two-token case, a
 * sequence is a chain of decode steps, sequences are independent, state None is zeros,
 * argument and cu_seqlens validation; the shipped CPU baseline, compiled and loaded at run
 * time, against it; and the 100 shipped workloads and their blobs. */
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
#include "gdn_prefill_args.h"
#include "safetensors.h"
#include "traceset.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);
/* The decode reference (its own solution folder), which one token of prefill must match. */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define DEF "gdn_prefill_qk4_v8_d128_k_last"
#define NQ 4
#define NV 8
#define D 128
#define NARGS 12
#define MAT ((size_t)NV * D * D) /* state elements per sequence */

/* The tensors of one call and the kwb_arg array that points at them. */
typedef struct pcase {
    int64_t total, seqs;
    uint16_t *q, *k, *v, *a, *b, *out;
    float *state, *a_log, *dt_bias, *new_state;
    int64_t *cu;
    kwb_arg args[NARGS];
} pcase;

/* Zeroed tensors for sequences of the SEQS lengths LENS; scale 0 (the default). */
static void pcase_init(pcase *c, const int64_t *lens, int64_t seqs)
{
    memset(c, 0, sizeof *c);
    c->seqs = seqs;
    c->cu = calloc((size_t)seqs + 1, sizeof *c->cu);
    assert_non_null(c->cu);
    for (int64_t n = 0; n < seqs; n++)
        c->cu[n + 1] = c->cu[n] + lens[n];
    int64_t t = c->total = c->cu[seqs];
    c->q = calloc((size_t)t * NQ * D + 1, 2);
    c->k = calloc((size_t)t * NQ * D + 1, 2);
    c->v = calloc((size_t)t * NV * D + 1, 2);
    c->out = calloc((size_t)t * NV * D + 1, 2);
    c->a = calloc((size_t)t * NV + 1, 2);
    c->b = calloc((size_t)t * NV + 1, 2);
    c->state = calloc((size_t)seqs * MAT + 1, 4);
    c->new_state = calloc((size_t)seqs * MAT + 1, 4);
    c->a_log = calloc(NV, 4);
    c->dt_bias = calloc(NV, 4);
    assert_true(c->q && c->k && c->v && c->out && c->a && c->b && c->state && c->new_state && c->a_log && c->dt_bias);

    kwb_arg *g = c->args;
    set_arg(&g[0], "q", KWB_BF16, c->q, 3, t, NQ, D, 0);
    set_arg(&g[1], "k", KWB_BF16, c->k, 3, t, NQ, D, 0);
    set_arg(&g[2], "v", KWB_BF16, c->v, 3, t, NV, D, 0);
    set_arg(&g[3], "state", KWB_F32, c->state, 4, seqs, NV, D, D);
    set_arg(&g[4], "A_log", KWB_F32, c->a_log, 1, NV, 0, 0, 0);
    set_arg(&g[5], "a", KWB_BF16, c->a, 2, t, NV, 0, 0);
    set_arg(&g[6], "dt_bias", KWB_F32, c->dt_bias, 1, NV, 0, 0, 0);
    set_arg(&g[7], "b", KWB_BF16, c->b, 2, t, NV, 0, 0);
    set_arg(&g[8], "cu_seqlens", KWB_I64, c->cu, 1, seqs + 1, 0, 0, 0);
    set_arg(&g[9], "scale", KWB_F32, NULL, -1, 0, 0, 0, 0);
    set_arg(&g[10], "output", KWB_BF16, c->out, 3, t, NV, D, 0);
    set_arg(&g[11], "new_state", KWB_F32, c->new_state, 4, seqs, NV, D, D);
}

static void pcase_free(pcase *c)
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
    free(c->cu);
}

static int ref(pcase *c)
{
    return kwb_ref_gdn_prefill_qk4_v8_d128_k_last(c->args, NARGS, NULL);
}

/* ---- random inputs ------------------------------------------------------------------ */

/* N(0,1) inputs as FlashInfer-Bench draws them, except b: beta = sigmoid(z) / 128 as in the
 * shipped workloads (workloads/README.md), which keeps the recurrence bounded. */
static void pcase_fill_random(pcase *c, uint64_t seed)
{
    lcg r = {seed * 2654435761ull + 12345u};
    size_t t = (size_t)c->total;
    fill_bf16(c->q, t * NQ * D, &r);
    fill_bf16(c->k, t * NQ * D, &r);
    fill_bf16(c->v, t * NV * D, &r);
    fill_f32(c->state, (size_t)c->seqs * MAT, &r);
    fill_f32(c->a_log, NV, &r);
    fill_bf16(c->a, t * NV, &r);
    fill_f32(c->dt_bias, NV, &r);
    for (size_t i = 0; i < t * NV; i++) {
        double beta = 1.0 / (128.0 * (1.0 + exp(-lcg_normal(&r))));
        c->b[i] = bf16(log(beta / (1.0 - beta)));
    }
}

/* ---- one-token sequences are decode steps -------------------------------------------- */

/* N sequences of one token each lay out q, k, v, a, b, state and both outputs exactly as a
 * decode batch of N does: the two references must agree bit for bit. */
static void test_one_token_equals_decode(void **unused)
{
    (void)unused;
    const int64_t lens[5] = {1, 1, 1, 1, 1};
    pcase c;
    pcase_init(&c, lens, 5);
    pcase_fill_random(&c, 1);
    fill_bf16(c.b, 5 * NV, &(lcg){99}); /* decode's N(0,1) gates: one step cannot overflow */
    assert_int_equal(ref(&c), 0);

    uint16_t *out = malloc(5 * NV * D * 2);
    float *st = malloc(5 * MAT * 4);
    assert_true(out && st);
    kwb_arg d[11];
    set_arg(&d[0], "q", KWB_BF16, c.q, 4, 5, 1, NQ, D);
    set_arg(&d[1], "k", KWB_BF16, c.k, 4, 5, 1, NQ, D);
    set_arg(&d[2], "v", KWB_BF16, c.v, 4, 5, 1, NV, D);
    set_arg(&d[3], "state", KWB_F32, c.state, 4, 5, NV, D, D);
    d[4] = c.args[4];
    set_arg(&d[5], "a", KWB_BF16, c.a, 3, 5, 1, NV, 0);
    d[6] = c.args[6];
    set_arg(&d[7], "b", KWB_BF16, c.b, 3, 5, 1, NV, 0);
    d[8] = c.args[9];
    set_arg(&d[9], "output", KWB_BF16, out, 4, 5, 1, NV, D);
    set_arg(&d[10], "new_state", KWB_F32, st, 4, 5, NV, D, D);
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(d, 11, NULL), 0);
    assert_memory_equal(out, c.out, 5 * NV * D * 2);
    assert_memory_equal(st, c.new_state, 5 * MAT * 4);
    free(out);
    free(st);
    pcase_free(&c);
}

/* ---- hand-computed: two tokens from a zero state -------------------------------------- */

/* A_log = 0 and a + dt_bias = 0 give g = exp(-ln 2) = 1/2; b = 0 gives beta = 1/2. Token 0
 * has k0 = 1 on K indices 0..63, token 1 has k1 = 1 on 64..127 (orthogonal to k0), so from a
 * zero state: M0 = k0 (x) v0/2; u1 = k1^T (M0/2) = 0; M1 = k0 (x) v0/4 + k1 (x) v1/2. With
 * q0 = 1 on 0..3 (q0.k0 = 4) and q1 = 1 on 0..7 and 64..67 (q1.k0 = 8, q1.k1 = 4), scale 1/4:
 *   output0 = (4 * v0/2) / 4 = v0/2;  output1 = (8 * v0/4 + 4 * v1/2) / 4 = (v0 + v1)/2
 *   new_state[h][v][kk] = v0[v]/4 for kk < 64, v1[v]/2 otherwise. All exact (v0 and v1 as
 * stored in bf16). */
static void test_two_tokens_hand_computed(void **unused)
{
    (void)unused;
    const int64_t lens[1] = {2};
    pcase c;
    pcase_init(&c, lens, 1);
    c.args[3].data = NULL; /* state None */
    for (int hq = 0; hq < NQ; hq++)
        for (int i = 0; i < D; i++) {
            c.k[hq * D + i] = bf16(i < 64 ? 1.0 : 0.0);
            c.k[(NQ + hq) * D + i] = bf16(i < 64 ? 0.0 : 1.0);
            c.q[hq * D + i] = bf16(i < 4 ? 1.0 : 0.0);
            c.q[(NQ + hq) * D + i] = bf16(i < 8 || (i >= 64 && i < 68) ? 1.0 : 0.0);
        }
    for (int h = 0; h < NV; h++)
        for (int i = 0; i < D; i++) {
            c.v[h * D + i] = bf16(i / 16.0 + h + 1);
            c.v[(NV + h) * D + i] = bf16(h + 0.5 + i / 32.0);
        }
    for (int i = 0; i < 2 * NV; i++)
        c.a[i] = bf16(i % 2 ? 0.75 : -0.5);
    for (int h = 0; h < NV; h++)
        c.dt_bias[h] = h % 2 ? -0.75f : 0.5f; /* a + dt_bias = 0 */
    c.args[9].f = 0.25;
    assert_int_equal(ref(&c), 0);
    for (int h = 0; h < NV; h++)
        for (int vv = 0; vv < D; vv++) {
            double v0 = dtype_bf16_to_f32(c.v[h * D + vv]), v1 = dtype_bf16_to_f32(c.v[(NV + h) * D + vv]);
            assert_int_equal(c.out[h * D + vv], bf16(v0 / 2));
            assert_int_equal(c.out[(NV + h) * D + vv], bf16((v0 + v1) / 2));
            for (int kk = 0; kk < D; kk++)
                assert_true(c.new_state[((size_t)h * D + vv) * D + kk] == (float)(kk < 64 ? v0 / 4 : v1 / 2));
        }
    pcase_free(&c);
}

/* ---- a sequence is a chain of decode steps ------------------------------------------- */

/* The decode reference applied token by token, its new_state fed back as the next state,
 * follows the same recurrence; it rounds the state to float32 between steps where prefill
 * keeps double, so they agree to float32 accuracy, not bit for bit. */
static void test_chain_of_decodes(void **unused)
{
    (void)unused;
    enum { T = 7 };
    const int64_t lens[1] = {T};
    pcase c;
    pcase_init(&c, lens, 1);
    pcase_fill_random(&c, 5);
    c.args[9].f = 0.3;
    assert_int_equal(ref(&c), 0);

    float *st = malloc(MAT * 4), *next = malloc(MAT * 4);
    uint16_t out[NV * D];
    assert_true(st && next);
    memcpy(st, c.state, MAT * 4);
    for (int t = 0; t < T; t++) {
        kwb_arg d[11];
        set_arg(&d[0], "q", KWB_BF16, c.q + (size_t)t * NQ * D, 4, 1, 1, NQ, D);
        set_arg(&d[1], "k", KWB_BF16, c.k + (size_t)t * NQ * D, 4, 1, 1, NQ, D);
        set_arg(&d[2], "v", KWB_BF16, c.v + (size_t)t * NV * D, 4, 1, 1, NV, D);
        set_arg(&d[3], "state", KWB_F32, st, 4, 1, NV, D, D);
        d[4] = c.args[4];
        set_arg(&d[5], "a", KWB_BF16, c.a + (size_t)t * NV, 3, 1, 1, NV, 0);
        d[6] = c.args[6];
        set_arg(&d[7], "b", KWB_BF16, c.b + (size_t)t * NV, 3, 1, 1, NV, 0);
        d[8] = c.args[9];
        set_arg(&d[9], "output", KWB_BF16, out, 4, 1, 1, NV, D);
        set_arg(&d[10], "new_state", KWB_F32, next, 4, 1, NV, D, D);
        assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(d, 11, NULL), 0);
        for (int i = 0; i < NV * D; i++) {
            double got = dtype_bf16_to_f32(c.out[(size_t)t * NV * D + i]), want = dtype_bf16_to_f32(out[i]);
            if (fabs(got - want) > fabs(want) * 0x1p-7 + 1e-6)
                fail_msg("token %d output[%d] = %g, decode chain %g", t, i, got, want);
        }
        memcpy(st, next, MAT * 4);
    }
    for (size_t i = 0; i < MAT; i++)
        if (fabs((double)c.new_state[i] - st[i]) > 1e-5 * fabs(st[i]) + 1e-5)
            fail_msg("new_state[%zu] = %.9g, decode chain %.9g", i, c.new_state[i], st[i]);
    free(st);
    free(next);
    pcase_free(&c);
}

/* ---- state None, independent sequences, empty sequences -------------------------------- */

static void test_state_null_is_zeros(void **unused)
{
    (void)unused;
    const int64_t lens[2] = {3, 4};
    pcase c;
    pcase_init(&c, lens, 2);
    pcase_fill_random(&c, 7);
    memset(c.state, 0, 2 * MAT * 4);
    assert_int_equal(ref(&c), 0);
    uint16_t *out = malloc(7 * NV * D * 2);
    float *st = malloc(2 * MAT * 4);
    assert_true(out && st);
    memcpy(out, c.out, 7 * NV * D * 2);
    memcpy(st, c.new_state, 2 * MAT * 4);
    c.args[3].data = NULL;
    memset(c.out, 0xff, 7 * NV * D * 2);
    memset(c.new_state, 0xff, 2 * MAT * 4);
    assert_int_equal(ref(&c), 0);
    assert_memory_equal(out, c.out, 7 * NV * D * 2);
    assert_memory_equal(st, c.new_state, 2 * MAT * 4);
    free(out);
    free(st);
    pcase_free(&c);
}

/* Sequence N of WHOLE run alone (its tokens, its state) must give the same bits. */
static void check_alone(const pcase *whole, int64_t n)
{
    const int64_t len = whole->cu[n + 1] - whole->cu[n], t0 = whole->cu[n];
    pcase c;
    pcase_init(&c, &len, 1);
    memcpy(c.q, whole->q + t0 * NQ * D, (size_t)len * NQ * D * 2);
    memcpy(c.k, whole->k + t0 * NQ * D, (size_t)len * NQ * D * 2);
    memcpy(c.v, whole->v + t0 * NV * D, (size_t)len * NV * D * 2);
    memcpy(c.a, whole->a + t0 * NV, (size_t)len * NV * 2);
    memcpy(c.b, whole->b + t0 * NV, (size_t)len * NV * 2);
    memcpy(c.state, whole->state + n * MAT, MAT * 4);
    memcpy(c.a_log, whole->a_log, NV * 4);
    memcpy(c.dt_bias, whole->dt_bias, NV * 4);
    c.args[9].f = whole->args[9].f;
    assert_int_equal(ref(&c), 0);
    assert_memory_equal(c.out, whole->out + t0 * NV * D, (size_t)len * NV * D * 2);
    if (len > 0)
        assert_memory_equal(c.new_state, whole->new_state + n * MAT, MAT * 4);
    pcase_free(&c);
}

static void test_sequences_independent(void **unused)
{
    (void)unused;
    const int64_t lens[4] = {3, 0, 5, 1};
    pcase c;
    pcase_init(&c, lens, 4);
    pcase_fill_random(&c, 11);
    memset(c.new_state, 0xff, 4 * MAT * 4);
    memset(c.out, 0xff, (size_t)c.total * NV * D * 2);
    assert_int_equal(ref(&c), 0);
    for (int64_t n = 0; n < 4; n++)
        check_alone(&c, n);
    /* the empty sequence is skipped: its new_state is zeros, not its state */
    for (size_t i = 0; i < MAT; i++)
        assert_true(c.new_state[MAT + i] == 0.0f);
    pcase_free(&c);
}

/* ---- argument and cu_seqlens validation ----------------------------------------------- */

static void test_bad_arguments(void **unused)
{
    (void)unused;
    const int64_t lens[3] = {2, 0, 3};
    pcase c;
    pcase_init(&c, lens, 3);
    pcase_fill_random(&c, 13);
    kwb_arg *g = c.args;
    assert_int_equal(ref(&c), 0);
    assert_int_equal(kwb_ref_gdn_prefill_qk4_v8_d128_k_last(g, NARGS - 1, NULL), -1);
    assert_int_equal(kwb_ref_gdn_prefill_qk4_v8_d128_k_last(NULL, NARGS, NULL), -1);

    g[8].dtype = KWB_I32; /* cu_seqlens as int32 */
    assert_int_equal(ref(&c), -1);
    g[8].dtype = KWB_I64;
    g[8].shape[0] = 3; /* one entry short of num_seqs + 1 = state's 3 + 1 */
    assert_int_equal(ref(&c), -1);
    g[8].shape[0] = 4;
    g[0].shape[0] = 4; /* q's total_seq_len disagrees with v's */
    assert_int_equal(ref(&c), -1);
    g[0].shape[0] = 5;
    g[1].shape[1] = NV; /* k with 8 heads */
    assert_int_equal(ref(&c), -1);
    g[1].shape[1] = NQ;
    g[9].rank = 0; /* scale as a 0-D tensor */
    assert_int_equal(ref(&c), -1);
    g[9].rank = -1;
    g[8].data = NULL; /* no cu_seqlens */
    assert_int_equal(ref(&c), -1);
    g[8].data = c.cu;
    assert_int_equal(ref(&c), 0);

    /* cu_seqlens values: start at 0, never decrease, end at total_seq_len */
    memset(c.out, 0x5a, 5 * NV * D * 2);
    static const int64_t bad[][4] = {{1, 2, 2, 5}, {0, 2, 2, 4}, {0, 2, 2, 6}, {0, 3, 2, 5}, {0, -1, 2, 5}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(c.cu, bad[i], sizeof bad[i]);
        assert_int_equal(ref(&c), -1);
    }
    assert_true(c.out[0] == 0x5a5a);             /* rejected before anything is written */
    static const int64_t good[4] = {0, 0, 5, 5}; /* empty sequences first and last */
    memcpy(c.cu, good, sizeof good);
    assert_int_equal(ref(&c), 0);
    pcase_free(&c);

    /* no tokens, no sequences: cu_seqlens = [0] */
    const int64_t none[1] = {0};
    pcase_init(&c, none, 0);
    assert_int_equal(ref(&c), 0);
    pcase_free(&c);
}

/* ---- the shipped CPU baseline, built and loaded at run time ---------------------------- */

static void check_baseline_case(reference_fn entry, const int64_t *lens, int64_t seqs, uint64_t seed, int no_state)
{
    pcase c;
    pcase_init(&c, lens, seqs);
    pcase_fill_random(&c, seed);
    if (no_state)
        c.args[3].data = NULL;
    size_t nout = (size_t)c.total * NV * D, nst = (size_t)seqs * MAT;
    assert_int_equal(ref(&c), 0);
    uint16_t *ref_out = malloc(nout * 2 + 2);
    float *ref_st = malloc(nst * 4 + 4);
    assert_true(ref_out && ref_st);
    memcpy(ref_out, c.out, nout * 2);
    memcpy(ref_st, c.new_state, nst * 4);
    memset(c.out, 0xff, nout * 2); /* NaN: every element must be written */
    memset(c.new_state, 0xff, nst * 4);
    assert_int_equal(entry(c.args, NARGS, NULL), 0);
    for (size_t i = 0; i < nout; i++) {
        double x = dtype_bf16_to_f32(c.out[i]), r = dtype_bf16_to_f32(ref_out[i]);
        if (!close_enough(x, r, 1e-2, 1e-2))
            fail_msg("baseline seed %llu output[%zu] = %g, reference %g", (unsigned long long)seed, i, x, r);
    }
    for (size_t i = 0; i < nst; i++)
        if (!close_enough(c.new_state[i], ref_st[i], 1e-3, 1e-3))
            fail_msg("baseline seed %llu new_state[%zu] = %.9g, reference %.9g", (unsigned long long)seed, i,
                     c.new_state[i], ref_st[i]);
    free(ref_out);
    free(ref_st);
    pcase_free(&c);
}

static void test_cpu_baseline(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/kwb-test-gdnp-XXXXXX", cmd[2048], so[64];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "cc -std=gnu11 -O2 -shared -fPIC -I'%s/include' "
             "'%s/kernels/" DEF "/cpu/baseline/gdn_prefill_baseline.c' -o '%s/solution.so' -lm",
             TOP_SRCDIR, TOP_SRCDIR, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(so, sizeof so, "%s/solution.so", dir);
    void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL)
        fail_msg("dlopen %s: %s", so, dlerror());
    reference_fn entry = (reference_fn)dlsym(handle, "kwb_entry");
    assert_non_null(entry);

    const int64_t one[1] = {1}, three[3] = {7, 1, 40}, empty[3] = {0, 4, 0};
    check_baseline_case(entry, one, 1, 21, 0);
    check_baseline_case(entry, three, 3, 22, 0);
    check_baseline_case(entry, three, 3, 23, 1);
    check_baseline_case(entry, empty, 3, 24, 0);

    dlclose(handle);
    unlink(so);
    rmdir(dir);
}

/* ---- the shipped workloads and their blobs --------------------------------------------- */

/* The tensor NAME of BLOB must be DTYPE with SHAPE (RANK dims): what the runner checks. */
static const void *blob_tensor(const safetensors *st, const char *name, kwb_dtype dtype, int rank, const int64_t *shape)
{
    const st_tensor *t = safetensors_find(st, name);
    if (!t)
        fail_msg("%s: no tensor '%s'", st->path, name);
    if (t->dtype != dtype || t->rank != rank || memcmp(t->shape, shape, sizeof(int64_t) * (size_t)rank) != 0)
        fail_msg("%s: tensor '%s' has the wrong dtype or shape", st->path, name);
    return safetensors_data(st, t);
}

static void test_shipped_workloads(void **unused)
{
    (void)unused;
    definition *d = NULL;
    workload_set set = {0};
    kwb_error err = {{0}};
    if (traceset_load(TOP_SRCDIR "/workloads", DEF, &d, &set, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(set.count, 100);
    assert_string_equal(set.items[0].uuid, "77daf91d-0660-4c4b-8c32-336a69281cd9");
    assert_string_equal(set.items[99].uuid, "cc241d2e-f8b7-448f-95ec-1d5d2809c068");
    const int cu_in = definition_input_index(d, "cu_seqlens"), b_in = definition_input_index(d, "b");
    const int t_ax = definition_axis_index(d, "total_seq_len"), n_ax = definition_axis_index(d, "num_seqs");
    const int l_ax = definition_axis_index(d, "len_cu_seqlens");
    assert_true(cu_in >= 0 && b_in >= 0 && t_ax >= 0 && n_ax >= 0 && l_ax >= 0);
    int64_t tokens = 0, seqs = 0;
    for (int i = 0; i < set.count; i++) {
        const workload *w = &set.items[i];
        const int64_t total = w->axis_value[t_ax], n = w->axis_value[n_ax];
        assert_int_equal(w->axis_value[l_ax], n + 1);
        assert_int_equal(w->inputs[cu_in].kind, WL_SAFETENSORS);
        assert_int_equal(w->inputs[b_in].kind, WL_SAFETENSORS);
        assert_string_equal(w->inputs[cu_in].path, w->inputs[b_in].path);
        char *path = traceset_blob_path(TOP_SRCDIR "/workloads", w->inputs[cu_in].path);
        safetensors *st = safetensors_open(path, &err);
        if (!st)
            fail_msg("%s", err.msg);
        int64_t cu_shape[1], b_shape[2];
        workload_shape(w, &d->inputs[cu_in], cu_shape);
        workload_shape(w, &d->inputs[b_in], b_shape);
        const int64_t *cu = blob_tensor(st, w->inputs[cu_in].key, KWB_I64, 1, cu_shape);
        const uint16_t *b = blob_tensor(st, w->inputs[b_in].key, KWB_BF16, 2, b_shape);
        if (cu[0] != 0 || cu[n] != total)
            fail_msg("%s: cu_seqlens runs from %lld to %lld, not 0 to %lld", path, (long long)cu[0], (long long)cu[n],
                     (long long)total);
        for (int64_t s = 0; s < n; s++)
            if (cu[s + 1] - cu[s] < 1)
                fail_msg("%s: sequence %lld has %lld tokens", path, (long long)s, (long long)(cu[s + 1] - cu[s]));
        for (int64_t j = 0; j < total * 8; j++) {
            double beta128 = 128.0 / (1.0 + exp(-(double)dtype_bf16_to_f32(b[j])));
            if (!(beta128 > 0.0 && beta128 < 1.01))
                fail_msg("%s: b[%lld] gives 128 * beta = %g, not in (0, 1)", path, (long long)j, beta128);
        }
        tokens += total;
        seqs += n;
        safetensors_close(st);
        free(path);
    }
    print_message("100 workloads, %lld tokens in %lld sequences\n", (long long)tokens, (long long)seqs);
    workload_set_free(&set);
    definition_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_token_equals_decode),
        cmocka_unit_test(test_two_tokens_hand_computed),
        cmocka_unit_test(test_chain_of_decodes),
        cmocka_unit_test(test_state_null_is_zeros),
        cmocka_unit_test(test_sequences_independent),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_cpu_baseline),
        cmocka_unit_test(test_shipped_workloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

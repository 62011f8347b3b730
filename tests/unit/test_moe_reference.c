/* test_moe_reference.c - moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 on the CPU:
 * the shipped routing blobs (they load, hold the definition's shapes, and route every workload
 * to its rank's experts), the C reference on the seq_len 1 and 7 workloads against a closed form,
 * the cost values from the routing, and the arguments refused.
 *
 * The closed form: with rank-one FP8 weights W1[e,n,k] = p[n] q[k] and W2[e,h,i] = r[h] u[i]
 * (factors in {+-1/2, +-1, +-2}, so every product is an exact e4m3 value) and random scales,
 *   g[n] = p[n] sum_kb S1[e, n/128, kb] z[kb],   z[kb] = sum_{k in kb} a[k] q[k]
 *   o[h] = r[h] sum_ib S2[e, h/128, ib] y[ib],   y[ib] = sum_{i in ib} c[i] u[i]
 * which costs O(H + I) per pair instead of O(H I), and shares nothing with the reference's loops.
 * The weights are calloc'ed (1.4 GB of address space, untouched pages stay unmapped) and only the
 * experts the tokens chose are written. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "moe_routing.h"
#include "rng.h"
#include "safetensors.h"
#include "traceset.h"
#include "kwb/reference.h"
#include "moe_args.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(const kwb_arg *args, int nargs,
                                                                         kwb_stream stream);

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define DEF "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
#define DATASET TOP_SRCDIR "/workloads"

/* One call: the tensors, the rank-one factors of each expert, and the arguments. */
typedef struct moe_case {
    int64_t tokens;
    float *logits, *hidden_scale, *w1_scale, *w2_scale;
    uint16_t *bias, *out;
    uint8_t *hidden, *w1, *w2;
    float p[MOE_EL][MOE_N1], q[MOE_EL][MOE_H], r[MOE_EL][MOE_H], u[MOE_EL][MOE_I];
    kwb_arg args[MOE_NARGS];
} moe_case;

/* The workload whose uuid starts with PREFIX, from the shipped dataset (the test fails without). */
static workload_set load_workloads(definition **d)
{
    workload_set set = {0};
    kwb_error err = {{0}};
    if (traceset_load(DATASET, DEF, d, &set, &err) != 0)
        fail_msg("%s", err.msg);
    return set;
}

static const workload *find(const workload_set *set, const char *prefix)
{
    for (int i = 0; i < set->count; i++)
        if (strncmp(set->items[i].uuid, prefix, strlen(prefix)) == 0)
            return &set->items[i];
    fail_msg("no workload %s", prefix);
    return NULL;
}

/* Reads W's routing blob into fresh LOGITS (T x 256) and BIAS (256); checks dtypes and shapes. */
static int64_t read_blob(const workload *w, const definition *d, float **logits, uint16_t **bias)
{
    int64_t t = w->axis_value[definition_axis_index(d, "seq_len")];
    char *path = traceset_blob_path(DATASET, w->inputs[MOE_LOGITS].path);
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    if (!st)
        fail_msg("%s", err.msg);
    const st_tensor *lg = safetensors_find(st, w->inputs[MOE_LOGITS].key);
    const st_tensor *bi = safetensors_find(st, w->inputs[MOE_BIAS].key);
    assert_non_null(lg);
    assert_non_null(bi);
    assert_int_equal(lg->dtype, KWB_F32);
    assert_int_equal(lg->rank, 2);
    assert_true(lg->shape[0] == t && lg->shape[1] == MOE_E);
    assert_int_equal(bi->dtype, KWB_BF16);
    assert_true(bi->rank == 1 && bi->shape[0] == MOE_E);
    *logits = malloc((size_t)lg->nbytes);
    *bias = malloc((size_t)bi->nbytes);
    memcpy(*logits, safetensors_data(st, lg), (size_t)lg->nbytes);
    memcpy(*bias, safetensors_data(st, bi), (size_t)bi->nbytes);
    safetensors_close(st);
    free(path);
    return t;
}

/* ---- the blobs ---------------------------------------------------------------------------- */

/* Every workload's blob loads; the bias is the same model-wide vector in all of them; every
 * workload routes a token to its rank, and the long ones reach all 32 local experts. */
static void test_blobs(void **state)
{
    (void)state;
    definition *d = NULL;
    workload_set set = load_workloads(&d);
    assert_int_equal(set.count, 19);
    uint16_t *first_bias = NULL;
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3;
    for (int i = 0; i < set.count; i++) {
        const workload *w = &set.items[i];
        float *logits;
        uint16_t *bias;
        int64_t t = read_blob(w, d, &logits, &bias);
        if (!first_bias)
            first_bias = bias;
        else {
            assert_memory_equal(bias, first_bias, MOE_E * sizeof *bias);
            free(bias);
        }
        int32_t *idx = malloc(sizeof *idx * (size_t)t * MOE_TOPK);
        float *wt = malloc(sizeof *wt * (size_t)t * MOE_TOPK);
        assert_int_equal(moe_routing_run(&cfg, logits, first_bias, t, 2.5f, idx, wt), 0);
        moe_routing_local l = moe_routing_count_local(idx, t, MOE_TOPK, (int)w->inputs[MOE_OFFSET].i, MOE_EL);
        if (l.pairs == 0)
            fail_msg("workload %s: no token routed to local experts", w->uuid);
        if (t >= 900 && l.experts != MOE_EL)
            fail_msg("workload %s: %lld of 32 local experts used", w->uuid, (long long)l.experts);
        free(idx);
        free(wt);
        free(logits);
    }
    free(first_bias);
    workload_set_free(&set);
    definition_free(d);
}

/* ---- the reference against the closed form -------------------------------------------------- */

static const float factors[6] = {-2.0f, -1.0f, -0.5f, 0.5f, 1.0f, 2.0f};

/* Factor I of stream KEY, as an index into factors[]. */
static int factor(uint64_t key, uint64_t i)
{
    return (int)rng_uniform(key, i, 0, 6);
}

/* ROWS rows of COLS e4m3 codes at W: row n is factors[p[n]] times the factors Q. */
static void write_rank_one(uint8_t *w, const float *p, int rows, const float *q, int cols)
{
    uint8_t *row_of[6];
    for (int f = 0; f < 6; f++) {
        row_of[f] = malloc((size_t)cols);
        for (int k = 0; k < cols; k++)
            row_of[f][k] = dtype_f32_to_e4m3(factors[f] * q[k]);
    }
    for (int n = 0; n < rows; n++)
        for (int f = 0; f < 6; f++)
            if (factors[f] == p[n])
                memcpy(w + (size_t)n * (size_t)cols, row_of[f], (size_t)cols);
    for (int f = 0; f < 6; f++)
        free(row_of[f]);
}

/* Argument I as the definition describes it, seq_len T, its data at DATA (tensors only). */
static void set_arg(kwb_arg *a, int i, int64_t t, void *data)
{
    const argspec *s = &moe_specs[i];
    memset(a, 0, sizeof *a);
    a->name = s->name;
    a->dtype = s->dtype;
    a->rank = s->rank;
    for (int d = 0; d < s->rank; d++)
        a->shape[d] = s->shape[d] == MOE_SEQ_LEN ? t : s->shape[d];
    a->data = a->rank >= 0 ? data : NULL;
}

/* Random activations and scales; rank-one weights for the experts the tokens choose. */
static moe_case *case_new(float *logits, uint16_t *bias, int64_t t, int offset)
{
    moe_case *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->tokens = t;
    c->logits = logits;
    c->bias = bias;
    c->hidden = malloc((size_t)t * MOE_H);
    c->hidden_scale = malloc(sizeof(float) * MOE_HB * (size_t)t);
    c->w1 = calloc((size_t)MOE_EL * MOE_N1 * MOE_H, 1);
    c->w2 = calloc((size_t)MOE_EL * MOE_H * MOE_I, 1);
    c->w1_scale = malloc(sizeof(float) * MOE_EL * MOE_N1B * MOE_HB);
    c->w2_scale = malloc(sizeof(float) * MOE_EL * MOE_HB * MOE_IB);
    c->out = malloc(sizeof(uint16_t) * (size_t)t * MOE_H);
    assert_true(c->hidden && c->hidden_scale && c->w1 && c->w2 && c->w1_scale && c->w2_scale && c->out);
    rng_fill(c->hidden, KWB_F8_E4M3, (size_t)t * MOE_H, 1);
    rng_fill(c->hidden_scale, KWB_F32, (size_t)MOE_HB * (size_t)t, 2);
    rng_fill(c->w1_scale, KWB_F32, MOE_EL * MOE_N1B * MOE_HB, 3);
    rng_fill(c->w2_scale, KWB_F32, MOE_EL * MOE_HB * MOE_IB, 4);
    void *data[MOE_NARGS] = {logits,      bias, c->hidden, c->hidden_scale, c->w1, c->w1_scale, c->w2,
                             c->w2_scale, NULL, NULL,      c->out};
    for (int i = 0; i < MOE_NARGS; i++)
        set_arg(&c->args[i], i, t, data[i]);
    c->args[MOE_OFFSET].i = offset;
    c->args[MOE_OFFSET].f = offset;
    c->args[MOE_SCALING].f = 2.5;
    return c;
}

/* Writes local expert E's rank-one weights (factors from the expert's keys). */
static void write_expert(moe_case *c, int e)
{
    for (int n = 0; n < MOE_N1; n++)
        c->p[e][n] = factors[factor(100 + (uint64_t)e, (uint64_t)n)];
    for (int k = 0; k < MOE_H; k++) {
        c->q[e][k] = factors[factor(200 + (uint64_t)e, (uint64_t)k)];
        c->r[e][k] = factors[factor(300 + (uint64_t)e, (uint64_t)k)];
    }
    for (int i = 0; i < MOE_I; i++)
        c->u[e][i] = factors[factor(400 + (uint64_t)e, (uint64_t)i)];
    write_rank_one(c->w1 + (size_t)e * MOE_N1 * MOE_H, c->p[e], MOE_N1, c->q[e], MOE_H);
    write_rank_one(c->w2 + (size_t)e * MOE_H * MOE_I, c->r[e], MOE_H, c->u[e], MOE_I);
}

/* acc[h] += weight * expert e's output for token t, by the closed form. */
static void closed_form(const moe_case *c, int64_t t, int e, double weight, double *acc)
{
    static double g[MOE_N1], cc[MOE_I];
    double z[MOE_HB] = {0}, y[MOE_IB] = {0};
    for (int k = 0; k < MOE_H; k++)
        z[k / MOE_BLK] += dtype_e4m3_to_f32(c->hidden[t * MOE_H + k]) *
                          (double)c->hidden_scale[(k / MOE_BLK) * c->tokens + t] * c->q[e][k];
    const float *s1 = c->w1_scale + (size_t)e * MOE_N1B * MOE_HB, *s2 = c->w2_scale + (size_t)e * MOE_HB * MOE_IB;
    for (int n = 0; n < MOE_N1; n++) {
        double sum = 0;
        for (int kb = 0; kb < MOE_HB; kb++)
            sum += s1[(n / MOE_BLK) * MOE_HB + kb] * z[kb];
        g[n] = c->p[e][n] * sum;
    }
    for (int i = 0; i < MOE_I; i++)
        cc[i] = g[MOE_I + i] / (1 + exp(-g[MOE_I + i])) * g[i];
    for (int i = 0; i < MOE_I; i++)
        y[i / MOE_BLK] += cc[i] * c->u[e][i];
    for (int h = 0; h < MOE_H; h++) {
        double sum = 0;
        for (int ib = 0; ib < MOE_IB; ib++)
            sum += s2[(h / MOE_BLK) * MOE_IB + ib] * y[ib];
        acc[h] += weight * c->r[e][h] * sum;
    }
}

/* The reference on workload PREFIX's routing against the closed form, within one bf16 step. */
static void check_workload(const char *prefix, int64_t want_tokens)
{
    definition *d = NULL;
    workload_set set = load_workloads(&d);
    const workload *w = find(&set, prefix);
    float *logits;
    uint16_t *bias;
    int64_t t = read_blob(w, d, &logits, &bias);
    assert_int_equal(t, want_tokens);
    const int offset = (int)w->inputs[MOE_OFFSET].i;
    moe_case *c = case_new(logits, bias, t, offset);
    int32_t *idx = malloc(sizeof *idx * (size_t)t * MOE_TOPK);
    float *wt = malloc(sizeof *wt * (size_t)t * MOE_TOPK);
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3;
    moe_routing_run(&cfg, logits, bias, t, 2.5f, idx, wt);
    double *want = calloc((size_t)t * MOE_H, sizeof *want);
    int pairs = 0;
    for (int64_t j = 0; j < t * MOE_TOPK; j++) {
        int e = idx[j] - offset;
        if (e < 0 || e >= MOE_EL)
            continue;
        if (c->p[e][0] == 0)
            write_expert(c, e);
        closed_form(c, j / MOE_TOPK, e, wt[j], want + (j / MOE_TOPK) * MOE_H);
        pairs++;
    }
    assert_true(pairs > 0);
    assert_int_equal(kwb_ref_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(c->args, MOE_NARGS, NULL), 0);
    for (int64_t j = 0; j < t * MOE_H; j++) {
        double got = dtype_bf16_to_f32(c->out[j]), exact = want[j];
        if (fabs(got - exact) > fabs(exact) * 0x1.0001p-8 + 1e-30)
            fail_msg("output %lld (token %lld): %.9g, closed form %.9g", (long long)j, (long long)(j / MOE_H), got,
                     exact);
    }
    free(want);
    free(idx);
    free(wt);
    free(c->hidden);
    free(c->hidden_scale);
    free(c->w1);
    free(c->w2);
    free(c->w1_scale);
    free(c->w2_scale);
    free(c->out);
    free(c);
    free(logits);
    free(bias);
    workload_set_free(&set);
    definition_free(d);
}

static void test_reference_seq_len_1(void **state)
{
    (void)state;
    check_workload("e05c6c03", 1);
}

static void test_reference_seq_len_7(void **state)
{
    (void)state;
    check_workload("b8f4f012", 7);
}

/* ---- cost values and refusals ------------------------------------------------------------- */

/* Equal logits route every token to experts 0-7: at offset 0, 8 pairs a token, all tokens,
 * 8 experts; at offset 32 nothing. Unknown names fail. */
static void test_cost_values(void **state)
{
    (void)state;
    enum { T = 5 };
    static float logits[T * MOE_E];
    static uint16_t bias[MOE_E];
    static uint8_t dummy[1];
    kwb_arg in[MOE_OUTPUT];
    for (int i = 0; i < MOE_OUTPUT; i++)
        set_arg(&in[i], i, T, i == MOE_LOGITS ? (void *)logits : i == MOE_BIAS ? (void *)bias : dummy);
    const char *names[3] = {"active_experts", "local_pairs", "routed_tokens"};
    int64_t v[3];
    in[MOE_OFFSET].i = 0;
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT, names, 3, v), 0);
    assert_true(v[0] == 8 && v[1] == 8 * T && v[2] == T);
    in[MOE_OFFSET].i = 32;
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT, names, 3, v), 0);
    assert_true(v[0] == 0 && v[1] == 0 && v[2] == 0);
    /* the weights and the hidden states are not read (the definition's cost "reads"): NULL will do */
    for (int i = 0; i < MOE_OUTPUT; i++)
        if (i != MOE_LOGITS && i != MOE_BIAS)
            in[i].data = NULL;
    in[MOE_OFFSET].i = 0;
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT, names, 3, v), 0);
    assert_true(v[0] == 8 && v[1] == 8 * T && v[2] == T);
    in[MOE_LOGITS].data = NULL; /* but the routing is */
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT, names, 3, v), -1);
    in[MOE_LOGITS].data = logits;
    const char *unknown[1] = {"tokens"};
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT, unknown, 1, v), -1);
    assert_int_equal(kwb_cost_values(in, MOE_OUTPUT - 1, names, 3, v), -1);
}

/* Wrong count, name, dtype, shape or a missing tensor: -1, nothing read. */
static void test_arguments_refused(void **state)
{
    (void)state;
    static uint8_t dummy[1];
    kwb_arg a[MOE_NARGS];
    for (int i = 0; i < MOE_NARGS; i++)
        set_arg(&a[i], i, 3, dummy);
    int (*ref)(const kwb_arg *, int, kwb_stream) = kwb_ref_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048;
    assert_int_equal(ref(a, MOE_NARGS - 1, NULL), -1);
    assert_int_equal(ref(NULL, MOE_NARGS, NULL), -1);
    a[MOE_W2].name = "gemm1_weights";
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
    a[MOE_W2].name = "gemm2_weights";
    a[MOE_BIAS].dtype = KWB_F32;
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
    a[MOE_BIAS].dtype = KWB_BF16;
    a[MOE_HIDDEN_SCALE].shape[0] = 3; /* [T, 56] instead of block-major [56, T] */
    a[MOE_HIDDEN_SCALE].shape[1] = MOE_HB;
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
    a[MOE_HIDDEN_SCALE].shape[0] = MOE_HB;
    a[MOE_HIDDEN_SCALE].shape[1] = 3;
    a[MOE_OUTPUT].shape[0] = 4; /* seq_len disagrees with routing_logits */
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
    a[MOE_OUTPUT].shape[0] = 3;
    a[MOE_W1].data = NULL;
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
    a[MOE_W1].data = dummy;
    a[MOE_OFFSET].rank = 0;
    assert_int_equal(ref(a, MOE_NARGS, NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blobs),
        cmocka_unit_test(test_reference_seq_len_1),
        cmocka_unit_test(test_reference_seq_len_7),
        cmocka_unit_test(test_cost_values),
        cmocka_unit_test(test_arguments_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_dsa_attn.c - dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64's CPU reference on a
 * hand-made page (logits set through one dimension of q and the caches, padding, a token with
 * no valid index), its refusals; and the shipped DSA blobs of both definitions: they load with
 * the shapes their workloads need and follow the rules of workloads/README.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dsa_attn.h"
#include "dtype.h"
#include "safetensors.h"
#include "traceset.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define TOPK_DEF "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
#define ATTN_DEF "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"

enum { T = 2, PAGES = 1, TOKENS = PAGES * DSA_APAGE };

typedef struct attn_case {
    uint16_t q_nope[T * DSA_HEADS * DSA_CKV], q_pe[T * DSA_HEADS * DSA_KPE];
    uint16_t ckv[TOKENS * DSA_CKV], kpe[TOKENS * DSA_KPE], out[T * DSA_HEADS * DSA_CKV];
    int32_t idx[T * DSA_ATOPK];
    float lse[T * DSA_HEADS];
    kwb_arg args[SA_NARGS];
} attn_case;

static const int32_t chosen[3] = {5, 9, 12};

static double head_weight(int h)
{
    return (h + 1) / 4.0;
}

/* Token 0 attends to tokens 5, 9 and 12, token 1 to none. Token x's ckv is (x / 8, 1, 0, ...)
 * and its kpe (0.5, 0, ...); head h's q_nope is ((h + 1) / 4, 0, ...), its q_pe (1, 0, ...);
 * sm_scale 0.5. So logit_x = ((h + 1) / 4 * x / 8 + 0.5) * 0.5, output = (E[x / 8], 1, 0, ...). */
static attn_case *make_case(void)
{
    attn_case *c = calloc(1, sizeof *c);
    for (int x = 0; x < TOKENS; x++) {
        c->ckv[x * DSA_CKV] = dtype_f32_to_bf16((float)x / 8);
        c->ckv[x * DSA_CKV + 1] = dtype_f32_to_bf16(1.0f);
        c->kpe[x * DSA_KPE] = dtype_f32_to_bf16(0.5f);
    }
    for (int t = 0; t < T; t++)
        for (int h = 0; h < DSA_HEADS; h++) {
            c->q_nope[(t * DSA_HEADS + h) * DSA_CKV] = dtype_f32_to_bf16((float)head_weight(h));
            c->q_pe[(t * DSA_HEADS + h) * DSA_KPE] = dtype_f32_to_bf16(1.0f);
        }
    for (int j = 0; j < T * DSA_ATOPK; j++)
        c->idx[j] = j < 3 ? chosen[j] : -1;
    const struct {
        const char *name;
        kwb_dtype t;
        int rank;
        void *data;
        int64_t d1, d2;
    } a[SA_NARGS] = {
        {"q_nope", KWB_BF16, 3, c->q_nope, DSA_HEADS, DSA_CKV}, {"q_pe", KWB_BF16, 3, c->q_pe, DSA_HEADS, DSA_KPE},
        {"ckv_cache", KWB_BF16, 3, c->ckv, DSA_APAGE, DSA_CKV}, {"kpe_cache", KWB_BF16, 3, c->kpe, DSA_APAGE, DSA_KPE},
        {"sparse_indices", KWB_I32, 2, c->idx, DSA_ATOPK, 0},   {"sm_scale", KWB_F32, -1, NULL, 0, 0},
        {"output", KWB_BF16, 3, c->out, DSA_HEADS, DSA_CKV},    {"lse", KWB_F32, 2, c->lse, DSA_HEADS, 0},
    };
    for (int i = 0; i < SA_NARGS; i++) {
        int64_t d0 = i == SA_CKV || i == SA_KPE ? PAGES : T;
        c->args[i] = (kwb_arg){
            .name = a[i].name, .dtype = a[i].t, .rank = a[i].rank, .data = a[i].data, .shape = {d0, a[i].d1, a[i].d2}};
    }
    c->args[SA_SM_SCALE].f = 0.5;
    return c;
}

static void test_reference_hand(void **state)
{
    (void)state;
    attn_case *c = make_case();
    assert_int_equal(kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(c->args, SA_NARGS, NULL), 0);
    for (int h = 0; h < DSA_HEADS; h++) {
        double l[3], max = -INFINITY, sum = 0.0, mean = 0.0;
        for (int j = 0; j < 3; j++) {
            l[j] = (head_weight(h) * chosen[j] / 8 + 0.5) * 0.5;
            max = fmax(max, l[j]);
        }
        for (int j = 0; j < 3; j++)
            sum += exp(l[j] - max);
        for (int j = 0; j < 3; j++)
            mean += exp(l[j] - max) / sum * chosen[j] / 8;
        const uint16_t *o = c->out + h * DSA_CKV;
        assert_float_equal(c->lse[h], (max + log(sum)) / M_LN2, 1e-5);
        assert_float_equal(dtype_bf16_to_f32(o[0]), mean, mean / 128);
        assert_float_equal(dtype_bf16_to_f32(o[1]), 1.0, 0.0);
        for (int d = 2; d < DSA_CKV; d++)
            assert_int_equal(o[d], 0);
        /* Token 1 has no valid index: zeros and lse -inf. */
        for (int d = 0; d < DSA_CKV; d++)
            assert_int_equal(c->out[(DSA_HEADS + h) * DSA_CKV + d], 0);
        assert_true(isinf(c->lse[DSA_HEADS + h]) && c->lse[DSA_HEADS + h] < 0);
    }
    free(c);
}

static void test_reference_rejects(void **state)
{
    (void)state;
    attn_case *c = make_case();
    int (*ref)(const kwb_arg *, int, kwb_stream) = kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64;
    c->idx[DSA_ATOPK + 7] = TOKENS; /* one past the cache */
    assert_int_equal(ref(c->args, SA_NARGS, NULL), -1);
    c->idx[DSA_ATOPK + 7] = -2;
    assert_int_equal(ref(c->args, SA_NARGS, NULL), -1);
    c->idx[DSA_ATOPK + 7] = TOKENS - 1;
    assert_int_equal(ref(c->args, SA_NARGS, NULL), 0);
    assert_int_equal(ref(c->args, SA_NARGS - 1, NULL), -1);
    c->args[SA_KPE].shape[0] = 2; /* num_pages disagrees with ckv_cache's */
    assert_int_equal(ref(c->args, SA_NARGS, NULL), -1);
    free(c);
}

/* ---- the shipped blobs ------------------------------------------------------------------- */

/* Input NAME of workload W of D, read from its blob: a new int32 array (its shape checked). */
static int32_t *load_input(const definition *d, const workload *w, const char *name)
{
    int i = definition_input_index(d, name);
    assert_true(i >= 0);
    assert_int_equal(w->inputs[i].kind, WL_SAFETENSORS);
    char *path = traceset_blob_path(TOP_SRCDIR "/workloads", w->inputs[i].path);
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    if (!st)
        fail_msg("%s", err.msg);
    const st_tensor *t = safetensors_find(st, w->inputs[i].key);
    assert_non_null(t);
    int64_t shape[KWB_MAX_RANK];
    workload_shape(w, &d->inputs[i], shape);
    assert_int_equal(t->dtype, KWB_I32);
    assert_int_equal(t->rank, d->inputs[i].rank);
    assert_memory_equal(t->shape, shape, sizeof(int64_t) * (size_t)t->rank);
    int32_t *data = malloc(t->nbytes + 4);
    memcpy(data, safetensors_data(st, t), t->nbytes);
    safetensors_close(st);
    free(path);
    return data;
}

static int64_t axis(const definition *d, const workload *w, const char *name)
{
    return w->axis_value[definition_axis_index(d, name)];
}

/* The shipped definition NAME and its COUNT workloads. */
static definition *load_shipped(const char *name, int count, workload_set *set)
{
    definition *d;
    kwb_error err = {{0}};
    if (traceset_load(TOP_SRCDIR "/workloads", name, &d, set, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(set->count, count);
    return d;
}

/* seq_len ends in the last of max_num_pages pages; the pages are distinct, in the cache. */
static void test_topk_blobs(void **state)
{
    (void)state;
    workload_set set = {0};
    definition *d = load_shipped(TOPK_DEF, 128, &set);
    for (int k = 0; k < set.count; k++) {
        const workload *w = &set.items[k];
        int64_t b = axis(d, w, "batch_size"), p = axis(d, w, "max_num_pages"), n = axis(d, w, "num_pages");
        int32_t *lens = load_input(d, w, "seq_lens"), *table = load_input(d, w, "block_table");
        char *used = calloc((size_t)n, 1);
        for (int64_t r = 0; r < b; r++) {
            assert_true(lens[r] > (p - 1) * 64 && lens[r] <= p * 64);
            for (int64_t s = 0; s < p; s++) {
                int32_t page = table[r * p + s];
                assert_true(page >= 0 && page < n);
                assert_false(used[page]);
                used[page] = 1;
            }
        }
        free(used);
        free(lens);
        free(table);
    }
    workload_set_free(&set);
    definition_free(d);
}

/* Every token has distinct valid indices first, then -1 padding; some tokens are padded. */
static void test_attn_blobs(void **state)
{
    (void)state;
    workload_set set = {0};
    definition *d = load_shipped(ATTN_DEF, 23, &set);
    int rows = 0, padded = 0;
    for (int k = 0; k < set.count; k++) {
        const workload *w = &set.items[k];
        int64_t tokens = axis(d, w, "num_tokens"), cache = axis(d, w, "num_pages") * 64;
        int32_t *idx = load_input(d, w, "sparse_indices");
        char *seen = calloc((size_t)cache, 1);
        for (int64_t t = 0; t < tokens; t++, rows++) {
            int64_t valid = 0;
            while (valid < DSA_ATOPK && idx[t * DSA_ATOPK + valid] != -1)
                valid++;
            assert_true(valid >= 1024); /* contexts are at least 1024 tokens */
            padded += valid < DSA_ATOPK;
            for (int64_t j = 0; j < DSA_ATOPK; j++) {
                int32_t x = idx[t * DSA_ATOPK + j];
                if (j >= valid) {
                    assert_int_equal(x, -1);
                    continue;
                }
                assert_true(x >= 0 && x < cache);
                assert_false(seen[x]); /* distinct, and no page shared between tokens */
                seen[x] = 1;
            }
        }
        free(seen);
        free(idx);
    }
    print_message("%d of %d tokens padded\n", padded, rows);
    assert_true(padded >= rows / 10 && padded < rows);
    workload_set_free(&set);
    definition_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_hand),
        cmocka_unit_test(test_reference_rejects),
        cmocka_unit_test(test_topk_blobs),
        cmocka_unit_test(test_attn_blobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

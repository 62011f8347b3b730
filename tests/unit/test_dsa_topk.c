/* test_dsa_topk.c - dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 on the host: the CPU reference
 * on hand-made caches of a few pages (scores set through the scales), its refusals, the
 * generated K cache, the score-equivalence check (ties, a missed better token, duplicates,
 * unreachable indices, -1 padding) and the boundary margin. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topk_scores.h"
#include "dtype.h"
#include "rng.h"
#include "check.h"
#include "kwb/reference.h"
#include "trialbudget.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);

#define E4M3_ONE 0x38 /* 1.0 */

/* The tensors of one call, and its arguments. */
typedef struct tk_case {
    int64_t batch, max_pages, num_pages;
    uint8_t *q, *cache;
    float *w;
    int32_t *seq_lens, *table, *out, *want;
    kwb_arg args[TK_NARGS], want_arg;
} tk_case;

static void set_arg(kwb_arg *a, const char *name, kwb_dtype t, void *data, int rank, int64_t d0, int64_t d1, int64_t d2,
                    int64_t d3)
{
    *a = (kwb_arg){.name = name, .dtype = t, .rank = rank, .data = data, .shape = {d0, d1, d2, d3}};
}

static void case_init(tk_case *c, int64_t batch, int64_t max_pages, int64_t num_pages)
{
    memset(c, 0, sizeof *c);
    c->batch = batch;
    c->max_pages = max_pages;
    c->num_pages = num_pages;
    c->q = calloc((size_t)(batch * DSA_H * DSA_D) + 1, 1);
    c->cache = calloc((size_t)(num_pages * DSA_PAGE_BYTES) + 1, 1);
    c->w = calloc((size_t)(batch * DSA_H) + 1, sizeof *c->w);
    c->seq_lens = calloc((size_t)batch + 1, sizeof *c->seq_lens);
    c->table = calloc((size_t)(batch * max_pages) + 1, sizeof *c->table);
    c->out = calloc((size_t)(batch * DSA_TOPK) + 1, sizeof *c->out);
    c->want = calloc((size_t)(batch * DSA_TOPK) + 1, sizeof *c->want);
    set_arg(&c->args[TK_Q], "q_index_fp8", KWB_F8_E4M3, c->q, 3, batch, DSA_H, DSA_D, 0);
    set_arg(&c->args[TK_KCACHE], "k_index_cache_fp8", KWB_I8, c->cache, 4, num_pages, DSA_PAGE, 1, DSA_ROW_BYTES);
    set_arg(&c->args[TK_WEIGHTS], "weights", KWB_F32, c->w, 2, batch, DSA_H, 0, 0);
    set_arg(&c->args[TK_SEQ_LENS], "seq_lens", KWB_I32, c->seq_lens, 1, batch, 0, 0, 0);
    set_arg(&c->args[TK_BLOCK_TABLE], "block_table", KWB_I32, c->table, 2, batch, max_pages, 0, 0);
    set_arg(&c->args[TK_OUT], "topk_indices", KWB_I32, c->out, 2, batch, DSA_TOPK, 0, 0);
    c->want_arg = c->args[TK_OUT];
    c->want_arg.data = c->want;
}

static void case_free(tk_case *c)
{
    free(c->q);
    free(c->cache);
    free(c->w);
    free(c->seq_lens);
    free(c->table);
    free(c->out);
    free(c->want);
}

/* Scores set by hand: each row's query is 1 in head 0, dimension 0, weight 1 there, so a
 * token whose code 0 is 1.0 scores relu(its scale). */
static void controlled_query(tk_case *c)
{
    for (int64_t b = 0; b < c->batch; b++) {
        c->q[b * DSA_H * DSA_D] = E4M3_ONE;
        c->w[b * DSA_H] = 1.0f;
    }
}

static void set_value(tk_case *c, int64_t page, int offset, float value)
{
    uint8_t *base = c->cache + page * DSA_PAGE_BYTES;
    base[offset * DSA_D] = E4M3_ONE;
    memcpy(base + DSA_FP8_BYTES + 4 * offset, &value, sizeof value);
}

static int64_t index_of(const tk_case *c, int64_t b, int64_t pos)
{
    return (int64_t)c->table[b * c->max_pages + pos / DSA_PAGE] * DSA_PAGE + pos % DSA_PAGE;
}

/* Row B: seq_len LEN over the pages PAGES...; token at position pos gets VALUE(pos). */
static void set_row(tk_case *c, int64_t b, int64_t len, const int32_t *pages, float (*value)(int64_t))
{
    c->seq_lens[b] = (int32_t)len;
    for (int64_t s = 0; s < c->max_pages; s++)
        c->table[b * c->max_pages + s] = pages[s];
    for (int64_t pos = 0; pos < len; pos++)
        set_value(c, pages[pos / DSA_PAGE], (int)(pos % DSA_PAGE), value(pos));
}

static float mixed_value(int64_t pos)
{
    return (float)((pos * 37) % 70) - 20.0f; /* distinct, 20 of them negative: score 0, tied */
}

static float falling_value(int64_t pos)
{
    return 3000.0f - (float)pos;
}

/* Runs the CPU reference into c->want. */
static void reference(tk_case *c)
{
    kwb_arg a[TK_NARGS];
    memcpy(a, c->args, sizeof a);
    a[TK_OUT].data = c->want;
    assert_int_equal(kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(a, TK_NARGS, NULL), 0);
}

/* A row of 70 tokens on pages {2, 0} and an empty row: the order is score, then position. */
static void test_reference_small(void **state)
{
    (void)state;
    tk_case c;
    case_init(&c, 2, 2, 3);
    controlled_query(&c);
    const int32_t pages[2] = {2, 0}, none[2] = {1, 1};
    set_row(&c, 0, 70, pages, mixed_value);
    set_row(&c, 1, 0, none, mixed_value);
    reference(&c);
    for (int64_t pos = 0; pos < 70; pos++) {
        double s = fmax(mixed_value(pos), 0.0);
        int64_t rank = 0;
        for (int64_t j = 0; j < 70; j++) {
            double sj = fmax(mixed_value(j), 0.0);
            rank += sj > s || (sj == s && j < pos);
        }
        assert_int_equal(c.want[rank], index_of(&c, 0, pos));
    }
    assert_int_equal(c.want[0], 2 * 64 + 17); /* the largest, 49, is at position 17: 17 * 37 % 70 = 69 */
    for (int64_t i = 70; i < DSA_TOPK; i++)
        assert_int_equal(c.want[i], -1);
    for (int64_t i = 0; i < DSA_TOPK; i++)
        assert_int_equal(c.want[DSA_TOPK + i], -1);
    case_free(&c);
}

/* A row of 2100 tokens on 33 pages in reverse order: the 2048 highest in descending order. */
static void falling_case(tk_case *c)
{
    case_init(c, 1, 33, 34);
    controlled_query(c);
    int32_t pages[33];
    for (int s = 0; s < 33; s++)
        pages[s] = 32 - s;
    set_row(c, 0, 2100, pages, falling_value);
}

static void test_reference_topk(void **state)
{
    (void)state;
    tk_case c;
    falling_case(&c);
    reference(&c);
    for (int64_t i = 0; i < DSA_TOPK; i++)
        assert_int_equal(c.want[i], index_of(&c, 0, i));
    case_free(&c);
}

/* Generated inputs: 2048 distinct tokens of the row, in descending score, none left out
 * that scores higher than one chosen. */
static void test_reference_generated(void **state)
{
    (void)state;
    tk_case c;
    case_init(&c, 2, 34, 70);
    rng_fill(c.q, KWB_F8_E4M3, (size_t)(2 * DSA_H * DSA_D), rng_key(1, "gen", 0, 0));
    rng_fill(c.w, KWB_F32, 2 * DSA_H, rng_key(1, "gen", 0, 2));
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], rng_key(1, "gen", 0, 1), NULL), 0);
    int32_t pages[34];
    for (int b = 0; b < 2; b++) {
        for (int s = 0; s < 34; s++)
            pages[s] = 69 - 34 * b - s;
        c.seq_lens[b] = b ? 2150 : 1000;
        memcpy(c.table + 34 * b, pages, sizeof pages);
    }
    reference(&c);
    dsa_row row;
    assert_int_equal(dsa_row_init(&row, c.args, 1), 0);
    double *all = dsa_row_all_scores(&row);
    char *chosen = calloc(2150, 1);
    double last = INFINITY, lowest_chosen = INFINITY;
    for (int64_t i = 0; i < DSA_TOPK; i++) {
        int64_t pos = -1;
        for (int64_t p = 0; p < 2150 && pos < 0; p++)
            if (dsa_row_index(&row, p) == c.want[DSA_TOPK + i])
                pos = p;
        assert_true(pos >= 0);
        assert_false(chosen[pos]);
        chosen[pos] = 1;
        assert_true(all[pos] <= last);
        last = all[pos];
        lowest_chosen = fmin(lowest_chosen, all[pos]);
    }
    for (int64_t p = 0; p < 2150; p++)
        if (!chosen[p])
            assert_true(all[p] <= lowest_chosen);
    assert_int_equal(c.want[1000], -1); /* row 0: all 1000 tokens, then padding */
    assert_true(c.want[999] >= 0);
    free(all);
    free(chosen);
    case_free(&c);
}

static void test_reference_rejects(void **state)
{
    (void)state;
    tk_case c;
    case_init(&c, 1, 2, 3);
    const int32_t pages[2] = {2, 0};
    set_row(&c, 0, 70, pages, mixed_value);
    int (*ref)(const kwb_arg *, int, kwb_stream) = kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64;
    assert_int_equal(ref(c.args, TK_NARGS - 1, NULL), -1);
    c.table[1] = 3; /* a page in use outside the cache */
    assert_int_equal(ref(c.args, TK_NARGS, NULL), -1);
    c.table[1] = 0;
    c.seq_lens[0] = 2 * 64 + 1; /* more pages than block_table has */
    assert_int_equal(ref(c.args, TK_NARGS, NULL), -1);
    c.seq_lens[0] = -1;
    assert_int_equal(ref(c.args, TK_NARGS, NULL), -1);
    c.seq_lens[0] = 64; /* one page in use: the other slot is not read */
    c.table[1] = -7;
    assert_int_equal(ref(c.args, TK_NARGS, NULL), 0);
    c.args[TK_WEIGHTS].dtype = KWB_BF16;
    assert_int_equal(ref(c.args, TK_NARGS, NULL), -1);
    c.args[TK_WEIGHTS].dtype = KWB_F32;
    c.args[TK_OUT].shape[1] = 1024;
    assert_int_equal(ref(c.args, TK_NARGS, NULL), -1);
    case_free(&c);
}

/* The generated cache: deep_gemm's layout, per-token scale amax / 448, values a bf16 normal. */
static void test_kcache(void **state)
{
    (void)state;
    tk_case c;
    case_init(&c, 1, 1, 3);
    uint64_t key = rng_key(5, "kc", 0, 1);
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], key, NULL), 0);
    for (int64_t g = 0; g < 3 * DSA_PAGE; g++) {
        const uint8_t *base = c.cache + (g / DSA_PAGE) * DSA_PAGE_BYTES;
        const uint8_t *codes = base + (g % DSA_PAGE) * DSA_D;
        float scale;
        memcpy(&scale, base + DSA_FP8_BYTES + 4 * (g % DSA_PAGE), sizeof scale);
        assert_true(isfinite(scale) && scale > 0.0f);
        int at_max = 0;
        for (int d = 0; d < DSA_D; d++) {
            assert_int_not_equal(codes[d] & 0x7f, 0x7f); /* never NaN */
            at_max += (codes[d] & 0x7f) == 0x7e;         /* +-448: the token's largest value */
            double x = dsa_kcache_value(key, (uint64_t)g, d), y = dtype_e4m3_to_f32(codes[d]) * (double)scale;
            assert_true(fabs(x - y) <= fabs(x) / 16 + scale * 0x1p-9); /* e4m3: 3 mantissa bits */
        }
        assert_true(at_max >= 1);
    }
    uint8_t *again = malloc(3 * DSA_PAGE_BYTES);
    memcpy(again, c.cache, 3 * DSA_PAGE_BYTES);
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], key, NULL), 0);
    assert_memory_equal(again, c.cache, 3 * DSA_PAGE_BYTES);
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], key + 1, NULL), 0);
    assert_memory_not_equal(again, c.cache, 3 * DSA_PAGE_BYTES);
    kwb_arg wrong = c.args[TK_KCACHE];
    wrong.shape[3] = 128;
    assert_int_equal(kwb_generate_host(&wrong, key, NULL), -1);
    free(again);
    case_free(&c);
}

/* The cache's rows alone (kwb_generate_rows_host): pages (dims 1) or tokens (dims 2) get the bytes
 * of a whole fill from the key; the others keep theirs. */
static void test_kcache_rows(void **state)
{
    (void)state;
    tk_case c;
    case_init(&c, 1, 1, 4);
    const size_t bytes = 4 * DSA_PAGE_BYTES;
    uint64_t key = rng_key(5, "kc", 0, 2), old_key = key + 7;
    uint8_t *whole = malloc(bytes), *old = malloc(bytes);
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], key, NULL), 0);
    memcpy(whole, c.cache, bytes);
    assert_int_equal(kwb_generate_host(&c.args[TK_KCACHE], old_key, NULL), 0);
    memcpy(old, c.cache, bytes);
    const int64_t pages[2] = {1, 3};
    assert_int_equal(kwb_generate_rows_host(&c.args[TK_KCACHE], 1, pages, 2, key, NULL), 0);
    for (int p = 0; p < 4; p++)
        assert_memory_equal(c.cache + p * DSA_PAGE_BYTES, (p % 2 ? whole : old) + p * DSA_PAGE_BYTES, DSA_PAGE_BYTES);
    memcpy(c.cache, old, bytes); /* token 70 (page 1, token 6): its codes and its scale */
    const int64_t token = DSA_PAGE + 6;
    assert_int_equal(kwb_generate_rows_host(&c.args[TK_KCACHE], 2, &token, 1, key, NULL), 0);
    uint8_t *page = c.cache + DSA_PAGE_BYTES;
    assert_memory_equal(page + 6 * DSA_D, whole + DSA_PAGE_BYTES + 6 * DSA_D, DSA_D);
    assert_memory_equal(page + DSA_FP8_BYTES + 24, whole + DSA_PAGE_BYTES + DSA_FP8_BYTES + 24, 4);
    assert_memory_equal(page, old + DSA_PAGE_BYTES, 6 * DSA_D); /* its neighbours untouched */
    assert_memory_equal(page + 7 * DSA_D, old + DSA_PAGE_BYTES + 7 * DSA_D, DSA_D);
    assert_int_equal(kwb_generate_rows_host(&c.args[TK_KCACHE], 3, pages, 2, key, NULL), -1);
    free(whole);
    free(old);
    case_free(&c);
}

/* ---- the check ------------------------------------------------------------------------ */

static char msg[1024];

/* Checks c->out against c->want under the default policy (or RATIO); returns the verdict. */
static int check_ratio(tk_case *c, double ratio, check_stats *st)
{
    check_policy p = {1e-2, 1e-2, ratio};
    msg[0] = '\0';
    return kwb_check(c->args, TK_NARGS, &c->want_arg, &p, st, msg, sizeof msg);
}

static int check(tk_case *c)
{
    check_stats st;
    return check_ratio(c, 1.0, &st);
}

static void expect_fail(tk_case *c, const char *words)
{
    assert_int_equal(check(c), 1);
    if (!strstr(msg, words))
        fail_msg("message '%s' lacks '%s'", msg, words);
}

/* The output set back to the reference's. */
static void restore(tk_case *c)
{
    memcpy(c->out, c->want, sizeof *c->out * 2 * DSA_TOPK);
}

/* The falling row, then a second row of 100 tokens (padded) on the spare page 33 and page 0. */
static void check_case(tk_case *c)
{
    case_init(c, 2, 33, 35);
    controlled_query(c);
    int32_t pages[33], short_pages[33];
    for (int s = 0; s < 33; s++) {
        pages[s] = 32 - s;
        short_pages[s] = s == 0 ? 33 : s == 1 ? 34 : -1;
    }
    set_row(c, 0, 2100, pages, falling_value);
    set_row(c, 1, 100, short_pages, mixed_value);
    reference(c);
    restore(c);
}

static int setup_check_case(void **state)
{
    tk_case *c = malloc(sizeof *c);
    check_case(c);
    *state = c;
    return 0;
}

static int teardown_case(void **state)
{
    case_free(*state);
    free(*state);
    return 0;
}

static void test_check_equal_and_reordered(void **state)
{
    tk_case *c = *state;
    check_stats st;
    assert_int_equal(check_ratio(c, 1.0, &st), 0);
    assert_int_equal(st.fails, 0);
    assert_int_equal(st.numel, 2 * DSA_TOPK);
    for (int64_t i = 0; i < DSA_TOPK / 2; i++) { /* any order is fine */
        int32_t t = c->out[i];
        c->out[i] = c->out[DSA_TOPK - 1 - i];
        c->out[DSA_TOPK - 1 - i] = t;
    }
    c->out[DSA_TOPK] = c->want[DSA_TOPK + 99]; /* padding may come first, too */
    c->out[DSA_TOPK + 99] = c->want[DSA_TOPK];
    assert_int_equal(check(c), 0);
}

static void test_check_ties(void **state)
{
    tk_case *c = *state;
    /* Token 2048 ties token 2047 (the last chosen): either may be in the set. */
    set_value(c, c->table[2048 / 64], 2048 % 64, falling_value(2047));
    reference(c);
    memcpy(c->out, c->want, sizeof *c->out * DSA_TOPK);
    assert_int_equal(c->want[2047], index_of(c, 0, 2047));
    c->out[2047] = (int32_t)index_of(c, 0, 2048);
    assert_int_equal(check(c), 0);
    /* Within tolerance is as good as a tie: 0.5 % below the cut. */
    set_value(c, c->table[2048 / 64], 2048 % 64, falling_value(2047) * 0.995f);
    assert_int_equal(check(c), 0);
    /* 5 % below is not. */
    set_value(c, c->table[2048 / 64], 2048 % 64, falling_value(2047) * 0.95f);
    expect_fail(c, "rank 2047");
}

static void test_check_misses_better_token(void **state)
{
    tk_case *c = *state;
    check_stats st;
    c->out[0] = (int32_t)index_of(c, 0, 2099); /* the best token (3000) swapped for the worst (901) */
    assert_int_equal(check_ratio(c, 1.0, &st), 1);
    /* Every rank shifts by one (within tolerance: 1 in 3000 .. 953) but the last: 901 for 953. */
    assert_non_null(strstr(msg, "row 0: sorted true scores differ from the reference set's at 1 of 2048 ranks "
                                "(first at rank 2047: got 901, expected 953"));
    assert_non_null(strstr(msg, "misses a token that scores clearly higher"));
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 2047);
    assert_float_equal(st.max_abs, 52.0, 1e-9);
    assert_int_equal(check_ratio(c, 0.0, &st), 0); /* a ratio of 0 lets scores differ ... */
}

static void test_check_duplicates(void **state)
{
    tk_case *c = *state;
    check_stats st;
    c->out[5] = c->out[6];
    assert_int_equal(check_ratio(c, 0.0, &st), 1); /* ... but never a repeated index */
    assert_non_null(strstr(msg, "appears twice"));
}

static void test_check_unreachable(void **state)
{
    tk_case *c = *state;
    c->out[3] = 35 * 64; /* past the cache */
    expect_fail(c, "slot 3: index 2240 is not a token of the cache");
    restore(c);
    c->out[7] = 33 * 64; /* the second row's page */
    expect_fail(c, "row 0, slot 7: index 2112 is on a page that is not among the row's pages in use");
    restore(c);
    c->out[DSA_TOPK + 4] = 34 * 64 + 40; /* position 104 of a 100-token row */
    expect_fail(c, "row 1, slot 4: index 2216 is past seq_len in the row");
    restore(c);
    c->out[DSA_TOPK + 200] = -2; /* padding is -1 only */
    expect_fail(c, "index -2 is not a token");
}

static void test_check_padding(void **state)
{
    tk_case *c = *state;
    c->out[DSA_TOPK + 50] = -1; /* a token left out of a short row */
    expect_fail(c, "row 1: 99 indices where the reference chose 100");
    restore(c);
    c->out[2000] = -1;
    expect_fail(c, "row 0: 2047 indices where the reference chose 2048");
}

static int descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The smallest relative top-k boundary margin over the rows of ARGS (trialbudget_margin of each
 * row's sorted true scores at k = 2048): what the reference's scores give the replay budget;
 * INFINITY when no row has more than 2048 tokens, NAN when a row is invalid. */
static double dsa_topk_margin(const kwb_arg *args, int nargs)
{
    int64_t vars[TK_NVARS];
    if (dsa_topk_check_args(args, nargs, vars) != 0)
        return NAN;
    double margin = INFINITY;
    dsa_row *row = malloc(sizeof *row);
    for (int64_t b = 0; b < vars[TK_BATCH] && !isnan(margin); b++) {
        if (dsa_row_init(row, args, b) != 0) {
            margin = NAN;
        } else if (row->len > DSA_TOPK) {
            double *s = dsa_row_all_scores(row);
            qsort(s, (size_t)row->len, sizeof *s, descending);
            margin = fmin(margin, trialbudget_margin(s, (size_t)row->len, DSA_TOPK));
            free(s);
        }
    }
    free(row);
    return margin;
}

static void test_margin(void **state)
{
    tk_case *c = *state;
    /* Rank 2048 scores 953, rank 2049 952, the largest 3000; the short row has no boundary. */
    assert_float_equal(dsa_topk_margin(c->args, TK_NARGS), 1.0 / 3000.0, 1e-12);
    c->seq_lens[0] = 2000;
    assert_true(isinf(dsa_topk_margin(c->args, TK_NARGS)));
    c->seq_lens[0] = 5000;
    assert_true(isnan(dsa_topk_margin(c->args, TK_NARGS)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_small),
        cmocka_unit_test(test_reference_topk),
        cmocka_unit_test(test_reference_generated),
        cmocka_unit_test(test_reference_rejects),
        cmocka_unit_test(test_kcache),
        cmocka_unit_test(test_kcache_rows),
        cmocka_unit_test_setup_teardown(test_check_equal_and_reordered, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_check_ties, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_check_misses_better_token, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_check_duplicates, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_check_unreachable, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_check_padding, setup_check_case, teardown_case),
        cmocka_unit_test_setup_teardown(test_margin, setup_check_case, teardown_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

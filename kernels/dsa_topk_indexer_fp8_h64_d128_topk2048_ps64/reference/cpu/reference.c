/* reference.c - CPU reference of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64: DeepSeek-V3.2's
 * lightning indexer over a paged FP8 K cache (deep_gemm layout, dsa_topk.h).
 *
 * A port of the definition's PyTorch `reference` with double accumulation (scores.c). Per
 * batch row b with L = seq_lens[b]: the row's tokens are positions 0..L-1 of the first
 * ceil(L/64) pages of block_table[b]; score = sum_h w[b,h] * relu(q[b,h] . k); the top
 * min(2048, L) positions in descending score (ties: the lower position first, one of the
 * orders torch.topk may give) become global indices page * 64 + offset; the rest is -1. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "topk_scores.h"
#include "ref_alloc.h"

typedef struct ranked {
    double score;
    int64_t pos;
} ranked;

static int by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    int xn = isnan(x->score), yn = isnan(y->score);
    if (xn != yn)
        return xn ? -1 : 1; /* torch.topk ranks NaN above every number */
    if (!xn && x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Row B's top-k into OUT (2048 values). */
static void topk_row(const dsa_row *row, int32_t *out)
{
    ranked *r = ref_calloc((size_t)row->len + 1, sizeof *r);
    for (int64_t pos = 0; pos < row->len; pos++)
        r[pos] = (ranked){dsa_row_score(row, row->pages[pos / DSA_PAGE], (int)(pos % DSA_PAGE)), pos};
    qsort(r, (size_t)row->len, sizeof *r, by_score);
    int64_t n = row->len < DSA_TOPK ? row->len : DSA_TOPK;
    for (int64_t i = 0; i < DSA_TOPK; i++)
        out[i] = i < n ? (int32_t)dsa_row_index(row, r[i].pos) : -1;
    free(r);
}

/* The entry point (solution.json); its prototype for -Wmissing-prototypes and the tests. */
int kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);

int kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    int64_t vars[TK_NVARS];
    if (dsa_topk_check_args(args, nargs, vars) != 0)
        return -1;
    if (vars[TK_NUM_PAGES] > INT32_MAX / DSA_PAGE)
        return -1; /* global indices would not fit int32 */
    dsa_row *row = ref_calloc(1, sizeof *row);
    int rc = 0;
    for (int64_t b = 0; b < vars[TK_BATCH] && rc == 0; b++) {
        rc = dsa_row_init(row, args, b);
        if (rc == 0)
            topk_row(row, (int32_t *)args[TK_OUT].data + b * DSA_TOPK);
    }
    free(row);
    return rc;
}

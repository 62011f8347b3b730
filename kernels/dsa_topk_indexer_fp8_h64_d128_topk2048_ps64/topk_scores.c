/* topk_scores.c - true scores of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 (topk_scores.h). */
#include "topk_scores.h"
#include "ref_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int dsa_row_init(dsa_row *row, const kwb_arg *args, int64_t b)
{
    const uint8_t *q = args[TK_Q].data;
    const float *w = args[TK_WEIGHTS].data;
    const int64_t max_pages = args[TK_BLOCK_TABLE].shape[1];
    row->cache = args[TK_KCACHE].data;
    row->num_pages = args[TK_KCACHE].shape[0];
    row->pages = (const int32_t *)args[TK_BLOCK_TABLE].data + b * max_pages;
    row->len = ((const int32_t *)args[TK_SEQ_LENS].data)[b];
    row->npages = (row->len + DSA_PAGE - 1) / DSA_PAGE;
    if (row->len < 0 || row->npages > max_pages)
        return -1;
    for (int64_t s = 0; s < row->npages; s++)
        if (row->pages[s] < 0 || row->pages[s] >= row->num_pages)
            return -1;
    for (int c = 0; c < 256; c++)
        row->code[c] = dtype_bits_e4m3_to_f32((uint8_t)c);
    for (int h = 0; h < DSA_H; h++) {
        row->w[h] = w[b * DSA_H + h];
        for (int d = 0; d < DSA_D; d++)
            row->q[d][h] = row->code[q[(b * DSA_H + h) * DSA_D + d]];
    }
    return 0;
}

double dsa_row_score(const dsa_row *row, int64_t page, int offset)
{
    const uint8_t *base = row->cache + page * DSA_PAGE_BYTES;
    const uint8_t *codes = base + offset * DSA_D;
    float scale;
    memcpy(&scale, base + DSA_FP8_BYTES + 4 * offset, sizeof scale);
    double acc[DSA_H] = {0};
    for (int d = 0; d < DSA_D; d++) {
        const double k = row->code[codes[d]] * (double)scale;
        for (int h = 0; h < DSA_H; h++)
            acc[h] += row->q[d][h] * k;
    }
    double s = 0.0;
    for (int h = 0; h < DSA_H; h++)
        s += row->w[h] * (acc[h] < 0.0 ? 0.0 : acc[h]); /* relu; NaN stays NaN, as in PyTorch */
    return s;
}

double dsa_row_score_index(const dsa_row *row, int64_t index)
{
    return dsa_row_score(row, index / DSA_PAGE, (int)(index % DSA_PAGE));
}

int64_t dsa_row_index(const dsa_row *row, int64_t pos)
{
    return (int64_t)row->pages[pos / DSA_PAGE] * DSA_PAGE + pos % DSA_PAGE;
}

double *dsa_row_all_scores(const dsa_row *row)
{
    double *s = ref_calloc((size_t)row->len + 1, sizeof *s);
    for (int64_t pos = 0; pos < row->len; pos++)
        s[pos] = dsa_row_score(row, row->pages[pos / DSA_PAGE], (int)(pos % DSA_PAGE));
    return s;
}

/* topk_scores.h - the true scores of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 on the host, as
 * the CPU reference and the score-equivalence check compute them: per
 * batch row, score(token) = sum over 64 heads of w[h] * relu(q[h] . k), with k the token's
 * dequantized key (e4m3 code * its float32 scale), in double. Arguments are host memory in
 * definition order, already checked by dsa_topk_check_args. */
#ifndef KWB_DSA_TOPK_SCORES_H
#define KWB_DSA_TOPK_SCORES_H

#include <stddef.h>
#include <stdint.h>

#include "dsa_topk.h"

/* One batch row as the reference sees it. */
typedef struct dsa_row {
    double q[DSA_D][DSA_H]; /* the query, transposed: the head loop is the inner one */
    double w[DSA_H];
    double code[256]; /* e4m3 code -> value */
    const uint8_t *cache;
    int64_t num_pages;
    const int32_t *pages; /* this row of block_table */
    int64_t npages;       /* pages in use: ceil(len / 64) */
    int64_t len;          /* seq_len */
} dsa_row;

/* Fills ROW with batch row B of ARGS. Returns 0, or -1 when seq_len is negative or needs more
 * pages than block_table has, or a page in use is outside the cache. */
int dsa_row_init(dsa_row *row, const kwb_arg *args, int64_t b);

/* The true score of the token at OFFSET (0..63) of cache page PAGE. */
double dsa_row_score(const dsa_row *row, int64_t page, int offset);

/* The score of the token with global index INDEX (page * 64 + offset). */
double dsa_row_score_index(const dsa_row *row, int64_t index);

/* The global index of the row's token at position POS (0 <= POS < len). */
int64_t dsa_row_index(const dsa_row *row, int64_t pos);

/* Every token's score, by position: a new array of len values the caller frees. */
double *dsa_row_all_scores(const dsa_row *row);

#endif

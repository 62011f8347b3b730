/* dsa_topk_baseline.c - plain C solution of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 (kwb ABI),
 * for the CPU device (CI-sized workloads).
 *
 * Float32 math, one thread. Per batch row: every token's score, head by head (a dot product of
 * the fp8 query and the token's fp8 key, times the key's scale, relu, times the head's weight);
 * then, when the row has more than 2048 tokens, the 2048th largest score by quickselect on a
 * copy, and the tokens above it followed by those equal to it until 2048 are taken. The output
 * is in position order, not score order (the check compares sets by score).
 *
 * Arguments: q_index_fp8 k_index_cache_fp8 weights seq_lens block_table | topk_indices. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/kernel.h"

#define H 64    /* index heads */
#define D 128   /* head dim */
#define PAGE 64 /* tokens per page */
#define TOPK 2048
#define PAGE_BYTES (PAGE * 132)

/* float8_e4m3fn code C as a float (NaN for 0x7f and 0xff). */
static float e4m3(unsigned c)
{
    unsigned e = (c >> 3) & 15u, m = c & 7u;
    float v = e == 0 ? (float)m * 0x1p-9f : (e == 15 && m == 7 ? NAN : ldexpf(1.0f + (float)m * 0.125f, (int)e - 7));
    return (c & 0x80u) ? -v : v;
}

/* The score of the token at OFFSET of PAGE for query Q (H x D floats) and weights W. */
static float token_score(const uint8_t *cache, int64_t page, int offset, const float *q, const float *w,
                         const float *lut)
{
    const uint8_t *base = cache + page * PAGE_BYTES, *codes = base + offset * D;
    float scale, score = 0.0f;
    memcpy(&scale, base + PAGE * D + 4 * offset, sizeof scale);
    for (int h = 0; h < H; h++) {
        float dot = 0.0f;
        for (int d = 0; d < D; d++)
            dot += q[h * D + d] * lut[codes[d]];
        score += w[h] * fmaxf(dot * scale, 0.0f);
    }
    return score;
}

/* The K-th largest of the N values V (reordered), by quickselect. */
static float kth_largest(float *v, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1, want = k - 1;
    while (lo < hi) {
        float pivot = v[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] > pivot)
                i++;
            while (v[j] < pivot)
                j--;
            if (i <= j) {
                float t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (want <= j)
            hi = j;
        else if (want >= i)
            lo = i;
        else
            break;
    }
    return v[want];
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 6)
        return -1;
    const uint8_t *q8 = args[0].data, *cache = args[1].data;
    const float *weights = args[2].data;
    const int32_t *seq_lens = args[3].data, *table = args[4].data;
    int32_t *out = args[5].data;
    const int64_t batch = args[0].shape[0], num_pages = args[1].shape[0], max_pages = args[4].shape[1];
    float lut[256], q[H * D];
    for (unsigned c = 0; c < 256; c++)
        lut[c] = e4m3(c);
    float *score = malloc(sizeof *score * (size_t)(max_pages * PAGE + 1));
    float *copy = malloc(sizeof *copy * (size_t)(max_pages * PAGE + 1));
    if (!score || !copy) {
        free(score);
        free(copy);
        return -1;
    }
    for (int64_t b = 0; b < batch; b++) {
        const int32_t *pages = table + b * max_pages;
        int64_t len = seq_lens[b] < 0 ? 0 : seq_lens[b] > max_pages * PAGE ? max_pages * PAGE : seq_lens[b];
        for (int i = 0; i < H * D; i++)
            q[i] = lut[q8[b * H * D + i]];
        for (int64_t p = 0; p < len; p++) {
            int64_t page = pages[p / PAGE];
            score[p] = page >= 0 && page < num_pages
                           ? token_score(cache, page, (int)(p % PAGE), q, weights + b * H, lut)
                           : -INFINITY;
        }
        float cut = -INFINITY;
        if (len > TOPK) {
            memcpy(copy, score, sizeof *score * (size_t)len);
            cut = kth_largest(copy, len, TOPK);
        }
        int64_t n = 0;
        for (int64_t p = 0; p < len && n < TOPK; p++) /* above the cut */
            if (len <= TOPK || score[p] > cut)
                out[b * TOPK + n++] = pages[p / PAGE] * PAGE + (int32_t)(p % PAGE);
        for (int64_t p = 0; p < len && n < TOPK && len > TOPK; p++) /* then ties at the cut */
            if (score[p] == cut)
                out[b * TOPK + n++] = pages[p / PAGE] * PAGE + (int32_t)(p % PAGE);
        while (n < TOPK)
            out[b * TOPK + n++] = -1;
    }
    free(score);
    free(copy);
    return 0;
}

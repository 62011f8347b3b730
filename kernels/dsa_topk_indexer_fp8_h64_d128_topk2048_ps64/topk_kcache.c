/* topk_kcache.c - the generated k_index_cache_fp8 of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
 * on the host (kwb_generate_host: the cpu device's generator, the CUDA one's twin): a bfloat16
 * N(0,1) cache quantized per token to deep_gemm's FP8 page layout, as FlashInfer-Bench's top-k
 * evaluator makes it (formulas in dsa_topk.h; reference/cuda/kcache.cu makes the same bytes on
 * the GPU). */
#include <math.h>
#include <string.h>

#include "dsa_topk.h"
#include "kwb/reference.h"

/* Token TOKEN of CACHE from KEY: its 128 codes and its scale, at their places in its page. */
static void kcache_token(uint8_t *cache, int64_t token, uint64_t key)
{
    uint8_t *page = cache + token / DSA_PAGE * DSA_PAGE_BYTES;
    const int t = (int)(token % DSA_PAGE);
    float v[DSA_D], amax = 0.0f;
    for (int d = 0; d < DSA_D; d++) {
        v[d] = dsa_kcache_value(key, (uint64_t)token, d);
        if (fabsf(v[d]) > amax)
            amax = fabsf(v[d]);
    }
    const float scale = dsa_kcache_scale(amax);
    for (int d = 0; d < DSA_D; d++)
        page[t * DSA_D + d] = dsa_kcache_code(v[d], scale);
    memcpy(page + DSA_FP8_BYTES + 4 * t, &scale, sizeof scale);
}

int kwb_generate_host(const kwb_arg *arg, uint64_t key, kwb_stream stream)
{
    (void)stream;
    int64_t vars[TK_NVARS];
    if (argspec_check(arg, 1, &dsa_topk_specs[TK_KCACHE], 1, vars, TK_NVARS) != 0)
        return -1;
    for (int64_t token = 0; token < vars[TK_NUM_PAGES] * DSA_PAGE; token++)
        kcache_token(arg->data, token, key);
    return 0;
}

/* Rows are pages (DIMS 1) or tokens (DIMS 2). */
int kwb_generate_rows_host(const kwb_arg *arg, int dims, const int64_t *rows, int64_t nrows, uint64_t key,
                           kwb_stream stream)
{
    (void)stream;
    int64_t vars[TK_NVARS];
    if ((dims != 1 && dims != 2) || argspec_check(arg, 1, &dsa_topk_specs[TK_KCACHE], 1, vars, TK_NVARS) != 0)
        return -1;
    const int per_row = dims == 1 ? DSA_PAGE : 1;
    for (int64_t r = 0; r < nrows; r++)
        for (int t = 0; t < per_row; t++)
            kcache_token(arg->data, rows[r] * per_row + t, key);
    return 0;
}

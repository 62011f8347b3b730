/* topk_kcache.c - the generated k_index_cache_fp8 of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64
 * on the host (kwb_generate_host: the cpu device's generator, the CUDA one's twin): a bfloat16
 * N(0,1) cache quantized per token to deep_gemm's FP8 page layout, as FlashInfer-Bench's top-k
 * evaluator makes it (formulas in dsa_topk.h; reference/cuda/kcache.cu makes the same bytes on
 * the GPU). */
#include <math.h>
#include <string.h>

#include "dsa_topk.h"
#include "kwb/reference.h"

int kwb_generate_host(const kwb_arg *arg, uint64_t key, kwb_stream stream)
{
    (void)stream;
    int64_t vars[TK_NVARS];
    if (argspec_check(arg, 1, &dsa_topk_specs[TK_KCACHE], 1, vars, TK_NVARS) != 0)
        return -1;
    uint8_t *cache = arg->data;
    for (int64_t p = 0; p < vars[TK_NUM_PAGES]; p++) {
        uint8_t *page = cache + p * DSA_PAGE_BYTES;
        for (int t = 0; t < DSA_PAGE; t++) {
            const uint64_t token = (uint64_t)(p * DSA_PAGE + t);
            float v[DSA_D], amax = 0.0f;
            for (int d = 0; d < DSA_D; d++) {
                v[d] = dsa_kcache_value(key, token, d);
                if (fabsf(v[d]) > amax)
                    amax = fabsf(v[d]);
            }
            const float scale = dsa_kcache_scale(amax);
            for (int d = 0; d < DSA_D; d++)
                page[t * DSA_D + d] = dsa_kcache_code(v[d], scale);
            memcpy(page + DSA_FP8_BYTES + 4 * t, &scale, sizeof scale);
        }
    }
    return 0;
}

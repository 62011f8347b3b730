/* kcache.cu - the generated k_index_cache_fp8 of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 on
 * the GPU: the same bytes as cpu/kcache.c (formulas in dsa_topk.h: exact operations, IEEE
 * division and one multiply, which nvcc's defaults keep IEEE). One warp per token, lane l
 * holding values 4l..4l+3 (dsa_kcache_store_token). */
#include <cuda_runtime.h>

#include "dsa_topk.h"
#include "kwb/kernel.h"

enum { KC_WARPS = 8, KC_MAX_BLOCKS = 8192 };

static __global__ void __launch_bounds__(KC_WARPS * 32) kcache_kernel(uint8_t *cache, int64_t tokens, uint64_t key)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * KC_WARPS;
    for (int64_t g = (int64_t)blockIdx.x * KC_WARPS + threadIdx.x / 32; g < tokens; g += stride) {
        float v[4];
        for (int i = 0; i < 4; i++)
            v[i] = dsa_kcache_value(key, (uint64_t)g, 4 * lane + i);
        dsa_kcache_store_token(cache, g, lane, v);
    }
}

extern "C" int kwb_generate(const kwb_arg *arg, uint64_t key, kwb_stream stream)
{
    int64_t vars[TK_NVARS];
    if (argspec_check(arg, 1, &dsa_topk_specs[TK_KCACHE], 1, vars, TK_NVARS) != 0)
        return -1;
    const int64_t tokens = vars[TK_NUM_PAGES] * DSA_PAGE;
    if (tokens == 0)
        return 0;
    int64_t blocks = (tokens + KC_WARPS - 1) / KC_WARPS;
    if (blocks > KC_MAX_BLOCKS)
        blocks = KC_MAX_BLOCKS;
    kcache_kernel<<<(unsigned)blocks, KC_WARPS * 32, 0, (cudaStream_t)stream>>>((uint8_t *)arg->data, tokens, key);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
}

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

/* The tokens of the NROWS rows at ROWS (PER_ROW tokens a row: a page's 64, or one). */
static __global__ void __launch_bounds__(KC_WARPS * 32)
    kcache_rows_kernel(uint8_t *cache, const int64_t *rows, int64_t nrows, int per_row, uint64_t key)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * KC_WARPS, tokens = nrows * per_row;
    for (int64_t i = (int64_t)blockIdx.x * KC_WARPS + threadIdx.x / 32; i < tokens; i += stride) {
        const int64_t g = rows[i / per_row] * per_row + i % per_row;
        float v[4];
        for (int k = 0; k < 4; k++)
            v[k] = dsa_kcache_value(key, (uint64_t)g, 4 * lane + k);
        dsa_kcache_store_token(cache, g, lane, v);
    }
}

/* Rows are pages (DIMS 1) or tokens (DIMS 2); ROWS in device memory. */
extern "C" int kwb_generate_rows(const kwb_arg *arg, int dims, const int64_t *rows, int64_t nrows, uint64_t key,
                                 kwb_stream stream)
{
    int64_t vars[TK_NVARS];
    if ((dims != 1 && dims != 2) || argspec_check(arg, 1, &dsa_topk_specs[TK_KCACHE], 1, vars, TK_NVARS) != 0)
        return -1;
    const int per_row = dims == 1 ? DSA_PAGE : 1;
    if (nrows == 0)
        return 0;
    int64_t blocks = (nrows * per_row + KC_WARPS - 1) / KC_WARPS;
    if (blocks > KC_MAX_BLOCKS)
        blocks = KC_MAX_BLOCKS;
    kcache_rows_kernel<<<(unsigned)blocks, KC_WARPS * 32, 0, (cudaStream_t)stream>>>((uint8_t *)arg->data, rows, nrows,
                                                                                     per_row, key);
    return cudaGetLastError() != cudaSuccess ? -1 : 0;
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

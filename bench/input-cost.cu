/* bench/input-cost.cu - what one fresh input set of the DSA top-k definition costs on the GPU, by
 * part: the generated K cache (kcache.cu's kwb_generate over the contest's 11,923 pages, 100.7 MB),
 * the digest that seals it (the runner's kwb_digest), and a plain memset of the same bytes (what
 * writing them costs at the least). Each part is timed with CUDA events, the median of 21 runs.
 *   nvcc -O3 -gencode=arch=compute_90a,code=sm_90a -Iinclude -Isrc \
 *        -Ikernels/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 bench/input-cost.cu \
 *        kernels/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/reference/cuda/kcache.cu \
 *        src/runner/cuda_support.cu -o input-cost && ./input-cost */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>

#include "dsa_topk.h"
#include "kwb/reference.h"

extern "C" int cuda_support_digest(void *stream, const void *p, size_t n, uint64_t key, unsigned long long *out,
                                   unsigned long long *host_out);

enum { RUNS = 21, PAGES = 11923 };

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "input-cost: %s: %s\n", #x, cudaGetErrorString(e_));                                       \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

/* The median over RUNS of the milliseconds PART takes on the default stream. */
template <typename F> static float median_ms(F part)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int i = 0; i < RUNS + 2; i++) {
        CHECK(cudaEventRecord(a));
        part(i);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float t;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= 2)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

/* The K cache's layout (kcache.cu's kernel) with value D of token G drawn another way: what the
 * generator costs by draw. Variant 0: rng_normal's three splitmix64 hashes a value (the formula
 * before 2026-12-07); 1: one hash for four values (a 16-bit word each); 2: no hash (the layout's
 * and the quantization's cost alone). The shipped draw, one hash a value, is kwb_generate's. */
template <int VARIANT>
static __global__ void __launch_bounds__(256) kcache_variant(uint8_t *cache, int64_t tokens, uint64_t key)
{
    const int lane = threadIdx.x & 31;
    const int64_t stride = (int64_t)gridDim.x * 8;
    for (int64_t g = (int64_t)blockIdx.x * 8 + threadIdx.x / 32; g < tokens; g += stride) {
        float v[4];
        uint64_t h = VARIANT == 1 ? rng_formula_bits(key, (uint64_t)g * 32 + lane) : 0;
        for (int i = 0; i < 4; i++) {
            const uint64_t idx = (uint64_t)g * DSA_D + 4 * lane + i;
            float x;
            if (VARIANT == 0)
                x = rng_formula_normal(key, idx);
            else if (VARIANT == 1)
                x = (float)((int32_t)((h >> (16 * i)) & 0xffff) - 32768) * 0x1p-14f;
            else
                x = (float)((int32_t)(idx & 0xff) - 128) * 0x1p-6f;
            v[i] = dtype_bits_bf16_to_f32(dtype_bits_f32_to_bf16(x));
        }
        dsa_kcache_store_token(cache, g, lane, v);
    }
}

int main()
{
    const size_t bytes = (size_t)PAGES * DSA_PAGE_BYTES;
    void *cache;
    unsigned long long *sum;
    CHECK(cudaMalloc(&cache, bytes));
    CHECK(cudaMalloc(&sum, sizeof *sum));
    kwb_arg arg = {};
    arg.name = "k_index_cache_fp8";
    arg.dtype = KWB_I8;
    arg.rank = 4;
    arg.shape[0] = PAGES;
    arg.shape[1] = DSA_PAGE;
    arg.shape[2] = 1;
    arg.shape[3] = DSA_ROW_BYTES;
    arg.data = cache;
    float gen = median_ms([&](int i) {
        if (kwb_generate(&arg, 0x1234 + (uint64_t)i, 0) != 0)
            exit(1);
    });
    float digest = median_ms([&](int i) { CHECK((cudaError_t)cuda_support_digest(0, cache, bytes, 7 + i, sum, 0)); });
    float fill = median_ms([&](int i) { CHECK(cudaMemsetAsync(cache, i, bytes)); });
    const int64_t tokens = (int64_t)PAGES * DSA_PAGE;
    float var[3];
    var[0] = median_ms([&](int i) { kcache_variant<0><<<8192, 256>>>((uint8_t *)cache, tokens, i); });
    var[1] = median_ms([&](int i) { kcache_variant<1><<<8192, 256>>>((uint8_t *)cache, tokens, i); });
    var[2] = median_ms([&](int i) { kcache_variant<2><<<8192, 256>>>((uint8_t *)cache, tokens, i); });
    CHECK(cudaGetLastError());
    printf("k cache variants: three hashes a value %.3f ms, one hash for four %.3f ms, no hash %.3f ms\n", var[0],
           var[1], var[2]);
    printf("k cache %.1f MB: generate %.3f ms, digest %.3f ms, memset %.3f ms\n", bytes / 1e6, gen, digest, fill);
    return 0;
}

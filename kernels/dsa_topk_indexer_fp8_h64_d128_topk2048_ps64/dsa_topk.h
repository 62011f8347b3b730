/* dsa_topk.h - what the references, the K-cache generator and the check of
 * dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 share: the constants, the argument table, and
 * the generator's formulas. Valid C and CUDA (host and device) code.
 *
 * The K cache is in deep_gemm's paged FP8 layout: page p is 64 * 132 bytes, first the 64 * 128
 * e4m3 codes (token t's 128 codes at t * 128), then the 64 float32 scales (token t's at
 * 8192 + 4 t); token t of page p dequantizes to e4m3(code) * scale. Its global index is
 * p * 64 + t. */
#ifndef KWB_DSA_TOPK_H
#define KWB_DSA_TOPK_H

#include <stdint.h>

#include "kwb/argspec.h"
#include "kwb/dtype_bits.h"
#include "kwb/rng_formula.h"

enum {
    DSA_H = 64,    /* index heads */
    DSA_D = 128,   /* index head dim */
    DSA_PAGE = 64, /* tokens per page */
    DSA_TOPK = 2048,
    DSA_ROW_BYTES = 132,              /* head_dim_with_scale */
    DSA_FP8_BYTES = DSA_PAGE * DSA_D, /* 8192: a page's codes, then its scales */
    DSA_PAGE_BYTES = DSA_PAGE * DSA_ROW_BYTES,
};

/* Argument positions (inputs, then the output) and var axes. */
enum { TK_Q, TK_KCACHE, TK_WEIGHTS, TK_SEQ_LENS, TK_BLOCK_TABLE, TK_OUT, TK_NARGS };
enum { TK_BATCH, TK_MAX_PAGES, TK_NUM_PAGES, TK_NVARS };

static const argspec dsa_topk_specs[TK_NARGS] = {
    {"q_index_fp8", KWB_F8_E4M3, 3, {ARGSPEC_VAR(TK_BATCH), DSA_H, DSA_D}},
    {"k_index_cache_fp8", KWB_I8, 4, {ARGSPEC_VAR(TK_NUM_PAGES), DSA_PAGE, 1, DSA_ROW_BYTES}},
    {"weights", KWB_F32, 2, {ARGSPEC_VAR(TK_BATCH), DSA_H}},
    {"seq_lens", KWB_I32, 1, {ARGSPEC_VAR(TK_BATCH)}},
    {"block_table", KWB_I32, 2, {ARGSPEC_VAR(TK_BATCH), ARGSPEC_VAR(TK_MAX_PAGES)}},
    {"topk_indices", KWB_I32, 2, {ARGSPEC_VAR(TK_BATCH), DSA_TOPK}},
};

/* Returns 0 when the arguments match the definition, with batch_size, max_num_pages and
 * num_pages in VARS; else -1. */
static inline int dsa_topk_check_args(const kwb_arg *args, int nargs, int64_t vars[TK_NVARS])
{
    return argspec_check(args, nargs, dsa_topk_specs, TK_NARGS, vars, TK_NVARS);
}

/* ---- the generated K cache (FlashInfer-Bench's DsaTopkIndexerEvaluator) ------------------
 * A random k_index_cache_fp8 is not uniform bytes (those hold NaN codes and arbitrary scales)
 * but a bfloat16 N(0,1) cache quantized per token: scale = max(amax, 1e-4) / 448, code =
 * e4m3(x * (1 / scale)), all in float32. Value d of global token g under key K is the bfloat16
 * of an approximately N(0,1) draw: the four 16-bit words of one hash rng_bits(K, 128 g + d)
 * summed (an Irwin-Hall sum of four), centred and scaled by the float nearest 1 / sigma. One hash
 * a value, not rng_normal's three: the cache is 100 MB and made afresh for every input set.
 * Only exact operations and IEEE division and multiply, so the host and the GPU produce the same
 * bytes. */

/* Value D of global token TOKEN before quantization (a bfloat16, widened). */
static inline KWB_HD float dsa_kcache_value(uint64_t key, uint64_t token, int d)
{
    const int32_t centred = (int32_t)rng_formula_sum16(rng_formula_bits(key, token * DSA_D + (uint64_t)d)) - 131070;
    const float x = (float)centred * 0x1.bb67aep-16f; /* sigma: sqrt(4 (65536^2 - 1) / 12) */
    return dtype_bits_bf16_to_f32(dtype_bits_f32_to_bf16(x));
}

/* A token's scale from the largest magnitude AMAX of its values. */
static inline KWB_HD float dsa_kcache_scale(float amax)
{
    return (amax > 1e-4f ? amax : 1e-4f) / 448.0f;
}

/* The e4m3 code of value V under SCALE. */
static inline KWB_HD uint8_t dsa_kcache_code(float v, float scale)
{
    return dtype_bits_f32_to_e4m3(v * (1.0f / scale));
}

#ifdef __CUDACC__
/* Warp-wide, one token a warp: quantizes global token G into CACHE's page layout from the values
 * V[0..3] lane LANE holds (its values 4 lane .. 4 lane + 3); the scale comes from a warp max of
 * their magnitudes, and lane 0 stores it. */
static __device__ inline void dsa_kcache_store_token(uint8_t *cache, int64_t g, int lane, const float v[4])
{
    float amax = 0.0f;
    for (int i = 0; i < 4; i++)
        amax = fmaxf(amax, fabsf(v[i]));
    for (int o = 16; o > 0; o >>= 1)
        amax = fmaxf(amax, __shfl_xor_sync(0xffffffffu, amax, o));
    const float scale = dsa_kcache_scale(amax);
    uint8_t *page = cache + (g / DSA_PAGE) * DSA_PAGE_BYTES;
    const int t = (int)(g % DSA_PAGE);
    uint32_t codes = 0;
    for (int i = 0; i < 4; i++)
        codes |= (uint32_t)dsa_kcache_code(v[i], scale) << (8 * i); /* little-endian bytes */
    reinterpret_cast<uint32_t *>(page + t * DSA_D)[lane] = codes;
    if (lane == 0)
        reinterpret_cast<float *>(page + DSA_FP8_BYTES)[t] = scale;
}
#endif

#endif

/* rng_formula.h - the formulas of rng.h as static inline functions that compile as C, as
 * C++ and as CUDA device code: rng.c fills host buffers with them and
 * src/runner/cuda_rng.cu fills device buffers with them, so both give the same bits by
 * construction.
 *
 * Only integer operations, plus one float conversion of an integer below 2^24 and one
 * multiply by 2^-16, both exact: no rounding mode, FMA contraction or fast-math flag can
 * change a result. rng.h states the formulas and the distributions per dtype. */
#ifndef KWB_RNG_FORMULA_H
#define KWB_RNG_FORMULA_H

#include <stdint.h>

#include "kwb/dtype_bits.h"
#include "kwb/kernel.h"

/* splitmix64's finalizer. */
static inline KWB_HD uint64_t rng_formula_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* 64 random bits for counter I under key K (rng_bits). */
static inline KWB_HD uint64_t rng_formula_bits(uint64_t k, uint64_t i)
{
    return rng_formula_mix(k + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

/* Sum of the four 16-bit words of X. */
static inline KWB_HD uint32_t rng_formula_sum16(uint64_t x)
{
    return (uint32_t)(x & 0xffff) + (uint32_t)((x >> 16) & 0xffff) + (uint32_t)((x >> 32) & 0xffff) +
           (uint32_t)(x >> 48);
}

/* Approximately N(0,1) value I under key K (rng_normal): an Irwin-Hall sum of twelve
 * 16-bit words, centred and scaled by 2^-16. */
static inline KWB_HD float rng_formula_normal(uint64_t k, uint64_t i)
{
    uint32_t s = rng_formula_sum16(rng_formula_bits(k, 3 * i)) + rng_formula_sum16(rng_formula_bits(k, 3 * i + 1)) +
                 rng_formula_sum16(rng_formula_bits(k, 3 * i + 2));
    return (float)((int32_t)s - 393210) * 0x1p-16f; /* exact: no rounding anywhere */
}

/* Uniform integer in [lo, hi) for counter I under key K (rng_uniform); hi - lo in 1..2^32. */
static inline KWB_HD int64_t rng_formula_uniform(uint64_t k, uint64_t i, int64_t lo, int64_t hi)
{
    uint64_t range = (uint64_t)(hi - lo);
    return lo + (int64_t)(((rng_formula_bits(k, i) >> 32) * range) >> 32);
}

/* The stored bits of element I of an rng_fill(KEY) of type T, zero-extended from the
 * element's width (dtype_size(T) bytes, host byte order when stored as that width's
 * unsigned integer): floats are rng_formula_normal converted as dtype_store does (fp8
 * clamped to [-2, 2] first), int8 uniform in [-128, 128), other ints uniform in
 * [-1024, 1024) in two's complement, bool the top bit of rng_formula_bits. 0 for an
 * unknown T. */
static inline KWB_HD uint64_t rng_formula_value(kwb_dtype t, uint64_t key, uint64_t i)
{
    switch (t) {
    case KWB_F32: return dtype_bits_of_f32(rng_formula_normal(key, i));
    case KWB_F16: return dtype_bits_f32_to_f16(rng_formula_normal(key, i));
    case KWB_BF16: return dtype_bits_f32_to_bf16(rng_formula_normal(key, i));
    case KWB_F8_E4M3:
    case KWB_F8_E5M2: {
        float v = rng_formula_normal(key, i);
        v = v < -2.0f ? -2.0f : v > 2.0f ? 2.0f : v;
        return t == KWB_F8_E4M3 ? dtype_bits_f32_to_e4m3(v) : dtype_bits_f32_to_e5m2(v);
    }
    case KWB_I64: return (uint64_t)rng_formula_uniform(key, i, -1024, 1024);
    case KWB_I32: return (uint32_t)rng_formula_uniform(key, i, -1024, 1024);
    case KWB_I16: return (uint16_t)rng_formula_uniform(key, i, -1024, 1024);
    case KWB_I8: return (uint8_t)rng_formula_uniform(key, i, -128, 128);
    case KWB_BOOL: return rng_formula_bits(key, i) >> 63;
    }
    return 0;
}

#endif

/* rng.h - reproducible inputs: a counter-based generator keyed by (seed, workload, trial,
 * input), so that any element can be drawn alone, in any order, on any device.
 *
 * The formulas are the contract that a device-side generator must reproduce bit for bit:
 *   mix(x)         = splitmix64's finalizer: x ^= x>>30; x *= 0xbf58476d1ce4e5b9;
 *                    x ^= x>>27; x *= 0x94d049bb133111eb; x ^= x>>31
 *   rng_bits(k, i) = mix(k + (i + 1) * 0x9e3779b97f4a7c15)       (64 bits, wrapping)
 *   normal(k, i)   = Irwin-Hall sum of twelve 16-bit uniforms: the four 16-bit words of
 *                    rng_bits(k, 3i), rng_bits(k, 3i+1), rng_bits(k, 3i+2), summed as
 *                    integers s; value ((float)(s - 393210)) * 2^-16, which is exact
 *                    (|s - 393210| < 2^24). Mean 0, variance 1 - 2^-32, tails cut at +-6:
 *                    FlashInfer-Bench's N(0,1) in distribution, not in bits.
 *   uniform(k, i, lo, hi) = lo + ((rng_bits(k, i) >> 32) * (hi - lo)) >> 32   (hi - lo <= 2^32)
 */
#ifndef KWB_RNG_H
#define KWB_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "kwb/kernel.h"

/* The key of one input of one trial of one workload. */
uint64_t rng_key(uint64_t seed, const char *uuid, int trial, int input_index);
/* 64 random bits for counter I under key K. */
uint64_t rng_bits(uint64_t k, uint64_t i);
/* Approximately N(0,1) value I under key K (see above). */
float rng_normal(uint64_t k, uint64_t i);
/* Uniform integer in [lo, hi) for counter I under key K; hi - lo must be in 1..2^32. */
int64_t rng_uniform(uint64_t k, uint64_t i, int64_t lo, int64_t hi);
/* Fills N elements of type T at DATA with FlashInfer-Bench's distributions: floats N(0,1);
 * fp8 N(0,1) clamped to [-2, 2] then cast; int8 uniform in [-128, 128); other ints
 * uniform in [-1024, 1024); bool 0 or 1. */
void rng_fill(void *data, kwb_dtype t, size_t n, uint64_t k);
/* Elements [FIRST, FIRST + N) of rng_fill(DATA, T, ..., K) alone, at their places from DATA (the
 * same bytes the whole fill writes there): a large fill in parts, e.g. one per thread. */
void rng_fill_part(void *data, kwb_dtype t, size_t first, size_t n, uint64_t k);

#endif

/* rng.c - reproducible inputs. The formulas are in rng_formula.h, which the CUDA device's
 * generator (src/runner/cuda_rng.cu) includes too, so host and device fills are identical
 * bit for bit. */
#include "rng.h"

#include <string.h>

#include "dtype.h"
#include "kwb/rng_formula.h"

uint64_t rng_bits(uint64_t k, uint64_t i)
{
    return rng_formula_bits(k, i);
}

uint64_t rng_key(uint64_t seed, const char *uuid, int trial, int input_index)
{
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a over the uuid */
    for (const unsigned char *p = (const unsigned char *)uuid; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    uint64_t k = rng_formula_mix(seed ^ 0x6b7762ULL);
    k = rng_formula_mix(k ^ h);
    k = rng_formula_mix(k ^ (uint64_t)(uint32_t)trial);
    return rng_formula_mix(k ^ ((uint64_t)(uint32_t)input_index << 32));
}

float rng_normal(uint64_t k, uint64_t i)
{
    return rng_formula_normal(k, i);
}

int64_t rng_uniform(uint64_t k, uint64_t i, int64_t lo, int64_t hi)
{
    return rng_formula_uniform(k, i, lo, hi);
}

/* Stores the low dtype_size(t) bytes of each rng_formula_value as that width's unsigned
 * integer, in host byte order (what dtype_store writes). Nothing for an unknown type. */
void rng_fill_part(void *data, kwb_dtype t, size_t first, size_t n, uint64_t k)
{
    unsigned char *p = data;
    const size_t end = first + n;
    switch (dtype_size(t)) {
    case 1:
        for (size_t i = first; i < end; i++)
            p[i] = (uint8_t)rng_formula_value(t, k, i);
        return;
    case 2:
        for (size_t i = first; i < end; i++) {
            uint16_t w = (uint16_t)rng_formula_value(t, k, i);
            memcpy(p + 2 * i, &w, 2);
        }
        return;
    case 4:
        for (size_t i = first; i < end; i++) {
            uint32_t w = (uint32_t)rng_formula_value(t, k, i);
            memcpy(p + 4 * i, &w, 4);
        }
        return;
    case 8:
        for (size_t i = first; i < end; i++) {
            uint64_t w = rng_formula_value(t, k, i);
            memcpy(p + 8 * i, &w, 8);
        }
        return;
    }
}

void rng_fill(void *data, kwb_dtype t, size_t n, uint64_t k)
{
    rng_fill_part(data, t, 0, n, k);
}

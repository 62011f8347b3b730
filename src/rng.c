#include "rng.h"

#include "dtype.h"

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

uint64_t rng_bits(uint64_t k, uint64_t i)
{
    return mix(k + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

uint64_t rng_key(uint64_t seed, const char *uuid, int trial, int input_index)
{
    uint64_t h = 0xcbf29ce484222325ULL;  /* FNV-1a over the uuid */
    for (const unsigned char *p = (const unsigned char *)uuid; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    uint64_t k = mix(seed ^ 0x6b7762ULL);
    k = mix(k ^ h);
    k = mix(k ^ (uint64_t)(uint32_t)trial);
    return mix(k ^ ((uint64_t)(uint32_t)input_index << 32));
}

static uint32_t sum16(uint64_t x)
{
    return (uint32_t)(x & 0xffff) + (uint32_t)((x >> 16) & 0xffff) + (uint32_t)((x >> 32) & 0xffff) +
           (uint32_t)(x >> 48);
}

float rng_normal(uint64_t k, uint64_t i)
{
    uint32_t s = sum16(rng_bits(k, 3 * i)) + sum16(rng_bits(k, 3 * i + 1)) + sum16(rng_bits(k, 3 * i + 2));
    return (float)((int32_t)s - 393210) * 0x1p-16f;  /* exact: no rounding anywhere */
}

int64_t rng_uniform(uint64_t k, uint64_t i, int64_t lo, int64_t hi)
{
    uint64_t range = (uint64_t)(hi - lo);
    return lo + (int64_t)(((rng_bits(k, i) >> 32) * range) >> 32);
}

void rng_fill(void *data, kwb_dtype t, size_t n, uint64_t k)
{
    for (size_t i = 0; i < n; i++) {
        switch (t) {
        case KWB_F8_E4M3:
        case KWB_F8_E5M2: {
            float v = rng_normal(k, i);
            v = v < -2.0f ? -2.0f : v > 2.0f ? 2.0f : v;
            dtype_store(data, t, i, v);
            break;
        }
        case KWB_I8:
            dtype_store(data, t, i, (double)rng_uniform(k, i, -128, 128));
            break;
        case KWB_I16:
        case KWB_I32:
        case KWB_I64:
            dtype_store(data, t, i, (double)rng_uniform(k, i, -1024, 1024));
            break;
        case KWB_BOOL:
            dtype_store(data, t, i, (double)(rng_bits(k, i) >> 63));
            break;
        default:
            dtype_store(data, t, i, rng_normal(k, i));
            break;
        }
    }
}

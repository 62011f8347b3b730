/* test_rng_shared.c - rng_formula.h, the generator shared by the host's rng_fill and the
 * CUDA device's cuda_rng_fill: for every dtype, several keys and indices, its
 * rng_formula_value equals the bytes rng_fill stores and an independent recomputation
 * from the formula text of rng.h. (The GPU side evaluates the same inline functions; that
 * it gives the same bits on a GPU is checked by the cuda device's own tests.) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "rng.h"
#include "kwb/rng_formula.h"

static const uint64_t keys[] = {
    0, 1, 42, 0x123456789abcdef0ULL, 0x8000000000000000ULL, UINT64_MAX, 0xdeadbeefcafef00dULL,
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Indices beyond what a fill covers, where 3i and i + 1 wrap or come close. */
static const uint64_t far_indices[] = {
    1000003,        0xffffffffULL,      0x100000000ULL, 0x5555555555555555ULL,
    UINT64_MAX / 3, UINT64_MAX / 3 + 1, UINT64_MAX - 1, UINT64_MAX,
};
#define NFAR (sizeof far_indices / sizeof far_indices[0])

/* ---- rng.h's formulas, written out again from its text --------------------------- */

static uint64_t my_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

static uint64_t my_bits(uint64_t k, uint64_t i)
{
    return my_mix(k + (i + 1) * 0x9e3779b97f4a7c15ULL);
}

/* The twelve 16-bit words summed as integers, centred, times 2^-16 (exact in a float). */
static float my_normal(uint64_t k, uint64_t i)
{
    int64_t s = 0;
    for (uint64_t j = 0; j < 3; j++) {
        uint64_t b = my_bits(k, 3 * i + j);
        for (int w = 0; w < 4; w++)
            s += (int64_t)((b >> (16 * w)) & 0xffff);
    }
    return (float)ldexp((double)(s - 393210), -16);
}

static int64_t my_uniform(uint64_t k, uint64_t i, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(((my_bits(k, i) >> 32) * (uint64_t)(hi - lo)) >> 32);
}

static uint32_t my_f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* Low BYTES bytes of the two's complement of V. */
static uint64_t my_wrap(int64_t v, size_t bytes)
{
    uint64_t u = (uint64_t)v;
    return bytes == 8 ? u : u & ((1ULL << (8 * bytes)) - 1);
}

/* Element I of a fill of type T under key K, per rng.h: floats N(0,1), fp8 N(0,1) clamped
 * to [-2, 2] then cast, int8 uniform in [-128, 128), other ints in [-1024, 1024), bool
 * 0 or 1 (the top bit). The casts are dtype.h's, checked exhaustively by test_dtype. */
static uint64_t my_value(kwb_dtype t, uint64_t k, uint64_t i)
{
    float z = my_normal(k, i);
    float c = fminf(fmaxf(z, -2.0f), 2.0f);
    switch (t) {
    case KWB_F32: return my_f32_bits(z);
    case KWB_F16: return dtype_f32_to_f16(z);
    case KWB_BF16: return dtype_f32_to_bf16(z);
    case KWB_F8_E4M3: return dtype_f32_to_e4m3(c);
    case KWB_F8_E5M2: return dtype_f32_to_e5m2(c);
    case KWB_I8: return my_wrap(my_uniform(k, i, -128, 128), 1);
    case KWB_I16: return my_wrap(my_uniform(k, i, -1024, 1024), 2);
    case KWB_I32: return my_wrap(my_uniform(k, i, -1024, 1024), 4);
    case KWB_I64: return my_wrap(my_uniform(k, i, -1024, 1024), 8);
    case KWB_BOOL: return my_bits(k, i) >> 63;
    }
    return 0;
}

/* Element I of a host buffer of type T, as stored bytes widened to 64 bits. */
static uint64_t stored(const unsigned char *p, kwb_dtype t, size_t i)
{
    size_t sz = dtype_size(t);
    uint8_t b8;
    uint16_t b16;
    uint32_t b32;
    uint64_t b64;
    switch (sz) {
    case 1: memcpy(&b8, p + i, 1); return b8;
    case 2: memcpy(&b16, p + 2 * i, 2); return b16;
    case 4: memcpy(&b32, p + 4 * i, 4); return b32;
    default: memcpy(&b64, p + 8 * i, 8); return b64;
    }
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_formula_pieces(void **state)
{
    (void)state;
    /* splitmix64 seeded with 0: its published first three outputs. */
    assert_true(rng_formula_bits(0, 0) == 0xe220a8397b1dcdafULL);
    assert_true(rng_formula_bits(0, 1) == 0x6e789e6aa1b965f4ULL);
    assert_true(rng_formula_bits(0, 2) == 0x06c45d188009454fULL);
    for (size_t a = 0; a < NKEYS; a++) {
        for (uint64_t i = 0; i < 2000; i++) {
            uint64_t k = keys[a];
            assert_true(rng_formula_bits(k, i) == my_bits(k, i));
            assert_true(rng_formula_bits(k, i) == rng_bits(k, i));
            assert_true(my_f32_bits(rng_formula_normal(k, i)) == my_f32_bits(my_normal(k, i)));
            assert_true(my_f32_bits(rng_formula_normal(k, i)) == my_f32_bits(rng_normal(k, i)));
            assert_true(rng_formula_uniform(k, i, -1024, 1024) == my_uniform(k, i, -1024, 1024));
            assert_true(rng_formula_uniform(k, i, -1024, 1024) == rng_uniform(k, i, -1024, 1024));
            assert_true(rng_formula_uniform(k, i, 0, (int64_t)1 << 32) == (int64_t)(my_bits(k, i) >> 32));
        }
        for (size_t j = 0; j < NFAR; j++) {
            uint64_t k = keys[a], i = far_indices[j];
            assert_true(rng_formula_bits(k, i) == my_bits(k, i));
            assert_true(my_f32_bits(rng_formula_normal(k, i)) == my_f32_bits(my_normal(k, i)));
            assert_true(rng_formula_uniform(k, i, -128, 128) == my_uniform(k, i, -128, 128));
        }
    }
    assert_true(rng_formula_mix(0) == 0);
    assert_true(rng_formula_mix(12345) == my_mix(12345));
}

/* rng_formula_value against the bytes rng_fill stores, for n elements from 0. */
static void test_value_equals_fill(void **state)
{
    (void)state;
    const size_t n = 4099;
    unsigned char *buf = malloc(n * 8);
    assert_non_null(buf);
    for (int t = 0; t < DTYPE_COUNT; t++) {
        for (size_t a = 0; a < NKEYS; a++) {
            rng_fill(buf, (kwb_dtype)t, n, keys[a]);
            for (size_t i = 0; i < n; i++) {
                uint64_t got = rng_formula_value((kwb_dtype)t, keys[a], i);
                uint64_t want = stored(buf, (kwb_dtype)t, i);
                if (got != want)
                    fail_msg("%s key %#llx element %zu: formula %#llx, rng_fill stored %#llx", dtype_name((kwb_dtype)t),
                             (unsigned long long)keys[a], i, (unsigned long long)got, (unsigned long long)want);
            }
        }
    }
    free(buf);
}

/* rng_formula_value against the recomputation, near 0 and far out. */
static void test_value_equals_formula_text(void **state)
{
    (void)state;
    for (int t = 0; t < DTYPE_COUNT; t++) {
        size_t bits = 8 * dtype_size((kwb_dtype)t);
        for (size_t a = 0; a < NKEYS; a++) {
            for (uint64_t j = 0; j < 1000 + NFAR; j++) {
                uint64_t i = j < 1000 ? j : far_indices[j - 1000];
                uint64_t got = rng_formula_value((kwb_dtype)t, keys[a], i);
                uint64_t want = my_value((kwb_dtype)t, keys[a], i);
                if (got != want)
                    fail_msg("%s key %#llx index %llu: formula %#llx, recomputed %#llx", dtype_name((kwb_dtype)t),
                             (unsigned long long)keys[a], (unsigned long long)i, (unsigned long long)got,
                             (unsigned long long)want);
                if (bits < 64 && (got >> bits) != 0)
                    fail_msg("%s: value %#llx wider than %zu bits", dtype_name((kwb_dtype)t), (unsigned long long)got,
                             bits);
            }
        }
    }
}

/* The fp8 clamp bites: values at +-2 occur, and never beyond. Bool takes both values. */
static void test_value_ranges(void **state)
{
    (void)state;
    const uint64_t k = 0x2545f4914f6cdd1dULL;
    int clamped_hi = 0, clamped_lo = 0, ones = 0;
    for (uint64_t i = 0; i < 20000; i++) {
        float z = rng_formula_normal(k, i);
        float e4 = dtype_e4m3_to_f32((uint8_t)rng_formula_value(KWB_F8_E4M3, k, i));
        float e5 = dtype_e5m2_to_f32((uint8_t)rng_formula_value(KWB_F8_E5M2, k, i));
        assert_true(e4 >= -2.0f && e4 <= 2.0f);
        assert_true(e5 >= -2.0f && e5 <= 2.0f);
        clamped_hi += z > 2.0f && e4 == 2.0f && e5 == 2.0f;
        clamped_lo += z < -2.0f && e4 == -2.0f && e5 == -2.0f;
        ones += (int)rng_formula_value(KWB_BOOL, k, i);
        double i8 = dtype_load(&(uint8_t){(uint8_t)rng_formula_value(KWB_I8, k, i)}, KWB_I8, 0);
        assert_true(i8 >= -128 && i8 < 128);
    }
    assert_true(clamped_hi > 100 && clamped_lo > 100); /* about 2.3% of 20000 each */
    assert_in_range(ones, 9000, 11000);
}

/* An unknown dtype gives 0, and rng_fill writes nothing for it. */
static void test_unknown_dtype(void **state)
{
    (void)state;
    assert_true(rng_formula_value((kwb_dtype)DTYPE_COUNT, 1, 0) == 0);
    assert_true(rng_formula_value((kwb_dtype)-1, 1, 5) == 0);
    unsigned char buf[16];
    memset(buf, 0x5a, sizeof buf);
    rng_fill(buf, (kwb_dtype)DTYPE_COUNT, 2, 1);
    for (size_t i = 0; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0x5a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formula_pieces),
        cmocka_unit_test(test_value_equals_fill),
        cmocka_unit_test(test_value_equals_formula_text),
        cmocka_unit_test(test_value_ranges),
        cmocka_unit_test(test_unknown_dtype),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

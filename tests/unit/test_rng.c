/* test_rng.c - the counter-based generator: the formulas of rng.h recomputed here, key
 * separation, the shape of the normal and uniform draws, and rng_fill per dtype. */
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

/* rng.h's formulas, written out independently. */
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

static double my_normal(uint64_t k, uint64_t i)
{
    int64_t s = 0;
    for (uint64_t j = 0; j < 3; j++) {
        uint64_t b = my_bits(k, 3 * i + j);
        for (int w = 0; w < 4; w++)
            s += (int64_t)((b >> (16 * w)) & 0xffff);
    }
    return (double)(s - 393210) / 65536.0;
}

static void test_key_determinism(void **state)
{
    (void)state;
    uint64_t k = rng_key(42, "wl-0001", 2, 3);
    assert_true(rng_key(42, "wl-0001", 2, 3) == k);
    char uuid[] = "wl-0001"; /* same contents, other storage */
    assert_true(rng_key(42, uuid, 2, 3) == k);

    uint64_t others[] = {
        rng_key(43, "wl-0001", 2, 3), rng_key(42, "wl-0002", 2, 3), rng_key(42, "wl-0001", 3, 3),
        rng_key(42, "wl-0001", 2, 4), rng_key(42, "wl-0001", 3, 2), rng_key(42, "", 2, 3),
        rng_key(0, "wl-0001", 2, 3),  rng_key(42, "wl-000", 2, 3),  rng_key(42, "wl-0001", -1, 3),
        rng_key(42, "wl-0001", 2, 0),
    };
    size_t n = sizeof others / sizeof others[0];
    for (size_t i = 0; i < n; i++) {
        if (others[i] == k)
            fail_msg("key %zu equals the base key", i);
        for (size_t j = i + 1; j < n; j++)
            if (others[i] == others[j])
                fail_msg("keys %zu and %zu are equal", i, j);
    }

    /* Trials and inputs of one workload: all distinct over a grid. */
    uint64_t grid[16 * 16];
    for (int t = 0; t < 16; t++)
        for (int in = 0; in < 16; in++)
            grid[t * 16 + in] = rng_key(1, "w", t, in);
    for (int a = 0; a < 256; a++)
        for (int b = a + 1; b < 256; b++)
            if (grid[a] == grid[b])
                fail_msg("rng_key(1, w, ...) collides: %d and %d", a, b);

    /* Different keys give different streams. */
    assert_true(rng_bits(k, 0) != rng_bits(others[0], 0));
    assert_true(rng_normal(k, 5) != rng_normal(others[2], 5));
}

static void test_bits_formula(void **state)
{
    (void)state;
    /* splitmix64 seeded with 0: its published first three outputs. */
    assert_true(rng_bits(0, 0) == 0xe220a8397b1dcdafULL);
    assert_true(rng_bits(0, 1) == 0x6e789e6aa1b965f4ULL);
    assert_true(rng_bits(0, 2) == 0x06c45d188009454fULL);
    assert_true(my_bits(0, 0) == 0xe220a8397b1dcdafULL);

    const uint64_t ks[] = {0, 1, 0x123456789abcdef0ULL, UINT64_MAX, rng_key(7, "x", 0, 0)};
    const uint64_t is[] = {0, 1, 2, 3, 1000, 0xffffffffULL, 0x100000000ULL, UINT64_MAX - 1};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (size_t b = 0; b < sizeof is / sizeof is[0]; b++) {
            uint64_t got = rng_bits(ks[a], is[b]), want = my_bits(ks[a], is[b]);
            if (got != want)
                fail_msg("rng_bits(%#llx, %#llx) = %#llx, want %#llx", (unsigned long long)ks[a],
                         (unsigned long long)is[b], (unsigned long long)got, (unsigned long long)want);
        }
    /* Same (k, i): same value; neighbours differ. */
    assert_true(rng_bits(99, 5) == rng_bits(99, 5));
    assert_true(rng_bits(99, 5) != rng_bits(99, 6));
    assert_true(rng_bits(99, 5) != rng_bits(100, 5));
}

static void test_normal_formula(void **state)
{
    (void)state;
    const uint64_t ks[] = {0, 3, rng_key(1, "normal", 0, 0), UINT64_MAX};
    const uint64_t is[] = {0, 1, 2, 7, 12345, 1000000};
    for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++)
        for (size_t b = 0; b < sizeof is / sizeof is[0]; b++) {
            double got = rng_normal(ks[a], is[b]), want = my_normal(ks[a], is[b]);
            if (got != want)
                fail_msg("rng_normal(%#llx, %llu) = %.17g, want %.17g", (unsigned long long)ks[a],
                         (unsigned long long)is[b], got, want);
        }
    assert_true(rng_normal(5, 9) == rng_normal(5, 9));
}

/* 1e6 draws: the moments of a standardized Irwin-Hall(12) sum. */
static void test_normal_distribution(void **state)
{
    (void)state;
    const size_t n = 1000000;
    uint64_t k = rng_key(2024, "distribution", 0, 0);
    double s1 = 0, s2 = 0, s3 = 0, s4 = 0, maxabs = 0;
    for (size_t i = 0; i < n; i++) {
        double x = rng_normal(k, i);
        if (x * 65536.0 != floor(x * 65536.0))
            fail_msg("rng_normal(k, %zu) = %.17g is not a multiple of 2^-16", i, x);
        s1 += x;
        double x2 = x * x;
        s2 += x2;
        s3 += x2 * x;
        s4 += x2 * x2;
        if (fabs(x) > maxabs)
            maxabs = fabs(x);
    }
    double mean = s1 / n;
    double var = s2 / n - mean * mean;
    double m3 = s3 / n - 3 * mean * s2 / n + 2 * mean * mean * mean;
    double m4 = s4 / n - 4 * mean * s3 / n + 6 * mean * mean * s2 / n - 3 * mean * mean * mean * mean;
    double skew = m3 / pow(var, 1.5), kurt = m4 / (var * var);
    if (!(fabs(mean) < 0.01 && fabs(var - 1) < 0.01 && maxabs <= 6 && fabs(skew) < 0.02 && fabs(kurt - 2.9) < 0.03))
        fail_msg("mean %g var %g max|x| %g skew %g kurtosis %g", mean, var, maxabs, skew, kurt);
    assert_true(maxabs > 4.0); /* the tails are there */
}

static void test_uniform(void **state)
{
    (void)state;
    const size_t n = 1000000;
    uint64_t k = rng_key(3, "uniform", 1, 2);
    long counts[12] = {0};
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = rng_uniform(k, i, -5, 7);
        if (v < -5 || v >= 7)
            fail_msg("rng_uniform(k, %zu, -5, 7) = %lld", i, (long long)v);
        counts[v + 5]++;
        sum += (double)v;
    }
    for (int j = 0; j < 12; j++)
        if (labs(counts[j] - (long)(n / 12)) > 2000) /* sd about 276 */
            fail_msg("value %d drawn %ld times of %zu", j - 5, counts[j], n);
    assert_true(fabs(sum / n - 0.5) < 0.02);

    /* The documented formula, including the full 2^32 range and a range of 1. */
    for (uint64_t i = 0; i < 1000; i++) {
        uint64_t b = my_bits(k, i);
        assert_true(rng_uniform(k, i, 0, (int64_t)1 << 32) == (int64_t)(b >> 32));
        assert_true(rng_uniform(k, i, -1024, 1024) == -1024 + (int64_t)(((b >> 32) * 2048) >> 32));
        assert_true(rng_uniform(k, i, 10, 11) == 10);
        int64_t lo = INT64_MIN + 5;
        assert_true(rng_uniform(k, i, lo, lo + 3) == lo + (int64_t)(((b >> 32) * 3) >> 32));
    }
}

static float load(const void *p, kwb_dtype t, size_t i)
{
    return (float)dtype_load(p, t, i);
}

static void test_fill_floats(void **state)
{
    (void)state;
    const size_t n = 100000;
    uint64_t k = rng_key(11, "fill", 0, 1);
    float *f = malloc(n * 4);
    uint16_t *h = malloc(n * 2), *b = malloc(n * 2);
    rng_fill(f, KWB_F32, n, k);
    rng_fill(h, KWB_F16, n, k);
    rng_fill(b, KWB_BF16, n, k);
    double s1 = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) {
        float z = rng_normal(k, i);
        assert_true(f[i] == z);
        assert_true(h[i] == dtype_f32_to_f16(z));
        assert_true(b[i] == dtype_f32_to_bf16(z));
        double x = dtype_bf16_to_f32(b[i]);
        s1 += x;
        s2 += x * x;
    }
    double mean = s1 / n, var = s2 / n - mean * mean;
    if (!(fabs(mean) < 0.02 && fabs(var - 1) < 0.02))
        fail_msg("bf16 fill: mean %g var %g", mean, var);
    free(f);
    free(h);
    free(b);
}

static void test_fill_fp8(void **state)
{
    (void)state;
    const size_t n = 100000;
    const kwb_dtype ts[] = {KWB_F8_E4M3, KWB_F8_E5M2};
    uint8_t *p = malloc(n);
    for (int j = 0; j < 2; j++) {
        uint64_t k = rng_key(12, "fp8", j, 0);
        rng_fill(p, ts[j], n, k);
        size_t at_pos2 = 0, at_neg2 = 0, inner = 0;
        for (size_t i = 0; i < n; i++) {
            float v = load(p, ts[j], i);
            if (!(v >= -2.0f && v <= 2.0f))
                fail_msg("%s element %zu = %g", dtype_name(ts[j]), i, v);
            float z = rng_normal(k, i);
            float c = z < -2.0f ? -2.0f : z > 2.0f ? 2.0f : z;
            uint8_t want = ts[j] == KWB_F8_E4M3 ? dtype_f32_to_e4m3(c) : dtype_f32_to_e5m2(c);
            if (p[i] != want)
                fail_msg("%s element %zu: %#x, want %#x", dtype_name(ts[j]), i, p[i], want);
            at_pos2 += v == 2.0f;
            at_neg2 += v == -2.0f;
            inner += fabsf(v) < 1.0f;
        }
        /* P(N > 2) is about 2.3%; some draws just under 2 round to 2 in fp8 too. */
        assert_in_range(at_pos2, n / 50, n / 20);
        assert_in_range(at_neg2, n / 50, n / 20);
        assert_in_range(inner, n * 60 / 100, n * 75 / 100);
    }
    free(p);
}

static void test_fill_ints(void **state)
{
    (void)state;
    const size_t n = 100000;
    const kwb_dtype ts[] = {KWB_I8, KWB_I16, KWB_I32, KWB_I64};
    void *p = malloc(n * 8);
    for (int j = 0; j < 4; j++) {
        uint64_t k = rng_key(13, "ints", 0, j);
        int64_t lo = ts[j] == KWB_I8 ? -128 : -1024, hi = ts[j] == KWB_I8 ? 128 : 1024;
        rng_fill(p, ts[j], n, k);
        size_t hit_lo = 0, hit_hi = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            double v = dtype_load(p, ts[j], i);
            if (!(v >= (double)lo && v < (double)hi) || v != floor(v))
                fail_msg("%s element %zu = %g", dtype_name(ts[j]), i, v);
            if (v != (double)rng_uniform(k, i, lo, hi))
                fail_msg("%s element %zu = %g, want %lld", dtype_name(ts[j]), i, v,
                         (long long)rng_uniform(k, i, lo, hi));
            hit_lo += v == (double)lo;
            hit_hi += v == (double)(hi - 1);
            sum += v;
        }
        assert_true(hit_lo > 0);
        assert_true(hit_hi > 0);
        double mid = (double)(lo + hi - 1) / 2; /* -0.5 */
        assert_true(fabs(sum / n - mid) < (hi - lo) * 0.01);
    }
    free(p);
}

static void test_fill_bool(void **state)
{
    (void)state;
    const size_t n = 100000;
    uint8_t *p = malloc(n);
    uint64_t k = rng_key(14, "bool", 0, 0);
    rng_fill(p, KWB_BOOL, n, k);
    size_t ones = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] > 1)
            fail_msg("bool element %zu = %u", i, p[i]);
        assert_int_equal(p[i], rng_bits(k, i) >> 63);
        ones += p[i];
    }
    assert_in_range(ones, n / 2 - 1500, n / 2 + 1500); /* sd about 158 */
    free(p);
}

/* Filling n elements equals the first n of filling n + 5: each element depends on its index only. */
static void test_fill_prefix(void **state)
{
    (void)state;
    const size_t n = 1000;
    for (int t = 0; t < DTYPE_COUNT; t++) {
        size_t sz = dtype_size((kwb_dtype)t);
        unsigned char *a = malloc((n + 5) * sz), *b = malloc((n + 5) * sz);
        memset(a, 0x5a, (n + 5) * sz);
        uint64_t k = rng_key(15, "prefix", 1, t);
        rng_fill(a, (kwb_dtype)t, n, k);
        rng_fill(b, (kwb_dtype)t, n + 5, k);
        if (memcmp(a, b, n * sz) != 0)
            fail_msg("%s: prefix differs", dtype_name((kwb_dtype)t));
        for (size_t i = n * sz; i < (n + 5) * sz; i++) /* nothing written past n */
            assert_int_equal(a[i], 0x5a);
        /* A one-element fill is the first element of the longer fill. */
        rng_fill(a, (kwb_dtype)t, 1, k);
        assert_memory_equal(a, b, sz);
        free(a);
        free(b);
    }
}

/* A fill in parts (rng_fill_part) writes the bytes of the whole fill, and nothing else. */
static void test_fill_parts(void **state)
{
    (void)state;
    const size_t n = 1001;
    for (int t = 0; t < DTYPE_COUNT; t++) {
        size_t sz = dtype_size((kwb_dtype)t);
        unsigned char *whole = malloc(n * sz), *parts = malloc((n + 1) * sz);
        memset(parts, 0x5a, (n + 1) * sz);
        uint64_t k = rng_key(16, "parts", 0, t);
        rng_fill(whole, (kwb_dtype)t, n, k);
        rng_fill_part(parts, (kwb_dtype)t, 500, n - 500, k);
        rng_fill_part(parts, (kwb_dtype)t, 0, 3, k);
        rng_fill_part(parts, (kwb_dtype)t, 3, 497, k);
        if (memcmp(whole, parts, n * sz) != 0)
            fail_msg("%s: parts differ from the whole", dtype_name((kwb_dtype)t));
        for (size_t i = n * sz; i < (n + 1) * sz; i++)
            assert_int_equal(parts[i], 0x5a);
        free(whole);
        free(parts);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_key_determinism), cmocka_unit_test(test_bits_formula),
        cmocka_unit_test(test_normal_formula),  cmocka_unit_test(test_normal_distribution),
        cmocka_unit_test(test_uniform),         cmocka_unit_test(test_fill_floats),
        cmocka_unit_test(test_fill_fp8),        cmocka_unit_test(test_fill_ints),
        cmocka_unit_test(test_fill_bool),       cmocka_unit_test(test_fill_prefix),
        cmocka_unit_test(test_fill_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

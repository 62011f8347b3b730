/* test_dtype.c - dtype names, sizes, load/store, and bit-exact float conversions checked
 * exhaustively over every code of bf16, f16, e4m3fn and e5m2 against an independent
 * ldexp() decoder, with every rounding midpoint, and f16 against gcc's _Float16. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "dtype.h"

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- the formats under test, with uniform signatures -------------------------------- */

static float dec_bf16(uint32_t c)
{
    return dtype_bf16_to_f32((uint16_t)c);
}
static uint32_t enc_bf16(float f)
{
    return dtype_f32_to_bf16(f);
}
static float dec_f16(uint32_t c)
{
    return dtype_f16_to_f32((uint16_t)c);
}
static uint32_t enc_f16(float f)
{
    return dtype_f32_to_f16(f);
}
static float dec_e4m3(uint32_t c)
{
    return dtype_e4m3_to_f32((uint8_t)c);
}
static uint32_t enc_e4m3(float f)
{
    return dtype_f32_to_e4m3(f);
}
static float dec_e5m2(uint32_t c)
{
    return dtype_e5m2_to_f32((uint8_t)c);
}
static uint32_t enc_e5m2(float f)
{
    return dtype_f32_to_e5m2(f);
}

typedef struct fmt {
    const char *name;
    int ebits, mbits, bias;
    int ieee;         /* all-ones exponent is inf/NaN (else only all-ones code is NaN) */
    uint32_t nan_enc; /* the NaN code the encoder gives (sign added) */
    float (*dec)(uint32_t);
    uint32_t (*enc)(float);
} fmt;

static const fmt fmts[] = {
    {"bf16", 8, 7, 127, 1, 0x7fc0, dec_bf16, enc_bf16},
    {"f16", 5, 10, 15, 1, 0x7e00, dec_f16, enc_f16},
    {"e4m3fn", 4, 3, 7, 0, 0x7f, dec_e4m3, enc_e4m3},
    {"e5m2", 5, 2, 15, 1, 0x7f, dec_e5m2, enc_e5m2},
};
#define NFMTS (sizeof fmts / sizeof fmts[0])

static uint32_t ncodes(const fmt *f)
{
    return 1u << (1 + f->ebits + f->mbits);
}
static uint32_t sign_bit(const fmt *f)
{
    return 1u << (f->ebits + f->mbits);
}

static int ref_is_nan(const fmt *f, uint32_t c)
{
    uint32_t mag = c & (sign_bit(f) - 1);
    uint32_t emax = (1u << f->ebits) - 1;
    if (f->ieee)
        return (mag >> f->mbits) == emax && (mag & ((1u << f->mbits) - 1)) != 0;
    return mag == sign_bit(f) - 1;
}

/* Independent decoder from the fields with ldexp(). Codes with an all-ones exponent
 * (IEEE inf, or e4m3fn's top binade) are decoded as if finite unless `special`: the
 * midpoint test uses that to get the value one step past the largest finite. */
static double ref_value(const fmt *f, uint32_t c, int special)
{
    uint32_t mag = c & (sign_bit(f) - 1);
    int e = (int)(mag >> f->mbits);
    int m = (int)(mag & ((1u << f->mbits) - 1));
    double s = (c & sign_bit(f)) ? -1.0 : 1.0;
    if (special && ref_is_nan(f, c))
        return NAN;
    if (special && f->ieee && e == (1 << f->ebits) - 1)
        return s * INFINITY;
    if (e == 0)
        return s * ldexp(m, 1 - f->bias - f->mbits);
    return s * ldexp(m + (1 << f->mbits), e - f->bias - f->mbits);
}

/* The largest finite magnitude code. */
static uint32_t max_finite(const fmt *f)
{
    uint32_t emax = (1u << f->ebits) - 1;
    return f->ieee ? (emax << f->mbits) - 1 : sign_bit(f) - 2;
}

#define CHECK_CODE(f, what, code, got, want)                                                                           \
    do {                                                                                                               \
        if ((got) != (want))                                                                                           \
            fail_msg("%s %s 0x%x: got 0x%x, want 0x%x", (f)->name, (what), (unsigned)(code), (unsigned)(got),          \
                     (unsigned)(want));                                                                                \
    } while (0)

/* ---- exhaustive: decode, round trip, NaN codes --------------------------------------- */

static void test_decode_exhaustive(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFMTS; k++) {
        const fmt *f = &fmts[k];
        for (uint32_t c = 0; c < ncodes(f); c++) {
            float got = f->dec(c);
            double want = ref_value(f, c, 1);
            if (isnan(want)) {
                if (!isnan(got))
                    fail_msg("%s decode 0x%x: want NaN", f->name, c);
                /* The sign of a NaN code is kept. */
                CHECK_CODE(f, "NaN sign", c, bits_of(got) >> 31, (c & sign_bit(f)) ? 1u : 0u);
                continue;
            }
            /* Bit compare, so that -0 and +0 are told apart; (float)want is exact. */
            CHECK_CODE(f, "decode", c, bits_of(got), bits_of((float)want));
        }
    }
}

static void test_roundtrip_exhaustive(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFMTS; k++) {
        const fmt *f = &fmts[k];
        for (uint32_t c = 0; c < ncodes(f); c++) {
            uint32_t got = f->enc(f->dec(c));
            if (ref_is_nan(f, c)) {
                /* Every NaN code encodes back to the canonical quiet NaN, sign kept. */
                CHECK_CODE(f, "NaN round trip", c, got, f->nan_enc | (c & sign_bit(f)));
                continue;
            }
            CHECK_CODE(f, "round trip", c, got, c);
        }
    }
}

/* Float NaNs of every kind (quiet, signalling, payloads, both signs) encode to NaN. */
static void test_encode_nan_inputs(void **state)
{
    (void)state;
    static const uint32_t nans[] = {0x7fc00000, 0x7f800001, 0x7fbfffff, 0x7fffffff, 0x7f801234, 0x7fc00001, 0x7f810000};
    for (size_t k = 0; k < NFMTS; k++) {
        const fmt *f = &fmts[k];
        for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
            for (uint32_t s = 0; s < 2; s++) {
                uint32_t in = nans[i] | (s ? 0x80000000u : 0);
                uint32_t got = f->enc(float_of(in));
                CHECK_CODE(f, "encode NaN", in, got, f->nan_enc | (s ? sign_bit(f) : 0));
            }
        }
    }
}

/* ---- exhaustive: every rounding midpoint -------------------------------------------- */

/* For adjacent codes c, c+1 of one sign (c+1 may be the code just past the largest
 * finite: inf for IEEE formats, NaN for e4m3fn), the exact midpoint goes to the one with
 * an even code (even mantissa), and one float ulp either side to the nearer one. */
static void check_midpoints(const fmt *f, uint32_t sign)
{
    for (uint32_t c = 0; c <= max_finite(f); c++) {
        uint32_t lo = sign | c, hi = sign | (c + 1);
        double mid = (ref_value(f, lo, 0) + ref_value(f, hi, 0)) / 2;
        float fm = (float)mid;
        if ((double)fm != mid)
            fail_msg("%s midpoint after 0x%x not representable", f->name, lo);
        float toward0 = nextafterf(fm, 0.0f);
        float away = nextafterf(fm, sign ? -INFINITY : INFINITY);
        CHECK_CODE(f, "midpoint after", lo, f->enc(fm), (c & 1) ? hi : lo);
        CHECK_CODE(f, "below midpoint after", lo, f->enc(toward0), lo);
        CHECK_CODE(f, "above midpoint after", lo, f->enc(away), hi);
    }
}

static void test_midpoints_exhaustive(void **state)
{
    (void)state;
    for (size_t k = 0; k < NFMTS; k++) {
        check_midpoints(&fmts[k], 0);
        check_midpoints(&fmts[k], sign_bit(&fmts[k]));
    }
}

/* ---- f16 against gcc's _Float16, an independent oracle ------------------------------ */

/* __FLT16_MANT_DIG__ is defined where the compiler has _Float16 (gcc >= 12 on x86-64;
 * clang 14 lacks it there, and the test is skipped). */
static void test_f16_vs_float16(void **state)
{
    (void)state;
#ifndef __FLT16_MANT_DIG__
    skip();
#else
    const fmt *f = &fmts[1];
    /* Decode: every code. */
    for (uint32_t c = 0; c < 0x10000; c++) {
        uint16_t h = (uint16_t)c;
        _Float16 x;
        memcpy(&x, &h, sizeof x);
        float want = (float)x, got = dtype_f16_to_f32(h);
        if (isnan(want) != isnan(got))
            fail_msg("f16 decode 0x%x: NaN mismatch", c);
        if (!isnan(want))
            CHECK_CODE(f, "decode vs _Float16", c, bits_of(got), bits_of(want));
    }
    /* Encode: a stride through all 2^32 float patterns (4.3 million, every exponent). */
    uint64_t n = 0;
    for (uint64_t u = 0; u < 0x100000000ull; u += 997, n++) {
        float in = float_of((uint32_t)u);
        _Float16 x = (_Float16)in;
        uint16_t want;
        memcpy(&want, &x, sizeof want);
        uint16_t got = dtype_f32_to_f16(in);
        if (isnan(in)) {
            CHECK_CODE(f, "encode NaN", (uint32_t)u, got, (uint16_t)(0x7e00 | (want & 0x8000)));
            continue;
        }
        CHECK_CODE(f, "encode vs _Float16", (uint32_t)u, got, want);
    }
    assert_true(n > 4000000);
#endif
}

/* bf16 against the plain integer rule on a stride of patterns (a second formulation). */
static void test_bf16_stride(void **state)
{
    (void)state;
    const fmt *f = &fmts[0];
    for (uint64_t u = 0; u < 0x100000000ull; u += 991) {
        uint32_t x = (uint32_t)u;
        if ((x & 0x7fffffffu) > 0x7f800000u)
            continue;
        uint32_t keep = x >> 16, rest = x & 0xffffu;
        uint32_t want = keep + (rest > 0x8000u || (rest == 0x8000u && (keep & 1)));
        CHECK_CODE(f, "encode", x, dtype_f32_to_bf16(float_of(x)), want);
    }
}

/* ---- named edges: overflow, saturation, subnormals ---------------------------------- */

static void test_e4m3_edges(void **state)
{
    (void)state;
    assert_int_equal(dtype_f32_to_e4m3(448.0f), 0x7e);
    assert_int_equal(dtype_f32_to_e4m3(-448.0f), 0xfe);
    assert_int_equal(dtype_f32_to_e4m3(450.0f), 0x7e);
    assert_int_equal(dtype_f32_to_e4m3(464.0f), 0x7e); /* midpoint to 480: even code */
    /* c10 rounds RNE with no saturation, so above 464 the result is the NaN code
     * (pytorch/pytorch#150756: 449..464 give 448, larger values NaN). */
    assert_int_equal(dtype_f32_to_e4m3(nextafterf(464.0f, INFINITY)), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(465.0f), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(479.9f), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(480.0f), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(1e30f), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(FLT_MAX), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(INFINITY), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(-INFINITY), 0xff);
    assert_int_equal(dtype_f32_to_e4m3(-500.0f), 0xff);
    assert_int_equal(dtype_f32_to_e4m3(NAN), 0x7f);
    assert_int_equal(dtype_f32_to_e4m3(-NAN), 0xff);
    assert_true(isnan(dtype_e4m3_to_f32(0x7f)) && !signbit(dtype_e4m3_to_f32(0x7f)));
    assert_true(isnan(dtype_e4m3_to_f32(0xff)) && signbit(dtype_e4m3_to_f32(0xff)));
    assert_true(dtype_e4m3_to_f32(0x7e) == 448.0f);
    assert_true(dtype_e4m3_to_f32(0x78) == 256.0f); /* top binade is finite in e4m3fn */
    /* Subnormals: 2^-9 is the smallest, 7 * 2^-9 the largest, 2^-6 the smallest normal. */
    assert_true(dtype_e4m3_to_f32(0x01) == ldexpf(1, -9));
    assert_true(dtype_e4m3_to_f32(0x07) == ldexpf(7, -9));
    assert_true(dtype_e4m3_to_f32(0x08) == ldexpf(1, -6));
    assert_int_equal(dtype_f32_to_e4m3(ldexpf(1, -9)), 0x01);
    assert_int_equal(dtype_f32_to_e4m3(ldexpf(1, -10)), 0x00);  /* tie to even zero */
    assert_int_equal(dtype_f32_to_e4m3(-ldexpf(1, -10)), 0x80); /* -0 */
    assert_int_equal(dtype_f32_to_e4m3(nextafterf(ldexpf(1, -10), 1)), 0x01);
    assert_int_equal(dtype_f32_to_e4m3(ldexpf(3, -10)), 0x02);  /* tie 1|2 -> 2 */
    assert_int_equal(dtype_f32_to_e4m3(ldexpf(15, -10)), 0x08); /* tie 7|8 -> 8 */
    assert_int_equal(dtype_f32_to_e4m3(float_of(1)), 0x00);     /* f32 subnormal */
    assert_int_equal(dtype_f32_to_e4m3(-0.0f), 0x80);
    assert_int_equal(dtype_f32_to_e4m3(1.0f), 0x38);
}

static void test_e5m2_edges(void **state)
{
    (void)state;
    assert_int_equal(dtype_f32_to_e5m2(57344.0f), 0x7b);
    assert_int_equal(dtype_f32_to_e5m2(-57344.0f), 0xfb);
    assert_int_equal(dtype_f32_to_e5m2(nextafterf(61440.0f, 0)), 0x7b);
    assert_int_equal(dtype_f32_to_e5m2(61440.0f), 0x7c); /* midpoint, even code: inf */
    assert_int_equal(dtype_f32_to_e5m2(-61440.0f), 0xfc);
    assert_int_equal(dtype_f32_to_e5m2(65536.0f), 0x7c);
    assert_int_equal(dtype_f32_to_e5m2(1e30f), 0x7c);
    assert_int_equal(dtype_f32_to_e5m2(FLT_MAX), 0x7c);
    assert_int_equal(dtype_f32_to_e5m2(INFINITY), 0x7c);
    assert_int_equal(dtype_f32_to_e5m2(-INFINITY), 0xfc);
    assert_int_equal(dtype_f32_to_e5m2(NAN), 0x7f);
    assert_int_equal(dtype_f32_to_e5m2(-NAN), 0xff);
    assert_true(isinf(dtype_e5m2_to_f32(0x7c)) && dtype_e5m2_to_f32(0x7c) > 0);
    assert_true(isinf(dtype_e5m2_to_f32(0xfc)) && dtype_e5m2_to_f32(0xfc) < 0);
    for (uint32_t c = 0x7d; c <= 0x7f; c++) {
        assert_true(isnan(dtype_e5m2_to_f32((uint8_t)c)));
        assert_true(isnan(dtype_e5m2_to_f32((uint8_t)(c | 0x80))));
    }
    assert_true(dtype_e5m2_to_f32(0x01) == ldexpf(1, -16));
    assert_true(dtype_e5m2_to_f32(0x03) == ldexpf(3, -16));
    assert_true(dtype_e5m2_to_f32(0x04) == ldexpf(1, -14));
    assert_int_equal(dtype_f32_to_e5m2(ldexpf(1, -17)), 0x00);
    assert_int_equal(dtype_f32_to_e5m2(nextafterf(ldexpf(1, -17), 1)), 0x01);
    assert_int_equal(dtype_f32_to_e5m2(ldexpf(7, -17)), 0x04); /* tie 3|4 -> 4 */
    /* Straight RNE from float; one ulp above the e5m2 midpoint 1.125 rounds up. */
    assert_int_equal(dtype_f32_to_e5m2(nextafterf(1.125f, 2)), 0x3d);
    assert_int_equal(dtype_f32_to_e5m2(1.125f), 0x3c);
    assert_int_equal(dtype_f32_to_e5m2(1.0f), 0x3c);
}

static void test_bf16_edges(void **state)
{
    (void)state;
    assert_int_equal(dtype_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(dtype_f32_to_bf16(-2.0f), 0xc000);
    assert_int_equal(dtype_f32_to_bf16(float_of(0x7f7f7fff)), 0x7f7f); /* below the tie */
    assert_int_equal(dtype_f32_to_bf16(float_of(0x7f7f8000)), 0x7f80); /* tie, odd: inf */
    assert_int_equal(dtype_f32_to_bf16(FLT_MAX), 0x7f80);              /* rounds to inf */
    assert_int_equal(dtype_f32_to_bf16(-FLT_MAX), 0xff80);
    assert_int_equal(dtype_f32_to_bf16(INFINITY), 0x7f80);
    assert_int_equal(dtype_f32_to_bf16(-INFINITY), 0xff80);
    assert_int_equal(dtype_f32_to_bf16(NAN), 0x7fc0);
    assert_int_equal(dtype_f32_to_bf16(-NAN), 0xffc0);
    assert_int_equal(dtype_f32_to_bf16(float_of(0x7f800001)), 0x7fc0); /* not inf */
    assert_int_equal(dtype_f32_to_bf16(float_of(0x00008000)), 0x0000); /* subnormal tie */
    assert_int_equal(dtype_f32_to_bf16(float_of(0x00018000)), 0x0002);
    assert_int_equal(dtype_f32_to_bf16(float_of(0x007fffff)), 0x0080); /* to min normal */
    assert_int_equal(dtype_f32_to_bf16(float_of(0x80000001)), 0x8000);
    assert_true(bits_of(dtype_bf16_to_f32(0x0001)) == 0x00010000u);
}

static void test_f16_edges(void **state)
{
    (void)state;
    assert_int_equal(dtype_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(dtype_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(dtype_f32_to_f16(nextafterf(65520.0f, 0)), 0x7bff);
    assert_int_equal(dtype_f32_to_f16(65520.0f), 0x7c00); /* tie, odd: inf */
    assert_int_equal(dtype_f32_to_f16(-65520.0f), 0xfc00);
    assert_int_equal(dtype_f32_to_f16(1e6f), 0x7c00);
    assert_int_equal(dtype_f32_to_f16(FLT_MAX), 0x7c00);
    assert_int_equal(dtype_f32_to_f16(INFINITY), 0x7c00);
    assert_int_equal(dtype_f32_to_f16(-INFINITY), 0xfc00);
    assert_int_equal(dtype_f32_to_f16(NAN), 0x7e00);
    assert_int_equal(dtype_f32_to_f16(-NAN), 0xfe00);
    assert_int_equal(dtype_f32_to_f16(ldexpf(1, -24)), 0x0001); /* smallest subnormal */
    assert_int_equal(dtype_f32_to_f16(ldexpf(1, -25)), 0x0000); /* tie to even zero */
    assert_int_equal(dtype_f32_to_f16(-ldexpf(1, -25)), 0x8000);
    assert_int_equal(dtype_f32_to_f16(nextafterf(ldexpf(1, -25), 1)), 0x0001);
    assert_int_equal(dtype_f32_to_f16(ldexpf(3, -25)), 0x0002);     /* tie 1|2 -> 2 */
    assert_int_equal(dtype_f32_to_f16(ldexpf(0x7ff, -25)), 0x0400); /* to min normal */
    assert_int_equal(dtype_f32_to_f16(ldexpf(1, -14)), 0x0400);
    assert_int_equal(dtype_f32_to_f16(float_of(0x007fffff)), 0x0000); /* f32 subnormal */
    assert_true(dtype_f16_to_f32(0x03ff) == ldexpf(0x3ff, -24));
    assert_true(isnan(dtype_f16_to_f32(0x7c01)) && isnan(dtype_f16_to_f32(0xfe00)));
    assert_true(signbit(dtype_f16_to_f32(0x8000)) && dtype_f16_to_f32(0x8000) == 0);
}

/* ---- names, sizes, load and store ---------------------------------------------------- */

static void test_names(void **state)
{
    (void)state;
    static const char *const fib[] = {"float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                      "int64",   "int32",   "int16",    "int8",          "bool"};
    static const char *const st[] = {"F32", "F16", "BF16", "F8_E4M3", "F8_E5M2", "I64", "I32", "I16", "I8", "BOOL"};
    static const size_t size[] = {4, 2, 2, 1, 1, 8, 4, 2, 1, 1};
    for (int i = 0; i < DTYPE_COUNT; i++) {
        kwb_dtype t = (kwb_dtype)i, back = KWB_BOOL;
        assert_string_equal(dtype_name(t), fib[i]);
        assert_string_equal(dtype_safetensors_name(t), st[i]);
        assert_int_equal(dtype_size(t), size[i]);
        assert_int_equal(dtype_is_float(t), i <= KWB_F8_E5M2);
        assert_int_equal(dtype_from_name(fib[i], &back), 0);
        assert_int_equal(back, t);
        back = KWB_BOOL;
        assert_int_equal(dtype_from_safetensors_name(st[i], &back), 0);
        assert_int_equal(back, t);
    }
    kwb_dtype t = KWB_I8;
    static const char *const bad[] = {"", "float64", "Float32", "F32", "fp8", "uint8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(dtype_from_name(bad[i], &t), -1);
    static const char *const bad_st[] = {"", "F64", "U8", "f32", "float32", "F8_E4M3FN"};
    for (size_t i = 0; i < sizeof bad_st / sizeof bad_st[0]; i++)
        assert_int_equal(dtype_from_safetensors_name(bad_st[i], &t), -1);
    assert_int_equal(dtype_from_name(NULL, &t), -1);
    assert_int_equal(dtype_from_safetensors_name(NULL, &t), -1);
    assert_int_equal(t, KWB_I8); /* untouched on failure */
    assert_non_null(dtype_name((kwb_dtype)99));
    assert_non_null(dtype_safetensors_name((kwb_dtype)99));
}

static void test_load_store_floats(void **state)
{
    (void)state;
    unsigned char buf[32];
    memset(buf, 0xaa, sizeof buf);
    dtype_store(buf, KWB_F32, 1, -1.5);
    assert_true(bits_of(-1.5f) ==
                ((uint32_t)buf[4] | (uint32_t)buf[5] << 8 | (uint32_t)buf[6] << 16 | (uint32_t)buf[7] << 24));
    assert_true(dtype_load(buf, KWB_F32, 1) == -1.5);
    assert_int_equal(buf[0], 0xaa); /* neighbours untouched */
    assert_int_equal(buf[8], 0xaa);

    uint16_t h[3] = {0};
    dtype_store(h, KWB_F16, 2, 1.0);
    assert_int_equal(h[2], 0x3c00);
    assert_true(dtype_load(h, KWB_F16, 2) == 1.0);
    dtype_store(h, KWB_BF16, 1, 1.0);
    assert_int_equal(h[1], 0x3f80);
    assert_true(dtype_load(h, KWB_BF16, 1) == 1.0);
    dtype_store(h, KWB_BF16, 0, 1e300); /* double overflows float: inf */
    assert_int_equal(h[0], 0x7f80);

    uint8_t b[4] = {0};
    dtype_store(b, KWB_F8_E4M3, 3, -448.0);
    assert_int_equal(b[3], 0xfe);
    assert_true(dtype_load(b, KWB_F8_E4M3, 3) == -448.0);
    dtype_store(b, KWB_F8_E5M2, 2, 0.5);
    assert_int_equal(b[2], 0x38);
    assert_true(dtype_load(b, KWB_F8_E5M2, 2) == 0.5);
    dtype_store(b, KWB_F8_E4M3, 0, NAN);
    assert_true(isnan(dtype_load(b, KWB_F8_E4M3, 0)));

    /* Documented double rounding: double -> float -> f16. Just above the f16 midpoint
     * 1 + 2^-11, the double rounds to the midpoint in float, which ties to even 1.0. */
    dtype_store(h, KWB_F16, 0, 1.0 + ldexp(1, -11) + ldexp(1, -40));
    assert_int_equal(h[0], 0x3c00);
}

static void test_load_store_ints(void **state)
{
    (void)state;
    int8_t i8[2];
    dtype_store(i8, KWB_I8, 1, -1.0);
    assert_int_equal(i8[1], -1);
    assert_true(dtype_load(i8, KWB_I8, 1) == -1.0);
    dtype_store(i8, KWB_I8, 1, 300.0); /* 300 - 256 */
    assert_int_equal(i8[1], 44);
    dtype_store(i8, KWB_I8, 1, -129.0);
    assert_int_equal(i8[1], 127);
    dtype_store(i8, KWB_I8, 1, 128.0);
    assert_int_equal(i8[1], -128);
    dtype_store(i8, KWB_I8, 0, 2.9); /* toward zero */
    assert_int_equal(i8[0], 2);
    dtype_store(i8, KWB_I8, 0, -2.9);
    assert_int_equal(i8[0], -2);
    dtype_store(i8, KWB_I8, 0, -0.5);
    assert_int_equal(i8[0], 0);

    int16_t i16[2];
    dtype_store(i16, KWB_I16, 1, 70000.0);
    assert_int_equal(i16[1], 70000 - 65536);
    dtype_store(i16, KWB_I16, 1, -32769.0);
    assert_int_equal(i16[1], 32767);
    assert_true(dtype_load(i16, KWB_I16, 1) == 32767.0);

    int32_t i32[2];
    dtype_store(i32, KWB_I32, 1, 4294967301.0); /* 2^32 + 5 */
    assert_int_equal(i32[1], 5);
    dtype_store(i32, KWB_I32, 1, 3e9);
    assert_int_equal(i32[1], (int32_t)(3000000000LL - 4294967296LL));
    dtype_store(i32, KWB_I32, 0, -2147483648.0);
    assert_int_equal(i32[0], INT32_MIN);
    assert_true(dtype_load(i32, KWB_I32, 0) == -2147483648.0);

    int64_t i64[2];
    dtype_store(i64, KWB_I64, 1, -123456789012.0);
    assert_true(i64[1] == -123456789012LL);
    assert_true(dtype_load(i64, KWB_I64, 1) == -123456789012.0);
    dtype_store(i64, KWB_I64, 1, 9007199254740993.0); /* parses as 2^53 */
    assert_true(i64[1] == 9007199254740992LL);
    dtype_store(i64, KWB_I64, 1, 9223372036854775808.0); /* 2^63 wraps */
    assert_true(i64[1] == INT64_MIN);
    dtype_store(i64, KWB_I64, 1, -9223372036854775808.0);
    assert_true(i64[1] == INT64_MIN);
    dtype_store(i64, KWB_I64, 1, 18446744073709555712.0); /* 2^64 + 4096 */
    assert_true(i64[1] == 4096);
    dtype_store(i64, KWB_I64, 1, -18446744073709555712.0);
    assert_true(i64[1] == -4096);
    dtype_store(i64, KWB_I64, 1, 1e300); /* a multiple of 2^64 */
    assert_true(i64[1] == 0);
    /* Not representable as any integer: stored as 0, with no undefined conversion. */
    i64[0] = 7;
    dtype_store(i64, KWB_I64, 0, NAN);
    assert_true(i64[0] == 0);
    dtype_store(i64, KWB_I64, 0, INFINITY);
    assert_true(i64[0] == 0);
    dtype_store(i32, KWB_I32, 0, -INFINITY);
    assert_int_equal(i32[0], 0);
    dtype_store(i8, KWB_I8, 0, NAN);
    assert_int_equal(i8[0], 0);
}

static void test_load_store_bool(void **state)
{
    (void)state;
    uint8_t b[4] = {9, 9, 9, 9};
    dtype_store(b, KWB_BOOL, 0, 0.0);
    dtype_store(b, KWB_BOOL, 1, -0.0);
    dtype_store(b, KWB_BOOL, 2, 0.5);
    dtype_store(b, KWB_BOOL, 3, -3.0);
    assert_int_equal(b[0], 0);
    assert_int_equal(b[1], 0);
    assert_int_equal(b[2], 1);
    assert_int_equal(b[3], 1);
    dtype_store(b, KWB_BOOL, 0, NAN); /* NaN != 0 */
    assert_int_equal(b[0], 1);
    b[1] = 2; /* any nonzero byte loads as true */
    assert_true(dtype_load(b, KWB_BOOL, 1) == 1.0);
    b[1] = 0;
    assert_true(dtype_load(b, KWB_BOOL, 1) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_exhaustive),
        cmocka_unit_test(test_roundtrip_exhaustive),
        cmocka_unit_test(test_encode_nan_inputs),
        cmocka_unit_test(test_midpoints_exhaustive),
        cmocka_unit_test(test_f16_vs_float16),
        cmocka_unit_test(test_bf16_stride),
        cmocka_unit_test(test_e4m3_edges),
        cmocka_unit_test(test_e5m2_edges),
        cmocka_unit_test(test_bf16_edges),
        cmocka_unit_test(test_f16_edges),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_load_store_floats),
        cmocka_unit_test(test_load_store_ints),
        cmocka_unit_test(test_load_store_bool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

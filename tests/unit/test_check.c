/* test_check.c - the tolerance checker: FlashInfer-Bench's element rule (abs AND rel, with
 * 1e-8 in the denominator, in float32 arithmetic for floating-point types and exactly for
 * integers), matched ratio, NaN and infinities, narrow types, merging. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dtype.h"

#define exact(got, want) exact_at((double)(got), (double)(want), #got, __LINE__)

static void exact_at(double got, double want, const char *what, int line)
{
    if (!(got == want))
        fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}

/* The documented relative error of one integer pair, in double: |x - y| / (|y| + 1e-8). */
static double rel_of(double x, double y)
{
    return fabs(x - y) / (fabs(y) + 1e-8);
}

/* The element rule for floating-point types, in float32 as FlashInfer-Bench computes it:
 * a = |x - y|, r = a / (|y| + 1e-8f), each rounded to float32. */
static float abs32(float x, float y)
{
    volatile float a = fabsf(x - y);
    return a;
}

static float rel32(float x, float y)
{
    volatile float d = fabsf(y) + 1e-8f;
    volatile float r = abs32(x, y) / d;
    return r;
}

static float f32_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static check_policy policy(double atol, double rtol, double ratio)
{
    check_policy p = {atol, rtol, ratio};
    return p;
}

static check_stats check_f32(const float *out, const float *ref, size_t n, const check_policy *p)
{
    check_stats st;
    memset(&st, 0xa5, sizeof st); /* check_tolerance must set every field */
    check_tolerance(out, ref, KWB_F32, n, p, &st);
    return st;
}

static void test_policy_default(void **state)
{
    (void)state;
    check_policy p = check_policy_default();
    exact(p.atol, 1e-2);
    exact(p.rtol, 1e-2);
    exact(p.required_ratio, 1.0);
}

/* An element fails only when abs > atol AND rel > rtol. */
static void test_abs_and_rel(void **state)
{
    (void)state;
    check_policy p = check_policy_default();
    /* 0: abs 0.5 > atol but rel 0.005 <= rtol: passes.
     * 1: abs 0.005 <= atol but rel 5 > rtol: passes.
     * 2: abs 0.5 and rel 0.5 both exceeded: fails. */
    const float out[] = {100.5f, 0.006f, 1.5f};
    const float ref[] = {100.0f, 0.001f, 1.0f};
    check_stats st = check_f32(out, ref, 3, &p);
    assert_int_equal(st.numel, 3);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 2);
    assert_int_equal(st.nonfinite, 0);
    exact(st.matched_ratio, 1.0 - 1.0 / 3.0);
    exact(st.max_abs, 0.5);
    exact(st.max_rel, rel32(0.006f, 0.001f));                             /* the float32 value, widened */
    assert_false(rel32(0.006f, 0.001f) == (float)rel_of(0.006f, 0.001f)); /* not the double one */
    assert_false(check_passed(&st, &p));

    /* Each of the first two alone passes. */
    st = check_f32(out, ref, 2, &p);
    assert_int_equal(st.fails, 0);
    exact(st.matched_ratio, 1.0);
    assert_true(check_passed(&st, &p));
}

/* "Greater than" on both sides: abs == atol passes, rel == rtol passes. Both sides are
 * float32: the tolerances are rounded to float32 before the comparison. */
static void test_boundaries(void **state)
{
    (void)state;
    /* abs exactly 0.5; rel = 0.5 / (1 + 1e-8f) = 0.5 exactly (1 + 1e-8f rounds to 1) */
    const float out1[] = {1.5f}, ref1[] = {1.0f};
    check_policy p = policy(0.5, 0.25, 1.0);
    check_stats st = check_f32(out1, ref1, 1, &p);
    assert_int_equal(st.fails, 0);
    exact(st.max_abs, 0.5);
    exact(st.max_rel, 0.5);
    p.atol = nextafterf(0.5f, 0.0f); /* the float32 just below: abs > atol, fails */
    st = check_f32(out1, ref1, 1, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 0);
    p.atol = nextafter(0.5, 0.0); /* the double just below rounds to 0.5f: passes */
    st = check_f32(out1, ref1, 1, &p);
    assert_int_equal(st.fails, 0);

    /* abs 1 > atol 0.5; rel = 1 / (4 + 1e-8f) = 0.25 exactly in float32 */
    const float out2[] = {5.0f}, ref2[] = {4.0f};
    float rel = rel32(5.0f, 4.0f);
    assert_true(rel == 0.25f);
    p = policy(0.5, rel, 1.0);
    st = check_f32(out2, ref2, 1, &p);
    assert_int_equal(st.fails, 0);
    exact(st.max_rel, 0.25);
    p.rtol = nextafterf(rel, 0.0f); /* the float32 just below: rel > rtol, fails */
    st = check_f32(out2, ref2, 1, &p);
    assert_int_equal(st.fails, 1);
    p.rtol = nextafter(0.25, 0.0); /* the double just below rounds to 0.25f: passes */
    st = check_f32(out2, ref2, 1, &p);
    assert_int_equal(st.fails, 0);
    p.rtol = rel_of(5.0, 4.0); /* 1 / (4 + 1e-8) in double, also 0.25f once rounded: passes */
    st = check_f32(out2, ref2, 1, &p);
    assert_int_equal(st.fails, 0);
}

/* The window where float32 and double disagree: out 8.177000045776367f, ref
 * 6.289999961853027f, atol 1, rtol 0.3. abs = 1.8870000839233398 > atol; rel is
 * 0.30000001468... in double (> 0.3, would fail) but rounds to 0.3f = 0.30000001192... in
 * float32, which is not > (float)0.3: FlashInfer-Bench passes it, and so must we. */
static void test_float32_window(void **state)
{
    (void)state;
    const float out[] = {f32_bits(0x4102d4fe)}, ref[] = {f32_bits(0x40c947ae)};
    assert_true(out[0] == 8.177000045776367f);
    assert_true(ref[0] == 6.289999961853027f);
    /* In double the pair would fail. */
    assert_true(fabs((double)out[0] - ref[0]) > 1.0 && rel_of(out[0], ref[0]) > 0.3);

    check_policy p = policy(1.0, 0.3, 1.0);
    check_stats st = check_f32(out, ref, 1, &p);
    assert_int_equal(st.fails, 0);
    assert_int_equal(st.nonfinite, 0);
    exact(st.matched_ratio, 1.0);
    exact(st.max_abs, 1.8870000839233398); /* out - ref, exact in float32 */
    exact(st.max_rel, 0.3f);               /* the float32 quotient, not 0.30000001468... */
    assert_true(check_passed(&st, &p));

    /* The float32 tolerance just below 0.3f: now the pair fails. */
    p.rtol = nextafterf(0.3f, 0.0f);
    st = check_f32(out, ref, 1, &p);
    assert_int_equal(st.fails, 1);
    assert_false(check_passed(&st, &p));

    /* Where float32 and double agree. One ulp up in out: rel 0.30000016 (float32) and
     * 0.30000017 (double), both > 0.3: fails. One ulp down: rel 0.29999986 in both: passes. */
    const float up[] = {nextafterf(out[0], INFINITY)}, down[] = {nextafterf(out[0], 0.0f)};
    assert_true(rel_of(up[0], ref[0]) > 0.3 && rel_of(down[0], ref[0]) <= 0.3);
    p = policy(1.0, 0.3, 1.0);
    st = check_f32(up, ref, 1, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 0);
    exact(st.max_abs, abs32(up[0], ref[0]));
    exact(st.max_rel, rel32(up[0], ref[0]));
    assert_true(rel32(up[0], ref[0]) > 0.3f);
    assert_false(check_passed(&st, &p));
    st = check_f32(down, ref, 1, &p);
    assert_int_equal(st.fails, 0);
    exact(st.max_rel, rel32(down[0], ref[0]));
    assert_true(check_passed(&st, &p));

    /* All three together: only the one ulp up fails, and the maxima are its float32 values. */
    const float out3[] = {down[0], out[0], up[0]}, ref3[] = {ref[0], ref[0], ref[0]};
    st = check_f32(out3, ref3, 3, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 2);
    exact(st.max_abs, abs32(up[0], ref[0]));
    exact(st.max_rel, rel32(up[0], ref[0]));
}

/* rel = abs / (|ref| + 1e-8f): a reference of 0 gives rel = abs / 1e-8f, not infinity. */
static void test_eps_denominator(void **state)
{
    (void)state;
    check_policy p = policy(0.0, 0.5, 1.0);
    const float out[] = {0.0f, 4e-9f, 6e-9f, -6e-9f};
    const float ref[] = {0.0f, 0.0f, 0.0f, 0.0f};
    check_stats st = check_f32(out, ref, 2, &p); /* rel 0.4 <= 0.5 */
    assert_int_equal(st.fails, 0);
    exact(st.max_abs, 4e-9f);
    exact(st.max_rel, (float)(4e-9f / 1e-8f));
    exact(st.max_rel, rel32(4e-9f, 0.0f));
    st = check_f32(out, ref, 4, &p); /* rel 0.6 > 0.5, twice */
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.first_fail, 2);
    exact(st.max_rel, (float)(6e-9f / 1e-8f));
    exact(st.matched_ratio, 0.5);

    /* Nonzero reference: the 1e-8f is added to |ref| (and |ref| is used for negative refs).
     * With ref -2e-8f and out -3e-8f: abs 1e-8, rel 1e-8 / (2e-8 + 1e-8) = 1/3 <= 0.4, where
     * a missing 1e-8f would give 1/2 (fail) and ref in place of |ref| a negative rel. */
    p = policy(0.0, 0.4, 1.0);
    const float out2[] = {-3e-8f}, ref2[] = {-2e-8f};
    float rel = rel32(-3e-8f, -2e-8f);
    assert_true(rel > 0.33f && rel < 0.34f);
    st = check_f32(out2, ref2, 1, &p);
    exact(st.max_abs, abs32(-3e-8f, -2e-8f));
    exact(st.max_rel, rel);
    assert_int_equal(st.fails, 0);
    p.rtol = nextafterf(rel, 0.0f);
    st = check_f32(out2, ref2, 1, &p);
    assert_int_equal(st.fails, 1);

    /* At |ref| = 2 the 1e-8f is lost in float32: rel = 0.5 / 2 = 0.25 exactly. */
    p = policy(0.0, 0.25, 1.0);
    const float out3[] = {-2.5f}, ref3[] = {-2.0f};
    st = check_f32(out3, ref3, 1, &p);
    exact(st.max_rel, 0.25);
    assert_int_equal(st.fails, 0); /* 0.25 is not > 0.25 */
}

/* matched_ratio = 1 - fails / numel; the trial passes when it is >= the required ratio. */
static void test_matched_ratio(void **state)
{
    (void)state;
    float ref[10], out[10];
    for (int i = 0; i < 10; i++)
        ref[i] = out[i] = (float)i;
    check_policy p = policy(1e-2, 1e-2, 0.9);

    check_stats st = check_f32(out, ref, 10, &p);
    assert_int_equal(st.fails, 0);
    exact(st.matched_ratio, 1.0);
    assert_true(check_passed(&st, &p));

    out[4] = 100.0f; /* 9 of 10 matched */
    st = check_f32(out, ref, 10, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.first_fail, 4);
    exact(st.matched_ratio, 0.9);
    assert_true(check_passed(&st, &p));
    check_policy strict = check_policy_default();
    assert_false(check_passed(&st, &strict));

    out[8] = -100.0f; /* 8 of 10 matched */
    st = check_f32(out, ref, 10, &p);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.first_fail, 4);
    exact(st.matched_ratio, 0.8);
    assert_false(check_passed(&st, &p));

    /* 4 of 5 matched. */
    st = check_f32(out, ref, 5, &p);
    exact(st.matched_ratio, 0.8);
    p.required_ratio = 0.8;
    assert_true(check_passed(&st, &p));
    p.required_ratio = nextafter(0.8, 1.0);
    assert_false(check_passed(&st, &p));

    /* No elements: ratio 1, passes. */
    st = check_f32(NULL, NULL, 0, &strict);
    assert_int_equal(st.numel, 0);
    assert_int_equal(st.fails, 0);
    exact(st.matched_ratio, 1.0);
    assert_true(check_passed(&st, &strict));
}

static void test_nan_output(void **state)
{
    (void)state;
    const float out[] = {1.0f, NAN, 3.0f, -NAN};
    const float ref[] = {1.0f, 2.0f, 3.0f, 0.0f};
    check_policy p = policy(1e-2, 1e-2, 0.0); /* even a ratio of 0 does not admit NaN */
    check_stats st = check_f32(out, ref, 4, &p);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.nonfinite, 2);
    assert_int_equal(st.first_fail, 1);
    exact(st.matched_ratio, 0.5);
    assert_true(isnan(st.max_abs)); /* the solution's NaN shows in the maxima, as in FlashInfer-Bench */
    assert_true(isnan(st.max_rel));
    assert_false(check_passed(&st, &p));

    /* A huge tolerance does not admit NaN either. */
    p = policy(INFINITY, INFINITY, 1.0);
    st = check_f32(out, ref, 2, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.nonfinite, 1);
    assert_false(check_passed(&st, &p));
}

static void test_nan_reference(void **state)
{
    (void)state;
    const float out[] = {1.0f, 2.0f, NAN};
    const float ref[] = {1.0f, NAN, NAN};
    check_policy p = check_policy_default();
    check_stats st = check_f32(out, ref, 3, &p);
    assert_int_equal(st.fails, 2); /* NaN never passes, not even NaN against NaN */
    assert_int_equal(st.first_fail, 1);
    assert_true(isnan(st.max_abs)); /* element 2: the solution's own NaN */
    assert_false(check_passed(&st, &p));
    st = check_f32(out, ref, 2, &p); /* the reference's NaN alone leaves the maxima alone */
    assert_int_equal(st.fails, 1);
    exact(st.max_abs, 0.0);
    exact(st.max_rel, 0.0);
    p = policy(INFINITY, INFINITY, 1.0);
    st = check_f32(out, ref, 2, &p);
    assert_int_equal(st.fails, 1);
}

static void test_infinities(void **state)
{
    (void)state;
    /* 0,1: same infinity: pass.  2: +inf vs -inf: fail, stray.  3: inf vs finite: fail,
     * stray.  4: finite vs inf: fail.  5: finite, abs 1/64 > atol but rel < rtol: pass. */
    const float out[] = {INFINITY, -INFINITY, INFINITY, INFINITY, 1.0f, 2.0f};
    const float ref[] = {INFINITY, -INFINITY, -INFINITY, 1.0f, INFINITY, 2.015625f};
    check_policy p = check_policy_default();
    check_stats st = check_f32(out, ref, 6, &p);
    assert_int_equal(st.numel, 6);
    assert_int_equal(st.fails, 3);
    assert_int_equal(st.first_fail, 2);
    assert_int_equal(st.nonfinite, 2); /* infinities the reference lacks: elements 2 and 3 */
    exact(st.matched_ratio, 0.5);
    assert_true(isinf(st.max_abs)); /* a stray infinity of the solution: infinite maxima */
    assert_true(isinf(st.max_rel));
    assert_false(check_passed(&st, &p));
    /* An infinity the reference has and the solution lacks: the maxima stay finite. */
    st = check_f32(out + 4, ref + 4, 2, &p);
    exact(st.max_abs, 0.015625);
    exact(st.max_rel, rel32(2.0f, 2.015625f));

    /* Matching infinities alone: pass, maxima untouched. */
    st = check_f32(out, ref, 2, &p);
    assert_int_equal(st.fails, 0);
    assert_int_equal(st.nonfinite, 0);
    exact(st.max_abs, 0.0);
    exact(st.max_rel, 0.0);
    assert_true(check_passed(&st, &p));

    /* A stray infinity fails even with an infinite tolerance and a ratio of 0. */
    p = policy(INFINITY, INFINITY, 0.0);
    st = check_f32(out + 3, ref + 3, 1, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.nonfinite, 1);
    assert_false(check_passed(&st, &p));
    st = check_f32(out + 2, ref + 2, 1, &p);
    assert_int_equal(st.fails, 1);
    assert_int_equal(st.nonfinite, 1);
}

/* bf16 and f16: compared as the values they encode, not as bit patterns. */
static void test_half_types(void **state)
{
    (void)state;
    /* bf16 0x3f80 = 1, 0x3f81 = 1 + 2^-7, 0x4040 = 3, 0x4000 = 2 */
    assert_true(dtype_bf16_to_f32(0x3f81) == 1.0078125f);
    const uint16_t out[] = {0x3f80, 0x3f81, 0x4040};
    const uint16_t ref[] = {0x3f80, 0x3f80, 0x4000};
    check_policy p = check_policy_default();
    check_stats st;
    check_tolerance(out, ref, KWB_BF16, 3, &p, &st);
    assert_int_equal(st.fails, 1); /* abs 2^-7 < atol passes; 3 vs 2 fails */
    assert_int_equal(st.first_fail, 2);
    exact(st.max_abs, 1.0);
    exact(st.max_rel, 0.5); /* 1 / (2 + 1e-8f) = 0.5 in float32 */

    p = policy(0.0, 0.0, 1.0);
    check_tolerance(out, ref, KWB_BF16, 2, &p, &st);
    assert_int_equal(st.fails, 1);
    exact(st.max_abs, 0.0078125); /* the value difference, not 1 (the bit difference) */

    /* bf16 NaN (0x7fc0) and infinity (0x7f80). */
    const uint16_t out2[] = {0x7fc0, 0x7f80, 0x7f80};
    const uint16_t ref2[] = {0x3f80, 0x7f80, 0xff80};
    p = check_policy_default();
    check_tolerance(out2, ref2, KWB_BF16, 3, &p, &st);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.nonfinite, 2);
    assert_int_equal(st.first_fail, 0);

    /* f16: 0x3c00 = 1, 0x3c01 = 1 + 2^-10, 0x4200 = 3 */
    const uint16_t out3[] = {0x3c01, 0x4200};
    const uint16_t ref3[] = {0x3c00, 0x3c00};
    p = policy(0.0, 0.0, 1.0);
    check_tolerance(out3, ref3, KWB_F16, 2, &p, &st);
    assert_int_equal(st.fails, 2);
    exact(st.max_abs, 2.0);
    check_tolerance(out3, ref3, KWB_F16, 1, &p, &st);
    exact(st.max_abs, 0x1p-10);
}

static void test_fp8_types(void **state)
{
    (void)state;
    /* e4m3: 0x38 = 1, 0x39 = 1.125, 0x7f = NaN */
    assert_true(dtype_e4m3_to_f32(0x39) == 1.125f);
    const uint8_t out[] = {0x38, 0x39, 0x7f, 0x38};
    const uint8_t ref[] = {0x38, 0x38, 0x38, 0x38};
    check_policy p = check_policy_default();
    check_stats st;
    check_tolerance(out, ref, KWB_F8_E4M3, 4, &p, &st);
    assert_int_equal(st.numel, 4);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.first_fail, 1);
    assert_int_equal(st.nonfinite, 1);
    assert_true(isnan(st.max_abs)); /* the NaN byte 0x7f */
    exact(st.matched_ratio, 0.5);
    check_tolerance(out, ref, KWB_F8_E4M3, 2, &p, &st);
    exact(st.max_abs, 0.125);
    exact(st.max_rel, 0.125); /* 0.125 / (1 + 1e-8f) = 0.125 in float32 */

    p = policy(0.125, 0.0, 1.0); /* abs == atol: passes */
    check_tolerance(out, ref, KWB_F8_E4M3, 2, &p, &st);
    assert_int_equal(st.fails, 0);

    /* e5m2: 0x3c = 1, 0x3d = 1.25, 0x7c = +inf, 0xfc = -inf */
    assert_true(dtype_e5m2_to_f32(0x3d) == 1.25f);
    const uint8_t out2[] = {0x7c, 0xfc, 0x3d, 0xfc};
    const uint8_t ref2[] = {0x7c, 0x7c, 0x3c, 0xfc};
    p = check_policy_default();
    check_tolerance(out2, ref2, KWB_F8_E5M2, 4, &p, &st);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.first_fail, 1);
    assert_int_equal(st.nonfinite, 1);
    assert_true(isinf(st.max_abs)); /* element 1: -inf where the reference has +inf */
    check_tolerance(out2 + 2, ref2 + 2, KWB_F8_E5M2, 2, &p, &st);
    exact(st.max_abs, 0.25);
    exact(st.max_rel, 0.25);
}

/* Integers are widened exactly (no float32 rounding above 2^24) and go through the same
 * element rule as floats, but in double: max_rel 1 / (5 + 1e-8), not the float32 0.2f. */
static void test_int32(void **state)
{
    (void)state;
    const int32_t out[] = {16777217, 5, 7, -3};
    const int32_t ref[] = {16777216, 5, 7, -3};
    check_policy p = policy(0.0, 0.0, 1.0);
    check_stats st;
    check_tolerance(out, ref, KWB_I32, 4, &p, &st);
    assert_int_equal(st.fails, 1); /* would be 0 after rounding both to float32 */
    assert_int_equal(st.first_fail, 0);
    exact(st.max_abs, 1.0);
    exact(st.max_rel, 1.0 / (16777216.0 + 1e-8));

    const int32_t out2[] = {5, 6, 1001, -1024};
    const int32_t ref2[] = {5, 5, 1000, -1024};
    p = check_policy_default();
    check_tolerance(out2, ref2, KWB_I32, 4, &p, &st);
    assert_int_equal(st.fails, 1); /* 6 vs 5: rel 0.2; 1001 vs 1000: rel 0.001 <= rtol passes */
    assert_int_equal(st.first_fail, 1);
    exact(st.max_abs, 1.0);
    exact(st.max_rel, 1.0 / (5.0 + 1e-8));

    const int64_t out3[] = {(int64_t)1 << 40, 3};
    const int64_t ref3[] = {((int64_t)1 << 40) + 1, 3};
    p = policy(0.0, 0.0, 1.0);
    check_tolerance(out3, ref3, KWB_I64, 2, &p, &st);
    assert_int_equal(st.fails, 1);
    exact(st.max_abs, 1.0);
}

static void test_first_fail(void **state)
{
    (void)state;
    float out[64], ref[64];
    for (int i = 0; i < 64; i++)
        out[i] = ref[i] = (float)i / 8.0f;
    out[37] += 1.0f;
    out[61] -= 2.0f;
    out[5] += 0.005f; /* within atol: not a failure */
    check_policy p = check_policy_default();
    check_stats st = check_f32(out, ref, 64, &p);
    assert_int_equal(st.fails, 2);
    assert_int_equal(st.first_fail, 37);
    exact(st.max_abs, 2.0);
    exact(st.max_rel, rel32(out[61], ref[61])); /* 2 / 7.625 in float32 */
    exact(st.matched_ratio, 1.0 - 2.0 / 64.0);
    out[0] = -1.0f;
    st = check_f32(out, ref, 64, &p);
    assert_int_equal(st.fails, 3);
    assert_int_equal(st.first_fail, 0);
}

static check_stats stats(size_t numel, size_t fails, size_t nonfinite, double max_abs, double max_rel, double ratio,
                         size_t first_fail)
{
    check_stats s = {numel, fails, nonfinite, max_abs, max_rel, ratio, first_fail};
    return s;
}

static void test_merge(void **state)
{
    (void)state;
    check_stats acc;
    memset(&acc, 0, sizeof acc);
    check_stats a = stats(100, 0, 0, 0.25, 3.0, 1.0, 0);
    check_stats b = stats(10, 2, 1, 0.5, 0.125, 0.8, 4);
    check_stats c = stats(20, 3, 2, 0.125, 7.0, 0.85, 1);

    check_stats_merge(&acc, &a); /* into an empty accumulator: a copy */
    assert_memory_equal(&acc, &a, sizeof acc);

    check_stats_merge(&acc, &b);
    assert_int_equal(acc.numel, 110);
    assert_int_equal(acc.fails, 2);
    assert_int_equal(acc.nonfinite, 1);
    exact(acc.max_abs, 0.5);
    exact(acc.max_rel, 3.0);
    exact(acc.matched_ratio, 0.8);
    assert_int_equal(acc.first_fail, 4); /* from b, the first failing part */

    check_stats_merge(&acc, &c);
    assert_int_equal(acc.numel, 130);
    assert_int_equal(acc.fails, 5);
    assert_int_equal(acc.nonfinite, 3);
    exact(acc.max_abs, 0.5);
    exact(acc.max_rel, 7.0);
    exact(acc.matched_ratio, 0.8);
    assert_int_equal(acc.first_fail, 4); /* still b's */

    /* A failing first part keeps its first_fail; passing parts after it change nothing. */
    memset(&acc, 0, sizeof acc);
    check_stats_merge(&acc, &c);
    check_stats_merge(&acc, &a);
    check_stats_merge(&acc, &b);
    assert_int_equal(acc.first_fail, 1);
    assert_int_equal(acc.numel, 130);
    assert_int_equal(acc.fails, 5);
    exact(acc.matched_ratio, 0.8);

    /* Merging real results of check_tolerance. */
    const float o1[] = {1, 2, 3, 4}, r1[] = {1, 2, 3, 4};
    const float o2[] = {1, 9, 3, NAN}, r2[] = {1, 2, 3, 4};
    check_policy p = check_policy_default();
    check_stats s1 = check_f32(o1, r1, 4, &p), s2 = check_f32(o2, r2, 4, &p);
    memset(&acc, 0, sizeof acc);
    check_stats_merge(&acc, &s1);
    check_stats_merge(&acc, &s2);
    assert_int_equal(acc.numel, 8);
    assert_int_equal(acc.fails, 2);
    assert_int_equal(acc.nonfinite, 1);
    assert_int_equal(acc.first_fail, 1);
    assert_true(isnan(acc.max_abs)); /* o2's NaN survives the merge (fmax would drop it) */
    exact(acc.matched_ratio, 0.5);
    assert_false(check_passed(&acc, &p));
    check_stats s3 = check_f32(o1, r1, 3, &p), s4 = check_f32(o2, r2, 3, &p);
    memset(&acc, 0, sizeof acc);
    check_stats_merge(&acc, &s3);
    check_stats_merge(&acc, &s4);
    exact(acc.max_abs, 7.0);
}

/* Large tensors are checked a block at a time, the clean blocks without branches: a failure,
 * a NaN and an infinity deep in later blocks are found with the same counts, first index and
 * maxima as elsewhere, in float32 and bfloat16 alike. */
static void test_large_blocks(void **state)
{
    (void)state;
    enum { N = 3 * 4096 + 123 };
    static float out[N], ref[N];
    static uint16_t out16[N], ref16[N];
    for (int i = 0; i < N; i++) {
        ref[i] = 1.0f + (float)(i % 7);
        out[i] = ref[i] + 0.001f; /* within atol everywhere */
    }
    out[9001] = ref[9001] + 5.0f;       /* fails: 5 > atol and 5 / ref > rtol */
    out[12000] = NAN;                   /* fails, and counts as non-finite */
    ref[12100] = out[12100] = INFINITY; /* equal infinities pass */
    check_policy p = check_policy_default();
    check_stats st;
    check_tolerance(out, ref, KWB_F32, N, &p, &st);
    exact(st.fails, 2);
    exact(st.first_fail, 9001);
    exact(st.nonfinite, 1);
    assert_true(isnan(st.max_abs) && isnan(st.max_rel)); /* the solution's NaN, as FlashInfer-Bench says it */
    out[12000] = ref[12000];
    check_tolerance(out, ref, KWB_F32, N, &p, &st);
    exact(st.fails, 1);
    exact(st.first_fail, 9001);
    exact(st.max_abs, (float)5.0f);
    exact(st.max_rel, (float)(5.0f / ((float)ref[9001] + 1e-8f)));
    out[12000] = NAN;
    for (int i = 0; i < N; i++) {
        out16[i] = dtype_f32_to_bf16(out[i]);
        ref16[i] = dtype_f32_to_bf16(ref[i]);
    }
    check_tolerance(out16, ref16, KWB_BF16, N, &p, &st);
    exact(st.fails, 2);
    exact(st.first_fail, 9001);
    exact(st.nonfinite, 1);
    /* all clean: only the maxima */
    out[9001] = ref[9001], out[12000] = ref[12000];
    check_tolerance(out, ref, KWB_F32, N, &p, &st);
    exact(st.fails, 0);
    exact(st.nonfinite, 0);
    exact(st.matched_ratio, 1.0);
    assert_true(st.max_abs > 0 && st.max_abs < 0.0011);
}

/* A tensor large enough to be checked by several threads: the counts, the first failure (in a
 * later thread's share than a NaN), the maxima and the ratio are those of one pass. */
static void test_parallel_check(void **state)
{
    (void)state;
    enum { N = (1 << 21) + 77 };
    float *out = malloc(N * sizeof *out), *ref = malloc(N * sizeof *ref);
    uint16_t *out16 = malloc(N * sizeof *out16), *ref16 = malloc(N * sizeof *ref16);
    assert_non_null(out && ref && out16 && ref16);
    for (int i = 0; i < N; i++) {
        ref[i] = 1.0f + (float)(i % 5);
        out[i] = ref[i] + 0.002f;
    }
    out[1500000] = ref[1500000] + 7.0f;
    out[1500001] = ref[1500001] - 3.0f;
    out[N - 1] = NAN;
    check_policy p = check_policy_default();
    check_stats st;
    check_tolerance(out, ref, KWB_F32, N, &p, &st);
    exact(st.numel, N);
    exact(st.fails, 3);
    exact(st.first_fail, 1500000);
    exact(st.nonfinite, 1);
    assert_true(isnan(st.max_abs));
    exact(st.matched_ratio, 1.0 - 3.0 / N);
    out[N - 1] = ref[N - 1];
    check_tolerance(out, ref, KWB_F32, N, &p, &st);
    exact(st.fails, 2);
    exact(st.max_abs, (float)7.0f);
    out[5] = ref[5] + 9.0f; /* the first thread's share */
    for (int i = 0; i < N; i++) {
        out16[i] = dtype_f32_to_bf16(out[i]);
        ref16[i] = dtype_f32_to_bf16(ref[i]);
    }
    check_tolerance(out16, ref16, KWB_BF16, N, &p, &st);
    exact(st.fails, 3);
    exact(st.first_fail, 5);
    exact(st.nonfinite, 0);
    free(out), free(ref), free(out16), free(ref16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_default),  cmocka_unit_test(test_abs_and_rel),
        cmocka_unit_test(test_boundaries),      cmocka_unit_test(test_float32_window),
        cmocka_unit_test(test_eps_denominator), cmocka_unit_test(test_matched_ratio),
        cmocka_unit_test(test_nan_output),      cmocka_unit_test(test_nan_reference),
        cmocka_unit_test(test_infinities),      cmocka_unit_test(test_half_types),
        cmocka_unit_test(test_fp8_types),       cmocka_unit_test(test_int32),
        cmocka_unit_test(test_first_fail),      cmocka_unit_test(test_merge),
        cmocka_unit_test(test_large_blocks),    cmocka_unit_test(test_parallel_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

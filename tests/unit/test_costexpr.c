/* test_costexpr.c - cost expressions: precedence, unary minus, functions, axis lookup, and
 * errors that name the column of the problem. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "costexpr.h"

static const char *const names[] = {"batch_size", "head_size", "n"};
static const int64_t values[] = {64, 128, 3};

static double eval(const char *text)
{
    kwb_error err = {{0}};
    costexpr *e = costexpr_compile(text, names, 3, &err);
    if (!e)
        fail_msg("'%s' did not compile: %s", text, err.msg);
    assert_string_equal(costexpr_text(e), text);
    double v = costexpr_eval(e, values);
    costexpr_free(e);
    return v;
}

static void expect_error(const char *text, const char *want)
{
    kwb_error err = {{0}};
    costexpr *e = costexpr_compile(text, names, 3, &err);
    if (e) {
        costexpr_free(e);
        fail_msg("'%s' compiled; expected \"%s\"", text, want);
    }
    if (!strstr(err.msg, want))
        fail_msg("'%s': message \"%s\" lacks \"%s\"", text, err.msg, want);
}

static void test_arithmetic(void **state)
{
    (void)state;
    assert_true(eval("1 + 2 * 3") == 7);
    assert_true(eval("(1 + 2) * 3") == 9);
    assert_true(eval("10 - 4 - 3") == 3); /* left to right */
    assert_true(eval("64 / 4 / 2") == 8);
    assert_true(eval("-n * 2") == -6);
    assert_true(eval("2 - -n") == 5);
    assert_true(eval("1.5e3") == 1500);
    assert_true(eval(" 7 ") == 7);
}

static void test_axes_and_functions(void **state)
{
    (void)state;
    assert_true(eval("batch_size * 8 * head_size * head_size * 4 * 2") == 64.0 * 8 * 128 * 128 * 8);
    assert_true(eval("min(batch_size, n)") == 3);
    assert_true(eval("max(batch_size, n * 100)") == 300);
    assert_true(eval("ceil(batch_size / 5)") == 13);
    assert_true(eval("max(min(1, 2), min(3, n + 1))") == 3);
    assert_true(isinf(eval("1 / (n - 3)")));
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("batch + 1", "column 1: 'batch' is not an axis");
    expect_error("1 + ", "column 5: expression ends too early");
    expect_error("(1 + 2", "column 7: expected ')' at the end");
    expect_error("1 2", "column 3: unexpected '2' after the expression");
    expect_error("sqrt(4)", "unknown function 'sqrt'");
    expect_error("min(1)", "expected ','");
    expect_error("1 + $", "column 5: unexpected '$'");
    expect_error("", "expression ends too early");
}

/* A deep expression needs a stack bigger than the fixed one. */
static void test_deep(void **state)
{
    (void)state;
    char text[4096] = "";
    for (int i = 0; i < 100; i++)
        strcat(text, "(1 + ");
    strcat(text, "0");
    for (int i = 0; i < 100; i++)
        strcat(text, ")");
    assert_true(eval(text) == 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arithmetic),
        cmocka_unit_test(test_axes_and_functions),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_deep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_tuner.c - the built-in tuner: knobs found with their file and line, malformed ones
 * refused with FILE:LINE, proposals nearest-first and never repeated, and an applied proposal
 * that changes exactly one value, with its diff. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solution.h"
#include "testutil.h"
#include "tuner.h"

static const char *json = "{\"name\": \"t\", \"definition\": \"d\", \"author\": \"me\",\n"
                          " \"spec\": {\"language\": \"c\", \"target_hardware\": [\"cpu\"], \"entry_point\": "
                          "\"k.c::kwb_entry\",\n  \"dependencies\": [], \"destination_passing_style\": true, "
                          "\"binding\": \"kwb\"},\n \"sources\": [{\"path\": \"k.c\"}]}\n";

/* A solution folder in DIR whose k.c is SOURCE. */
static solution *make_solution(const char *dir, const char *source)
{
    char *p = testutil_path(dir, "solution.json");
    testutil_write_text(p, json);
    free(p);
    p = testutil_path(dir, "k.c");
    testutil_write_text(p, source);
    free(p);
    kwb_error err = {{0}};
    solution *s = solution_load(dir, &err);
    if (!s)
        fail_msg("solution did not load: %s", err.msg);
    return s;
}

static const char *source = "#include <stdio.h>\n"
                            "#define LANES 4 /* kwb:tune LANES {1,2,4,8} */\n"
                            "#define PLAIN 3\n"
                            "  #define THREADS 1   /* kwb:tune THREADS { 1, 2 } */\n"
                            "int lanes(void) { return LANES * THREADS; }\n";

static void test_scan_and_propose(void **state)
{
    solution *s = make_solution(*state, source);
    tuner_knob *k;
    int n;
    kwb_error err = {{0}};
    assert_int_equal(tuner_scan(s, &k, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "LANES");
    assert_string_equal(k[0].value, "4");
    assert_int_equal(k[0].line, 2);
    assert_int_equal(k[0].nvalues, 4);
    assert_string_equal(k[1].name, "THREADS");
    assert_string_equal(k[1].values[1], "2");
    /* nearest first, upward first, knobs in order; then distance 2 */
    const char *want[] = {"tune.LANES=8", "tune.LANES=2", "tune.THREADS=2", "tune.LANES=1"};
    const char *tried[4];
    tuner_proposal p;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(tuner_propose(k, n, tried, i, &p), 1);
        assert_string_equal(p.id, want[i]);
        tried[i] = want[i];
    }
    assert_int_equal(tuner_propose(k, n, tried, 4, &p), 0);
    assert_int_equal(tuner_propose(k, n, tried, 0, &p), 1);
    assert_string_equal(p.title, "set LANES 4 -> 8");
    tuner_knobs_free(k, n);
    solution_free(s);
}

static void test_apply(void **state)
{
    solution *s = make_solution(*state, source);
    tuner_knob *k;
    int n;
    kwb_error err = {{0}};
    assert_int_equal(tuner_scan(s, &k, &n, &err), 0);
    tuner_proposal p;
    const char *tried[] = {"tune.LANES=8", "tune.LANES=2"};
    assert_int_equal(tuner_propose(k, n, tried, 2, &p), 1);
    char *dst = testutil_path(*state, "cand");
    strbuf diff;
    strbuf_init(&diff);
    if (tuner_apply(s, &p, dst, &diff, &err) != 0)
        fail_msg("apply: %s", err.msg);
    char *path = testutil_path(dst, "k.c");
    size_t len;
    char *text = testutil_read_file(path, &len);
    assert_string_equal(text, "#include <stdio.h>\n"
                              "#define LANES 4 /* kwb:tune LANES {1,2,4,8} */\n"
                              "#define PLAIN 3\n"
                              "  #define THREADS 2   /* kwb:tune THREADS { 1, 2 } */\n"
                              "int lanes(void) { return LANES * THREADS; }\n");
    assert_string_equal(diff.s, "--- a/k.c\n+++ b/k.c\n@@ -4 +4 @@\n"
                                "-  #define THREADS 1   /* kwb:tune THREADS { 1, 2 } */\n"
                                "+  #define THREADS 2   /* kwb:tune THREADS { 1, 2 } */\n");
    /* the copy is a solution of its own, and scanning it shows the new value */
    kwb_error e2 = {{0}};
    solution *c = solution_load(dst, &e2);
    assert_non_null(c);
    tuner_knob *k2;
    int n2;
    assert_int_equal(tuner_scan(c, &k2, &n2, &e2), 0);
    assert_string_equal(k2[1].value, "2");
    /* applying into an existing folder is refused */
    strbuf again;
    strbuf_init(&again);
    assert_int_equal(tuner_apply(s, &p, dst, &again, &e2), -1);
    assert_non_null(strstr(e2.msg, "cannot make the candidate folder"));
    strbuf_free(&again);
    tuner_knobs_free(k2, n2);
    solution_free(c);
    free(text);
    free(path);
    free(dst);
    strbuf_free(&diff);
    tuner_knobs_free(k, n);
    solution_free(s);
}

static void expect_scan_error(const char *dir, const char *src, const char *want)
{
    solution *s = make_solution(dir, src);
    tuner_knob *k;
    int n;
    kwb_error err = {{0}};
    assert_int_equal(tuner_scan(s, &k, &n, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_int_equal(n, 0);
    solution_free(s);
}

static void test_errors(void **state)
{
    const char *dir = *state;
    expect_scan_error(dir, "\n#define A 3 /* kwb:tune A {1,2} */\n", "k.c:2: knob A is 3, which is not one of {1,2}");
    expect_scan_error(dir, "#define A 1 /* kwb:tune B {1,2} */\n", "k.c:1: the #define names A but kwb:tune names B");
    expect_scan_error(dir, "#define A 1 /* kwb:tune A {1} */\n", "k.c:1: knob A lists fewer than two values");
    expect_scan_error(dir, "int x; /* kwb:tune A {1,2} */\n", "k.c:1: a kwb:tune knob reads");
    expect_scan_error(dir, "#define A 1 /* kwb:tune A {1,2} */\n#define A 2 /* kwb:tune A {1,2} */\n",
                      "k.c:2: knob A declared twice");
}

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-tuner-XXXXXX");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_scan_and_propose, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_apply, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_sweepprog.c - the progress lines' counts and their reading back (the workbench's title
 * shows what it reads from the evaluations' lines): off a terminal a line per workload with the
 * counts first, quiet writes nothing, and the parser takes exactly the lines kwb eval writes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweepprog.h"

static void test_lines_and_parse(void **state)
{
    (void)state;
    definition d = {0};
    workload w[2] = {{0}};
    w[0].uuid = "aaaaaaaa-1";
    w[1].uuid = "bbbbbbbb-2";
    wl_result r[2] = {{0}};
    r[0].wl = &w[0], r[0].status = ST_PASSED;
    r[1].wl = &w[1], r[1].status = ST_INCORRECT_NUMERICAL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sweep_progress p;
    sweep_progress_start(&p, f, 0, &d, 2); /* a memory stream is no terminal: lines */
    assert_int_equal(p.mode, SWEEP_LINES);
    sweep_progress_add(&p, &r[0]);
    sweep_progress_add(&p, &r[1]);
    sweep_progress_end(&p);
    fclose(f);
    char *second = strchr(text, '\n');
    assert_non_null(second);
    int done, total, passed, failed;
    assert_int_equal(sweep_progress_parse(text, &done, &total, &passed, &failed), 0);
    assert_int_equal(done, 1), assert_int_equal(total, 2), assert_int_equal(passed, 1), assert_int_equal(failed, 0);
    assert_int_equal(sweep_progress_parse(second + 1, &done, &total, &passed, &failed), 0);
    assert_int_equal(done, 2), assert_int_equal(passed, 1), assert_int_equal(failed, 1);
    assert_non_null(strstr(second + 1, "bbbbbbbb"));
    assert_non_null(strstr(second + 1, "INCORRECT_NUMERICAL"));
    free(text);
    assert_int_equal(sweep_progress_parse("kwb: something else [1/2]", &done, &total, &passed, &failed), -1);
    assert_int_equal(sweep_progress_parse("judge: kwb eval: [3/7] 2 passed, 1 failed | 1.0 s elapsed", &done, &total,
                                          &passed, &failed),
                     0);
    assert_int_equal(total, 7);
}

static void test_quiet(void **state)
{
    (void)state;
    definition d = {0};
    workload w = {0};
    w.uuid = "cccccccc";
    wl_result r = {0};
    r.wl = &w;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sweep_progress p;
    sweep_progress_start(&p, f, 1, &d, 1);
    sweep_progress_add(&p, &r);
    sweep_progress_end(&p);
    fclose(f);
    assert_int_equal(len, 0);
    assert_int_equal(p.done, 1);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_and_parse),
        cmocka_unit_test(test_quiet),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

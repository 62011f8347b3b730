/* test_proc.c - proc_run_captured: both streams and the exit code come back, a run past its
 * time is killed (124), and no file is left in $TMPDIR or anywhere else. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "testutil.h"

/* Entries in DIR other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-proc-XXXXXX");
}

static void test_captured(void **state)
{
    setenv("TMPDIR", *state, 1);
    kwb_error err = {{0}};
    int code = 0;
    char *argv[] = {"/bin/sh", "-c", "echo to-out; echo to-err >&2; exit 3", NULL};
    char *text = proc_run_captured(argv, NULL, 10, &code, &err);
    assert_non_null(text);
    assert_int_equal(code, 3);
    assert_non_null(strstr(text, "to-out\n"));
    assert_non_null(strstr(text, "to-err\n"));
    free(text);
    char *big[] = {"/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x", NULL};
    text = proc_run_captured(big, NULL, 10, &code, &err);
    assert_int_equal(code, 0);
    assert_int_equal(strlen(text), 300000);
    free(text);
    char *slow[] = {"/bin/sh", "-c", "echo started; sleep 20", NULL};
    text = proc_run_captured(slow, NULL, 0.3, &code, &err);
    assert_int_equal(code, 124);
    assert_non_null(strstr(text, "started"));
    free(text);
    assert_int_equal(entries(*state), 0);
    unsetenv("TMPDIR");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_captured, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

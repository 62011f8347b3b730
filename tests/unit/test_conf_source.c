/* test_conf_source.c - kwb.conf's `source` (issue 19 items 6 and 10): a file that sources itself
 * N times, a cycle through two files, a fan-out of files sourcing each other many times, and a
 * folder are each reported with FILE:LINE, once per offending line, in bounded time and text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "testutil.h"
#include "tui/conf.h"

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-confsrc-XXXXXX");
}

/* Writes DIR/NAME with N lines "source DIR/TARGET" and returns its path. */
static char *write_sourcing(const char *dir, const char *name, const char *target, int n)
{
    char *path = testutil_path(dir, name), *to = testutil_path(dir, target);
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < n; i++)
        strbuf_printf(&sb, "source %s\n", to);
    strbuf_puts(&sb, "set mouse = yes\n");
    testutil_write_text(path, sb.s);
    strbuf_free(&sb);
    free(to);
    return path;
}

static void test_self_cycle(void **state)
{
    char *self = write_sourcing(*state, "self.conf", "self.conf", 6);
    tui_config c;
    config_init(&c);
    config_apply_file(&c, self, 0, 0);
    assert_int_equal(c.nerrors, 6);
    char want[4200];
    snprintf(want, sizeof want, "%s:6: source %s: a cycle", self, self);
    if (!strstr(c.errors.s, want))
        fail_msg("no '%s' in: %s", want, c.errors.s);
    assert_int_equal(c.mouse, 1); /* the rest of the file applies */
    config_free(&c);
    free(self);
}

static void test_two_file_cycle_and_fan_out(void **state)
{
    char *a = write_sourcing(*state, "a.conf", "b.conf", 3), *b = write_sourcing(*state, "b.conf", "a.conf", 3);
    tui_config c;
    config_init(&c);
    config_apply_file(&c, a, 0, 0);
    assert_int_equal(c.nerrors, 9); /* b is read 3 times; each of its 3 lines closes the cycle */
    assert_non_null(strstr(c.errors.s, "b.conf:1: source "));
    config_free(&c);
    /* f0 sources f1 ten times, f1 sources f2 ten times, ...: bounded in files read and errors */
    char *f[10];
    for (int i = 0; i < 10; i++) {
        char name[16], next[16];
        snprintf(name, sizeof name, "f%d.conf", i);
        snprintf(next, sizeof next, "f%d.conf", i + 1);
        f[i] = write_sourcing(*state, name, i < 9 ? next : "none.conf", 10);
    }
    config_init(&c);
    config_apply_file(&c, f[0], 0, 0);
    assert_true(c.nsourced <= CONFIG_SOURCE_MAX + 1);
    assert_true(c.nerrors <= 20);
    assert_true(c.errors.len < 64 * 1024);
    assert_non_null(strstr(c.errors.s, "files sourced in all"));
    config_free(&c);
    for (int i = 0; i < 10; i++)
        free(f[i]);
    free(a);
    free(b);
}

static void test_folder_and_missing(void **state)
{
    char *conf = testutil_path(*state, "dir.conf");
    char text[4200];
    snprintf(text, sizeof text, "source %s\nsource %s/none\n", (const char *)*state, (const char *)*state);
    testutil_write_text(conf, text);
    tui_config c;
    config_init(&c);
    config_apply_file(&c, conf, 0, 0);
    assert_int_equal(c.nerrors, 2);
    if (!strstr(c.errors.s, "dir.conf:1: source ") || !strstr(c.errors.s, ": is a folder, not a file") ||
        !strstr(c.errors.s, "dir.conf:2: source ") || !strstr(c.errors.s, "No such file"))
        fail_msg("errors: %s", c.errors.s);
    config_free(&c);
    config_init(&c);
    config_apply_file(&c, *state, 0, 0);
    assert_non_null(strstr(c.errors.s, "is a folder"));
    config_free(&c);
    free(conf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_self_cycle, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_two_file_cycle_and_fan_out, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_folder_and_missing, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

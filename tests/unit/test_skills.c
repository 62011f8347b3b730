/* test_skills.c - skill playbooks: the shipped skills/ load; directions carry their fields,
 * guidance and line; bad files fail with FILE:LINE and the problem; ids are unique. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skills.h"
#include "testutil.h"

static skill parse_ok(const char *text)
{
    skill s;
    kwb_error err = {{0}};
    if (skills_parse(text, strlen(text), "S.md", &s, &err) != 0)
        fail_msg("did not parse: %s", err.msg);
    return s;
}

static void expect_error(const char *text, const char *want)
{
    skill s;
    kwb_error err = {{0}};
    if (skills_parse(text, strlen(text), "S.md", &s, &err) == 0) {
        skills_free(&s);
        fail_msg("parsed; expected \"%s\"", want);
    }
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

#define FRONT "---\nskill: t\ntitle: Test\ndefinitions: def_a, def_b\n---\n"

static void test_parse(void **state)
{
    (void)state;
    skill s = parse_ok(FRONT "# T\n\nprose\n\n## first\n\n```kwb-direction\nid: t.one\ntitle: One\n"
                             "applies: memory-bound, latency-bound\nregimes: small\nscope: k/*.cu\n```\n\n"
                             "Do this.\nThen that.\n\n## second\n```kwb-direction\nid: t.two\ntitle: Two\n"
                             "applies: any\nscope: k/a.cu, k/b.cu\n```\nOnly this.\n");
    assert_string_equal(s.id, "t");
    assert_string_equal(s.title, "Test");
    assert_int_equal(s.definitions.n, 2);
    assert_string_equal(s.definitions.items[1], "def_b");
    assert_int_equal(s.ndirs, 2);
    const skill_direction *d = &s.dirs[0];
    assert_string_equal(d->id, "t.one");
    assert_int_equal(d->line, 12);
    assert_int_equal(d->applies.n, 2);
    assert_string_equal(d->applies.items[1], "latency-bound");
    assert_string_equal(d->guidance, "Do this.\nThen that.");
    assert_int_equal(s.dirs[1].scope.n, 2);
    assert_string_equal(s.dirs[1].scope.items[1], "k/b.cu");
    assert_string_equal(s.dirs[1].guidance, "Only this.");
    /* applicability: definition, class, regime */
    assert_true(skills_applies(&s, d, "def_a", "memory-bound", "small"));
    assert_false(skills_applies(&s, d, "def_c", "memory-bound", "small"));
    assert_false(skills_applies(&s, d, "def_a", "compute-bound", NULL));
    assert_false(skills_applies(&s, d, "def_a", "memory-bound", "large"));
    assert_true(skills_applies(&s, &s.dirs[1], "def_b", "compute-bound", "large"));
    skills_free(&s);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("# no front matter\n", "S.md:1: a skill starts with front matter");
    expect_error("---\nskill: t\ntitle: x\n", "S.md:1: the front matter opened here is never closed");
    expect_error("---\ntitle: x\n---\n", "S.md:1: front matter without 'skill'");
    expect_error("---\nskill: t\nowner: me\n---\n",
                 "S.md:3: unknown key 'owner' (known: skill, title, definitions, references)");
    expect_error(FRONT "```kwb-direction\nid: a\ntitle: A\napplies: fast\nscope: x\n```\n",
                 "S.md:6: direction 'a': unknown bottleneck class 'fast'");
    expect_error(FRONT "```kwb-direction\nid: a\napplies: any\nscope: x\n```\n",
                 "S.md:6: direction 'a' without 'title'");
    expect_error(FRONT "```kwb-direction\nid: a\ntitle: A\napplies: any\n```\n", "without 'scope'");
    expect_error(FRONT "```kwb-direction\nid: a\ntitle: A\napplies: any\nscope: x\n",
                 "S.md:6: the kwb-direction block opened here is never closed");
    expect_error(FRONT "```kwb-direction\nid: a\nid: b\n```\n", "S.md:8: 'id' given twice");
    expect_error(FRONT "```kwb-direction\njust words\n```\n", "S.md:7: expected 'key: value'");
    expect_error(FRONT "```kwb-direction\nid: a\ntitle: A\napplies: any\nscope: x\n```\n"
                       "```kwb-direction\nid: a\ntitle: B\napplies: any\nscope: y\n```\n",
                 "S.md:12: direction 'a' already declared on line 6");
}

/* The shipped skills/ folder loads; gdn.md has its directions. */
static void test_shipped(void **state)
{
    (void)state;
    skill_set set;
    kwb_error err = {{0}};
    if (skills_load_dir(TOP_SRCDIR "/skills", &set, &err) != 0)
        fail_msg("skills/ did not load: %s", err.msg);
    const skill_direction *d = skills_find(&set, "gdn.vector-state");
    assert_non_null(d);
    assert_string_equal(d->applies.items[0], "memory-bound");
    assert_non_null(strstr(d->guidance, "float4"));
    assert_non_null(skills_find(&set, "gdn.prefill-chunked"));
    assert_null(skills_find(&set, "no.such"));
    skills_set_free(&set);
}

/* Two files declaring the same id: refused, naming both places. */
static void test_duplicate_across_files(void **state)
{
    const char *dir = *state;
    const char *body =
        "---\nskill: %s\ntitle: T\n---\n```kwb-direction\nid: same\ntitle: A\napplies: any\nscope: x\n```\n";
    char text[512];
    const char *names[] = {"a.md", "b.md"};
    for (int i = 0; i < 2; i++) {
        char *path = testutil_path(dir, names[i]);
        snprintf(text, sizeof text, body, names[i]);
        testutil_write_text(path, text);
        free(path);
    }
    char *readme = testutil_path(dir, "README.md");
    testutil_write_text(readme, "# prose only\n");
    free(readme);
    skill_set set;
    kwb_error err = {{0}};
    assert_int_equal(skills_load_dir(dir, &set, &err), -1);
    assert_non_null(strstr(err.msg, "b.md:5: direction 'same' already declared at "));
    assert_non_null(strstr(err.msg, "a.md:5"));
    assert_int_equal(set.n, 0);
}

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-skills-XXXXXX");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_shipped),
        cmocka_unit_test_setup_teardown(test_duplicate_across_files, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

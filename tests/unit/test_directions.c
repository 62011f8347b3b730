/* test_directions.c - ranking of a round's directions: the class of the best puts the
 * directions that address it first, the regime with most latency next, a family rejected
 * before sinks, tried ones are left out, other definitions' skills are not offered; the
 * tuner's knob changes come nearest value first; the class of a timed table; a fix ("applies:
 * failing") first when the best fails a check, last when it passes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "directions.h"

static const char *const skill_text =
    "---\nskill: t\ntitle: T\ndefinitions: def_a\n---\n"
    "## a\n```kwb-direction\nid: t.mem\ntitle: Memory\napplies: memory-bound\nscope: k/*.cu\n```\nMem.\n"
    "## b\n```kwb-direction\nid: t.lat\ntitle: Latency\napplies: latency-bound, launch-bound\n"
    "regimes: small\nscope: k/*.cu\n```\nLat.\n"
    "## c\n```kwb-direction\nid: t.any\ntitle: Any\napplies: any\nscope: k/*.cu\n```\nAny.\n"
    "## d\n```kwb-direction\nid: t.big=2\ntitle: Big\napplies: latency-bound\nregimes: large\n"
    "scope: k/*.cu\n```\nBig.\n";

static const char *const other_text =
    "---\nskill: o\ntitle: O\ndefinitions: def_b\n---\n"
    "## a\n```kwb-direction\nid: o.x\ntitle: X\napplies: any\nscope: k/*.cu\n```\nX.\n";

static skill_set load(void)
{
    skill_set set = {calloc(2, sizeof(skill)), 2};
    kwb_error err = {{0}};
    assert_int_equal(skills_parse(skill_text, strlen(skill_text), "t.md", &set.skills[0], &err), 0);
    assert_int_equal(skills_parse(other_text, strlen(other_text), "o.md", &set.skills[1], &err), 0);
    return set;
}

static void ids(const direction *d, int n, char *out, size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        strncat(out, d[i].id, cap - strlen(out) - 2);
        strncat(out, " ", cap - strlen(out) - 1);
    }
}

/* Ranks SET for C into *d, *n and lists the ids in OUT. */
static void rank_ids(const skill_set *set, const direction_ctx *c, direction **d, int *n, char *out, size_t cap)
{
    directions_rank(set, c, d, n);
    ids(*d, *n, out, cap);
}

static void test_by_class(void **state)
{
    (void)state;
    skill_set set = load();
    direction *d;
    int n;
    char got[256];
    direction_ctx c = {.definition = "def_a", .cls = "memory-bound", .roofline_share = 0.5};
    rank_ids(&set, &c, &d, &n, got, sizeof got);
    assert_string_equal(got, "t.mem t.any t.lat t.big=2 "); /* o.x is for def_b */
    assert_non_null(strstr(d[0].predicted, "2.00x"));
    assert_non_null(strstr(d[0].rationale, "memory-bound"));
    assert_ptr_equal(d[0].sd, &set.skills[0].dirs[0]);
    free(d);

    c.cls = "latency-bound";
    c.regime = "small";
    rank_ids(&set, &c, &d, &n, got, sizeof got);
    assert_string_equal(got, "t.lat t.big=2 t.any t.mem ");
    assert_non_null(strstr(d[0].rationale, "regime"));
    free(d);
    skills_set_free(&set);
}

static void test_history(void **state)
{
    (void)state;
    skill_set set = load();
    direction *d;
    int n;
    char got[256];
    const char *tried[] = {"t.any"};
    sv_round hist[] = {{"t.big=1", 0, 1.0}, {"t.big=3", 0, 1.0}, {"t.mem", 0, 1.0}};
    direction_ctx c = {.definition = "def_a",
                       .cls = "latency-bound",
                       .regime = "large",
                       .tried = tried,
                       .ntried = 1,
                       .hist = hist,
                       .nhist = 3};
    rank_ids(&set, &c, &d, &n, got, sizeof got);
    /* t.big=2 fits class and regime (4+2) but its family t.big was rejected twice (-3) */
    assert_string_equal(got, "t.lat t.big=2 t.mem ");
    assert_non_null(strstr(d[1].rationale, "rejected 2 times"));
    free(d);
    /* unknown class: declared order, and the rationale says why */
    direction_ctx u = {.definition = "def_a"};
    rank_ids(&set, &u, &d, &n, got, sizeof got);
    assert_string_equal(got, "t.mem t.lat t.any t.big=2 ");
    assert_non_null(strstr(d[0].rationale, "not known"));
    free(d);
    skills_set_free(&set);
}

static const char *const fix_text =
    "---\nskill: f\ntitle: F\ndefinitions: def_a\n---\n"
    "## a\n```kwb-direction\nid: f.fix\ntitle: Fix\napplies: failing\nscope: k/*.cu\n```\nFix.\n"
    "## b\n```kwb-direction\nid: f.mem\ntitle: Mem\napplies: memory-bound\nscope: k/*.cu\n```\nMem.\n";

static void test_failing(void **state)
{
    (void)state;
    skill_set set = {calloc(1, sizeof(skill)), 1};
    kwb_error err = {{0}};
    assert_int_equal(skills_parse(fix_text, strlen(fix_text), "f.md", &set.skills[0], &err), 0);
    direction *d;
    int n;
    char got[256];
    direction_ctx c = {
        .definition = "def_a", .cls = "memory-bound", .failing = "INCORRECT_NUMERICAL on workload 410794d4"};
    rank_ids(&set, &c, &d, &n, got, sizeof got);
    assert_string_equal(got, "f.fix f.mem "); /* a fix outranks the class's own direction */
    assert_non_null(strstr(d[0].rationale, "fails a check (INCORRECT_NUMERICAL on workload 410794d4)"));
    assert_null(strstr(d[0].rationale, "class")); /* a fix has no class to weigh */
    free(d);
    c.failing = NULL;
    rank_ids(&set, &c, &d, &n, got, sizeof got);
    assert_string_equal(got, "f.mem f.fix ");
    assert_non_null(strstr(d[1].rationale, "the best passes every one"));
    free(d);
    skills_set_free(&set);
}

static void test_class_of(void **state)
{
    (void)state;
    double lat[] = {1.0, 3.0, 0.0}, roof[] = {0.9, 0.7, 0.5}, share;
    const char *cls = directions_class_of(lat, roof, 3, &share);
    assert_true(share > 0.749 && share < 0.751); /* (0.9 + 2.1) / 4 */
    assert_string_equal(cls, "memory-bound");
    double low[] = {0.1, 0.2};
    assert_string_equal(directions_class_of(lat, low, 2, &share), "latency-bound");
    double none[] = {0, 0};
    assert_string_equal(directions_class_of(none, roof, 2, &share), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_class),
        cmocka_unit_test(test_history),
        cmocka_unit_test(test_failing),
        cmocka_unit_test(test_class_of),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

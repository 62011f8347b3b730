/* test_solution.c - solution folders: the shipped CPU solutions load with their sources;
 * inline sources; every malformed solution.json fails with "DIR/solution.json:LINE: problem"
 * naming the right line of a file whose layout is fixed here. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "solution.h"

#define KDIR TOP_SRCDIR "/kernels/gdn_decode_qk4_v8_d128_k_last/cpu"

/* ---- a fresh directory under /tmp per test -------------------------------------------- */

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-sol-XXXXXX");
}

static int teardown(void **state)
{
    return testutil_tmpdir_teardown(state);
}

/* ---- the shipped solutions ------------------------------------------------------------------ */

static void expect_shipped(const char *variant, const char *name, const char *file)
{
    char dir[4096], src[4200], json[4200];
    snprintf(dir, sizeof dir, "%s/%s", KDIR, variant);
    snprintf(src, sizeof src, "%s/%s", dir, file);
    snprintf(json, sizeof json, "%s/solution.json", dir);
    kwb_error err = {{0}};
    solution *s = solution_load(dir, &err);
    if (!s)
        fail_msg("%s did not load: %s", dir, err.msg);
    assert_string_equal(s->dir, dir);
    assert_string_equal(s->json_path, json);
    assert_string_equal(s->name, name);
    assert_string_equal(s->definition, "gdn_decode_qk4_v8_d128_k_last");
    assert_string_equal(s->author, "kwb");
    assert_string_equal(s->language, "c");
    assert_string_equal(s->entry_file, file);
    assert_string_equal(s->entry_symbol, "kwb_entry");
    assert_int_equal(s->nsources, 1);
    assert_string_equal(s->sources[0].path, file);
    /* the source is the file in the folder, byte for byte */
    size_t len;
    char *want = testutil_read_file(src, &len);
    assert_true(len > 0);
    assert_int_equal(s->sources[0].len, len);
    assert_memory_equal(s->sources[0].content, want, len);
    assert_int_equal(s->sources[0].content[len], '\0');
    assert_non_null(strstr(s->sources[0].content, "kwb_entry"));
    free(want);
    solution_free(s);
}

static void test_shipped_baseline(void **state)
{
    (void)state;
    expect_shipped("baseline", "gdn_decode_cpu_baseline", "gdn_decode_baseline.c");
}

static void test_shipped_fast(void **state)
{
    (void)state;
    expect_shipped("fast", "gdn_decode_cpu_fast", "gdn_decode_fast.c");
}

/* ---- solution.json with a fixed line layout ------------------------------------------- */

/* The fields of one solution.json; each is raw JSON text placed on its own line:
 *  1 {
 *  2   NAME,
 *  3   "definition": "gdn_decode_qk4_v8_d128_k_last",
 *  4   AUTHOR,
 *  5   "spec": {
 *  6     LANGUAGE,
 *  7     "target_hardware": ["cpu"],
 *  8     ENTRY,
 *  9     "dependencies": [],
 * 10     DPS,
 * 11     BINDING
 * 12   },
 * 13   "sources": [
 * 14     SRC0,
 * 15     SRC1
 * 16   ]
 * 17 }
 */
#define MAIN_C                                                                                                         \
    "#include \"kwb/kernel.h\"\nint kwb_entry(const kwb_arg *a, int n, kwb_stream s)\n"                                \
    "{ (void)a; (void)n; (void)s; return 0; }\n"

typedef struct sol_text {
    const char *name, *author, *language, *entry, *dps, *binding, *src0, *src1;
} sol_text;

static const sol_text GOOD = {
    .name = "\"name\": \"tester_sol\"",
    .author = "\"author\": \"tester\"",
    .language = "\"language\": \"c\"",
    .entry = "\"entry_point\": \"main.c::kwb_entry\"",
    .dps = "\"destination_passing_style\": true",
    .binding = "\"binding\": \"kwb\"",
    .src0 = "{\"path\": \"main.c\"}",
    .src1 = "{\"path\": \"inc/util.h\", \"content\": \"#define TWO 2\\n\"}",
};

/* Makes the folder DIR/SUB with solution.json from T and main.c (unless no_main); returns
 * the folder's path (static buffer). */
static const char *make_solution(const char *dir, const char *sub, sol_text t, int no_main)
{
    static char path[4096];
    char file[4200], text[8192];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(text, sizeof text,
             "{\n"
             "  %s,\n"
             "  \"definition\": \"gdn_decode_qk4_v8_d128_k_last\",\n"
             "  %s,\n"
             "  \"spec\": {\n"
             "    %s,\n"
             "    \"target_hardware\": [\"cpu\"],\n"
             "    %s,\n"
             "    \"dependencies\": [],\n"
             "    %s,\n"
             "    %s\n"
             "  },\n"
             "  \"sources\": [\n"
             "    %s%s\n"
             "    %s\n"
             "  ]\n"
             "}\n",
             t.name, t.author, t.language, t.entry, t.dps, t.binding, t.src0, t.src1 ? "," : "", t.src1 ? t.src1 : "");
    snprintf(file, sizeof file, "%s/solution.json", path);
    testutil_write_text(file, text);
    if (!no_main) {
        snprintf(file, sizeof file, "%s/main.c", path);
        testutil_write_text(file, MAIN_C);
    }
    return path;
}

static void test_good_layout(void **state)
{
    const char *dir = make_solution(*state, "good", GOOD, 0);
    kwb_error err = {{0}};
    solution *s = solution_load(dir, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_string_equal(s->name, "tester_sol");
    assert_string_equal(s->author, "tester");
    assert_string_equal(s->entry_file, "main.c");
    assert_string_equal(s->entry_symbol, "kwb_entry");
    assert_int_equal(s->nsources, 2);
    assert_string_equal(s->sources[0].path, "main.c");
    assert_int_equal(s->sources[0].len, 118);
    assert_string_equal(s->sources[0].content, MAIN_C);
    assert_string_equal(s->sources[1].path, "inc/util.h");
    assert_string_equal(s->sources[1].content, "#define TWO 2\n");
    assert_int_equal(s->sources[1].len, 14);
    solution_free(s);
    solution_free(NULL);
}

/* Everything inline, in a folder with no source file; optional fields left out; a cuda
 * solution; a path with ".." inside a name is fine. */
static void test_inline_sources(void **state)
{
    sol_text t = GOOD;
    t.language = "\"language\": \"cuda\"";
    t.entry = "\"entry_point\": \"k..v1/kernel.cu::launch_it\"";
    t.dps = "\"description\": \"no dps given: true by default\"";
    t.binding = "\"dependencies_extra\": null";
    t.src0 = "{\"path\": \"k..v1/kernel.cu\", \"content\": \"__global__ void k() {}\\n// \\\"quoted\\\" \\u00e9\\n\"}";
    t.src1 = "{\"path\": \"./empty.h\", \"content\": \"\"}";
    const char *dir = make_solution(*state, "inline", t, 1);
    kwb_error err = {{0}};
    solution *s = solution_load(dir, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_string_equal(s->language, "cuda");
    assert_string_equal(s->entry_file, "k..v1/kernel.cu");
    assert_string_equal(s->entry_symbol, "launch_it");
    assert_int_equal(s->nsources, 2);
    assert_string_equal(s->sources[0].content, "__global__ void k() {}\n// \"quoted\" \xc3\xa9\n");
    assert_int_equal(s->sources[0].len, strlen("__global__ void k() {}\n// \"quoted\" \xc3\xa9\n"));
    assert_string_equal(s->sources[1].path, "./empty.h");
    assert_int_equal(s->sources[1].len, 0);
    assert_string_equal(s->sources[1].content, "");
    solution_free(s);
}

/* ---- malformed solutions ------------------------------------------------------------- */

/* Loading the folder made from T fails with "DIR/solution.json:LINE: ..." containing WANT. */
static void expect_error(const char *tmp, const char *sub, sol_text t, int no_main, int line, const char *want)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", make_solution(tmp, sub, t, no_main));
    kwb_error err = {{0}};
    solution *s = solution_load(dir, &err);
    if (s) {
        solution_free(s);
        fail_msg("%s loaded, expected an error at line %d containing \"%s\"", sub, line, want);
    }
    char prefix[4300];
    snprintf(prefix, sizeof prefix, "%s/solution.json:%d: ", dir, line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err.msg, prefix);
    if (!strstr(err.msg + strlen(prefix), want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
}

static void test_invalid_json(void **state)
{
    sol_text t = GOOD;
    t.name = "\"name\": \"tester_sol\" \"oops\""; /* a string where ',' or '}' must come */
    expect_error(*state, "json", t, 0, 2, "invalid JSON");
    t = GOOD;
    t.src1 = "{\"path\": \"a.h\""; /* the '}' is missing: noticed at ']' on line 16 */
    expect_error(*state, "json2", t, 0, 16, "invalid JSON");
    t = GOOD;
    t.binding = "\"binding\": \"kwb\", \"binding\": \"kwb\"";
    expect_error(*state, "dupkey", t, 0, 11, "invalid JSON");
}

static void test_missing_fields(void **state)
{
    sol_text t = GOOD;
    t.name = "\"title\": \"tester_sol\"";
    expect_error(*state, "noname", t, 0, 1, "missing non-empty string 'name'");
    t = GOOD;
    t.name = "\"name\": \"\"";
    expect_error(*state, "emptyname", t, 0, 2, "missing non-empty string 'name'");
    t = GOOD;
    t.author = "\"author\": [\"a\"]";
    expect_error(*state, "author", t, 0, 4, "missing non-empty string 'author'");
}

static void test_language(void **state)
{
    sol_text t = GOOD;
    t.language = "\"language\": \"python\"";
    expect_error(*state, "python", t, 0, 6, "'spec.language' must be \"c\" or \"cuda\"");
    t.language = "\"language\": \"cpp\"";
    expect_error(*state, "cpp", t, 0, 6, "'spec.language' must be");
    t.language = "\"lang\": \"c\"";
    expect_error(*state, "nolang", t, 0, 5, "'spec.language' must be");
}

static void test_binding(void **state)
{
    sol_text t = GOOD;
    t.binding = "\"binding\": \"tvm-ffi\"";
    expect_error(*state, "tvm", t, 0, 11, "'spec.binding' is \"tvm-ffi\"; kwb runs only \"kwb\" solutions");
    t.binding = "\"binding\": \"torch\"";
    expect_error(*state, "torch", t, 0, 11, "'spec.binding' is \"torch\"");
}

static void test_entry_point(void **state)
{
    sol_text t = GOOD;
    t.entry = "\"entry_point\": \"main.c\"";
    expect_error(*state, "nosep", t, 0, 8, "'spec.entry_point' must be \"FILE::FUNCTION\"");
    t.entry = "\"entry_point\": \"main.c::a::b\"";
    expect_error(*state, "twosep", t, 0, 8, "must be \"FILE::FUNCTION\"");
    t.entry = "\"entry_point\": \"::kwb_entry\"";
    expect_error(*state, "nofile", t, 0, 8, "must be \"FILE::FUNCTION\"");
    t.entry = "\"entry_point\": \"main.c::\"";
    expect_error(*state, "nofunc", t, 0, 8, "must be \"FILE::FUNCTION\"");
    t.entry = "\"entry\": \"main.c::kwb_entry\"";
    expect_error(*state, "noentry", t, 0, 5, "must be \"FILE::FUNCTION\"");
    t.entry = "\"entry_point\": \"other.c::kwb_entry\"";
    expect_error(*state, "notsource", t, 0, 8, "entry file 'other.c' is not among the sources");
}

static void test_source_paths(void **state)
{
    sol_text t = GOOD;
    t.src1 = "{\"path\": \"/etc/passwd\", \"content\": \"x\"}";
    expect_error(*state, "abs", t, 0, 15, "source path '/etc/passwd' must be relative, without '..'");
    t.src1 = "{\"path\": \"../up.h\", \"content\": \"x\"}";
    expect_error(*state, "up", t, 0, 15, "source path '../up.h' must be relative");
    t.src1 = "{\"path\": \"inc/../../up.h\", \"content\": \"x\"}";
    expect_error(*state, "up2", t, 0, 15, "source path 'inc/../../up.h' must be relative");
    t.src1 = "{\"path\": \"inc/..\", \"content\": \"x\"}";
    expect_error(*state, "up3", t, 0, 15, "source path 'inc/..' must be relative");
    t.src1 = "{\"path\": \"\", \"content\": \"x\"}";
    expect_error(*state, "emptypath", t, 0, 15, "source path '' must be relative");
    t.src1 = "{\"file\": \"a.h\", \"content\": \"x\"}";
    expect_error(*state, "nopath", t, 0, 15, "source 1 needs a string 'path'");
}

static void test_duplicate_source(void **state)
{
    sol_text t = GOOD;
    t.src1 = "{\"path\": \"main.c\", \"content\": \"int x;\"}";
    expect_error(*state, "dup", t, 0, 13, "source 'main.c' is listed twice");
}

static void test_missing_source_file(void **state)
{
    /* main.c is not written, and has no content */
    expect_error(*state, "nofile", GOOD, 1, 14, "source 'main.c': cannot read");
    char want[4200];
    snprintf(want, sizeof want, "cannot read %s/nofile2/main.c: No such file or directory", (const char *)*state);
    expect_error(*state, "nofile2", GOOD, 1, 14, want);
}

static void test_not_dps(void **state)
{
    sol_text t = GOOD;
    t.dps = "\"destination_passing_style\": false";
    expect_error(*state, "dps", t, 0, 10, "kwb solutions use destination-passing style");
    t.dps = "\"destination_passing_style\": 1";
    expect_error(*state, "dps1", t, 0, 10, "destination-passing style");
}

static void test_sources_list(void **state)
{
    sol_text t = GOOD;
    t.src0 = "";
    t.src1 = NULL;
    expect_error(*state, "nosources", t, 0, 13, "'sources' must be a non-empty list");
}

static void test_no_solution_json(void **state)
{
    char dir[4096], want[4300];
    snprintf(dir, sizeof dir, "%s/absent", (const char *)*state);
    kwb_error err = {{0}};
    assert_null(solution_load(dir, &err));
    snprintf(want, sizeof want, "%s/solution.json: cannot read: No such file or directory", dir);
    assert_string_equal(err.msg, want);
}

/* Not an object, and no spec at all. */
static void test_structure(void **state)
{
    char dir[4096], file[4200], want[4300];
    snprintf(dir, sizeof dir, "%s/array", (const char *)*state);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/solution.json", dir);
    testutil_write_text(file, "\n\n[\"name\"]\n");
    kwb_error err = {{0}};
    assert_null(solution_load(dir, &err));
    snprintf(want, sizeof want, "%s/solution.json:3: a solution must be a JSON object", dir);
    assert_string_equal(err.msg, want);

    snprintf(dir, sizeof dir, "%s/nospec", (const char *)*state);
    assert_int_equal(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/solution.json", dir);
    testutil_write_text(file, "{\"name\": \"n\", \"definition\": \"d\",\n \"author\": \"a\",\n \"sources\": "
                              "[{\"path\": \"x.c\", \"content\": \"\"}]}\n");
    assert_null(solution_load(dir, &err));
    snprintf(want, sizeof want, "%s/solution.json:1: missing object 'spec' {language, entry_point, binding}", dir);
    assert_string_equal(err.msg, want);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_baseline),
        cmocka_unit_test(test_shipped_fast),
        T(test_good_layout),
        T(test_inline_sources),
        T(test_invalid_json),
        T(test_missing_fields),
        T(test_language),
        T(test_binding),
        T(test_entry_point),
        T(test_source_paths),
        T(test_duplicate_source),
        T(test_missing_source_file),
        T(test_not_dps),
        T(test_sources_list),
        T(test_no_solution_json),
        T(test_structure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

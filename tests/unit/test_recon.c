/* test_recon.c - reconnaissance: keywords from a direction (explicit or from id and title),
 * PCRE2 search of real reference folders (caseless, word starts, binary files and .git left
 * out), files with more distinct keywords first, context lines numbered, missing folders
 * listed, the formatted text within its budget; skill `references:` resolved beside the file. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "recon.h"
#include "testutil.h"

static void test_keywords(void **state)
{
    (void)state;
    char **w;
    int n = recon_keywords(NULL, "gdn.vector-state", "Vectorized, coalesced state loads and stores", &w);
    const char *want[] = {"gdn", "vector", "state", "vectorized", "coalesced", "loads", "stores"};
    assert_int_equal(n, 7);
    for (int i = 0; i < n; i++)
        assert_string_equal(w[i], want[i]);
    recon_words_free(w, n);
    skill_direction d = {0};
    char *kw[] = {"float4", "ld.global.nc"};
    d.keywords = (skill_list){kw, 2};
    d.id = "x";
    n = recon_keywords(&d, NULL, NULL, &w);
    assert_int_equal(n, 2);
    assert_string_equal(w[1], "ld.global.nc");
    recon_words_free(w, n);
    w = NULL;
    n = 0;
    recon_split_list(" a , ,b c,  ", &w, &n);
    assert_int_equal(n, 2);
    assert_string_equal(w[0], "a");
    assert_string_equal(w[1], "b c");
    recon_words_free(w, n);
}

static void write_at(const char *dir, const char *rel, const char *text)
{
    char *p = testutil_path(dir, rel);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    mkdir(p, 0755);
    *slash = '/';
    testutil_write_text(p, text);
    free(p);
}

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-recon-XXXXXX");
}

static void test_search(void **state)
{
    const char *dir = *state;
    write_at(dir, "lib/a.cu", "// plain\n__global__ void k() {\n  float4 v = s[i]; // Vectorized load\n  x = 1;\n}\n");
    write_at(dir, "lib/b.cu", "int y;\n// coalesced stores of the state\n");
    write_at(dir, "lib/c.txt", "nothing relevant\n");
    write_at(dir, "lib/.git/objects", "vectorized coalesced\n");
    char bin[16] = "vector\0binary";
    char *bp = testutil_path(dir, "lib/blob.bin");
    testutil_write_file(bp, bin, sizeof bin);
    free(bp);
    char *lib = testutil_path(dir, "lib"), *missing = testutil_path(dir, "nope");
    const char *dirs[] = {lib, missing};
    char *kw[] = {"vector", "coalesced", "state", "float4"};
    recon_result r;
    kwb_error err = {{0}};
    assert_int_equal(recon_search(dirs, 2, kw, 4, NULL, &r, &err), 0);
    assert_int_equal(r.nconsulted, 1);
    assert_int_equal(r.nmissing, 1);
    assert_string_equal(r.missing[0], missing);
    assert_int_equal(r.files_scanned, 3);
    assert_int_equal(r.nhits, 2);
    /* b.cu has two distinct keywords on one line (coalesced, state), a.cu two (float4, vector): a.cu by name */
    assert_non_null(strstr(r.hits[0].file, "lib/a.cu"));
    assert_int_equal(r.hits[0].line, 3);
    assert_non_null(strstr(r.hits[0].context, ">    3|   float4 v = s[i]; // Vectorized load\n"));
    assert_non_null(strstr(r.hits[0].context, "     1| // plain\n"));
    assert_non_null(strstr(r.hits[0].context, "     5| }\n"));
    assert_non_null(strstr(r.hits[1].file, "lib/b.cu"));
    strbuf out;
    strbuf_init(&out);
    recon_format(&r, 4000, &out);
    assert_non_null(strstr(out.s, "keywords: vector coalesced state float4\n"));
    assert_non_null(strstr(out.s, "references consulted: "));
    assert_non_null(strstr(out.s, "reference not readable: "));
    assert_non_null(strstr(out.s, "2 hit(s) in 3 file(s) scanned\n"));
    assert_non_null(strstr(out.s, "lib/a.cu:3:\n"));
    strbuf_free(&out);
    strbuf_init(&out);
    recon_format(&r, 300, &out);
    assert_non_null(strstr(out.s, "more hit(s) left out of the budget]"));
    assert_true(out.len < 400);
    strbuf_free(&out);
    recon_result_free(&r);
    free(lib);
    free(missing);
}

/* A keyword with letters beyond ASCII is searched (its bytes were once escaped one by one, which
 * split the UTF-8 and made the pattern invalid), and a search with no hit returns no files. */
static void test_search_utf8_and_no_hit(void **state)
{
    const char *dir = *state;
    write_at(dir, "lib/k.c", "// Gr\u00f6\u00dfe der Bl\u00f6cke\n");
    char *lib = testutil_path(dir, "lib");
    const char *dirs[] = {lib};
    char *kw[] = {"gr\u00f6\u00dfe"}, *none[] = {"zzqqxx"};
    recon_result r;
    kwb_error err = {{0}};
    assert_int_equal(recon_search(dirs, 1, kw, 1, NULL, &r, &err), 0);
    assert_int_equal(r.nhits, 1);
    assert_int_equal(r.hits[0].line, 1);
    recon_result_free(&r);
    assert_int_equal(recon_search(dirs, 1, none, 1, NULL, &r, &err), 0);
    assert_int_equal(r.nhits, 0);
    assert_int_equal(r.files_scanned, 1);
    recon_result_free(&r);
    free(lib);
}

static void test_skill_references(void **state)
{
    (void)state;
    skill s = {0};
    char *refs[] = {"../refs/flashinfer", "/abs/cutlass"};
    s.path = "/repo/skills/gdn.md";
    s.references = (skill_list){refs, 2};
    char **dirs = NULL;
    int n = 0;
    recon_skill_references(&s, &dirs, &n);
    assert_int_equal(n, 2);
    assert_string_equal(dirs[0], "/repo/skills/../refs/flashinfer");
    assert_string_equal(dirs[1], "/abs/cutlass");
    recon_words_free(dirs, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keywords),
        cmocka_unit_test_setup_teardown(test_search, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_search_utf8_and_no_hit, setup, testutil_tmpdir_teardown),
        cmocka_unit_test(test_skill_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_edits.c - agent edits on a real candidate folder: SEARCH/REPLACE blocks (exact,
 * trailing blanks, re-indented), paths before blocks and in fences, several files, a unified
 * diff, whole files (and cut or elided ones refused), ambiguous and missing matches with the
 * closest lines, malformed replies, scope refusals (absolute, '..', symlink, solution.json, out
 * of scope, new files by glob) and all-or-nothing (a failed block leaves every file as it was). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edits.h"
#include "ftree.h"
#include "testutil.h"

static const char *kernel = "#include <math.h>\n"
                            "\n"
                            "static float dot(const float *a, const float *b, int n)\n"
                            "{\n"
                            "    float s = 0;\n"
                            "    for (int i = 0; i < n; i++)\n"
                            "        s += a[i] * b[i];\n"
                            "    return s;\n"
                            "}\n"
                            "\n"
                            "int kwb_entry(void)\n"
                            "{\n"
                            "    return 0;\n"
                            "}\n";

static const char *const one_source[] = {"k.c"};
static const char *const two_sources[] = {"k.c", "k.h"};
static const char *const cuda_glob[] = {"*.cuh"};

static int setup(void **state)
{
    if (testutil_tmpdir_setup(state, "/tmp/kwb-test-edits-XXXXXX") != 0)
        return -1;
    char *p = testutil_path(*state, "k.c");
    testutil_write_text(p, kernel);
    free(p);
    p = testutil_path(*state, "k.h");
    testutil_write_text(p, "#define LANES 8\n");
    free(p);
    p = testutil_path(*state, "solution.json");
    testutil_write_text(p, "{}\n");
    free(p);
    return 0;
}

static char *read_in(const char *dir, const char *name)
{
    char *p = testutil_path(dir, name);
    char *t = testutil_read_file(p, NULL);
    free(p);
    return t;
}

/* Applies REPLY in DIR with the given scope; returns the code, the report in *report (freed by caller). */
static int apply(const char *dir, const char *reply, const char *const *src, int nsrc, char **report, kwb_error *err)
{
    edits_scope scope = {src, nsrc, cuda_glob, 1};
    strbuf rep;
    strbuf_init(&rep);
    int rc = edits_apply(dir, reply, &scope, &rep, err);
    *report = strbuf_detach(&rep);
    return rc;
}

static void test_search_replace_exact(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "Here is the change.\n\nk.c\n```c\n<<<<<<< SEARCH\n    float s = 0;\n=======\n"
                        "    float s = 0.0f;\n>>>>>>> REPLACE\n```\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    assert_non_null(strstr(rep, "block 1 (k.c, reply line 5): applied at lines 5-5"));
    char *t = read_in(*state, "k.c");
    assert_non_null(strstr(t, "    float s = 0.0f;\n    for"));
    assert_null(strstr(t, "float s = 0;"));
    free(t);
    free(rep);
}

static void test_no_path_one_source_and_trailing_blanks(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    /* the model's copy has trailing blanks and CRLF; the marker has trailing spaces */
    const char *reply = "<<<<<<< SEARCH  \r\n    return s;   \r\n=======\r\n    return s * 2;\r\n>>>>>>> REPLACE\r\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    assert_non_null(strstr(rep, "(trailing blanks ignored)"));
    char *t = read_in(*state, "k.c");
    assert_non_null(strstr(t, "    return s * 2;\n}\n"));
    free(t);
    free(rep);
}

static void test_reindented(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    /* SEARCH quoted with 2-space indentation: matched ignoring it, REPLACE shifted to 4/8 */
    const char *reply = "k.c\n<<<<<<< SEARCH\n  for (int i = 0; i < n; i++)\n      s += a[i] * b[i];\n=======\n"
                        "  for (int i = 0; i < n; i += 2)\n      s += a[i] * b[i] + a[i + 1] * b[i + 1];\n"
                        ">>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    assert_non_null(strstr(rep, "(indentation ignored)"));
    char *t = read_in(*state, "k.c");
    assert_non_null(strstr(t, "\n    for (int i = 0; i < n; i += 2)\n        s += a[i] * b[i] + a[i + 1]"));
    free(t);
    free(rep);
}

static void test_blank_lines_around_search(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    /* the file has no blank line after "return s;": the model's SEARCH does */
    const char *reply =
        "k.c\n<<<<<<< SEARCH\n\n    return s;\n}\n\n\n=======\n\n    return 2 * s;\n}\n\n\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    assert_non_null(strstr(rep, "(blank lines around the SEARCH part ignored)"));
    char *t = read_in(*state, "k.c");
    assert_non_null(strstr(t, "    return 2 * s;\n}\n\nint kwb_entry"));
    free(t);
    free(rep);
}

static void test_two_files_and_inherited_path(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply =
        "`k.h`:\n<<<<<<< SEARCH\n#define LANES 8\n=======\n#define LANES 16\n>>>>>>> REPLACE\n\n"
        "File: k.c\n<<<<<<< SEARCH\n    return 0;\n=======\n    return LANES;\n>>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\n#include <math.h>\n=======\n#include <math.h>\n#include \"k.h\"\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, two_sources, 2, &rep, &err), 0);
    assert_non_null(strstr(rep, "block 3 (k.c, reply line 14): applied at lines 1-2"));
    char *h = read_in(*state, "k.h"), *c = read_in(*state, "k.c");
    assert_string_equal(h, "#define LANES 16\n");
    assert_non_null(strstr(c, "#include <math.h>\n#include \"k.h\"\n"));
    assert_non_null(strstr(c, "    return LANES;\n"));
    free(h);
    free(c);
    free(rep);
}

static void test_longer_path_means_the_source(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply =
        "kernels/x/cpu/fast/k.h\n<<<<<<< SEARCH\n#define LANES 8\n=======\n#define LANES 4\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, two_sources, 2, &rep, &err), 0);
    assert_non_null(strstr(rep, "block 1 (k.h, reply line 2): applied"));
    free(rep);
    /* but never through '..' */
    reply = "../k.h\n<<<<<<< SEARCH\n#define LANES 4\n=======\n#define LANES 2\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, two_sources, 2, &rep, &err), -1);
    assert_non_null(strstr(rep, "'..' leaves the candidate folder"));
    free(rep);
}

static void test_no_path_several_sources(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "<<<<<<< SEARCH\n#define LANES 8\n=======\n#define LANES 4\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, two_sources, 2, &rep, &err), -1);
    assert_non_null(strstr(rep, "block 1 (no file, reply line 1): names no file, and the candidate has 2 files"));
    free(rep);
}

static void test_no_match_closest_lines(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "k.c\n<<<<<<< SEARCH\n    for (int j = 0; j < n; j++)\n        s += a[i] * b[i];\n=======\n"
                        "    s = 1;\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), -1);
    assert_non_null(
        strstr(err.msg, "1 of 1 edit block(s) did not apply (search-replace; first: block 1 (k.c, reply line 2)"));
    assert_non_null(strstr(rep, "no match: the SEARCH part (2 lines) is not in k.c"));
    assert_non_null(strstr(rep, "closest lines in k.c (lines 6-7):"));
    assert_non_null(strstr(rep, "      6|     for (int i = 0; i < n; i++)\n"));
    assert_non_null(
        strstr(rep, "first difference: SEARCH line 1 is \"    for (int j = 0; j < n; j++)\", the file's line 6"));
    char *t = read_in(*state, "k.c");
    assert_string_equal(t, kernel);
    free(t);
    free(rep);
}

static void test_ambiguous(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "k.c\n<<<<<<< SEARCH\n{\n=======\n{ /* x */\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(rep, "ambiguous: 2 matches, at lines 4, 12; add lines of context"));
    free(rep);
}

static void test_all_or_nothing(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "k.h\n<<<<<<< SEARCH\n#define LANES 8\n=======\n#define LANES 2\n>>>>>>> REPLACE\n"
                        "k.c\n<<<<<<< SEARCH\nnot in the file\n=======\nx\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, two_sources, 2, &rep, &err), -1);
    assert_non_null(strstr(rep, "block 1 (k.h, reply line 2): applied"));
    assert_non_null(strstr(rep, "block 2 (k.c, reply line 8): no match"));
    char *h = read_in(*state, "k.h");
    assert_string_equal(h, "#define LANES 8\n");
    free(h);
    assert_int_equal(testutil_count_entries(*state), 3); /* no scratch folder left */
    free(rep);
}

static void test_malformed(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    assert_int_equal(apply(*state, "k.c\n<<<<<<< SEARCH\nint x;\n=======\nint y;\n", one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "reply line 2: block 1: '<<<<<<< SEARCH' without its '>>>>>>> REPLACE'"));
    free(rep);
    assert_int_equal(apply(*state, "I would vectorize the loop.", one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "the reply holds no edit"));
    free(rep);
}

static void test_scope_refusals(void **state)
{
    const char *cases[][2] = {
        {"/etc/passwd", "an absolute path"},
        {"../outside.c", "'..' leaves the candidate folder"},
        {"sub/../../x.c", "'..' leaves the candidate folder"},
        {"solution.json", "the solution's description is kwb's"},
        {"other.c", "outside the direction's scope (editable: k.c, *.cuh)"},
        {"link/x.c", "'link' is a symlink"},
    };
    char *link = testutil_path(*state, "link");
    assert_int_equal(symlink("/tmp", link), 0);
    free(link);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char reply[512], *rep;
        kwb_error err = {{0}};
        snprintf(reply, sizeof reply, "%s\n<<<<<<< SEARCH\n=======\nint x;\n>>>>>>> REPLACE\n", cases[i][0]);
        assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), -1);
        if (!strstr(rep, cases[i][1]))
            fail_msg("case %s: no '%s' in: %s", cases[i][0], cases[i][1], rep);
        assert_non_null(strstr(rep, "refused: "));
        free(rep);
    }
}

/* Issue 19 item 5: every spelling of solution.json is refused, even under a `scope: *` glob, in
 * every reply format; spellings of k.c are k.c. */
static void test_scope_normalised(void **state)
{
    static const char *const star[] = {"*"};
    edits_scope scope = {one_source, 1, star, 1};
    const char *names[] = {"././solution.json", "a/../solution.json", ".//solution.json", "x/./../solution.json"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *formats[] = {"%s\n<<<<<<< SEARCH\n=======\n{}\n>>>>>>> REPLACE\n",
                                 "--- a/%s\n+++ b/%s\n@@ -1,1 +1,1 @@\n-{\"name\": \"k\"}\n+{}\n",
                                 "```json %s\n{}\n```\n"};
        for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
            char reply[512];
            kwb_error err = {{0}};
            snprintf(reply, sizeof reply, formats[f], names[i], names[i]);
            strbuf rep;
            strbuf_init(&rep);
            assert_int_equal(edits_apply(*state, reply, &scope, &rep, &err), -1);
            if (!strstr(rep.s, "the solution's description is kwb's"))
                fail_msg("%s in format %zu: %s", names[i], f, rep.s);
            strbuf_free(&rep);
        }
        kwb_error err = {{0}};
        assert_int_equal(edits_check_path(*state, names[i], &scope, &err), -1);
        assert_non_null(strstr(err.msg, "is 'solution.json': "));
    }
    kwb_error err = {{0}};
    assert_int_equal(edits_check_path(*state, "a/../../k.c", &scope, &err), -1);
    assert_non_null(strstr(err.msg, "'..' leaves the candidate folder"));
    char *rep;
    assert_int_equal(
        apply(*state, "./x/..//k.c\n<<<<<<< SEARCH\n=======\nint z;\n>>>>>>> REPLACE\n", one_source, 1, &rep, &err),
        -1);
    assert_non_null(strstr(rep, "block 1 (k.c")); /* the existing k.c: an empty SEARCH refused */
    free(rep);
}

static void test_new_file_in_scope(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "util.cuh\n<<<<<<< SEARCH\n=======\n#pragma once\n>>>>>>> REPLACE\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    assert_non_null(strstr(rep, "created util.cuh (1 lines)"));
    char *t = read_in(*state, "util.cuh");
    assert_string_equal(t, "#pragma once\n");
    free(t);
    free(rep);
    /* an empty SEARCH on an existing file is an error */
    assert_int_equal(
        apply(*state, "k.c\n<<<<<<< SEARCH\n=======\nint x;\n>>>>>>> REPLACE\n", one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(rep, "an empty SEARCH part on the existing file k.c"));
    free(rep);
}

static void test_unified_diff(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    const char *reply = "```diff\n--- a/k.c\n+++ b/k.c\n@@ -11,4 +11,4 @@\n int kwb_entry(void)\n {\n-    return 0;\n"
                        "+    return 1;\n }\n```\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), 0);
    char *t = read_in(*state, "k.c");
    assert_non_null(strstr(t, "{\n    return 1;\n}\n"));
    free(t);
    free(rep);
    reply = "--- a/k.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    assert_int_equal(apply(*state, reply, one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(err.msg, "removing files is not an edit kwb applies"));
    free(rep);
}

static void test_whole_file(void **state)
{
    char *rep;
    kwb_error err = {{0}};
    /* one fence, no path, one source: that file */
    assert_int_equal(
        apply(*state, "The new kernel:\n```c\nint kwb_entry(void) { return 2; }\n```\n", one_source, 1, &rep, &err), 0);
    char *t = read_in(*state, "k.c");
    assert_string_equal(t, "int kwb_entry(void) { return 2; }\n");
    free(t);
    free(rep);
    /* a fence naming its file */
    assert_int_equal(apply(*state, "```c k.h\n#define LANES 32\n```\n", two_sources, 2, &rep, &err), 0);
    t = read_in(*state, "k.h");
    assert_string_equal(t, "#define LANES 32\n");
    free(t);
    free(rep);
    /* an elided whole file is refused */
    assert_int_equal(
        apply(*state, "k.h\n```\n#define LANES 4\n// ... rest unchanged ...\n```\n", two_sources, 2, &rep, &err), -1);
    assert_non_null(strstr(rep, "placeholder \"rest unchanged\""));
    free(rep);
}

static void test_whole_file_cut(void **state)
{
    char *p = testutil_path(*state, "k.c"), *rep;
    strbuf big;
    strbuf_init(&big);
    for (int i = 0; i < 40; i++)
        strbuf_printf(&big, "int v%d = %d;\n", i, i);
    testutil_write_text(p, big.s);
    free(p);
    kwb_error err = {{0}};
    assert_int_equal(apply(*state, "```c\nint v0 = 0;\n```\n", one_source, 1, &rep, &err), -1);
    assert_non_null(strstr(rep, "a whole file of 1 lines for one of 40: much shorter than its parent"));
    strbuf_free(&big);
    free(rep);
}

static void test_parse_formats(void **state)
{
    (void)state;
    edit_block *b;
    int n;
    const char *format;
    kwb_error err = {{0}};
    assert_int_equal(edits_parse("x.cu\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", &b, &n, &format, &err), 0);
    assert_string_equal(format, "search-replace");
    assert_int_equal(n, 1);
    assert_string_equal(b[0].path, "x.cu");
    assert_string_equal(b[0].search, "a\n");
    assert_string_equal(b[0].replace, "b\n");
    edits_blocks_free(b, n);
    assert_int_equal(edits_parse("--- a/x.cu\n+++ b/x.cu\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n@@ -9 +9 @@\n-z\n+y\n", &b, &n,
                                 &format, &err),
                     0);
    assert_string_equal(format, "unified-diff");
    assert_int_equal(n, 2);
    assert_string_equal(b[0].search, "a\nb\n");
    assert_string_equal(b[0].replace, "a\nc\n");
    assert_string_equal(b[1].search, "z\n");
    edits_blocks_free(b, n);
}

/* Every prefix of a few valid replies and a few thousand byte-level mutations of them: parsing
 * and applying never crash, an error always has a message, and a failed apply leaves the files as
 * they were (a successful one is undone before the next case). */
static void test_cut_and_mutated_replies(void **state)
{
    const char *replies[] = {
        "k.c\n```c\n<<<<<<< SEARCH\n    float s = 0;\n=======\n    float s = 0.0f;\n>>>>>>> REPLACE\n```\n",
        "--- a/k.c\n+++ b/k.c\n@@ -11,4 +11,4 @@\n int kwb_entry(void)\n {\n-    return 0;\n+    return 1;\n }\n",
        "```c k.h\n#define LANES 32\n```\n",
    };
    unsigned seed = 12345;
    char *orig_c = read_in(*state, "k.c"), *orig_h = read_in(*state, "k.h");
    int cases = 0, applied = 0;
    for (size_t r = 0; r < sizeof replies / sizeof *replies; r++) {
        size_t len = strlen(replies[r]);
        for (size_t k = 0; k < len + 700; k++) {
            char *text = strdup(replies[r]);
            if (k <= len) {
                text[k] = '\0'; /* every prefix */
            } else {
                for (int m = 0; m < 3; m++) { /* random flips, marker characters favoured */
                    seed = seed * 1103515245u + 12345u;
                    const char pool[] = "<=>`-+@ \n\rxk./";
                    text[(seed >> 8) % len] = pool[(seed >> 20) % (sizeof pool - 1)];
                }
            }
            char *rep;
            kwb_error err = {{0}};
            int rc = apply(*state, text, two_sources, 2, &rep, &err);
            cases++;
            if (rc != 0) {
                assert_true(err.msg[0] != '\0');
                char *c = read_in(*state, "k.c"), *h = read_in(*state, "k.h");
                assert_string_equal(c, orig_c);
                assert_string_equal(h, orig_h);
                free(c);
                free(h);
            } else {
                applied++;
                char *p = testutil_path(*state, "k.c");
                testutil_write_text(p, orig_c);
                free(p);
                p = testutil_path(*state, "k.h");
                testutil_write_text(p, orig_h);
                free(p);
                /* any file the mutation created is removed too */
                char **files;
                int n;
                assert_int_equal(ftree_list(*state, &files, &n, &err), 0);
                for (int i = 0; i < n; i++)
                    if (strcmp(files[i], "k.c") && strcmp(files[i], "k.h") && strcmp(files[i], "solution.json")) {
                        char *x = testutil_path(*state, files[i]);
                        unlink(x);
                        free(x);
                    }
                ftree_list_free(files, n);
            }
            free(rep);
            free(text);
        }
    }
    assert_true(cases > 2000);
    assert_true(applied > 3);
    free(orig_c);
    free(orig_h);
}

/* ftree_diff's text from A to B (the caller frees it). */
static char *diff_text(const char *a, const char *b)
{
    strbuf d;
    strbuf_init(&d);
    kwb_error err = {{0}};
    assert_int_equal(ftree_diff(a, b, &d, &err), 0);
    return strbuf_detach(&d);
}

static void test_ftree_diff(void **state)
{
    char *a = testutil_path(*state, "a"), *b = testutil_path(*state, "b");
    kwb_error err = {{0}};
    char *src = testutil_path(*state, "k.c");
    assert_int_equal(ftree_copy(*state, a, &err), 0);
    assert_int_equal(ftree_copy(a, b, &err), 0);
    free(src);
    char *p = testutil_path(b, "k.h");
    testutil_write_text(p, "#define LANES 2\n");
    free(p);
    p = testutil_path(b, "new.cuh");
    testutil_write_text(p, "x\n");
    free(p);
    char *d = diff_text(a, b);
    assert_non_null(strstr(d, "--- a/k.h\n+++ b/k.h\n"));
    assert_non_null(strstr(d, "-#define LANES 8\n+#define LANES 2\n"));
    assert_non_null(strstr(d, "+++ b/new.cuh\n"));
    assert_null(strstr(d, "k.c"));
    free(d);
    free(a);
    free(b);
}

/* A candidate's link to a file outside its folder shows as the link, never as what it names. */
static void test_ftree_diff_shows_links_not_targets(void **state)
{
    char *a = testutil_path(*state, "a"), *b = testutil_path(*state, "b");
    char *secret = testutil_path(*state, "secret.key"), *link = testutil_path(b, "k.cuh");
    kwb_error err = {{0}};
    assert_int_equal(ftree_copy(*state, a, &err), 0);
    assert_int_equal(ftree_copy(a, b, &err), 0);
    testutil_write_text(secret, "PRIVATE KEY 42\n");
    assert_int_equal(symlink(secret, link), 0);
    char *d = diff_text(a, b);
    assert_non_null(strstr(d, "+++ b/k.cuh\n"));
    assert_non_null(strstr(d, "+symlink -> "));
    assert_null(strstr(d, "PRIVATE KEY"));
    free(d);
    free(secret);
    free(link);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_search_replace_exact, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_scope_normalised, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_no_path_one_source_and_trailing_blanks, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_reindented, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_blank_lines_around_search, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_two_files_and_inherited_path, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_longer_path_means_the_source, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_no_path_several_sources, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_no_match_closest_lines, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_ambiguous, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_all_or_nothing, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_scope_refusals, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_new_file_in_scope, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_unified_diff, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_whole_file, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_whole_file_cut, setup, testutil_tmpdir_teardown),
        cmocka_unit_test(test_parse_formats),
        cmocka_unit_test_setup_teardown(test_cut_and_mutated_replies, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_ftree_diff, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_ftree_diff_shows_links_not_targets, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

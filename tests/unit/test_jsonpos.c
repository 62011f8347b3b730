/* test_jsonpos.c - jsonpos_line: the line of the value a JSON Pointer names, in texts whose
 * line layout is known, so that every expected number can be checked by eye. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "jsonpos.h"

static int line_of(const char *text, const char *pointer)
{
    return jsonpos_line(text, strlen(text), pointer);
}

/* Line numbers are given on the right of each line. */
static const char NESTED[] = "{\n"                               /* 1 */
                             "  \"a\": {\n"                      /* 2 */
                             "    \"b\": {\n"                    /* 3 */
                             "      \"c\": 1,\n"                 /* 4 */
                             "      \"d\": [true, false]\n"      /* 5 */
                             "    }\n"                           /* 6 */
                             "  },\n"                            /* 7 */
                             "  \"arr\": [\n"                    /* 8 */
                             "    10,\n"                         /* 9 */
                             "    {\"x\": 2,\n"                  /* 10 */
                             "     \"y\": 3},\n"                 /* 11 */
                             "    [\n"                           /* 12 */
                             "      \"p\",\n"                    /* 13 */
                             "      \"q\"\n"                     /* 14 */
                             "    ]\n"                           /* 15 */
                             "  ],\n"                            /* 16 */
                             "  \"late\":\n"                     /* 17 */
                             "     \"value on the next line\"\n" /* 18 */
                             "}\n";                              /* 19 */

static void test_nested_keys(void **state)
{
    (void)state;
    assert_int_equal(line_of(NESTED, "/a"), 2);
    assert_int_equal(line_of(NESTED, "/a/b"), 3);
    assert_int_equal(line_of(NESTED, "/a/b/c"), 4);
    assert_int_equal(line_of(NESTED, "/a/b/d"), 5);
    assert_int_equal(line_of(NESTED, "/arr"), 8);
    /* the line of the value, not of its key */
    assert_int_equal(line_of(NESTED, "/late"), 18);
}

static void test_array_indices(void **state)
{
    (void)state;
    assert_int_equal(line_of(NESTED, "/arr/0"), 9);
    assert_int_equal(line_of(NESTED, "/arr/1"), 10);
    assert_int_equal(line_of(NESTED, "/arr/1/x"), 10);
    assert_int_equal(line_of(NESTED, "/arr/1/y"), 11);
    assert_int_equal(line_of(NESTED, "/arr/2"), 12);
    assert_int_equal(line_of(NESTED, "/arr/2/0"), 13);
    assert_int_equal(line_of(NESTED, "/arr/2/1"), 14);
    assert_int_equal(line_of(NESTED, "/a/b/d/1"), 5);
}

static void test_missing_leads_to_container(void **state)
{
    (void)state;
    /* a missing key: the line of the object that lacks it */
    assert_int_equal(line_of(NESTED, "/a/b/zzz"), 3);
    assert_int_equal(line_of(NESTED, "/a/zzz"), 2);
    assert_int_equal(line_of(NESTED, "/zzz"), 1);
    assert_int_equal(line_of(NESTED, "/a/b/zzz/deeper/still"), 3);
    /* an index past the end, or not an index: the line of the array */
    assert_int_equal(line_of(NESTED, "/arr/3"), 8);
    assert_int_equal(line_of(NESTED, "/arr/x"), 8);
    assert_int_equal(line_of(NESTED, "/arr/-1"), 8);
    assert_int_equal(line_of(NESTED, "/arr/2/2"), 12);
    /* descending into a scalar: the line of the scalar */
    assert_int_equal(line_of(NESTED, "/a/b/c/more"), 4);
}

static void test_empty_pointer(void **state)
{
    (void)state;
    assert_int_equal(line_of(NESTED, ""), 1);
    /* the root value itself, after leading blank lines */
    assert_int_equal(line_of("\n\n  {\"a\": 1}", ""), 3);
    assert_int_equal(line_of("\n\n  {\"a\":\n 1}", "/a"), 4);
    assert_int_equal(line_of("\n\n  {\"a\": 1}", "/b"), 3);
    /* empty or whitespace-only text */
    assert_int_equal(jsonpos_line("", 0, ""), 1);
    assert_int_equal(jsonpos_line("", 0, "/a"), 1);
    /* LEN bounds the text: the second line is outside it */
    assert_int_equal(jsonpos_line("{\"a\": 1}\n{\"b\": 2}", 8, "/b"), 1);
}

static const char ESCAPED[] = "{\n"                    /* 1 */
                              "  \"a/b\": 1,\n"        /* 2 */
                              "  \"m~n\": 2,\n"        /* 3 */
                              "  \"~1\": 3,\n"         /* 4 */
                              "  \"a\": {\"b\": 4},\n" /* 5 */
                              "  \"x~\": {\n"          /* 6 */
                              "    \"/\": 5\n"         /* 7 */
                              "  },\n"                 /* 8 */
                              "  \"\": 6,\n"           /* 9 */
                              "  \"q\\\"k\": 7\n"      /* 10: the key q"k, written with an escaped quote */
                              "}\n";

static void test_escaped_keys(void **state)
{
    (void)state;
    assert_int_equal(line_of(ESCAPED, "/a~1b"), 2); /* ~1 is '/' */
    assert_int_equal(line_of(ESCAPED, "/a/b"), 5);  /* two tokens, not "a/b" */
    assert_int_equal(line_of(ESCAPED, "/m~0n"), 3); /* ~0 is '~' */
    assert_int_equal(line_of(ESCAPED, "/~01"), 4);  /* "~01" is "~1", not "~/" or "/" */
    assert_int_equal(line_of(ESCAPED, "/x~0/~1"), 7);
    assert_int_equal(line_of(ESCAPED, "/"), 9);      /* the empty key */
    assert_int_equal(line_of(ESCAPED, "/q\"k"), 10); /* JSON escapes in the key are decoded */
    assert_int_equal(line_of(ESCAPED, "/m~1n"), 1);  /* "m/n" is no key */
    assert_int_equal(line_of(ESCAPED, "/a~0b"), 1);  /* "a~b" is no key */
}

/* The pointer's key appears first as a string value, and as a key in a nested object. */
static const char DECOY[] = "{\n"                                        /* 1 */
                            "  \"name\": \"dtype\",\n"                   /* 2 */
                            "  \"list\": [\"dtype\", {\"dtype\": 0}],\n" /* 3 */
                            "  \"inner\": {\n"                           /* 4 */
                            "    \"dtype\": \"float32\"\n"               /* 5 */
                            "  },\n"                                     /* 6 */
                            "  \"note\": \"\\\"dtype\\\": 1\",\n"        /* 7: a string holding "dtype": 1 */
                            "  \"dtype\": \"bfloat16\"\n"                /* 8 */
                            "}\n";

static void test_key_seen_earlier_as_value(void **state)
{
    (void)state;
    assert_int_equal(line_of(DECOY, "/dtype"), 8);
    assert_int_equal(line_of(DECOY, "/inner/dtype"), 5);
    assert_int_equal(line_of(DECOY, "/name"), 2);
    assert_int_equal(line_of(DECOY, "/list/1/dtype"), 3);
    assert_int_equal(line_of(DECOY, "/note"), 7);
}

/* Strings with escaped newlines, escaped quotes, brackets and backslashes must not move the
 * line count or end the string early. */
static const char STRINGS[] =
    "{\n"                                                                                    /* 1 */
    "  \"reference\": \"import torch\\n\\ndef run(x):\\n    return {\\\"a\\\": [x]}\\n\",\n" /* 2 */
    "  \"quote\": \"he said \\\"}\\\" and {[\\\"\",\n"                                       /* 3 */
    "  \"backslash\": \"ends in a backslash \\\\\",\n"                                       /* 4 */
    "  \"tricky\": \"\\\\\\\"\",\n"        /* 5: \\\" = backslash, quote */
    "  \"unicode\": \"\\u00e9\\u2028\",\n" /* 6 */
    "  \"after\": {\n"                     /* 7 */
    "    \"k\": [1,\n"                     /* 8 */
    "            2]\n"                     /* 9 */
    "  }\n"                                /* 10 */
    "}\n";

static void test_strings_with_escapes(void **state)
{
    (void)state;
    assert_int_equal(line_of(STRINGS, "/reference"), 2);
    assert_int_equal(line_of(STRINGS, "/quote"), 3);
    assert_int_equal(line_of(STRINGS, "/backslash"), 4);
    assert_int_equal(line_of(STRINGS, "/tricky"), 5);
    assert_int_equal(line_of(STRINGS, "/unicode"), 6);
    assert_int_equal(line_of(STRINGS, "/after"), 7);
    assert_int_equal(line_of(STRINGS, "/after/k"), 8);
    assert_int_equal(line_of(STRINGS, "/after/k/1"), 9);
    assert_int_equal(line_of(STRINGS, "/after/missing"), 7);
}

/* CRLF line ends count once per line; tabs are whitespace. */
static void test_crlf_and_tabs(void **state)
{
    (void)state;
    const char *text = "{\r\n\t\"a\": 1,\r\n\t\"b\":\r\n\t\t[0,\r\n\t\t 1]\r\n}\r\n";
    assert_int_equal(line_of(text, "/a"), 2);
    assert_int_equal(line_of(text, "/b"), 4);
    assert_int_equal(line_of(text, "/b/1"), 5);
}

/* Compact single-line JSON: everything is line 1. */
static void test_single_line(void **state)
{
    (void)state;
    const char *text = "{\"inputs\":{\"q\":{\"shape\":[\"a\",\"b\"],\"dtype\":\"x\"}}}";
    assert_int_equal(line_of(text, "/inputs/q/dtype"), 1);
    assert_int_equal(line_of(text, "/inputs/nope"), 1);
}

/* Keys written with \uXXXX or \n escapes are the decoded strings that jansson hands out,
 * and so the keys that callers build pointers from. */
static void test_unicode_escaped_key(void **state)
{
    (void)state;
    const char *text = "{\n"
                       "  \"\\u0041BC\": 1,\n" /* the key "ABC" */
                       "  \"x\\ty\": 2\n"      /* the key "x<TAB>y" */
                       "}\n";
    assert_int_equal(line_of(text, "/ABC"), 2);
    assert_int_equal(line_of(text, "/x\ty"), 3);
}

/* Text that is not JSON after a point (a NUL byte, where jansson stops reading; a stray closing
 * bracket) is stepped over: the scan ends (it once looped forever: tests/fuzz/regressions). */
static void test_nul_and_stray_brackets_end(void **state)
{
    (void)state;
    static const char text[] = "{\"a\": [1, }\n\"b\": {\"c\": ]\n\0\n\"d\": 1}\n";
    assert_int_equal(jsonpos_line(text, sizeof text - 1, "/d"), 1);
    assert_int_equal(jsonpos_line(text, sizeof text - 1, "/a/5"), 1);
    assert_int_equal(jsonpos_line(text, sizeof text - 1, "/b/x"), 1); /* inside the unclosed array */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_keys),
        cmocka_unit_test(test_array_indices),
        cmocka_unit_test(test_missing_leads_to_container),
        cmocka_unit_test(test_empty_pointer),
        cmocka_unit_test(test_escaped_keys),
        cmocka_unit_test(test_key_seen_earlier_as_value),
        cmocka_unit_test(test_strings_with_escapes),
        cmocka_unit_test(test_crlf_and_tabs),
        cmocka_unit_test(test_single_line),
        cmocka_unit_test(test_unicode_escaped_key),
        cmocka_unit_test(test_nul_and_stray_brackets_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

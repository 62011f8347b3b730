/* test_sse.c - the server-sent events parser: one stream fed whole, byte by byte and split at
 * every offset gives the same events; LF, CRLF and lone CR line ends; multi-line data; comments;
 * event names; a BOM; an unfinished event at the end is dropped. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_sse.h"

/* The events seen, as "name|data" lines. */
static void collect(void *ctx, const char *event, const char *data, size_t len)
{
    strbuf *sb = ctx;
    assert_int_equal(strlen(data), len);
    strbuf_printf(sb, "%s|%s\n", event, data);
}

/* The events of TEXT fed in pieces of SPLIT bytes (0: whole), then one cut at AT (SIZE_MAX: none). */
static char *parse(const char *text, size_t split, size_t at)
{
    strbuf out;
    strbuf_init(&out);
    sse_parser p;
    sse_init(&p, collect, &out);
    size_t n = strlen(text);
    if (at != SIZE_MAX) {
        sse_feed(&p, text, at);
        sse_feed(&p, text + at, n - at);
    } else if (split == 0) {
        sse_feed(&p, text, n);
    } else {
        for (size_t i = 0; i < n; i += split)
            sse_feed(&p, text + i, n - i < split ? n - i : split);
    }
    sse_free(&p);
    return strbuf_detach(&out);
}

static const char *stream = "\xEF\xBB\xBF: comment first\r\n"
                            "event: message_start\r\n"
                            "data: {\"a\":1}\r\n"
                            "\r\n"
                            "data: one\n"
                            "data:two\n"
                            "data:  three spaces\n"
                            "\n"
                            ": keep-alive\n"
                            "\n"
                            "event: ping\r"
                            "data: {}\r"
                            "\r"
                            "id: 7\n"
                            "retry: 100\n"
                            "unknown: x\n"
                            "data\n"
                            "\n"
                            "event: empty\n"
                            "\n"
                            "data: [DONE]\n"
                            "\n"
                            "data: never ended\n";

static const char *expected = "message_start|{\"a\":1}\n"
                              "message|one\ntwo\n three spaces\n"
                              "ping|{}\n"
                              "message|\n"
                              "message|[DONE]\n";

static void test_whole_and_bytewise(void **state)
{
    char *whole = parse(stream, 0, SIZE_MAX);
    assert_string_equal(whole, expected);
    free(whole);
    for (size_t split = 1; split <= 7; split++) {
        char *got = parse(stream, split, SIZE_MAX);
        assert_string_equal(got, expected);
        free(got);
    }
}

static void test_every_cut(void **state)
{
    size_t n = strlen(stream);
    for (size_t at = 0; at <= n; at++) {
        char *got = parse(stream, 0, at);
        if (strcmp(got, expected) != 0)
            fail_msg("cut at %zu gives:\n%s", at, got);
        free(got);
    }
}

static void test_no_bom_and_partial_bom(void **state)
{
    /* bytes that start like a BOM but are not one stay in the line */
    char *got = parse("\xEF\xBB"
                      "\ndata: x\n\n",
                      1, SIZE_MAX);
    assert_string_equal(got, "message|x\n");
    free(got);
    got = parse("data: plain\n\n", 0, SIZE_MAX);
    assert_string_equal(got, "message|plain\n");
    free(got);
}

static void test_crlf_split_between_cr_and_lf(void **state)
{
    /* CR at the end of one feed, LF at the start of the next: one line end, not two */
    strbuf out;
    strbuf_init(&out);
    sse_parser p;
    sse_init(&p, collect, &out);
    sse_feed(&p, "data: a\r", 8);
    sse_feed(&p, "\ndata: b\r", 9);
    sse_feed(&p, "\n\r", 2);
    sse_feed(&p, "\n", 1);
    assert_string_equal(out.s, "message|a\nb\n");
    assert_int_equal(p.events, 1);
    sse_free(&p);
    strbuf_free(&out);
}

/* Many events fed in random pieces (fixed seed) give the same events as fed whole. */
static void test_random_splits(void **state)
{
    strbuf in;
    strbuf_init(&in);
    for (int i = 0; i < 300; i++) {
        const char *nl = i % 3 == 0 ? "\r\n" : i % 3 == 1 ? "\n" : "\r";
        if (i % 7 == 0)
            strbuf_printf(&in, ": ping %d%s", i, nl);
        if (i % 2)
            strbuf_printf(&in, "event: e%d%s", i, nl);
        strbuf_printf(&in, "data: {\"i\": %d, \"s\": \"h\u00e9llo \xc3\xa9\"}%sdata: second%s%s", i, nl, nl, nl);
    }
    char *whole = parse(in.s, 0, SIZE_MAX);
    unsigned seed = 12345;
    for (int round = 0; round < 200; round++) {
        strbuf out;
        strbuf_init(&out);
        sse_parser p;
        sse_init(&p, collect, &out);
        for (size_t at = 0; at < in.len;) {
            seed = seed * 1103515245u + 12345u;
            size_t n = 1 + (seed >> 16) % 37;
            if (n > in.len - at)
                n = in.len - at;
            sse_feed(&p, in.s + at, n);
            at += n;
        }
        assert_int_equal(p.events, 300);
        assert_string_equal(out.s, whole);
        sse_free(&p);
        strbuf_free(&out);
    }
    free(whole);
    strbuf_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_and_bytewise),     cmocka_unit_test(test_every_cut),
        cmocka_unit_test(test_no_bom_and_partial_bom), cmocka_unit_test(test_crlf_split_between_cr_and_lf),
        cmocka_unit_test(test_random_splits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

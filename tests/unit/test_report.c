/* test_report.c - session reports in every format from a small model; the model's checks.
 * With REPORT_HTML_OUT set, test_html_realistic also writes the HTML of a realistic model
 * to that path (tests/e2e/report_html.sh renders it in a browser). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "xalloc.h"

static const char small_model[] =
    "{\"session\": \"s1\", \"definition\": \"gdn_decode_qk4_v8_d128_k_last\", \"device\": \"cpu\","
    " \"candidates\": ["
    "  {\"id\": 1, \"name\": \"baseline\", \"parent\": null, \"origin\": \"baseline\", \"commit\": \"abc123\","
    "   \"state\": \"evaluated\", \"mean_ms\": 0.81},"
    "  {\"id\": 2, \"name\": \"fused\", \"parent\": 1, \"origin\": \"agent\", \"commit\": \"def456\","
    "   \"state\": \"evaluated\", \"mean_ms\": 0.52}],"
    " \"rounds\": [{\"number\": 1, \"title\": \"fuse passes\", \"state\": \"done\", \"candidate\": 2,"
    "   \"best_mean_ms\": 0.52, \"speedup\": 1.55}],"
    " \"workloads\": ["
    "  {\"uuid\": \"w1\", \"axes\": {\"batch_size\": 1}, \"status\": \"PASSED\", \"best_ms\": 0.041,"
    "   \"baseline_ms\": 0.288, \"reference_ms\": 0.27, \"speedup\": 6.99, \"max_abs\": 7e-6, \"max_rel\": 0.26,"
    "   \"message\": null},"
    "  {\"uuid\": \"w2\", \"axes\": {\"batch_size\": 4, \"mode\": \"x|y\"}, \"status\": \"INCORRECT_NUMERICAL\","
    "   \"best_ms\": null, \"baseline_ms\": 0.5, \"max_abs\": 0.5, \"max_rel\": 2,"
    "   \"message\": \"max_rel 2 > \\\"0.1\\\", at <script>alert(1)</script>\"}],"
    " \"traces\": ["
    "  {\"definition\": \"gdn_decode_qk4_v8_d128_k_last\", \"workload\": {\"uuid\": \"w1\"}, \"solution\": \"fused\","
    "   \"evaluation\": {\"status\": \"PASSED\"}},"
    "  {\"definition\": \"gdn_decode_qk4_v8_d128_k_last\", \"workload\": {\"uuid\": \"w2\"}, \"solution\": \"fused\","
    "   \"evaluation\": {\"status\": \"INCORRECT_NUMERICAL\"}}]}";

static json_t *load(const char *text)
{
    json_error_t jerr;
    json_t *m = json_loads(text, 0, &jerr);
    if (!m)
        fail_msg("bad test model: %s (line %d)", jerr.text, jerr.line);
    return m;
}

/* Renders MODEL in FORMAT, failing the test on an error; the caller frees the result. */
static char *render(const json_t *model, const char *format)
{
    strbuf sb;
    kwb_error err = {""};
    strbuf_init(&sb);
    if (report_render(model, format, &sb, &err) != 0)
        fail_msg("report_render %s: %s", format, err.msg);
    char *s = strbuf_detach(&sb);
    strbuf_free(&sb);
    return s;
}

/* Expects report_render to fail and its message to contain WANT. */
static void expect_error(const json_t *model, const char *format, const char *want)
{
    strbuf sb;
    kwb_error err = {""};
    strbuf_init(&sb);
    strbuf_puts(&sb, "kept");
    assert_int_equal(report_render(model, format, &sb, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' does not contain '%s'", err.msg, want);
    assert_string_equal(sb.s, "kept");
    strbuf_free(&sb);
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_csv(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    char *csv = render(m, "csv");
    assert_string_equal(csv, "uuid,axes,status,best_ms,baseline_ms,reference_ms,speedup,max_abs,max_rel,message\r\n"
                             "w1,batch_size=1,PASSED,0.041,0.288,0.27,6.99,7e-06,0.26,\r\n"
                             "w2,\"batch_size=4, mode=x|y\",INCORRECT_NUMERICAL,,0.5,,,0.5,2,"
                             "\"max_rel 2 > \"\"0.1\"\", at <script>alert(1)</script>\"\r\n");
    free(csv);
    json_decref(m);
}

static void test_md(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    char *md = render(m, "md");
    assert_non_null(strstr(md, "# kwb session s1\n"));
    assert_non_null(strstr(md, "- definition: gdn_decode_qk4_v8_d128_k_last\n"));
    assert_non_null(strstr(md, "- workloads: 2 (1 PASSED, 1 INCORRECT_NUMERICAL)\n"));
    assert_non_null(strstr(md, "| uuid | axes | status | best ms | baseline ms | reference ms | speedup | max abs |"
                               " max rel | message |\n"));
    assert_non_null(strstr(md, "\n| w1 | batch_size=1 | PASSED | 0.041 | 0.288 | 0.27 | 6.99 | 7e-06 | 0.26 | - |\n"));
    assert_non_null(strstr(md, "\n| w2 | batch_size=4, mode=x\\|y | INCORRECT_NUMERICAL | - | 0.5 | - | - | 0.5 | 2 |"
                               " max_rel 2 > \"0.1\", at <script>alert(1)</script> |\n"));
    assert_non_null(strstr(md, "\n| round | title | state | candidate | best mean ms | speedup |\n"));
    assert_non_null(strstr(md, "\n| 1 | fuse passes | done | #2 fused | 0.52 | 1.55x |\n"));
    free(md);
    json_decref(m);
}

static void test_json(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    char *text = render(m, "json");
    json_t *back = load(text);
    assert_true(json_equal(m, back));
    assert_non_null(strstr(text, "\n  \"session\": \"s1\",\n"));
    assert_int_equal(text[strlen(text) - 1], '\n');
    json_decref(back);
    free(text);
    json_decref(m);
}

static void test_traces(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    char *text = render(m, "traces");
    assert_int_equal(count(text, "\n"), 2);
    char *second = strchr(text, '\n') + 1;
    assert_string_equal(second, "{\"definition\":\"gdn_decode_qk4_v8_d128_k_last\",\"workload\":{\"uuid\":\"w2\"},"
                                "\"solution\":\"fused\",\"evaluation\":{\"status\":\"INCORRECT_NUMERICAL\"}}\n");
    second[-1] = '\0';
    json_t *first = load(text);
    assert_true(json_equal(first, json_array_get(json_object_get(m, "traces"), 0)));
    json_decref(first);
    free(text);
    /* no traces: no lines */
    json_object_del(m, "traces");
    text = render(m, "traces");
    assert_string_equal(text, "");
    free(text);
    json_decref(m);
}

static void test_html(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    char *html = render(m, "html");
    assert_true(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    assert_non_null(strstr(html, "id=\"speedup-chart\""));
    assert_non_null(strstr(html, "id=\"latency-bars\""));
    assert_non_null(strstr(html, "<table id=\"workloads\">"));
    assert_int_equal(count(html, "<tr class=\"st-"), 2);
    assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert_non_null(strstr(html, "max_rel 2 &gt; &quot;0.1&quot;, at"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "http"));
    assert_null(strstr(html, "src="));
    assert_null(strstr(html, "href="));
    assert_null(strstr(html, "no rounds yet"));
    assert_int_equal(count(html, "<circle class=\"pt\""), 1);
    assert_non_null(strstr(html, "speedup vs baseline"));
    free(html);
    json_decref(m);
}

/* Every string of the model is escaped, wherever it lands (title, summary, svg labels, tables). */
static void test_html_escapes_everything(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    const char *evil = "<evil>&\"'";
    json_object_set_new(m, "session", json_string(evil));
    json_object_set_new(m, "definition", json_string(evil));
    json_object_set_new(m, "device", json_string(evil));
    json_t *w = json_array_get(json_object_get(m, "workloads"), 0);
    json_object_set_new(w, "uuid", json_string(evil));
    json_object_set_new(w, "status", json_string(evil));
    json_object_set_new(json_object_get(w, "axes"), evil, json_string(evil));
    json_t *r = json_array_get(json_object_get(m, "rounds"), 0);
    json_object_set_new(r, "title", json_string(evil));
    json_t *c = json_array_get(json_object_get(m, "candidates"), 1);
    json_object_set_new(c, "name", json_string(evil));
    json_object_set_new(c, "origin", json_string(evil));
    char *html = render(m, "html");
    assert_null(strstr(html, "<evil>"));
    assert_null(strstr(html, "&\""));
    assert_non_null(strstr(html, "&lt;evil&gt;&amp;&quot;&#39;"));
    free(html);
    json_decref(m);
}

static void test_empty_rounds(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    json_array_clear(json_object_get(m, "rounds"));
    char *html = render(m, "html");
    char *chart = strstr(html, "id=\"speedup-chart\"");
    assert_non_null(chart);
    char *note = strstr(chart, "no rounds yet");
    assert_non_null(note);
    assert_true(note < strstr(chart, "</svg>"));
    assert_int_equal(count(html, "<circle"), 0);
    free(html);
    char *md = render(m, "md");
    assert_non_null(strstr(md, "## Rounds\n\nNo rounds yet.\n"));
    free(md);
    json_decref(m);
}

static void test_rounds_without_speedup(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    json_object_set_new(json_array_get(json_object_get(m, "rounds"), 0), "speedup", json_null());
    char *html = render(m, "html");
    assert_non_null(strstr(html, "no round has a speedup yet"));
    free(html);
    json_decref(m);
}

static void test_missing_workloads(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    json_object_del(m, "workloads");
    expect_error(m, "html", "missing 'workloads'");
    expect_error(m, "csv", "missing 'workloads'");
    json_object_set_new(m, "workloads", json_null());
    expect_error(m, "md", "missing 'workloads'");
    json_decref(m);
}

static void test_bad_fields(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    json_t *w = json_array_get(json_object_get(m, "workloads"), 1);
    json_object_set_new(w, "best_ms", json_string("fast"));
    expect_error(m, "md", "workloads[1].best_ms: expected a number or null");
    json_object_set_new(w, "best_ms", json_null());
    json_object_del(w, "uuid");
    expect_error(m, "md", "workloads[1]: missing 'uuid'");
    json_decref(m);

    m = load(small_model);
    json_object_set_new(json_array_get(json_object_get(m, "rounds"), 0), "number", json_real(1.5));
    expect_error(m, "json", "rounds[0].number: expected an integer");
    json_decref(m);

    m = load(small_model);
    json_array_append_new(json_object_get(m, "candidates"), json_string("x"));
    expect_error(m, "json", "candidates[2]: expected an object");
    json_object_set_new(m, "session", json_integer(1));
    expect_error(m, "json", "session: expected a string");
    json_decref(m);

    json_t *arr = json_array();
    expect_error(arr, "json", "expected a JSON object");
    json_decref(arr);
}

static void test_unknown_format(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    expect_error(m, "pdf", "unknown format 'pdf' (formats: md, csv, json, traces, html)");
    assert_string_equal(report_formats(), "md, csv, json, traces, html");
    json_decref(m);
}

static void test_appends(void **state)
{
    (void)state;
    json_t *m = load(small_model);
    strbuf sb;
    kwb_error err;
    strbuf_init(&sb);
    strbuf_puts(&sb, "before\n");
    assert_int_equal(report_render(m, "csv", &sb, &err), 0);
    assert_true(strncmp(sb.s, "before\nuuid,axes,", 17) == 0);
    strbuf_free(&sb);
    json_decref(m);
}

/* ---- a realistic model: a GDN decode session of seven candidates over six rounds -------- */

static json_t *realistic_workload(int i)
{
    static const int batch[] = {1, 2, 4, 8, 16, 32, 64, 128};
    static const char *const uuids[] = {
        "901e5104-3c1f-4f0a-9d3e-1a2b3c4d5e6f", "a47c2e19-88d0-4b61-b1c2-7f3e9a0d4c21",
        "0f3d9b2a-5e71-4c8a-a6d4-2b9e8f1c7a30", "6b8e1f47-0a2d-4d93-8c5b-e4f7a1b2c3d4",
        "c2d4e6f8-1a3b-4c5d-9e7f-0a1b2c3d4e5f", "3e5f7a9b-2c4d-4e6f-8a0b-1c2d3e4f5a6b",
        "d9c8b7a6-5f4e-4d3c-ab2a-190817263544", "77aa88bb-99cc-4dde-8eff-001122334455",
    };
    double base = 0.09 + 0.028 * batch[i];
    double best = i == 5 ? 0 : base / (1.4 + 0.7 * (i % 4) + 0.3 * i);
    json_t *w = json_pack("{s:s, s:{s:i}, s:s, s:f, s:f}", "uuid", uuids[i], "axes", "batch_size", batch[i], "status",
                          i == 5 ? "INCORRECT_NUMERICAL" : "PASSED", "baseline_ms", base, "reference_ms", base * 0.93);
    if (i == 5) {
        json_object_set_new(w, "best_ms", json_null());
        json_object_set_new(w, "speedup", json_null());
        json_object_set_new(w, "max_abs", json_real(0.031));
        json_object_set_new(w, "max_rel", json_real(4.2));
        json_object_set_new(w, "message",
                            json_string("output 'o': 412 of 4096 elements off; first at [3, 17]: "
                                        "got 0.52, expected 0.49 <script>alert(1)</script>"));
    } else {
        json_object_set_new(w, "best_ms", json_real(best));
        json_object_set_new(w, "speedup", json_real(base / best));
        json_object_set_new(w, "max_abs", json_real(7e-6 * (i + 1)));
        json_object_set_new(w, "max_rel", json_real(0.002 * (i + 1)));
        json_object_set_new(w, "message", json_null());
    }
    return w;
}

static json_t *realistic_model(void)
{
    static const char *const names[] = {"baseline",   "fused-passes", "vector-state",   "tiled-v8",
                                        "unrolled-k", "prefetch",     "tiled-v8-unroll"};
    static const char *const titles[] = {"fuse passes",       "vectorize the state update",
                                         "tile v by 8",       "unroll the k loop",
                                         "software prefetch", "combine tiling and unrolling"};
    static const double speedups[] = {1.55, 2.1, 2.05, 2.9, 2.9, 3.4};
    json_t *m =
        json_pack("{s:s, s:s, s:s, s:[], s:[], s:[], s:[]}", "session", "s1", "definition",
                  "gdn_decode_qk4_v8_d128_k_last", "device", "cpu", "candidates", "rounds", "workloads", "traces");
    for (int i = 0; i < 7; i++) {
        char commit[41];
        snprintf(commit, sizeof commit, "%08x%032x", 0xabc123u + (unsigned)i * 7919u, (unsigned)i);
        json_array_append_new(json_object_get(m, "candidates"),
                              json_pack("{s:i, s:s, s:o, s:s, s:s, s:s, s:f}", "id", i + 1, "name", names[i], "parent",
                                        i ? json_integer(i) : json_null(), "origin", i ? "agent" : "baseline", "commit",
                                        commit, "state", "evaluated", "mean_ms", 0.81 / (i ? speedups[i - 1] : 1.0)));
    }
    for (int r = 0; r < 6; r++)
        json_array_append_new(json_object_get(m, "rounds"),
                              json_pack("{s:i, s:s, s:s, s:i, s:f, s:f}", "number", r + 1, "title", titles[r], "state",
                                        "done", "candidate", r + 2, "best_mean_ms", 0.81 / speedups[r], "speedup",
                                        speedups[r]));
    for (int i = 0; i < 8; i++) {
        json_t *w = realistic_workload(i);
        json_array_append_new(json_object_get(m, "traces"),
                              json_pack("{s:s, s:{s:O}, s:s, s:{s:O}}", "definition", "gdn_decode_qk4_v8_d128_k_last",
                                        "workload", "uuid", json_object_get(w, "uuid"), "solution", "tiled-v8-unroll",
                                        "evaluation", "status", json_object_get(w, "status")));
        json_array_append_new(json_object_get(m, "workloads"), w);
    }
    return m;
}

/* Writes HTML to the file named by environment variable ENV, when it is set (for
 * tests/e2e/report_html.sh's browser checks). */
static void write_page_for(const char *env, const char *html)
{
    const char *path = getenv(env);
    if (!path || !*path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        fail_msg("cannot write %s", path);
    assert_int_equal(fputs(html, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_html_realistic(void **state)
{
    (void)state;
    json_t *m = realistic_model();
    char *html = render(m, "html");
    assert_int_equal(count(html, "<tr class=\"st-"), 8);
    assert_int_equal(count(html, "<circle class=\"pt\""), 6);
    assert_int_equal(count(html, "class=\"bar-best\" x="), 7 + 1); /* 7 bars and the legend */
    assert_null(strstr(html, "http"));
    assert_null(strstr(html, "<script"));
    write_page_for("REPORT_HTML_OUT", html);
    free(html);
    char *traces = render(m, "traces");
    assert_int_equal(count(traces, "\n"), 8);
    free(traces);
    json_decref(m);
}

/* Twenty rounds on plateaus, some at the baseline's 1x: labels would collide if each point had
 * one above it. The unit checks only that every point is drawn; with REPORT_HTML_CROWDED_OUT
 * the page goes there for tests/e2e/report_html.sh to check the labels' boxes in Chromium. */
static void test_html_crowded(void **state)
{
    (void)state;
    json_t *m = realistic_model();
    json_t *rounds = json_array();
    for (int r = 0; r < 20; r++) {
        double sp = r < 4 ? 1.0 : r < 12 ? 1.12 + 0.001 * r : 1.35;
        json_array_append_new(rounds,
                              json_pack("{s:i, s:s, s:s, s:i, s:f, s:f}", "number", r + 1, "title", "tile", "state",
                                        "done", "candidate", 2, "best_mean_ms", 0.81 / sp, "speedup", sp));
    }
    json_object_set_new(m, "rounds", rounds);
    char *html = render(m, "html");
    assert_int_equal(count(html, "<circle class=\"pt\""), 20);
    assert_true(count(html, "&#215;</text>") >= 4); /* some labels (and the baseline's) are drawn */
    write_page_for("REPORT_HTML_CROWDED_OUT", html);
    free(html);
    json_decref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_crowded),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_md),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_traces),
        cmocka_unit_test(test_html),
        cmocka_unit_test(test_html_escapes_everything),
        cmocka_unit_test(test_empty_rounds),
        cmocka_unit_test(test_rounds_without_speedup),
        cmocka_unit_test(test_missing_workloads),
        cmocka_unit_test(test_bad_fields),
        cmocka_unit_test(test_unknown_format),
        cmocka_unit_test(test_appends),
        cmocka_unit_test(test_html_realistic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_protocol.c - the runner protocol: job defaults, job encode/decode round trip and
 * rejections, events (new, timing, parse, unknown names), and one-line writes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "protocol.h"

#define exact(got, want) exact_at((double)(got), (double)(want), #got, __LINE__)

static void exact_at(double got, double want, const char *what, int line)
{
    if (!(got == want))
        fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}

static void assert_has(const char *haystack, const char *needle)
{
    if (!haystack || !strstr(haystack, needle))
        fail_msg("'%s' does not contain '%s'", haystack ? haystack : "(null)", needle);
}

static void assert_policy_equal(const timing_policy *a, const timing_policy *b)
{
    exact(a->warmup_s, b->warmup_s);
    assert_int_equal(a->min_samples, b->min_samples);
    exact(a->min_time_s, b->min_time_s);
    exact(a->max_time_s, b->max_time_s);
    exact(a->rsd_target, b->rsd_target);
    assert_int_equal(a->cold, b->cold);
    exact(a->ci_target, b->ci_target);
    assert_int_equal(a->ci_iid, b->ci_iid);
}

static void test_job_defaults(void **state)
{
    (void)state;
    runner_job job;
    memset(&job, 0x5a, sizeof job);
    protocol_job_defaults(&job);
    assert_null(job.device);
    assert_null(job.definition_path);
    assert_null(job.dataset_root);
    assert_null(job.workloads);
    assert_int_equal(job.nsolutions, 0);
    assert_int_equal(job.trials, 3);
    exact(job.check.atol, 1e-2);
    exact(job.check.rtol, 1e-2);
    exact(job.check.required_ratio, 1.0);
    timing_policy t = {0.02, 10, 0.0, 0.3, 0, 0, 0, 0.005};
    timing_policy r = {0.0, 5, 0.0, 0.3, 0, 0, 0, 0.02};
    assert_policy_equal(&job.timing, &t);
    assert_policy_equal(&job.reference_timing, &r);
    assert_true(job.seed == 1);
    assert_int_equal(job.want_samples, 0);
    protocol_job_free(&job); /* freeing defaults is safe */
}

static const char WORKLOADS[] =
    "[{\"uuid\":\"w-1\",\"axes\":{\"B\":7,\"H\":16},\"inputs\":{\"x\":{\"type\":\"random\"},"
    "\"s\":{\"type\":\"scalar\",\"value\":0.125}}},"
    "{\"uuid\":\"w-2\",\"axes\":{\"B\":1},\"inputs\":{\"t\":{\"type\":\"safetensors\",\"path\":\"a/b.safetensors\","
    "\"tensor_key\":\"t\"}},\"note\":\"caf\\u00e9 \\\"q\\\"\\n\"}]";

/* A job with every field away from its default. */
static void full_job(runner_job *job)
{
    protocol_job_defaults(job);
    job->device = strdup("cuda");
    job->definition_path = strdup("/defs/gdn decode.json");
    job->dataset_root = strdup("/data/set");
    json_error_t jerr;
    job->workloads = json_loads(WORKLOADS, 0, &jerr);
    assert_non_null(job->workloads);
    const char *f[2][4] = {{"candidate", "cand-v3", "/tmp/c.so", "kwb_entry"},
                           {"baseline", "base", "/tmp/b.so", "kwb_entry_baseline"}};
    for (int i = 0; i < 2; i++) {
        job->solutions[i].role = strdup(f[i][0]);
        job->solutions[i].name = strdup(f[i][1]);
        job->solutions[i].so_path = strdup(f[i][2]);
        job->solutions[i].symbol = strdup(f[i][3]);
    }
    job->solutions[0].dir = strdup("/sols/cand v3");
    job->nsolutions = 2;
    job->trials = 7;
    job->check = (check_policy){0.5, 0.25, 0.9};
    job->timing = (timing_policy){0.125, 12, 0.2, 1.5, 0.03, 1, 0, 0.0075, 1};
    job->reference_timing = (timing_policy){0.0625, 4, 0.0, 0.7, 0.1, 0, 0, 0, 0};
    job->seed = 0xfedcba9876543210ULL; /* above INT64_MAX */
    job->want_samples = 1;
    job->sandbox_off = 1;
    job->scratch = strdup("/tmp/kwb-scratch-x");
    job->cpu_limit_s = 1234.5;
    job->probe_reference = 1;
}

static void test_job_round_trip(void **state)
{
    (void)state;
    runner_job job, back;
    full_job(&job);
    char *line = protocol_job_encode(&job);
    assert_non_null(line);
    assert_null(strchr(line, '\n'));

    /* The line itself: protocol 1, a job. */
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    assert_non_null(o);
    assert_true(json_is_integer(json_object_get(o, "proto")));
    assert_int_equal(json_integer_value(json_object_get(o, "proto")), 1);
    assert_string_equal(json_string_value(json_object_get(o, "type")), "job");
    json_decref(o);

    kwb_error err = {{0}};
    memset(&back, 0x5a, sizeof back);
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_string_equal(back.device, "cuda");
    assert_string_equal(back.definition_path, "/defs/gdn decode.json");
    assert_string_equal(back.dataset_root, "/data/set");
    assert_true(json_is_array(back.workloads));
    assert_int_equal(json_array_size(back.workloads), 2);
    assert_true(json_equal(back.workloads, job.workloads));
    assert_string_equal(json_string_value(json_object_get(json_array_get(back.workloads, 1), "note")),
                        "caf\xc3\xa9 \"q\"\n");
    assert_int_equal(back.nsolutions, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(back.solutions[i].role, job.solutions[i].role);
        assert_string_equal(back.solutions[i].name, job.solutions[i].name);
        assert_string_equal(back.solutions[i].so_path, job.solutions[i].so_path);
        assert_string_equal(back.solutions[i].symbol, job.solutions[i].symbol);
    }
    assert_string_equal(back.solutions[0].dir, "/sols/cand v3");
    assert_null(back.solutions[1].dir);
    assert_int_equal(back.trials, 7);
    exact(back.check.atol, 0.5);
    exact(back.check.rtol, 0.25);
    exact(back.check.required_ratio, 0.9);
    assert_policy_equal(&back.timing, &job.timing);
    assert_policy_equal(&back.reference_timing, &job.reference_timing);
    assert_true(back.seed == 0xfedcba9876543210ULL);
    assert_int_equal(back.want_samples, 1);
    assert_int_equal(back.sandbox_off, 1);
    assert_string_equal(back.scratch, "/tmp/kwb-scratch-x");
    exact(back.cpu_limit_s, 1234.5);
    assert_int_equal(back.probe_reference, 1);

    /* Encoding the decoded job gives the same line. */
    char *again = protocol_job_encode(&back);
    assert_string_equal(again, line);
    free(again);
    free(line);
    protocol_job_free(&back);

    /* Not-so-round values and the other flags. */
    job.check = (check_policy){0.1, 1.0 / 3.0, 0.95};
    job.timing.cold = 0;
    job.reference_timing.cold = 1;
    job.want_samples = 0;
    job.seed = 0;
    free(job.solutions[1].role);
    free(job.solutions[1].name);
    free(job.solutions[1].so_path);
    free(job.solutions[1].symbol);
    job.nsolutions = 1;
    line = protocol_job_encode(&job);
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    exact(back.check.atol, 0.1);
    exact(back.check.rtol, 1.0 / 3.0);
    exact(back.check.required_ratio, 0.95);
    assert_int_equal(back.timing.cold, 0);
    assert_int_equal(back.reference_timing.cold, 1);
    assert_int_equal(back.want_samples, 0);
    assert_true(back.seed == 0);
    assert_int_equal(back.nsolutions, 1);
    assert_string_equal(back.solutions[0].name, "cand-v3");
    free(line);
    protocol_job_free(&back);
    protocol_job_free(&job);
    assert_null(job.device);
    assert_int_equal(job.nsolutions, 0);
}

/* Encodes the full job, lets EDIT change the object, and returns the decode status. */
static int decode_edited(void (*edit)(json_t *), kwb_error *err)
{
    runner_job job, back;
    full_job(&job);
    char *line = protocol_job_encode(&job);
    protocol_job_free(&job);
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    free(line);
    edit(o);
    line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    memset(err, 0, sizeof *err);
    int rc = protocol_job_decode(line, &back, err);
    free(line);
    protocol_job_free(&back); /* also after a failure */
    return rc;
}

static void edit_nothing(json_t *o)
{
    (void)o;
}
static void edit_proto2(json_t *o)
{
    json_object_set_new(o, "proto", json_integer(2));
}
static void edit_no_proto(json_t *o)
{
    json_object_del(o, "proto");
}
static void edit_no_device(json_t *o)
{
    json_object_del(o, "device");
}
static void edit_no_definition(json_t *o)
{
    json_object_del(o, "definition");
}
static void edit_no_workloads(json_t *o)
{
    json_object_del(o, "workloads");
}
static void edit_workloads_object(json_t *o)
{
    json_object_set_new(o, "workloads", json_object());
}
static void edit_no_timing(json_t *o)
{
    json_object_del(o, "timing");
}
static void edit_no_atol(json_t *o)
{
    json_object_del(json_object_get(o, "check"), "atol");
}
static void edit_no_rsd(json_t *o)
{
    json_object_del(json_object_get(o, "reference_timing"), "rsd_target");
}
static void edit_no_symbol(json_t *o)
{
    json_object_del(json_array_get(json_object_get(o, "solutions"), 1), "symbol");
}
static void edit_three_solutions(json_t *o)
{
    json_t *s = json_object_get(o, "solutions");
    json_array_append_new(s, json_deep_copy(json_array_get(s, 0)));
}
static void edit_no_optional(json_t *o)
{
    json_object_del(o, "seed");
    json_object_del(o, "samples");
    json_object_del(json_object_get(o, "timing"), "cold");
    json_object_del(o, "sandbox");
    json_object_del(o, "scratch");
    json_object_del(o, "cpu_limit_s");
    json_object_del(o, "probe_reference");
}

/* The reference and its helpers (the definition's own reference when another is run) travel in
 * the job; helpers are optional, and a reference without them decodes with none. */
static void test_job_reference_helpers(void **state)
{
    (void)state;
    runner_job job, back;
    kwb_error err = {{0}};
    for (int with = 0; with <= 1; with++) {
        full_job(&job);
        job.reference = (job_solution){.role = strdup("reference"),
                                       .name = strdup("torch"),
                                       .so_path = strdup("/b/torch/lib.so"),
                                       .symbol = strdup("kwb_entry"),
                                       .helpers = with ? strdup("/b/own ref/lib.so") : NULL};
        char *line = protocol_job_encode(&job);
        assert_int_equal(protocol_job_decode(line, &back, &err), 0);
        assert_string_equal(back.reference.so_path, "/b/torch/lib.so");
        if (with)
            assert_string_equal(back.reference.helpers, "/b/own ref/lib.so");
        else {
            assert_null(back.reference.helpers);
            assert_null(strstr(line, "helpers"));
        }
        free(line);
        protocol_job_free(&back);
        protocol_job_free(&job);
    }
}

static void test_job_decode_rejects(void **state)
{
    (void)state;
    kwb_error err;
    assert_int_equal(decode_edited(edit_nothing, &err), 0);

    assert_int_equal(decode_edited(edit_proto2, &err), -1);
    assert_has(err.msg, "protocol 2");
    assert_has(err.msg, "speaks 1");

    assert_int_equal(decode_edited(edit_no_proto, &err), -1);
    assert_has(err.msg, "proto");
    assert_int_equal(decode_edited(edit_no_device, &err), -1);
    assert_has(err.msg, "device");
    assert_int_equal(decode_edited(edit_no_definition, &err), -1);
    assert_has(err.msg, "definition");
    assert_int_equal(decode_edited(edit_no_workloads, &err), -1);
    assert_has(err.msg, "workloads");
    assert_int_equal(decode_edited(edit_workloads_object, &err), -1);
    assert_has(err.msg, "workloads");
    assert_int_equal(decode_edited(edit_no_timing, &err), -1);
    assert_has(err.msg, "timing");
    assert_int_equal(decode_edited(edit_no_atol, &err), -1);
    assert_has(err.msg, "atol");
    assert_int_equal(decode_edited(edit_no_rsd, &err), -1);
    assert_has(err.msg, "reference_timing");
    assert_int_equal(decode_edited(edit_no_symbol, &err), -1);
    assert_has(err.msg, "solution 1");
    assert_int_equal(decode_edited(edit_three_solutions, &err), -1);
    assert_has(err.msg, "at most two");

    /* seed, samples and cold are optional. */
    assert_int_equal(decode_edited(edit_no_optional, &err), 0);

    runner_job back;

    const char *bad[] = {"", "{", "not json", "{\"proto\":1,", "[1,2,3]", "null"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        int rc = protocol_job_decode(bad[i], &back, &err);
        if (rc != -1 || err.msg[0] == 0)
            fail_msg("decode of '%s' gave %d, '%s'", bad[i], rc, err.msg);
        protocol_job_free(&back);
    }
    protocol_job_decode("not json", &back, &err);
    assert_has(err.msg, "JSON");
    protocol_job_free(&back);
}

static void test_job_decode_defaults_optional(void **state)
{
    (void)state;
    kwb_error err;
    runner_job job, back;
    full_job(&job);
    char *line = protocol_job_encode(&job);
    protocol_job_free(&job);
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    free(line);
    edit_no_optional(o);
    line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_true(back.seed == 1);
    assert_int_equal(back.want_samples, 0);
    assert_int_equal(back.timing.cold, 0);
    assert_int_equal(back.reference_timing.cold, 0);
    /* the sandbox is on unless the job says "sandbox": false */
    assert_int_equal(back.sandbox_off, 0);
    assert_null(back.scratch);
    exact(back.cpu_limit_s, 0);
    assert_int_equal(back.probe_reference, 0);
    free(line);
    protocol_job_free(&back);
}

static void edit_dump_trial_negative(json_t *o)
{
    json_object_set_new(o, "dump_trial", json_integer(-1));
}
static void edit_dump_trial_text(json_t *o)
{
    json_object_set_new(o, "dump_trial", json_string("0"));
}
static void edit_dump_dir_number(json_t *o)
{
    json_object_set_new(o, "dump_dir", json_integer(3));
}
static void edit_dump_dir_empty(json_t *o)
{
    json_object_set_new(o, "dump_dir", json_string(""));
}
static void edit_dump(json_t *o)
{
    json_object_set_new(o, "dump_dir", json_string("/tmp/dump here"));
    json_object_set_new(o, "dump_trial", json_integer(4));
}

/* The optional dump fields: absent by default (and from a plain job's line), round trip,
 * and rejections; a job with only dump_dir dumps trial 0. */
static void test_job_dump_fields(void **state)
{
    (void)state;
    runner_job job, back;
    kwb_error err;
    full_job(&job);
    char *line = protocol_job_encode(&job);
    assert_null(strstr(line, "dump"));
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_null(back.dump_dir);
    assert_int_equal(back.dump_trial, 0);
    protocol_job_free(&back);
    free(line);

    job.dump_dir = strdup("/tmp/dump here");
    job.dump_trial = 4;
    line = protocol_job_encode(&job);
    assert_has(line, "\"dump_dir\":\"/tmp/dump here\",\"dump_trial\":4");
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_string_equal(back.dump_dir, "/tmp/dump here");
    assert_int_equal(back.dump_trial, 4);
    free(line);
    protocol_job_free(&back);
    protocol_job_free(&job);

    assert_int_equal(decode_edited(edit_dump, &err), 0);
    assert_int_equal(decode_edited(edit_dump_trial_negative, &err), -1);
    assert_has(err.msg, "dump_trial");
    assert_int_equal(decode_edited(edit_dump_trial_text, &err), -1);
    assert_has(err.msg, "dump_trial");
    assert_int_equal(decode_edited(edit_dump_dir_number, &err), -1);
    assert_has(err.msg, "dump_dir");
    assert_int_equal(decode_edited(edit_dump_dir_empty, &err), -1);
    assert_has(err.msg, "dump_dir");
}

/* The optional "reference": absent unless set, round-trips, and a malformed one is refused. */
static void test_job_reference(void **state)
{
    (void)state;
    runner_job job, back;
    kwb_error err;
    full_job(&job);
    char *line = protocol_job_encode(&job);
    assert_null(strstr(line, "\"reference\":{"));
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_null(back.reference.so_path);
    protocol_job_free(&back);
    free(line);
    job.reference = (job_solution){strdup("reference"), strdup("ref_c"), strdup("/c/lib.so"), strdup("kwb_entry")};
    line = protocol_job_encode(&job);
    assert_has(line, "\"reference\":{\"name\":\"ref_c\",\"so\":\"/c/lib.so\",\"symbol\":\"kwb_entry\"}");
    assert_int_equal(protocol_job_decode(line, &back, &err), 0);
    assert_string_equal(back.reference.name, "ref_c");
    assert_string_equal(back.reference.so_path, "/c/lib.so");
    assert_string_equal(back.reference.symbol, "kwb_entry");
    protocol_job_free(&back);
    char *bad = strdup(line);
    char *at = strstr(strstr(bad, "\"reference\":{"), "\"symbol\":\"kwb_entry\"");
    memcpy(at, "\"symbox\"", 8);
    assert_int_equal(protocol_job_decode(bad, &back, &err), -1);
    assert_has(err.msg, "reference");
    protocol_job_free(&back);
    free(bad);
    free(line);
    protocol_job_free(&job);
}

/* Non-finite numbers travel as FlashInfer-Bench's strings and are read back. */
static void test_event_nonfinite(void **state)
{
    (void)state;
    json_t *n = protocol_real(NAN), *p = protocol_real(INFINITY), *m = protocol_real(-INFINITY),
           *f = protocol_real(0.5);
    assert_string_equal(json_string_value(n), "NaN");
    assert_string_equal(json_string_value(p), "Infinity");
    assert_string_equal(json_string_value(m), "-Infinity");
    exact(json_real_value(f), 0.5);
    json_decref(n), json_decref(p), json_decref(m), json_decref(f);
    runner_event e;
    kwb_error err;
    assert_int_equal(protocol_event_parse("{\"proto\":1,\"event\":\"workload-end\",\"uuid\":\"u\",\"max_abs\":\"NaN\","
                                          "\"max_rel\":\"Infinity\",\"matched_ratio\":0.5}",
                                          &e, &err),
                     0);
    assert_true(isnan(e.max_abs));
    assert_true(isinf(e.max_rel) && e.max_rel > 0);
    exact(e.matched_ratio, 0.5);
    protocol_event_free(&e);
}

static void test_event_new(void **state)
{
    (void)state;
    json_t *ev = protocol_event_new("workload-start");
    assert_non_null(ev);
    assert_true(json_is_object(ev));
    assert_int_equal(json_object_size(ev), 2);
    assert_true(json_is_integer(json_object_get(ev, "proto")));
    assert_int_equal(json_integer_value(json_object_get(ev, "proto")), KWB_PROTO);
    assert_int_equal(KWB_PROTO, 1);
    assert_string_equal(json_string_value(json_object_get(ev, "event")), "workload-start");
    json_decref(ev);
}

static void test_event_timing_round_trip(void **state)
{
    (void)state;
    stats_summary s = {42, 1.0 / 3.0, 0.3125, 0.1, 7.25e3, 0.2, 0.7, 0.5, 1e-9, 0.0123456789};
    json_t *ev = protocol_event_new("timing");
    json_object_set_new(ev, "uuid", json_string("w-9"));
    json_object_set_new(ev, "role", json_string("baseline"));
    protocol_event_set_timing(ev, &s);
    assert_int_equal(json_integer_value(json_object_get(ev, "count")), 42);
    assert_true(json_is_real(json_object_get(ev, "median_ms")));
    char *line = json_dumps(ev, JSON_COMPACT);
    json_decref(ev);

    runner_event e;
    kwb_error err;
    assert_int_equal(protocol_event_parse(line, &e, &err), 0);
    free(line);
    assert_int_equal(e.type, EV_TIMING);
    assert_string_equal(e.uuid, "w-9");
    assert_string_equal(e.role, "baseline");
    assert_int_equal(e.timing.n, 42);
    exact(e.timing.mean, s.mean);
    exact(e.timing.median, s.median);
    exact(e.timing.min, s.min);
    exact(e.timing.max, s.max);
    exact(e.timing.q1, s.q1);
    exact(e.timing.q3, s.q3);
    exact(e.timing.iqr, s.iqr);
    exact(e.timing.stddev, s.stddev);
    exact(e.timing.rsd, s.rsd);
    assert_memory_equal(&e.timing, &s, sizeof s);
    protocol_event_free(&e);
    assert_null(e.json);
}

static void test_event_parse_fields(void **state)
{
    (void)state;
    runner_event e;
    kwb_error err;
    const char *check = "{\"proto\":1,\"event\":\"check\",\"uuid\":\"u1\",\"role\":\"candidate\",\"trial\":2,"
                        "\"max_abs\":0.125,\"max_rel\":3.5,\"matched_ratio\":0.9}";
    assert_int_equal(protocol_event_parse(check, &e, &err), 0);
    assert_int_equal(e.type, EV_CHECK);
    assert_string_equal(e.uuid, "u1");
    assert_string_equal(e.role, "candidate");
    assert_int_equal(e.trial, 2);
    exact(e.max_abs, 0.125);
    exact(e.max_rel, 3.5);
    exact(e.matched_ratio, 0.9);
    assert_null(e.status);
    assert_null(e.message);
    assert_int_equal(e.timing.n, 0); /* only timing events carry a summary */
    protocol_event_free(&e);

    const char *end = "{\"proto\":1,\"event\":\"workload-end\",\"uuid\":\"u2\",\"status\":\"INCORRECT_NUMERICAL\","
                      "\"message\":\"output 'y': 3 of 8\"}\n";
    assert_int_equal(protocol_event_parse(end, &e, &err), 0);
    assert_int_equal(e.type, EV_WORKLOAD_END);
    assert_string_equal(e.status, "INCORRECT_NUMERICAL");
    assert_string_equal(e.message, "output 'y': 3 of 8");
    assert_null(e.role);
    assert_int_equal(e.trial, 0);
    protocol_event_free(&e);

    const char *names[] = {"hello", "workload-start", "check", "timing", "workload-end", "error", "bye"};
    const event_type types[] = {EV_HELLO, EV_WORKLOAD_START, EV_CHECK, EV_TIMING, EV_WORKLOAD_END, EV_ERROR, EV_BYE};
    for (int i = 0; i < 7; i++) {
        json_t *ev = protocol_event_new(names[i]);
        char *line = json_dumps(ev, JSON_COMPACT);
        json_decref(ev);
        assert_int_equal(protocol_event_parse(line, &e, &err), 0);
        assert_int_equal(e.type, types[i]);
        assert_non_null(e.json);
        free(line);
        protocol_event_free(&e);
    }
    const char *unknown[] = {"frobnicate", "", "Hello", "hello ", "workload"};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        json_t *ev = protocol_event_new(unknown[i]);
        char *line = json_dumps(ev, JSON_COMPACT);
        json_decref(ev);
        assert_int_equal(protocol_event_parse(line, &e, &err), 0);
        assert_int_equal(e.type, EV_UNKNOWN);
        free(line);
        protocol_event_free(&e);
    }
}

static void test_event_parse_rejects(void **state)
{
    (void)state;
    const char *bad[] = {
        "{\"event\":\"hello\"}",
        "{\"proto\":1}",
        "{\"proto\":2,\"event\":\"hello\"}",
        "{\"proto\":\"1\",\"event\":\"hello\"}",
        "{\"proto\":1,\"event\":5}",
        "{\"proto\":1.0,\"event\":\"bye\"}",
        "[1,2]",
        "{}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        runner_event e;
        kwb_error err = {{0}};
        int rc = protocol_event_parse(bad[i], &e, &err);
        if (rc != -1)
            fail_msg("parse of '%s' gave %d", bad[i], rc);
        assert_has(err.msg, "\"proto\":1");
        assert_null(e.json);
        protocol_event_free(&e); /* safe after a failure */
    }
    const char *notjson[] = {"", "hello", "{\"proto\":1,\"event\":\"bye\"", "{\"proto\":1} trailing"};
    for (size_t i = 0; i < sizeof notjson / sizeof notjson[0]; i++) {
        runner_event e;
        kwb_error err = {{0}};
        if (protocol_event_parse(notjson[i], &e, &err) != -1)
            fail_msg("parse of '%s' succeeded", notjson[i]);
        assert_has(err.msg, "not JSON");
        assert_null(e.json);
    }
}

/* Reads everything from FD until end of file; the caller frees the result. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 256, n = 0;
    char *buf = malloc(cap);
    ssize_t r;
    while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
        n += (size_t)r;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static void test_write_line(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    json_t *ev = protocol_event_new("error");
    json_object_set_new(ev, "message", json_string("two\nlines, and \"quotes\""));
    json_object_set_new(ev, "uuid", json_string("u-3"));
    json_object_set_new(ev, "trial", json_integer(5));
    assert_int_equal(protocol_write_line(fds[1], ev), 0);
    close(fds[1]);
    size_t len;
    char *buf = read_all(fds[0], &len);
    close(fds[0]);

    assert_true(len > 1);
    assert_int_equal(buf[len - 1], '\n');
    assert_ptr_equal(strchr(buf, '\n'), buf + len - 1); /* exactly one newline, at the end */
    assert_int_equal(strlen(buf), len);
    assert_null(strstr(buf, "\": ")); /* compact: no space after separators */
    assert_null(strstr(buf, "\", \""));

    runner_event e;
    kwb_error err;
    assert_int_equal(protocol_event_parse(buf, &e, &err), 0);
    assert_int_equal(e.type, EV_ERROR);
    assert_string_equal(e.message, "two\nlines, and \"quotes\"");
    assert_string_equal(e.uuid, "u-3");
    assert_int_equal(e.trial, 5);
    assert_true(json_equal(e.json, ev));
    protocol_event_free(&e);
    free(buf);

    /* Two writes: two lines. */
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(protocol_write_line(fds[1], ev), 0);
    assert_int_equal(protocol_write_line(fds[1], ev), 0);
    close(fds[1]);
    buf = read_all(fds[0], &len);
    close(fds[0]);
    assert_int_equal(len % 2, 0);
    assert_int_equal(buf[len / 2 - 1], '\n');
    assert_memory_equal(buf, buf + len / 2, len / 2);
    free(buf);

    /* A bad descriptor: -1. */
    assert_int_equal(protocol_write_line(-1, ev), -1);
    json_decref(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_defaults),
        cmocka_unit_test(test_job_round_trip),
        cmocka_unit_test(test_job_reference_helpers),
        cmocka_unit_test(test_job_decode_rejects),
        cmocka_unit_test(test_job_decode_defaults_optional),
        cmocka_unit_test(test_job_dump_fields),
        cmocka_unit_test(test_job_reference),
        cmocka_unit_test(test_event_nonfinite),
        cmocka_unit_test(test_event_new),
        cmocka_unit_test(test_event_timing_round_trip),
        cmocka_unit_test(test_event_parse_fields),
        cmocka_unit_test(test_event_parse_rejects),
        cmocka_unit_test(test_write_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_llm.c - model calls over real HTTP on the loopback interface against tests/fake_llm,
 * started as a child process per test with a script of answers: good answers in both protocols,
 * streamed and not; retries on 429 (retry-after honoured), 500 and 529; no retry on 400, 401 or
 * an exhausted quota; a stream cut (retried once); mid-stream errors; length with no text; cancel
 * of a slow stream within a bound; stall detection; cost from the price table; and no key in any
 * request dump, response, attempt log or error message. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llm.h"
#include "proc.h"
#include "secrets.h"
#include "strbuf.h"
#include "testutil.h"
#include "xalloc.h"

#define KEY "sk-fake-test-key-0123456789"

/* One test's fake server. */
typedef struct fake {
    char *dir;
    char *log;
    pid_t pid;
    int stdin_fd; /* closing it ends the server */
    int port;
} fake;

static int setup(void **state)
{
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("OPENAI_API_KEY", KEY, 1);
    setenv("ANTHROPIC_API_KEY", KEY, 1);
    fake *f = xcalloc(1, sizeof *f);
    f->pid = -1;
    f->stdin_fd = -1;
    void *dir;
    if (testutil_tmpdir_setup(&dir, "/tmp/kwb-test-llm-XXXXXX") != 0)
        return -1;
    f->dir = dir;
    f->log = testutil_path(f->dir, "requests.log");
    *state = f;
    return 0;
}

/* Ends F's server, if one runs: its stdin closes, it exits. */
static void fake_stop(fake *f)
{
    if (f->stdin_fd >= 0)
        close(f->stdin_fd);
    f->stdin_fd = -1;
    if (f->pid > 0 && proc_wait(f->pid, 3, NULL) != 0)
        proc_kill_group(f->pid);
    f->pid = -1;
}

static int teardown(void **state)
{
    fake *f = *state;
    fake_stop(f);
    free(f->log);
    void *dir = f->dir;
    free(f);
    return testutil_tmpdir_teardown(&dir);
}

/* Starts the fake server with SCRIPT; fails the test when it does not come up. */
static void fake_start(fake *f, const char *script)
{
    fake_stop(f);
    char *path = testutil_path(f->dir, "script");
    testutil_write_text(path, script);
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    proc_io io = proc_io_default();
    io.stdin_fd = in[0];
    io.stdout_fd = out[1];
    char *argv[] = {FAKE_LLM, "--script", path, "--log", f->log, "--key", KEY, "--lifetime", "120", NULL};
    kwb_error err = {{0}};
    f->pid = proc_spawn(argv, &io, &err);
    if (f->pid < 0)
        fail_msg("cannot start %s: %s", FAKE_LLM, err.msg);
    close(in[0]);
    close(out[1]);
    f->stdin_fd = in[1];
    char buf[32] = {0};
    size_t n = 0;
    while (n < sizeof buf - 1 && !strchr(buf, '\n')) {
        struct pollfd p = {out[0], POLLIN, 0};
        if (poll(&p, 1, 5000) <= 0)
            fail_msg("the fake server did not say its port");
        ssize_t r = read(out[0], buf + n, sizeof buf - 1 - n);
        if (r <= 0)
            fail_msg("the fake server ended before saying its port");
        n += (size_t)r;
    }
    close(out[0]);
    f->port = atoi(buf);
    assert_true(f->port > 0);
    free(path);
}

/* A configuration for agent NAME (provider = NAME) aimed at F, with fast retries. */
static void fake_config(const fake *f, const char *name, agent_config *c)
{
    agentcfg_defaults(c, name);
    if (!strcmp(name, "anthropic"))
        snprintf(c->base_url, sizeof c->base_url, "http://127.0.0.1:%d", f->port);
    else
        snprintf(c->base_url, sizeof c->base_url, "http://127.0.0.1:%d/v1", f->port);
    snprintf(c->model, sizeof c->model, "fake-model");
    c->max_tokens = 1000;
    c->retry_base_s = 0.05;
    c->retry_cap_s = 0.2;
    c->stall_timeout_s = 5;
    c->connect_timeout_s = 2;
    c->nprices = 1;
    snprintf(c->prices[0].model, sizeof c->prices[0].model, "fake-model");
    c->prices[0].in_per_mtok = 1000;
    c->prices[0].out_per_mtok = 2000;
}

/* The requests the server logged, as a JSON array. */
static json_t *fake_requests(const fake *f)
{
    json_t *all = json_array();
    size_t len;
    char *text = testutil_read_file(f->log, &len);
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        json_t *o = json_loads(line, 0, NULL);
        assert_non_null(o);
        json_array_append_new(all, o);
    }
    free(text);
    return all;
}

/* Collects progress: text pieces, reasoning and status lines. */
typedef struct seen {
    strbuf text;
    strbuf status;
    int pieces;
    volatile int *cancel_after_first;
} seen;

static void on_progress(void *ctx, const char *kind, const char *text)
{
    seen *s = ctx;
    if (!strcmp(kind, "text")) {
        strbuf_puts(&s->text, text);
        s->pieces++;
        if (s->cancel_after_first)
            *s->cancel_after_first = 1;
    } else if (!strcmp(kind, "status")) {
        strbuf_printf(&s->status, "%s\n", text);
    }
}

static const llm_message user_turn[] = {{"user", "make it faster"}};
static const llm_request request = {"you write kernels", user_turn, 1};

/* Runs one blocking call; returns its status, with R, ERR and S filled. */
static int call(const agent_config *c, llm_result *r, kwb_error *err, seen *s)
{
    strbuf_init(&s->text);
    strbuf_init(&s->status);
    s->pieces = 0;
    s->cancel_after_first = NULL;
    llm_result_init(r);
    return llm_call(c, &request, on_progress, s, NULL, r, err);
}

static void seen_free(seen *s)
{
    strbuf_free(&s->text);
    strbuf_free(&s->status);
}

/* The key appears nowhere in what the caller may store or show. */
static void assert_no_key(const llm_result *r, const kwb_error *err)
{
    assert_null(strstr(r->request.s, KEY));
    assert_null(strstr(r->response.s, KEY));
    assert_null(strstr(r->attempts_log.s, KEY));
    assert_null(strstr(err->msg, KEY));
    char *j = llm_result_json(r);
    assert_null(strstr(j, KEY));
    free(j);
}

static const char *edit = "kernel.c\n"
                          "<<<<<<< SEARCH\n"
                          "#define LANES 4\n"
                          "=======\n"
                          "#define LANES 8\n"
                          ">>>>>>> REPLACE\n";

static void check_good(fake *f, const char *provider, int stream, const char *opts)
{
    char script[1024];
    snprintf(script, sizeof script, "=== text %s\n%s", opts, edit);
    fake_start(f, script);
    agent_config c;
    fake_config(f, provider, &c);
    c.stream = stream;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_string_equal(r.text.s, edit);
    if (stream) {
        assert_string_equal(s.text.s, edit);
        assert_true(s.pieces > 3);
    }
    assert_int_equal(r.failure, LLM_OK);
    assert_int_equal(r.attempts, 1);
    assert_int_equal(r.http_status, 200);
    assert_string_equal(r.model, "fake-model");
    assert_int_equal(r.tokens_in, 11);
    assert_int_equal(r.tokens_out, 7);
    assert_int_equal(r.priced, 1);
    assert_true(r.cost > 0.0249999 && r.cost < 0.0250001); /* 11 * $1000/M + 7 * $2000/M */
    assert_string_equal(r.request_id, "req_fake_1");
    assert_true(r.first_byte_s >= 0 && r.first_byte_s <= r.seconds);
    char *summary = llm_result_json(&r);
    json_t *sj = json_loads(summary, 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(sj, "tokens_in")), 11);
    assert_string_equal(json_string_value(json_object_get(sj, "failure")), "ok");
    assert_true(json_real_value(json_object_get(sj, "cost")) > 0.0249);
    json_decref(sj);
    free(summary);
    assert_non_null(
        strstr(r.response.s, stream ? (strcmp(provider, "openai") ? "message_stop" : "[DONE]") : "fake-model"));
    assert_no_key(&r, &err);

    json_t *reqs = fake_requests(f);
    assert_int_equal(json_array_size(reqs), 1);
    json_t *q = json_array_get(reqs, 0);
    assert_string_equal(json_string_value(json_object_get(q, "key")), "ok");
    json_t *headers = json_object_get(q, "headers");
    json_t *body = json_object_get(q, "body");
    assert_int_equal(json_is_true(json_object_get(body, "stream")), stream);
    assert_string_equal(json_string_value(json_object_get(body, "model")), "fake-model");
    assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 1000);
    json_t *msgs = json_object_get(body, "messages");
    if (!strcmp(provider, "openai")) {
        assert_string_equal(json_string_value(json_object_get(q, "path")), "/v1/chat/completions");
        assert_int_equal(json_array_size(msgs), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 0), "role")), "system");
        assert_null(json_object_get(body, "system"));
    } else {
        assert_string_equal(json_string_value(json_object_get(q, "path")), "/v1/messages");
        assert_string_equal(json_string_value(json_object_get(headers, "anthropic-version")), "2023-06-01");
        assert_string_equal(json_string_value(json_object_get(body, "system")), "you write kernels");
        assert_int_equal(json_array_size(msgs), 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(msgs, 0), "role")), "user");
    }
    /* the request the caller keeps is the one sent */
    json_t *kept = json_loads(r.request.s, 0, NULL);
    assert_true(json_equal(kept, body));
    json_decref(kept);
    json_decref(reqs);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_openai_stream(void **state)
{
    check_good(*state, "openai", 1, "chunk=7 comments crlf");
}

static void test_openai_whole(void **state)
{
    check_good(*state, "openai", 0, "");
}

static void test_anthropic_stream(void **state)
{
    check_good(*state, "anthropic", 1, "chunk=5 comments");
}

static void test_anthropic_whole(void **state)
{
    check_good(*state, "anthropic", 0, "");
}

static void test_openai_reasoning_variant(void **state)
{
    fake *f = *state;
    fake_start(f, "=== text\nok\n");
    agent_config c;
    fake_config(f, "openai", &c);
    c.reasoning = 1;
    c.temperature = 0.7;
    snprintf(c.reasoning_effort, sizeof c.reasoning_effort, "high");
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    assert_int_equal(call(&c, &r, &err, &s), 0);
    json_t *reqs = fake_requests(f);
    json_t *body = json_object_get(json_array_get(reqs, 0), "body");
    assert_int_equal(json_integer_value(json_object_get(body, "max_completion_tokens")), 1000);
    assert_null(json_object_get(body, "max_tokens"));
    assert_null(json_object_get(body, "temperature"));
    assert_string_equal(json_string_value(json_object_get(body, "reasoning_effort")), "high");
    assert_true(json_is_true(json_object_get(json_object_get(body, "stream_options"), "include_usage")));
    json_decref(reqs);
    llm_result_free(&r);
    seen_free(&s);
    /* without the flag: max_tokens and the temperature; stream_usage no: no stream_options
       (servers that reject it), and the counts unknown */
    fake_start(
        f, "=== raw\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\n"
           "data: [DONE]\n\n");
    fake_config(f, "openai", &c);
    c.stream_usage = 0;
    c.temperature = 0.7;
    assert_int_equal(call(&c, &r, &err, &s), 0);
    reqs = fake_requests(f);
    body = json_object_get(json_array_get(reqs, json_array_size(reqs) - 1), "body");
    assert_null(json_object_get(body, "stream_options"));
    assert_int_equal(json_integer_value(json_object_get(body, "max_tokens")), 1000);
    assert_null(json_object_get(body, "max_completion_tokens"));
    assert_true(json_real_value(json_object_get(body, "temperature")) == 0.7);
    assert_int_equal(r.tokens_out, -1);
    json_decref(reqs);
    llm_result_free(&r);
    seen_free(&s);
}

/* A retry case: SCRIPT's first answer fails, the second is good. */
static void check_retry_then_ok(fake *f, const char *provider, const char *script, double min_seconds,
                                const char *status_has)
{
    fake_start(f, script);
    agent_config c;
    fake_config(f, provider, &c);
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    double t0 = proc_now();
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    double took = proc_now() - t0;
    assert_string_equal(r.text.s, "fine\n");
    assert_int_equal(r.attempts, 2);
    if (took < min_seconds)
        fail_msg("retried after %.3f s, before the %.3f s asked for", took, min_seconds);
    if (!strstr(s.status.s, status_has))
        fail_msg("status lines lack '%s':\n%s", status_has, s.status.s);
    json_t *reqs = fake_requests(f);
    assert_int_equal(json_array_size(reqs), 2);
    json_decref(reqs);
    assert_non_null(strstr(r.attempts_log.s, "attempt 1: "));
    assert_non_null(strstr(r.attempts_log.s, "attempt 2: ok"));
    assert_no_key(&r, &err);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_429_retry_after(void **state)
{
    check_retry_then_ok(*state, "openai",
                        "=== status 429 retry_after=1 code=rate_limit_exceeded\nslow down\n"
                        "=== text\nfine\n",
                        1.0, "retry 1/3 in 1.0 s: HTTP 429 requests: slow down");
}

static void test_500_then_ok(void **state)
{
    check_retry_then_ok(*state, "anthropic", "=== status 500\nboom\n=== text\nfine\n", 0.0, "HTTP 500 api_error: boom");
}

static void test_529_then_ok(void **state)
{
    check_retry_then_ok(*state, "anthropic", "=== status 529\nOverloaded\n=== text chunk=2\nfine\n", 0.0,
                        "HTTP 529 overloaded_error: Overloaded");
}

static void test_stream_cut_then_ok(void **state)
{
    check_retry_then_ok(*state, "openai", "=== cut chunk=4 after=2\nthis is cut off here\n=== text\nfine\n", 0.0,
                        "the stream ended before its end marker ([DONE]) after 8 bytes of text");
}

static void test_mid_stream_overloaded_then_ok(void **state)
{
    check_retry_then_ok(*state, "anthropic", "=== error after=1\npartial\n=== text\nfine\n", 0.0,
                        "error event in the stream: overloaded_error: scripted mid-stream error");
}

/* A failure case: the call fails with FAILURE after ATTEMPTS requests, its message holding WANT. */
static void check_fails(fake *f, const char *provider, int stream, const char *script, llm_failure failure,
                        int attempts, const char *want)
{
    fake_start(f, script);
    agent_config c;
    fake_config(f, provider, &c);
    c.stream = stream;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    assert_int_equal(call(&c, &r, &err, &s), -1);
    if (r.failure != failure)
        fail_msg("failure %s, expected %s (%s)", llm_failure_name(r.failure), llm_failure_name(failure), err.msg);
    assert_int_equal(r.attempts, attempts);
    if (!strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
    json_t *reqs = fake_requests(f);
    assert_int_equal(json_array_size(reqs), attempts);
    json_decref(reqs);
    assert_no_key(&r, &err);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_400_no_retry(void **state)
{
    check_fails(*state, "openai", 1, "=== status 400\nmessages: too long\n=== text\nnever\n", LLM_FAIL_HTTP, 1,
                "openai (fake-model): HTTP 400 invalid_request_error: messages: too long");
}

static void test_401_no_retry(void **state)
{
    check_fails(*state, "anthropic", 1, "=== status 401\ninvalid x-api-key\n=== text\nnever\n", LLM_FAIL_HTTP, 1,
                "HTTP 401 authentication_error: invalid x-api-key");
}

static void test_quota_no_retry(void **state)
{
    check_fails(*state, "openai", 1,
                "=== status 429 type=insufficient_quota code=insufficient_quota\nYou exceeded your quota\n"
                "=== text\nnever\n",
                LLM_FAIL_QUOTA, 1, "HTTP 429 insufficient_quota: You exceeded your quota");
}

static void test_stream_cut_twice(void **state)
{
    check_fails(*state, "anthropic", 1, "=== cut\nsome text that is cut\n=== cut\nand cut again\n=== text\nnever\n",
                LLM_FAIL_STREAM_CUT, 2, "the stream ended before its end marker (message_stop)");
}

static void test_mid_stream_error_openai(void **state)
{
    check_fails(*state, "openai", 1, "=== error type=invalid_request_error after=2 chunk=3\nabcdefgh\n",
                LLM_FAIL_STREAM_ERROR, 1,
                "error event in the stream: invalid_request_error: scripted mid-stream error");
}

static void test_mid_stream_error_anthropic(void **state)
{
    check_fails(*state, "anthropic", 1, "=== error type=invalid_request_error\nabc\n", LLM_FAIL_STREAM_ERROR, 1,
                "error event in the stream: invalid_request_error");
}

static void test_length_no_content(void **state)
{
    check_fails(*state, "openai", 1, "=== length out=1000\n", LLM_FAIL_LENGTH, 1,
                "truncated at the output cap (1000 tokens) with no visible text (1000 output tokens)");
}

static void test_length_no_content_anthropic(void **state)
{
    check_fails(*state, "anthropic", 0, "=== length out=1000\n", LLM_FAIL_LENGTH, 1,
                "truncated at the output cap (1000 tokens) with no visible text");
}

static void test_retry_after_over_cap(void **state)
{
    check_fails(*state, "openai", 1, "=== status 429 retry_after=100\nwait\n=== text\nnever\n", LLM_FAIL_HTTP, 1,
                "asks to wait 100 s, over agent.retry_after_cap 60 s");
}

static void test_retry_after_http_date(void **state)
{
    /* an HTTP date two seconds ahead, at whole-second resolution: at least one second */
    check_retry_then_ok(*state, "anthropic", "=== status 429 retry_after_date=2\nlater\n=== text\nfine\n", 1.0,
                        "HTTP 429 rate_limit_error: later");
}

static void test_should_retry_header(void **state)
{
    /* x-should-retry: true makes a 400 retried */
    check_retry_then_ok(*state, "openai", "=== status 400 should_retry=true\nflaky\n=== text\nfine\n", 0.0,
                        "HTTP 400 invalid_request_error: flaky");
}

static void test_should_retry_false(void **state)
{
    check_fails(*state, "openai", 1, "=== status 500 should_retry=false\nno\n=== text\nnever\n", LLM_FAIL_HTTP, 1,
                "HTTP 500 server_error: no");
}

static void test_key_echoed_is_redacted(void **state)
{
    check_fails(*state, "openai", 1, "=== status 401 echo_key\nIncorrect API key provided\n", LLM_FAIL_HTTP, 1,
                "HTTP 401 authentication_error: Incorrect API key provided key: [REDACTED]");
}

/* Reasoning kept apart; Anthropic text blocks joined around a block of unknown type. */
static void check_thinking(fake *f, const char *provider, int stream)
{
    fake_start(f, "=== text thinking chunk=6\nthe first half, and the second half\n");
    agent_config c;
    fake_config(f, provider, &c);
    c.stream = stream;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_string_equal(r.text.s, "the first half, and the second half\n");
    assert_string_equal(r.reasoning.s, "thinking about it");
    if (stream)
        assert_string_equal(s.text.s, r.text.s);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_thinking_and_blocks(void **state)
{
    fake *f = *state;
    check_thinking(f, "anthropic", 1);
    check_thinking(f, "anthropic", 0);
    check_thinking(f, "openai", 1);
    check_thinking(f, "openai", 0);
}

static void test_large_reply(void **state)
{
    /* about 1 MB of text in 4 KiB pieces, each a separate event */
    fake *f = *state;
    strbuf script;
    strbuf_init(&script);
    strbuf_puts(&script, "=== text chunk=4096\n");
    size_t start = script.len;
    for (int i = 0; i < 16384; i++)
        strbuf_printf(&script, "line %05d of a long kernel file, with some text: x = a * b + c;\n", i);
    fake_start(f, script.s);
    agent_config c;
    fake_config(f, "anthropic", &c);
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_int_equal(r.text.len, script.len - start);
    assert_memory_equal(r.text.s, script.s + start, r.text.len);
    assert_int_equal(s.text.len, r.text.len);
    llm_result_free(&r);
    seen_free(&s);
    strbuf_free(&script);
}

static void test_html_502_then_ok(void **state)
{
    check_retry_then_ok(*state, "openai",
                        "=== raw status=502 ctype=text/html\n<html><body>Bad gateway</body></html>\n"
                        "=== text\nfine\n",
                        0.0, "HTTP 502 <html><body>Bad gateway</body></html>");
}

static void test_garbage_stream(void **state)
{
    check_fails(*state, "openai", 1, "=== raw\ndata: this is not json\n\ndata: [DONE]\n\n", LLM_FAIL_BAD_REPLY, 1,
                "a stream chunk is not JSON");
}

static void test_unknown_events_ignored(void **state)
{
    /* hand-written: unknown events, block and delta types, a ping, usage in message_delta */
    fake *f = *state;
    fake_start(
        f,
        "=== raw\n"
        "event: message_start\n"
        "data: {\"type\":\"message_start\",\"message\":{\"model\":\"m-1\",\"usage\":{\"input_tokens\":5}}}\n\n"
        "event: future_event\ndata: {\"type\":\"future_event\"}\n\n"
        "event: ping\ndata: {\"type\":\"ping\"}\n\n"
        "event: content_block_start\n"
        "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"A\"}}\n\n"
        "event: content_block_delta\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"future_delta\",\"x\":1}}\n\n"
        "event: content_block_delta\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"B\"}}\n\n"
        "event: message_delta\n"
        "data: "
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"pause_turn\"},\"usage\":{\"output_tokens\":3}}\n\n"
        "event: message_delta\n"
        "data: "
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":9}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    agent_config c;
    fake_config(f, "anthropic", &c);
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_string_equal(r.text.s, "AB");
    assert_string_equal(r.model, "m-1");
    assert_string_equal(r.stop_reason, "end_turn");
    assert_int_equal(r.tokens_in, 5);
    assert_int_equal(r.tokens_out, 9); /* cumulative: the last value, not the sum */
    assert_int_equal(r.priced, 1);     /* priced by the configured model's name */
    llm_result_free(&r);
    seen_free(&s);
}

/* Not streamed: an error object in a 200 body, then a body cut short, each retried. */
static void test_whole_reply_error_and_cut(void **state)
{
    fake *f = *state;
    fake_start(f, "=== error type=overloaded_error\n=== cut\nsome text that is cut\n=== text\nfine\n");
    agent_config c;
    fake_config(f, "openai", &c);
    c.stream = 0;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_string_equal(r.text.s, "fine\n");
    assert_int_equal(r.attempts, 3);
    assert_non_null(strstr(s.status.s, "retry 1/3 in"));
    assert_non_null(strstr(s.status.s, "error in the reply: overloaded_error: scripted error in the reply"));
    assert_non_null(strstr(s.status.s, "retry 2/3 in"));
    assert_non_null(strstr(s.status.s, "the reply was cut off"));
    llm_result_free(&r);
    seen_free(&s);
}

static void test_length_with_text_is_an_answer(void **state)
{
    /* stopped at the cap after some visible text: an answer (the caller sees stop_reason) */
    fake *f = *state;
    fake_start(f, "=== raw\n"
                  "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial\"},\"finish_reason\":null}]}\n\n"
                  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}]}\n\n"
                  "data: [DONE]\n\n");
    agent_config c;
    fake_config(f, "openai", &c);
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    assert_int_equal(call(&c, &r, &err, &s), 0);
    assert_string_equal(r.text.s, "partial");
    assert_string_equal(r.stop_reason, "length");
    assert_int_equal(r.tokens_in, -1); /* no usage chunk: unknown, not 0 */
    char *summary = llm_result_json(&r);
    assert_non_null(strstr(summary, "\"tokens_in\":null"));
    free(summary);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_gives_up_after_retries(void **state)
{
    check_fails(*state, "openai", 0, "=== status 503\nx\n=== status 503\nx\n=== status 503\nx\n=== status 503\nx\n",
                LLM_FAIL_HTTP, 4, "HTTP 503 server_error: x (gave up after 4 attempts)");
}

static void test_cancel_slow_stream(void **state)
{
    fake *f = *state;
    /* 40 pieces, 200 ms apart: 8 s in all */
    fake_start(f, "=== text chunk=1 delay_ms=200\n0123456789012345678901234567890123456789\n"
                  "=== text chunk=1 delay_ms=200\n0123456789012345678901234567890123456789\n");
    agent_config c;
    fake_config(f, "openai", &c);
    seen s;
    strbuf_init(&s.text);
    strbuf_init(&s.status);
    s.pieces = 0;
    s.cancel_after_first = NULL;
    kwb_error err = {{0}};
    llm_job *j = llm_start(&c, &request, on_progress, &s, &err);
    assert_non_null(j);
    double t0 = proc_now();
    while (s.pieces < 2) {
        assert_int_equal(llm_poll(j, 50), 0);
        assert_true(proc_now() - t0 < 5);
    }
    double t1 = proc_now();
    llm_cancel(j);
    assert_int_equal(llm_poll(j, 1000), 1);
    llm_result r;
    llm_result_init(&r);
    assert_int_equal(llm_finish(j, &r, &err), -1);
    double took = proc_now() - t1;
    if (took > 0.1)
        fail_msg("cancel took %.3f s", took);
    assert_int_equal(r.failure, LLM_FAIL_CANCELLED);
    assert_non_null(strstr(err.msg, "cancelled"));
    llm_result_free(&r);

    /* the blocking call with a cancel flag set from the progress callback */
    strbuf_free(&s.text);
    strbuf_init(&s.text);
    volatile int cancel = 0;
    s.cancel_after_first = &cancel;
    llm_result_init(&r);
    t0 = proc_now();
    assert_int_equal(llm_call(&c, &request, on_progress, &s, &cancel, &r, &err), -1);
    assert_int_equal(r.failure, LLM_FAIL_CANCELLED);
    if (proc_now() - t0 > 1.5)
        fail_msg("the cancelled call took %.3f s", proc_now() - t0);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_cancel_silent_frees_server(void **state)
{
    /* a call cancelled while the server holds it silent: the next call is answered at once */
    fake *f = *state;
    fake_start(f, "=== silent ms=20000\n=== text\nfine\n");
    agent_config c;
    fake_config(f, "anthropic", &c);
    kwb_error err = {{0}};
    llm_job *j = llm_start(&c, &request, NULL, NULL, &err);
    assert_non_null(j);
    double t0 = proc_now();
    while (proc_now() - t0 < 0.3)
        assert_int_equal(llm_poll(j, 50), 0);
    llm_cancel(j);
    llm_result r;
    llm_result_init(&r);
    assert_int_equal(llm_finish(j, &r, &err), -1);
    llm_result_free(&r);
    seen s;
    t0 = proc_now();
    if (call(&c, &r, &err, &s) != 0)
        fail_msg("call failed: %s", err.msg);
    assert_string_equal(r.text.s, "fine\n");
    if (proc_now() - t0 > 3.0)
        fail_msg("the next call waited %.1f s for the server", proc_now() - t0);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_stall(void **state)
{
    fake *f = *state;
    fake_start(f, "=== silent ms=5000\n=== silent ms=5000\n");
    agent_config c;
    fake_config(f, "anthropic", &c);
    c.stall_timeout_s = 0.4;
    c.max_retries = 0;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    double t0 = proc_now();
    assert_int_equal(call(&c, &r, &err, &s), -1);
    double took = proc_now() - t0;
    assert_int_equal(r.failure, LLM_FAIL_STALL);
    assert_non_null(strstr(err.msg, "for 0.4 s (agent.stall_timeout)"));
    if (took < 0.4 || took > 3.0)
        fail_msg("stall detected after %.3f s (limit 0.4 s)", took);
    llm_result_free(&r);
    seen_free(&s);
}

static void test_connect_refused(void **state)
{
    fake *f = *state;
    fake_start(f, "");
    agent_config c;
    fake_config(f, "openai", &c);
    /* the fake's port, after it has gone */
    close(f->stdin_fd);
    f->stdin_fd = -1;
    assert_int_equal(proc_wait(f->pid, 5, NULL), 0);
    f->pid = -1;
    c.max_retries = 1;
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    assert_int_equal(call(&c, &r, &err, &s), -1);
    assert_int_equal(r.failure, LLM_FAIL_CONNECT);
    assert_int_equal(r.attempts, 2);
    assert_non_null(strstr(err.msg, "cannot reach http://127.0.0.1:"));
    llm_result_free(&r);
    seen_free(&s);
}

static void test_no_key_for_official_host(void **state)
{
    unsetenv("OPENAI_API_KEY");
    agent_config c;
    agentcfg_defaults(&c, "openai");
    snprintf(c.model, sizeof c.model, "gpt-x");
    llm_result r;
    llm_result_init(&r);
    kwb_error err = {{0}};
    assert_int_equal(llm_call(&c, &request, NULL, NULL, NULL, &r, &err), -1);
    assert_int_equal(r.failure, LLM_FAIL_CONFIG);
    assert_non_null(strstr(err.msg, "no API key: set OPENAI_API_KEY"));
    llm_result_free(&r);
    /* not an HTTP provider; no message */
    setenv("OPENAI_API_KEY", KEY, 1);
    snprintf(c.provider, sizeof c.provider, "command");
    assert_null(llm_start(&c, &request, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "agent openai: provider 'command' is not an HTTP model provider"));
    snprintf(c.provider, sizeof c.provider, "openai");
    llm_request empty = {NULL, NULL, 0};
    assert_null(llm_start(&c, &empty, NULL, NULL, &err));
    assert_non_null(strstr(err.msg, "needs at least one message"));
}

static void test_wrong_key_refused(void **state)
{
    fake *f = *state;
    fake_start(f, "=== text\nnever\n");
    agent_config c;
    fake_config(f, "openai", &c);
    setenv("OPENAI_API_KEY", "sk-not-the-right-key-000", 1);
    llm_result r;
    kwb_error err = {{0}};
    seen s;
    assert_int_equal(call(&c, &r, &err, &s), -1);
    assert_int_equal(r.attempts, 1);
    assert_non_null(strstr(err.msg, "HTTP 401 authentication_error"));
    assert_null(strstr(err.msg, "sk-not-the-right-key-000"));
    json_t *reqs = fake_requests(f);
    assert_string_equal(json_string_value(json_object_get(json_array_get(reqs, 0), "key")), "wrong");
    json_decref(reqs);
    llm_result_free(&r);
    seen_free(&s);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_openai_stream),
        T(test_openai_whole),
        T(test_anthropic_stream),
        T(test_anthropic_whole),
        T(test_openai_reasoning_variant),
        T(test_429_retry_after),
        T(test_500_then_ok),
        T(test_529_then_ok),
        T(test_stream_cut_then_ok),
        T(test_mid_stream_overloaded_then_ok),
        T(test_400_no_retry),
        T(test_401_no_retry),
        T(test_quota_no_retry),
        T(test_stream_cut_twice),
        T(test_mid_stream_error_openai),
        T(test_mid_stream_error_anthropic),
        T(test_length_no_content),
        T(test_length_no_content_anthropic),
        T(test_retry_after_over_cap),
        T(test_gives_up_after_retries),
        T(test_whole_reply_error_and_cut),
        T(test_length_with_text_is_an_answer),
        T(test_html_502_then_ok),
        T(test_garbage_stream),
        T(test_unknown_events_ignored),
        T(test_large_reply),
        T(test_retry_after_http_date),
        T(test_should_retry_header),
        T(test_should_retry_false),
        T(test_key_echoed_is_redacted),
        T(test_thinking_and_blocks),
        T(test_cancel_slow_stream),
        T(test_cancel_silent_frees_server),
        T(test_stall),
        T(test_connect_refused),
        T(test_no_key_for_official_host),
        T(test_wrong_key_refused),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}

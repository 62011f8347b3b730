/* llm.c - one model call as a small state machine on a curl multi handle: an attempt runs, its
 * end is classified (answer, retryable failure, final failure), and a retry waits its backoff
 * without blocking the caller's event loop. */
#include "llm.h"

#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llm_http.h"
#include "llm_proto.h"
#include "llm_sse.h"
#include "proc.h"
#include "secrets.h"
#include "xalloc.h"

enum job_state { JOB_RUNNING, JOB_WAITING, JOB_DONE };

/* Raw event-stream bytes kept for the transcript (the reply's text is kept whole, up to the cap). */
#define LLM_STREAM_KEEP (256u << 10)

struct llm_job {
    agent_config cfg; /* a copy of the plain settings (extra keys not kept) */
    const llm_protocol *proto;
    char key[512];
    char *url;
    char *headers[9];
    strbuf body; /* the request body */
    CURLM *multi;
    http_attempt att;
    int att_live;
    llm_parse parse;
    sse_parser sse;
    int sse_live;
    int streamed; /* the current attempt's reply is an event stream */
    enum job_state state;
    double t0, wait_until;
    int attempts, cuts;
    llm_failure failure;
    char message[1536];
    strbuf attempts_log;
    strbuf last_response;
    int last_status;
    double last_first_byte;
    char last_request_id[128];
    llm_progress_fn progress;
    void *progress_ctx;
};

/* ---- shared parsing helpers (llm_proto.h) ---------------------------------------------- */

void llm_json_copy(char *dst, size_t cap, json_t *obj, const char *name)
{
    const char *s = json_string_value(json_object_get(obj, name));
    if (s)
        snprintf(dst, cap, "%s", s);
}

void llm_json_long(long *out, json_t *obj, const char *name)
{
    json_t *v = json_object_get(obj, name);
    if (json_is_integer(v))
        *out = (long)json_integer_value(v);
}

int llm_parse_error_json(llm_parse *p, json_t *root)
{
    json_t *e = json_object_get(root, "error");
    if (!e)
        return 0;
    if (json_is_string(e)) {
        snprintf(p->error_message, sizeof p->error_message, "%s", json_string_value(e));
        return 1;
    }
    if (!json_is_object(e))
        return 0;
    llm_json_copy(p->error_type, sizeof p->error_type, e, "type");
    llm_json_copy(p->error_message, sizeof p->error_message, e, "message");
    json_t *code = json_object_get(e, "code");
    if (json_is_string(code))
        snprintf(p->error_code, sizeof p->error_code, "%s", json_string_value(code));
    else if (json_is_integer(code))
        snprintf(p->error_code, sizeof p->error_code, "%lld", (long long)json_integer_value(code));
    llm_json_copy(p->error_code, sizeof p->error_code, json_object_get(e, "details"), "error_code");
    return 1;
}

void llm_parse_add_text(llm_parse *p, const char *piece, int reasoning)
{
    if (!piece || !*piece)
        return;
    strbuf_puts(reasoning ? &p->reasoning : &p->text, piece);
    if (p->progress)
        p->progress(p->progress_ctx, reasoning ? "reasoning" : "text", piece);
}

static void parse_init(llm_parse *p, llm_progress_fn progress, void *ctx)
{
    memset(p, 0, sizeof *p);
    strbuf_init(&p->text);
    strbuf_init(&p->reasoning);
    p->tokens_in = p->tokens_out = -1;
    p->progress = progress;
    p->progress_ctx = ctx;
}

static void parse_free(llm_parse *p)
{
    strbuf_free(&p->text);
    strbuf_free(&p->reasoning);
}

/* ---- results ------------------------------------------------------------------------- */

void llm_result_init(llm_result *r)
{
    memset(r, 0, sizeof *r);
    strbuf_init(&r->text);
    strbuf_init(&r->reasoning);
    strbuf_init(&r->request);
    strbuf_init(&r->response);
    strbuf_init(&r->attempts_log);
    r->tokens_in = r->tokens_out = -1;
    r->first_byte_s = -1;
}

void llm_result_free(llm_result *r)
{
    strbuf_free(&r->text);
    strbuf_free(&r->reasoning);
    strbuf_free(&r->request);
    strbuf_free(&r->response);
    strbuf_free(&r->attempts_log);
}

const char *llm_failure_name(llm_failure f)
{
    static const char *names[] = {"ok",         "config",       "connect", "http",      "quota",    "stall",
                                  "stream-cut", "stream-error", "length",  "bad-reply", "cancelled"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "unknown";
}

char *llm_result_json(const llm_result *r)
{
    json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:f, s:b, s:f, s:i, s:i, s:s, s:s, s:s}", "provider", r->provider,
                          "model", r->model, "tokens_in", (json_int_t)r->tokens_in, "tokens_out",
                          (json_int_t)r->tokens_out, "cost", r->cost, "priced", r->priced, "seconds", r->seconds,
                          "attempts", r->attempts, "http_status", r->http_status, "stop_reason", r->stop_reason,
                          "request_id", r->request_id, "failure", llm_failure_name(r->failure));
    json_object_set_new(o, "first_byte_s", r->first_byte_s >= 0 ? json_real(r->first_byte_s) : json_null());
    if (r->tokens_in < 0)
        json_object_set_new(o, "tokens_in", json_null());
    if (r->tokens_out < 0)
        json_object_set_new(o, "tokens_out", json_null());
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    char *copy = xstrdup(s);
    free(s);
    return copy;
}

/* ---- costs and budgets ------------------------------------------------------------------ */

double llm_cost(const agent_config *cfg, const char *model, long tokens_in, long tokens_out, int *priced)
{
    const agent_price *p = agentcfg_price(cfg, model);
    if (priced)
        *priced = p != NULL;
    if (!p)
        return 0.0;
    double in = tokens_in > 0 ? (double)tokens_in : 0, out = tokens_out > 0 ? (double)tokens_out : 0;
    return (in * p->in_per_mtok + out * p->out_per_mtok) / 1e6;
}

int llm_budget_exceeded(double spent, double budget)
{
    return budget > 0 && spent >= budget;
}

int llm_session_budget_check(const agent_config *cfg, double spent_usd, long spent_tokens, kwb_error *err)
{
    if (llm_budget_exceeded(spent_usd, cfg->budget_usd)) {
        kwb_error_set(err, "budget reached: $%.4f spent of $%.2f (agent.budget_usd)", spent_usd, cfg->budget_usd);
        return 1;
    }
    if (cfg->budget_tokens > 0 && spent_tokens >= cfg->budget_tokens) {
        kwb_error_set(err, "budget reached: %ld tokens of %ld (agent.budget_tokens)", spent_tokens, cfg->budget_tokens);
        return 1;
    }
    return 0;
}

/* ---- attempts ----------------------------------------------------------------------------- */

static void job_status(llm_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_status(llm_job *j, const char *fmt, ...)
{
    char line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    char *clean = secrets_redact(line);
    if (j->progress)
        j->progress(j->progress_ctx, "status", clean);
    free(clean);
}

static void on_sse_event(void *ctx, const char *event, const char *data, size_t len)
{
    llm_job *j = ctx;
    j->proto->stream_event(&j->parse, event, data, len);
}

static void on_body(void *ctx, const char *p, size_t n)
{
    llm_job *j = ctx;
    long st = j->att.status;
    if (!j->sse_live && st >= 200 && st < 300 && strstr(j->att.content_type, "text/event-stream")) {
        sse_init(&j->sse, on_sse_event, j);
        j->sse_live = 1;
        j->streamed = 1;
        j->att.keep_body = LLM_STREAM_KEEP; /* the text is kept by the parser; the raw events only in part */
    }
    if (j->sse_live)
        sse_feed(&j->sse, p, n);
}

static void attempt_end(llm_job *j)
{
    if (j->sse_live)
        sse_free(&j->sse);
    j->sse_live = 0;
    if (j->att_live)
        http_attempt_free(&j->att);
    j->att_live = 0;
}

static int attempt_begin(llm_job *j, kwb_error *err)
{
    parse_free(&j->parse);
    parse_init(&j->parse, j->progress, j->progress_ctx);
    j->streamed = 0;
    j->attempts++;
    if (http_attempt_start(&j->att, j->multi, j->url, (const char *const *)j->headers, j->body.s, j->body.len,
                           j->cfg.connect_timeout_s, on_body, j, err) < 0)
        return -1;
    j->att.max_body = j->cfg.max_reply_bytes > 0 ? (size_t)j->cfg.max_reply_bytes : 0;
    j->att_live = 1;
    j->state = JOB_RUNNING;
    return 0;
}

static int status_retryable(long st)
{
    return st == 408 || st == 409 || st == 429 || st >= 500;
}

static int error_type_retryable(const llm_parse *p)
{
    static const char *types[] = {"overloaded_error", "api_error", "rate_limit_error", "server_error", "timeout_error"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(p->error_type, types[i]))
            return 1;
    long code = strtol(p->error_code, NULL, 10);
    return code && status_retryable(code);
}

static int quota_exhausted(const llm_parse *p, long st)
{
    return !strcmp(p->error_code, "insufficient_quota") || !strcmp(p->error_type, "insufficient_quota") ||
           !strcmp(p->error_code, "enforced_spend_limit_reached") || !strcmp(p->error_type, "billing_error") ||
           st == 402;
}

/* "rate_limit_error: Rate limit reached" from the parsed error, or a cut of the raw body. */
static void describe_error(const llm_parse *p, const strbuf *raw, char *buf, size_t cap)
{
    if (p->error_message[0] || p->error_type[0]) {
        const char *t = p->error_type[0] ? p->error_type : p->error_code;
        snprintf(buf, cap, "%s%s%s", t, *t ? ": " : "", p->error_message);
        return;
    }
    size_t n = raw->len < 200 ? raw->len : 200;
    snprintf(buf, cap, "%.*s%s", (int)n, raw->s, raw->len > n ? "..." : "");
    for (char *c = buf; *c; c++)
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

/* Non-2xx: parse the body as a provider error. */
static void parse_error_body(llm_job *j)
{
    json_t *root = json_loads(j->att.body.s, 0, NULL);
    if (root)
        llm_parse_error_json(&j->parse, root);
    json_decref(root);
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\n' && *s != '\t' && *s != '\r')
            return 0;
    return 1;
}

/* Classifies the attempt that just ended into j->failure and j->message; returns 1 when a retry
 * is allowed by its kind (the attempt count is checked by the caller). */
static int attempt_classify(llm_job *j)
{
    http_attempt *a = &j->att;
    llm_parse *p = &j->parse;
    char what[800];
    long st = a->status;
    int retry = 0;
    j->failure = LLM_OK;
    j->message[0] = '\0';
    if (a->too_large) { /* only a head of the text is kept, for the transcript */
        if (p->text.len > LLM_STREAM_KEEP)
            p->text.s[p->text.len = LLM_STREAM_KEEP] = '\0';
        j->failure = LLM_FAIL_BAD_REPLY;
        snprintf(j->message, sizeof j->message, "the reply is longer than %ld bytes (agent.max_reply_bytes); stopped",
                 j->cfg.max_reply_bytes);
        return 0;
    }
    if (a->stalled) {
        j->failure = LLM_FAIL_STALL;
        snprintf(j->message, sizeof j->message, "no data from %s for %g s (agent.stall_timeout)", j->url,
                 j->cfg.stall_timeout_s);
        return 1;
    }
    if (st == 0 || (a->result != CURLE_OK && (st < 200 || st >= 300) && a->body.len == 0)) {
        j->failure = LLM_FAIL_CONNECT;
        snprintf(j->message, sizeof j->message, "cannot reach %s: %s", j->url,
                 a->curl_error[0] ? a->curl_error : curl_easy_strerror(a->result));
        return 1;
    }
    if (st < 200 || st >= 300) {
        parse_error_body(j);
        describe_error(p, &a->body, what, sizeof what);
        j->failure = quota_exhausted(p, st) ? LLM_FAIL_QUOTA : LLM_FAIL_HTTP;
        snprintf(j->message, sizeof j->message, "HTTP %ld %s", st, what);
        retry = j->failure == LLM_FAIL_HTTP && status_retryable(st);
        if (a->should_retry >= 0 && j->failure == LLM_FAIL_HTTP)
            retry = a->should_retry;
        return retry;
    }
    if (!j->streamed) {
        int parsed = j->proto->parse_reply(p, a->body.s);
        if (parsed < 0 && p->stream_error) {
            describe_error(p, &a->body, what, sizeof what);
            j->failure = quota_exhausted(p, 0) ? LLM_FAIL_QUOTA : LLM_FAIL_STREAM_ERROR;
            snprintf(j->message, sizeof j->message, "error in the reply: %s", what);
            return j->failure == LLM_FAIL_STREAM_ERROR && error_type_retryable(p);
        }
        if (parsed < 0 || a->result != CURLE_OK) {
            j->failure = a->result != CURLE_OK ? LLM_FAIL_STREAM_CUT : LLM_FAIL_BAD_REPLY;
            snprintf(j->message, sizeof j->message, "%s",
                     a->result != CURLE_OK ? "the reply was cut off" : p->bad_message);
            return a->result != CURLE_OK && j->cuts++ == 0;
        }
    } else if (p->stream_error) {
        describe_error(p, &a->body, what, sizeof what);
        j->failure = quota_exhausted(p, 0) ? LLM_FAIL_QUOTA : LLM_FAIL_STREAM_ERROR;
        snprintf(j->message, sizeof j->message, "error event in the stream: %s", what);
        return j->failure == LLM_FAIL_STREAM_ERROR && error_type_retryable(p);
    } else if (p->bad) {
        j->failure = LLM_FAIL_BAD_REPLY;
        snprintf(j->message, sizeof j->message, "%s", p->bad_message);
        return 0;
    } else if (!p->ended) {
        j->failure = LLM_FAIL_STREAM_CUT;
        snprintf(j->message, sizeof j->message,
                 "the stream ended before its end marker (%s) after %zu bytes of text%s%s",
                 j->proto == &llm_openai_protocol ? "[DONE]" : "message_stop", p->text.len,
                 a->result != CURLE_OK ? ": " : "", a->result != CURLE_OK ? curl_easy_strerror(a->result) : "");
        return j->cuts++ == 0;
    }
    if ((!strcmp(p->stop_reason, "length") || !strcmp(p->stop_reason, "max_tokens")) && blank(p->text.s)) {
        j->failure = LLM_FAIL_LENGTH;
        char used[64] = "output tokens unknown";
        if (p->tokens_out >= 0)
            snprintf(used, sizeof used, "%ld output tokens", p->tokens_out);
        snprintf(j->message, sizeof j->message,
                 "truncated at the output cap (%d tokens) with no visible text (%s%s); raise agent.%s.max_tokens",
                 j->cfg.max_tokens, used, p->reasoning.len ? ", reasoning only" : "", j->cfg.name);
    }
    return 0;
}

/* A number in [0, 1) from a small generator seeded per process (clients started together should
 * not retry in step). */
static double jitter_unit(void)
{
    static uint64_t state;
    if (!state)
        state = ((uint64_t)getpid() << 32) ^ (uint64_t)(proc_now() * 1e9) ^ 0x9E3779B97F4A7C15ull;
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

/* Seconds to wait before the next attempt, or -1 when the server asks for more than the cap. */
static double retry_delay(llm_job *j)
{
    double ra = j->att.retry_after_s;
    if (ra >= 0)
        return ra <= j->cfg.retry_after_cap_s ? ra : -1;
    double d = j->cfg.retry_base_s * pow(2.0, j->attempts - 1);
    if (d > j->cfg.retry_cap_s)
        d = j->cfg.retry_cap_s;
    return d * (1.0 - 0.25 * jitter_unit());
}

static void job_done(llm_job *j)
{
    strbuf_free(&j->last_response);
    strbuf_init(&j->last_response);
    strbuf_add(&j->last_response, j->att.body.s, j->att.body.len);
    j->last_status = (int)j->att.status;
    j->last_first_byte = j->att.first_body > 0 ? j->att.first_body - j->att.started : -1;
    snprintf(j->last_request_id, sizeof j->last_request_id, "%s", j->att.request_id);
}

/* The attempt ended: answer, retry later, or give up. */
static void attempt_finished(llm_job *j)
{
    int retry = attempt_classify(j);
    job_done(j);
    strbuf_printf(&j->attempts_log, "attempt %d: %s", j->attempts, j->failure == LLM_OK ? "ok" : j->message);
    if (j->att.request_id[0])
        strbuf_printf(&j->attempts_log, " (request %s)", j->att.request_id);
    double ra = j->att.retry_after_s;
    attempt_end(j);
    if (j->failure == LLM_OK || !retry || j->attempts > j->cfg.max_retries) {
        if (j->failure != LLM_OK && retry)
            snprintf(j->message + strlen(j->message), sizeof j->message - strlen(j->message),
                     " (gave up after %d attempts)", j->attempts);
        strbuf_puts(&j->attempts_log, "\n");
        j->state = JOB_DONE;
        return;
    }
    j->att.retry_after_s = ra;
    double delay = retry_delay(j);
    if (delay < 0) {
        snprintf(j->message + strlen(j->message), sizeof j->message - strlen(j->message),
                 " (the server asks to wait %.0f s, over agent.retry_after_cap %.0f s)", ra, j->cfg.retry_after_cap_s);
        strbuf_puts(&j->attempts_log, "; retry-after over the cap\n");
        j->state = JOB_DONE;
        return;
    }
    strbuf_printf(&j->attempts_log, "; retry in %.2f s\n", delay);
    job_status(j, "retry %d/%d in %.1f s: %s", j->attempts, j->cfg.max_retries, delay, j->message);
    j->wait_until = proc_now() + delay;
    j->state = JOB_WAITING;
}

/* ---- the public calls ------------------------------------------------------------------- */

static int official_host(const char *url)
{
    return strstr(url, "://api.openai.com") || strstr(url, "://api.anthropic.com");
}

llm_job *llm_start(const agent_config *cfg, const llm_request *req, llm_progress_fn progress, void *progress_ctx,
                   kwb_error *err)
{
    const llm_protocol *proto = !strcmp(cfg->provider, "openai")      ? &llm_openai_protocol
                                : !strcmp(cfg->provider, "anthropic") ? &llm_anthropic_protocol
                                                                      : NULL;
    if (!proto) {
        kwb_error_set(err, "agent %s: provider '%s' is not an HTTP model provider", cfg->name, cfg->provider);
        return NULL;
    }
    if (!cfg->model[0] && proto == &llm_anthropic_protocol) {
        kwb_error_set(err, "agent %s: no model configured (set agent.%s.model)", cfg->name, cfg->name);
        return NULL;
    }
    if (req->nmessages < 1) {
        kwb_error_set(err, "agent %s: a request needs at least one message", cfg->name);
        return NULL;
    }
    llm_job *j = xcalloc(1, sizeof *j);
    j->cfg = *cfg;
    j->cfg.extra = NULL;
    j->cfg.nextra = 0;
    j->proto = proto;
    int found = secrets_api_key(cfg, j->key, sizeof j->key, err);
    if (found < 0 || (found == 0 && official_host(cfg->base_url))) {
        if (found == 0)
            kwb_error_set(err, "agent %s: no API key: set %s in the environment (or agent.%s.api_key_env)", cfg->name,
                          cfg->api_key_env[0] ? cfg->api_key_env : "the key variable", cfg->name);
        free(j);
        return NULL;
    }
    j->url = proto->url(cfg);
    proto->headers(cfg, j->key, j->headers);
    strbuf_init(&j->body);
    proto->build_body(cfg, req, &j->body);
    strbuf_init(&j->attempts_log);
    strbuf_init(&j->last_response);
    parse_init(&j->parse, progress, progress_ctx);
    j->progress = progress;
    j->progress_ctx = progress_ctx;
    j->multi = curl_multi_init();
    j->t0 = proc_now();
    if (!j->multi || attempt_begin(j, err) < 0) {
        if (!j->multi)
            kwb_error_set(err, "libcurl: cannot make a multi handle");
        j->state = JOB_DONE;
        llm_result r;
        llm_result_init(&r);
        kwb_error ignored;
        llm_finish(j, &r, &ignored);
        llm_result_free(&r);
        return NULL;
    }
    return j;
}

/* Ends J when its call has taken longer than agent.total_timeout; returns 1 then. */
static int past_total_time(llm_job *j)
{
    if (j->cfg.total_timeout_s <= 0 || proc_now() - j->t0 <= j->cfg.total_timeout_s)
        return 0;
    llm_cancel(j);
    j->failure = LLM_FAIL_STALL;
    snprintf(j->message, sizeof j->message, "no complete reply within %g s (agent.total_timeout)",
             j->cfg.total_timeout_s);
    return 1;
}

int llm_poll(llm_job *j, int timeout_ms)
{
    if (j->state == JOB_DONE || past_total_time(j))
        return 1;
    if (j->state == JOB_WAITING) {
        double left_ms = (j->wait_until - proc_now()) * 1000.0;
        if (left_ms > 0) {
            int ms = left_ms < timeout_ms ? (int)left_ms + 1 : timeout_ms;
            if (ms > 0)
                poll(NULL, 0, ms);
            if (proc_now() < j->wait_until)
                return 0;
        }
        kwb_error err;
        if (attempt_begin(j, &err) < 0) {
            j->failure = LLM_FAIL_CONNECT;
            snprintf(j->message, sizeof j->message, "%.1500s", err.msg);
            j->state = JOB_DONE;
            return 1;
        }
        return 0;
    }
    if (http_attempt_poll(&j->att, timeout_ms, j->cfg.stall_timeout_s))
        attempt_finished(j);
    return j->state == JOB_DONE;
}

void llm_cancel(llm_job *j)
{
    if (j->state == JOB_DONE)
        return;
    if (j->att_live) {
        http_attempt_abort(&j->att);
        job_done(j);
        attempt_end(j);
    }
    strbuf_printf(&j->attempts_log, "attempt %d: cancelled\n", j->attempts);
    j->failure = LLM_FAIL_CANCELLED;
    snprintf(j->message, sizeof j->message, "cancelled");
    j->state = JOB_DONE;
}

int llm_finish(llm_job *j, llm_result *r, kwb_error *err)
{
    if (j->state != JOB_DONE)
        llm_cancel(j);
    attempt_end(j);
    snprintf(r->provider, sizeof r->provider, "%s", j->proto->name);
    snprintf(r->model, sizeof r->model, "%s", j->parse.model[0] ? j->parse.model : j->cfg.model);
    snprintf(r->stop_reason, sizeof r->stop_reason, "%s", j->parse.stop_reason);
    snprintf(r->request_id, sizeof r->request_id, "%s", j->last_request_id);
    r->http_status = j->last_status;
    r->attempts = j->attempts;
    r->tokens_in = j->parse.tokens_in;
    r->tokens_out = j->parse.tokens_out;
    r->cost = llm_cost(&j->cfg, j->cfg.model, r->tokens_in, r->tokens_out, &r->priced);
    if (!r->priced)
        r->cost = llm_cost(&j->cfg, r->model, r->tokens_in, r->tokens_out, &r->priced);
    r->seconds = proc_now() - j->t0;
    r->first_byte_s = j->last_first_byte;
    r->failure = j->failure;
    strbuf_add(&r->text, j->parse.text.s, j->parse.text.len);
    strbuf_add(&r->reasoning, j->parse.reasoning.s, j->parse.reasoning.len);
    strbuf_add(&r->request, j->body.s, j->body.len);
    /* a server may echo the key in an error: what the caller keeps is redacted */
    char *clean = secrets_redact(j->last_response.s);
    strbuf_puts(&r->response, clean);
    free(clean);
    clean = secrets_redact(j->attempts_log.s);
    strbuf_puts(&r->attempts_log, clean);
    free(clean);
    int rc = 0;
    if (j->failure != LLM_OK) {
        clean = secrets_redact(j->message);
        rc = kwb_error_set(err, "%s (%s): %s", j->cfg.name, r->model, clean);
        free(clean);
    }
    parse_free(&j->parse);
    strbuf_free(&j->body);
    strbuf_free(&j->attempts_log);
    strbuf_free(&j->last_response);
    for (int i = 0; j->headers[i]; i++) {
        memset(j->headers[i], 0, strlen(j->headers[i]));
        free(j->headers[i]);
    }
    free(j->url);
    if (j->multi)
        curl_multi_cleanup(j->multi);
    memset(j->key, 0, sizeof j->key);
    free(j);
    return rc;
}

int llm_call(const agent_config *cfg, const llm_request *req, llm_progress_fn progress, void *progress_ctx,
             volatile int *cancel, llm_result *r, kwb_error *err)
{
    llm_job *j = llm_start(cfg, req, progress, progress_ctx, err);
    if (!j) {
        r->failure = LLM_FAIL_CONFIG;
        return -1;
    }
    while (!llm_poll(j, 100))
        if (cancel && *cancel)
            llm_cancel(j);
    return llm_finish(j, r, err);
}

/* fake_llm.c - a scripted fake language-model server for the tests: HTTP/1.1 on 127.0.0.1,
 * speaking OpenAI chat completions (POST /v1/chat/completions) and the Anthropic Messages API
 * (POST /v1/messages), streamed over SSE when the request says "stream": true, plain JSON
 * otherwise. Single-threaded (poll and plain sockets), one connection at a time, each answer
 * closes its connection.
 *
 * Usage: fake_llm --script FILE --log FILE [--key KEY] [--port-file FILE] [--lifetime SECONDS]
 *   Listens on an ephemeral port and prints it on stdout (one line), or writes it to --port-file.
 *   With --key, a request whose Authorization: Bearer / x-api-key differs gets a 401 that uses
 *   no script answer. Exits on SIGTERM, when its stdin (if a pipe or socket) is closed, or after
 *   --lifetime seconds (default 600).
 *
 * Log: one JSON object per line per request, written before the answer:
 *   {"n": 1, "method": "POST", "path": "/v1/messages", "key": "ok"|"wrong"|"none",
 *    "headers": {lower-case name: value, credentials left out}, "body": <the JSON body, or a string>,
 *    "answer": "text" (the kind used; "status 429"; "401" for a refused key; "none" past the end)}
 *
 * Script: answers in order, one per request; after the last one every request gets 400
 * "fake_llm: no scripted answer left". Lines before the first answer are comments. Each answer
 * starts with a line "=== KIND [NAME=VALUE | FLAG]..." and its content is every line after it up to
 * the next "=== " line (kept verbatim, final newline included).
 *   === text      the content is the reply (an edit, a whole file, anything)
 *   === length    stop at the output cap with no visible text (finish_reason length / max_tokens)
 *   === status CODE   answer with HTTP CODE, content = the error message; retry_after=SECONDS,
 *                 retry_after_ms=MS, retry_after_date=SECONDS (an HTTP date that far ahead),
 *                 should_retry=true|false (x-should-retry), type=ERROR_TYPE, code=ERROR_CODE
 *                 (e.g. insufficient_quota), echo_key (the message ends with the key received)
 *   === cut       stream the content but close after `after` chunks (default half) with no end
 *                 marker ([DONE] / message_stop); not streamed: a body shorter than its length
 *   === error     stream `after` chunks (default 1) of the content, then an error event (OpenAI
 *                 data: {"error":...}; Anthropic event: error); type=ERROR_TYPE (overloaded_error);
 *                 not streamed: a 200 body holding only the error object
 *   === silent    send the 200 headers (not streamed: nothing at all), then nothing for ms=MS
 *                 (default 10000), then close; a client hanging up ends the wait
 *   === raw       send the content verbatim as the body, streamed or not, closing the connection
 *                 after it: status=CODE (default 200), ctype=TYPE (default text/event-stream);
 *                 for garbage, HTML error pages, hand-written event streams
 * Options for every kind: chunk=BYTES (default 16) per streamed piece, delay_ms=MS between pieces
 * (a slow stream), model=NAME (default "fake-model"), in=N and out=N (usage counts; default 11
 * and 7), crlf (CRLF line ends in the stream), comments (": keep-alive" comments and ping events
 * between pieces), thinking (reasoning first: OpenAI reasoning_content deltas, Anthropic a thinking
 * block; and for Anthropic the text in two text blocks with a block of an unknown type between). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct answer {
    char kind[16];
    int status;
    double retry_after;
    long retry_after_ms;
    long retry_after_date;
    char should_retry[8];
    int echo_key;
    int thinking;
    int raw_status;
    char ctype[64];
    char type[64];
    char code[64];
    int chunk;
    int delay_ms;
    int after;
    int silent_ms;
    char model[64];
    long in, out;
    int crlf, comments;
    char *content;
} answer;

static answer *answers;
static int nanswers, next_answer;
static FILE *log_file;
static const char *want_key;
static int watch_stdin;
static int nrequests;

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "fake_llm: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    exit(2);
}

/* ---- the script ------------------------------------------------------------------------ */

static void answer_option(answer *a, const char *opt)
{
    const char *eq = strchr(opt, '=');
    const char *v = eq ? eq + 1 : "";
    size_t n = eq ? (size_t)(eq - opt) : strlen(opt);
#define OPT(name) (n == strlen(name) && strncmp(opt, name, n) == 0)
    if (OPT("retry_after"))
        a->retry_after = atof(v);
    else if (OPT("retry_after_ms"))
        a->retry_after_ms = atol(v);
    else if (OPT("retry_after_date"))
        a->retry_after_date = atol(v);
    else if (OPT("should_retry"))
        snprintf(a->should_retry, sizeof a->should_retry, "%s", v);
    else if (OPT("echo_key"))
        a->echo_key = 1;
    else if (OPT("thinking"))
        a->thinking = 1;
    else if (OPT("status"))
        a->raw_status = atoi(v);
    else if (OPT("ctype"))
        snprintf(a->ctype, sizeof a->ctype, "%s", v);
    else if (OPT("type"))
        snprintf(a->type, sizeof a->type, "%s", v);
    else if (OPT("code"))
        snprintf(a->code, sizeof a->code, "%s", v);
    else if (OPT("chunk"))
        a->chunk = atoi(v) > 0 ? atoi(v) : 16;
    else if (OPT("delay_ms"))
        a->delay_ms = atoi(v);
    else if (OPT("after"))
        a->after = atoi(v);
    else if (OPT("ms"))
        a->silent_ms = atoi(v);
    else if (OPT("model"))
        snprintf(a->model, sizeof a->model, "%s", v);
    else if (OPT("in"))
        a->in = atol(v);
    else if (OPT("out"))
        a->out = atol(v);
    else if (OPT("crlf"))
        a->crlf = 1;
    else if (OPT("comments"))
        a->comments = 1;
    else
        die("unknown script option '%s'", opt);
#undef OPT
}

static void answer_header(answer *a, char *line)
{
    memset(a, 0, sizeof *a);
    a->retry_after = -1;
    a->retry_after_ms = -1;
    a->retry_after_date = -1;
    a->raw_status = 200;
    snprintf(a->ctype, sizeof a->ctype, "text/event-stream");
    a->chunk = 16;
    a->after = -1;
    a->silent_ms = 10000;
    a->in = 11;
    a->out = 7;
    snprintf(a->model, sizeof a->model, "fake-model");
    char *save, *tok = strtok_r(line + 4, " \t\r\n", &save);
    if (!tok)
        die("%s", "a '===' line without a kind");
    snprintf(a->kind, sizeof a->kind, "%s", tok);
    if (!strcmp(a->kind, "status")) {
        tok = strtok_r(NULL, " \t\r\n", &save);
        if (!tok || atoi(tok) < 100)
            die("%s", "'=== status' needs a status code");
        a->status = atoi(tok);
    } else if (strcmp(a->kind, "text") && strcmp(a->kind, "length") && strcmp(a->kind, "cut") &&
               strcmp(a->kind, "error") && strcmp(a->kind, "silent") && strcmp(a->kind, "raw")) {
        die("unknown answer kind '%s'", a->kind);
    }
    while ((tok = strtok_r(NULL, " \t\r\n", &save)))
        answer_option(a, tok);
}

static void read_script(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        die("cannot read the script %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    answer *cur = NULL;
    size_t content_len = 0, content_cap = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (!strncmp(line, "=== ", 4)) {
            answers = realloc(answers, (size_t)(nanswers + 1) * sizeof *answers);
            cur = &answers[nanswers++];
            answer_header(cur, line);
            content_cap = 256;
            cur->content = calloc(1, content_cap);
            content_len = 0;
        } else if (cur) {
            if (content_len + (size_t)len + 1 > content_cap) {
                while (content_len + (size_t)len + 1 > content_cap)
                    content_cap *= 2;
                cur->content = realloc(cur->content, content_cap);
            }
            memcpy(cur->content + content_len, line, (size_t)len + 1);
            content_len += (size_t)len;
        }
    }
    free(line);
    fclose(f);
}

/* ---- waiting, with an eye on the parent ------------------------------------------------ */

static void check_parent(void)
{
    if (!watch_stdin)
        return;
    struct pollfd p = {0, POLLIN, 0};
    if (poll(&p, 1, 0) > 0) {
        char buf[256];
        if (read(0, buf, sizeof buf) <= 0)
            exit(0);
    }
}

/* Sleeps MS milliseconds, leaving at once when the parent goes away (exit) or when the client on
 * FD hangs up (returns -1; 0 after the full nap), so a cancelled call frees the server at once. */
static int nap(int fd, int ms)
{
    struct timespec end, now;
    clock_gettime(CLOCK_MONOTONIC, &end);
    end.tv_sec += ms / 1000;
    end.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (end.tv_nsec >= 1000000000L) {
        end.tv_sec++;
        end.tv_nsec -= 1000000000L;
    }
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = (end.tv_sec - now.tv_sec) * 1000L + (end.tv_nsec - now.tv_nsec) / 1000000L;
        if (left <= 0)
            return 0;
        struct pollfd p[2] = {{watch_stdin ? 0 : -1, POLLIN, 0}, {fd, POLLRDHUP, 0}};
        if (poll(p, 2, left > 100 ? 100 : (int)left) > 0) {
            if (p[0].revents)
                check_parent();
            if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR))
                return -1;
        }
    }
}

/* ---- requests ----------------------------------------------------------------------------- */

typedef struct request {
    char method[16];
    char path[256];
    char *head; /* header lines */
    char *body;
    size_t body_len;
} request;

/* Reads one request from FD; 0, or -1 when the client went away or sent garbage. */
static int read_request(int fd, request *r)
{
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    char *end = NULL;
    long content_length = 0;
    for (;;) {
        if (len + 1 >= cap)
            buf = realloc(buf, cap *= 2);
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 5000) <= 0)
            goto fail;
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            goto fail;
        len += (size_t)n;
        buf[len] = '\0';
        if (!end && (end = strstr(buf, "\r\n\r\n"))) {
            const char *cl = strcasestr(buf, "\r\ncontent-length:");
            content_length = cl ? atol(cl + 17) : 0;
            if (strcasestr(buf, "\r\nexpect: 100-continue"))
                send(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
        }
        if (end && len >= (size_t)(end - buf) + 4 + (size_t)content_length)
            break;
    }
    *end = '\0';
    if (sscanf(buf, "%15s %255s", r->method, r->path) != 2)
        goto fail;
    char *first_end = strstr(buf, "\r\n");
    r->head = strdup(first_end ? first_end + 2 : "");
    r->body_len = (size_t)content_length;
    r->body = malloc(r->body_len + 1);
    memcpy(r->body, end + 4, r->body_len);
    r->body[r->body_len] = '\0';
    free(buf);
    return 0;
fail:
    free(buf);
    return -1;
}

/* The credential the request carries ("" if none). */
static void request_key(const request *r, char *key, size_t cap)
{
    key[0] = '\0';
    char *copy = strdup(r->head), *save, *line;
    for (line = strtok_r(copy, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        if (!strncasecmp(line, "authorization: bearer ", 22))
            snprintf(key, cap, "%s", line + 22);
        else if (!strncasecmp(line, "x-api-key: ", 11))
            snprintf(key, cap, "%s", line + 11);
    }
    free(copy);
}

static void log_request(const request *r, const char *key_state, const char *answer_kind)
{
    json_t *headers = json_object();
    char *copy = strdup(r->head), *save, *line;
    for (line = strtok_r(copy, "\r\n", &save); line; line = strtok_r(NULL, "\r\n", &save)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        for (char *c = line; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (!strcmp(line, "authorization") || !strcmp(line, "x-api-key"))
            continue;
        const char *v = colon + 1;
        while (*v == ' ')
            v++;
        json_object_set_new(headers, line, json_string(v));
    }
    free(copy);
    json_t *body = json_loadb(r->body, r->body_len, 0, NULL);
    if (!body)
        body = json_stringn(r->body, r->body_len);
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:o, s:o, s:s}", "n", nrequests, "method", r->method, "path", r->path,
                          "key", key_state, "headers", headers, "body", body, "answer", answer_kind);
    char *s = json_dumps(o, JSON_COMPACT);
    fprintf(log_file, "%s\n", s);
    fflush(log_file);
    free(s);
    json_decref(o);
}

/* ---- answers ------------------------------------------------------------------------------ */

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_str(int fd, const char *s)
{
    return send_all(fd, s, strlen(s));
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 529: return "Overloaded";
    default: return "Status";
    }
}

/* Status line and headers; LENGTH < 0: no Content-Length (the body ends when the connection closes). */
static int send_head(int fd, int anthropic, int status, const char *ctype, long length, const answer *a)
{
    char h[1024];
    int n = snprintf(h, sizeof h, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nConnection: close\r\n%s: req_fake_%d\r\n",
                     status, reason(status), ctype, anthropic ? "request-id" : "x-request-id", nrequests);
    if (length >= 0)
        n += snprintf(h + n, sizeof h - (size_t)n, "Content-Length: %ld\r\n", length);
    if (a && a->retry_after >= 0)
        n += snprintf(h + n, sizeof h - (size_t)n, "Retry-After: %g\r\n", a->retry_after);
    if (a && a->retry_after_ms >= 0)
        n += snprintf(h + n, sizeof h - (size_t)n, "retry-after-ms: %ld\r\n", a->retry_after_ms);
    if (a && a->retry_after_date >= 0) {
        time_t when = time(NULL) + a->retry_after_date;
        struct tm tm;
        gmtime_r(&when, &tm);
        n += (int)strftime(h + n, sizeof h - (size_t)n, "Retry-After: %a, %d %b %Y %H:%M:%S GMT\r\n", &tm);
    }
    if (a && a->should_retry[0])
        n += snprintf(h + n, sizeof h - (size_t)n, "x-should-retry: %s\r\n", a->should_retry);
    if (!strcmp(ctype, "text/event-stream"))
        n += snprintf(h + n, sizeof h - (size_t)n, "Cache-Control: no-cache\r\n");
    snprintf(h + n, sizeof h - (size_t)n, "\r\n");
    return send_str(fd, h);
}

static const char *default_type(int anthropic, int status)
{
    switch (status) {
    case 400: return "invalid_request_error";
    case 401: return "authentication_error";
    case 403: return "permission_error";
    case 429: return anthropic ? "rate_limit_error" : "requests";
    case 529: return "overloaded_error";
    default: return status >= 500 ? (anthropic ? "api_error" : "server_error") : "invalid_request_error";
    }
}

/* The error object of either protocol. */
static json_t *error_json(int anthropic, const char *type, const char *code, const char *message)
{
    if (anthropic) {
        json_t *e = json_pack("{s:s, s:s}", "type", type, "message", message);
        if (code[0])
            json_object_set_new(e, "details", json_pack("{s:s}", "error_code", code));
        return json_pack("{s:s, s:o, s:s}", "type", "error", "error", e, "request_id", "req_fake");
    }
    return json_pack("{s:{s:s, s:s, s:n, s:o}}", "error", "message", message, "type", type, "param", "code",
                     code[0] ? json_string(code) : json_null());
}

static int send_json(int fd, int anthropic, int status, json_t *o, const answer *a)
{
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = send_head(fd, anthropic, status, "application/json", (long)strlen(s), a);
    if (rc == 0)
        rc = send_str(fd, s);
    free(s);
    return rc;
}

static void trim_newline(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int answer_status(int fd, int anthropic, const answer *a, const char *key)
{
    char *msg = malloc(strlen(a->content) + strlen(key) + 16);
    strcpy(msg, a->content);
    trim_newline(msg);
    if (a->echo_key)
        strcat(strcat(msg, " key: "), key);
    const char *type = a->type[0] ? a->type : default_type(anthropic, a->status);
    int rc =
        send_json(fd, anthropic, a->status, error_json(anthropic, type, a->code, msg[0] ? msg : "scripted error"), a);
    free(msg);
    return rc;
}

#define THINKING "thinking about it"

/* A whole (not streamed) reply: TEXT with STOP as finish/stop reason. */
static json_t *whole_reply(int anthropic, const answer *a, const char *text, const char *stop)
{
    if (anthropic) {
        json_t *content = json_array();
        size_t half = strlen(text) / 2;
        if (a->thinking) {
            json_array_append_new(
                content, json_pack("{s:s, s:s, s:s}", "type", "thinking", "thinking", THINKING, "signature", "sig"));
            json_array_append_new(content, json_pack("{s:s, s:s}", "type", "server_tool_use", "id", "x"));
            json_array_append_new(content, json_pack("{s:s, s:s%}", "type", "text", "text", text, half));
            text += half;
        }
        if (text[0])
            json_array_append_new(content, json_pack("{s:s, s:s}", "type", "text", "text", text));
        return json_pack("{s:s, s:s, s:s, s:s, s:o, s:s, s:n, s:{s:I, s:I}}", "id", "msg_fake", "type", "message",
                         "role", "assistant", "model", a->model, "content", content, "stop_reason", stop,
                         "stop_sequence", "usage", "input_tokens", (json_int_t)a->in, "output_tokens",
                         (json_int_t)a->out);
    }
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:[{s:i, s:{s:s, s:s}, s:s}], s:{s:I, s:I, s:I}}", "id", "chatcmpl-fake", "object",
                  "chat.completion", "model", a->model, "choices", "index", 0, "message", "role", "assistant",
                  "content", text, "finish_reason", stop, "usage", "prompt_tokens", (json_int_t)a->in,
                  "completion_tokens", (json_int_t)a->out, "total_tokens", (json_int_t)(a->in + a->out));
    if (a->thinking)
        json_object_set_new(json_object_get(json_array_get(json_object_get(o, "choices"), 0), "message"),
                            "reasoning_content", json_string(THINKING));
    return o;
}

/* One SSE event: optional name, one data line per line of DATA, blank line. */
static int send_event(int fd, const answer *a, const char *name, const char *data)
{
    const char *nl = a->crlf ? "\r\n" : "\n";
    char *buf;
    int n = name ? asprintf(&buf, "event: %s%sdata: %s%s%s", name, nl, data, nl, nl)
                 : asprintf(&buf, "data: %s%s%s", data, nl, nl);
    if (n < 0)
        return -1;
    int rc = send_all(fd, buf, (size_t)n);
    free(buf);
    return rc;
}

static int send_event_json(int fd, const answer *a, const char *name, json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    int rc = send_event(fd, a, name, s);
    free(s);
    return rc;
}

/* With `thinking`: the reasoning first; for Anthropic then a block of a type clients must skip. */
static int stream_thinking(int fd, int anthropic, const answer *a)
{
    if (!anthropic)
        return send_event_json(fd, a, NULL,
                               json_pack("{s:s, s:s, s:s, s:[{s:i, s:{s:s}, s:n}]}", "id", "chatcmpl-fake", "object",
                                         "chat.completion.chunk", "model", a->model, "choices", "index", 0, "delta",
                                         "reasoning_content", THINKING, "finish_reason"));
    return send_event_json(fd, a, "content_block_start",
                           json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_start", "index", 0,
                                     "content_block", "type", "thinking", "thinking", "")) ||
           send_event_json(fd, a, "content_block_delta",
                           json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_delta", "index", 0, "delta",
                                     "type", "thinking_delta", "thinking", THINKING)) ||
           send_event_json(fd, a, "content_block_stop",
                           json_pack("{s:s, s:i}", "type", "content_block_stop", "index", 0)) ||
           send_event_json(fd, a, "content_block_start",
                           json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_start", "index", 1,
                                     "content_block", "type", "server_tool_use", "id", "x")) ||
           send_event_json(fd, a, "content_block_delta",
                           json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_delta", "index", 1, "delta",
                                     "type", "input_json_delta", "partial_json", "{}")) ||
           send_event_json(fd, a, "content_block_stop",
                           json_pack("{s:s, s:i}", "type", "content_block_stop", "index", 1));
}

/* Anthropic: ends text block INDEX and starts the next. */
static int next_text_block(int fd, const answer *a, int index)
{
    return send_event_json(fd, a, "content_block_stop",
                           json_pack("{s:s, s:i}", "type", "content_block_stop", "index", index)) ||
           send_event_json(fd, a, "content_block_start",
                           json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_start", "index", index + 1,
                                     "content_block", "type", "text", "text", ""));
}

static int stream_start(int fd, int anthropic, const answer *a)
{
    if (anthropic && a->thinking)
        return send_event_json(fd, a, "message_start",
                               json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:[], s:n, s:{s:I, s:i}}}", "type",
                                         "message_start", "message", "id", "msg_fake", "type", "message", "role",
                                         "assistant", "model", a->model, "content", "stop_reason", "usage",
                                         "input_tokens", (json_int_t)a->in, "output_tokens", 1)) ||
               stream_thinking(fd, anthropic, a) ||
               send_event_json(fd, a, "content_block_start",
                               json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_start", "index", 2,
                                         "content_block", "type", "text", "text", ""));
    if (a->thinking && stream_thinking(fd, anthropic, a))
        return -1;
    if (anthropic)
        return send_event_json(fd, a, "message_start",
                               json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:[], s:n, s:{s:I, s:i}}}", "type",
                                         "message_start", "message", "id", "msg_fake", "type", "message", "role",
                                         "assistant", "model", a->model, "content", "stop_reason", "usage",
                                         "input_tokens", (json_int_t)a->in, "output_tokens", 1)) ||
               send_event_json(fd, a, "content_block_start",
                               json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_start", "index", 0,
                                         "content_block", "type", "text", "text", ""));
    return send_event_json(fd, a, NULL,
                           json_pack("{s:s, s:s, s:s, s:[{s:i, s:{s:s, s:s}, s:n}]}", "id", "chatcmpl-fake", "object",
                                     "chat.completion.chunk", "model", a->model, "choices", "index", 0, "delta", "role",
                                     "assistant", "content", "", "finish_reason"));
}

static int stream_piece(int fd, int anthropic, const answer *a, const char *piece)
{
    if (a->comments) {
        if (send_str(fd, a->crlf ? ": keep-alive\r\n\r\n" : ": keep-alive\n\n") < 0)
            return -1;
        if (anthropic && send_event(fd, a, "ping", "{\"type\": \"ping\"}") < 0)
            return -1;
    }
    if (anthropic)
        return send_event_json(fd, a, "content_block_delta",
                               json_pack("{s:s, s:i, s:{s:s, s:s}}", "type", "content_block_delta", "index", 0, "delta",
                                         "type", "text_delta", "text", piece));
    return send_event_json(fd, a, NULL,
                           json_pack("{s:s, s:s, s:s, s:[{s:i, s:{s:s}, s:n}]}", "id", "chatcmpl-fake", "object",
                                     "chat.completion.chunk", "model", a->model, "choices", "index", 0, "delta",
                                     "content", piece, "finish_reason"));
}

static int stream_end(int fd, int anthropic, const answer *a, const char *stop)
{
    if (anthropic)
        return send_event_json(fd, a, "content_block_stop",
                               json_pack("{s:s, s:i}", "type", "content_block_stop", "index", 0)) ||
               send_event_json(fd, a, "message_delta",
                               json_pack("{s:s, s:{s:s, s:n}, s:{s:I}}", "type", "message_delta", "delta",
                                         "stop_reason", stop, "stop_sequence", "usage", "output_tokens",
                                         (json_int_t)a->out)) ||
               send_event_json(fd, a, "message_stop", json_pack("{s:s}", "type", "message_stop"));
    return send_event_json(fd, a, NULL,
                           json_pack("{s:s, s:s, s:s, s:[{s:i, s:{}, s:s}]}", "id", "chatcmpl-fake", "object",
                                     "chat.completion.chunk", "model", a->model, "choices", "index", 0, "delta",
                                     "finish_reason", stop)) ||
           send_event_json(fd, a, NULL,
                           json_pack("{s:s, s:s, s:s, s:[], s:{s:I, s:I, s:I}}", "id", "chatcmpl-fake", "object",
                                     "chat.completion.chunk", "model", a->model, "choices", "usage", "prompt_tokens",
                                     (json_int_t)a->in, "completion_tokens", (json_int_t)a->out, "total_tokens",
                                     (json_int_t)(a->in + a->out))) ||
           send_event(fd, a, NULL, "[DONE]");
}

/* Length of the next piece of TEXT: about CHUNK bytes, never inside a UTF-8 sequence. */
static size_t piece_len(const char *text, size_t chunk)
{
    size_t n = strnlen(text, chunk);
    while (text[n] && ((unsigned char)text[n] & 0xC0) == 0x80)
        n++;
    return n;
}

static int count_pieces(const answer *a)
{
    int n = 0;
    for (const char *p = a->content; *p; p += piece_len(p, (size_t)a->chunk))
        n++;
    return n;
}

static int answer_stream(int fd, int anthropic, const answer *a)
{
    if (send_head(fd, anthropic, 200, "text/event-stream", -1, NULL) < 0)
        return -1;
    if (!strcmp(a->kind, "silent")) {
        nap(fd, a->silent_ms);
        return 0;
    }
    if (stream_start(fd, anthropic, a) < 0)
        return -1;
    int limit = -1;
    if (!strcmp(a->kind, "cut"))
        limit = a->after >= 0 ? a->after : count_pieces(a) / 2;
    else if (!strcmp(a->kind, "error"))
        limit = a->after >= 0 ? a->after : 1;
    int sent = 0, half = count_pieces(a) / 2;
    const char *text = strcmp(a->kind, "length") ? a->content : "";
    for (const char *p = text; *p && sent != limit;) {
        if (anthropic && a->thinking && sent == half && sent > 0 && next_text_block(fd, a, 2) < 0)
            return -1;
        size_t n = piece_len(p, (size_t)a->chunk);
        char *piece = strndup(p, n);
        int rc = stream_piece(fd, anthropic, a, piece);
        free(piece);
        if (rc < 0)
            return -1;
        p += n;
        sent++;
        if (a->delay_ms && nap(fd, a->delay_ms) < 0)
            return -1;
    }
    if (!strcmp(a->kind, "cut"))
        return 0;
    if (!strcmp(a->kind, "error")) {
        const char *type = a->type[0] ? a->type : "overloaded_error";
        return send_event_json(fd, a, anthropic ? "error" : NULL,
                               error_json(anthropic, type, a->code, "scripted mid-stream error"));
    }
    const char *stop =
        !strcmp(a->kind, "length") ? (anthropic ? "max_tokens" : "length") : (anthropic ? "end_turn" : "stop");
    return stream_end(fd, anthropic, a, stop);
}

static int answer_whole(int fd, int anthropic, const answer *a)
{
    if (!strcmp(a->kind, "silent")) {
        nap(fd, a->silent_ms);
        return 0;
    }
    if (!strcmp(a->kind, "error")) {
        const char *type = a->type[0] ? a->type : "overloaded_error";
        return send_json(fd, anthropic, 200, error_json(anthropic, type, a->code, "scripted error in the reply"), NULL);
    }
    int length = !strcmp(a->kind, "length");
    json_t *o = whole_reply(anthropic, a, length ? "" : a->content,
                            length ? (anthropic ? "max_tokens" : "length") : (anthropic ? "end_turn" : "stop"));
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    size_t n = strlen(s);
    int rc = send_head(fd, anthropic, 200, "application/json", (long)n, NULL);
    if (rc == 0)
        rc = send_all(fd, s, !strcmp(a->kind, "cut") ? n / 2 : n);
    free(s);
    return rc;
}

static void serve(int fd)
{
    request r;
    memset(&r, 0, sizeof r);
    if (read_request(fd, &r) < 0)
        return;
    nrequests++;
    int anthropic = !strcmp(r.path, "/v1/messages");
    int known = anthropic || !strcmp(r.path, "/v1/chat/completions");
    char key[512];
    request_key(&r, key, sizeof key);
    const char *key_state = !key[0] ? "none" : (want_key && strcmp(key, want_key)) ? "wrong" : "ok";
    int key_refused = want_key && strcmp(key, want_key) != 0;
    const answer *a = NULL;
    if (known && strcmp(r.method, "POST") == 0 && !key_refused && next_answer < nanswers)
        a = &answers[next_answer++];
    char label[32];
    if (a && a->status)
        snprintf(label, sizeof label, "status %d", a->status);
    else
        snprintf(label, sizeof label, "%s", a ? a->kind : key_refused ? "401" : "none");
    log_request(&r, key_state, label);
    if (!known || strcmp(r.method, "POST")) {
        send_json(fd, 0, 404, error_json(0, "not_found_error", "", "fake_llm: unknown path"), NULL);
    } else if (key_refused) {
        send_json(fd, anthropic, 401,
                  error_json(anthropic, "authentication_error", "invalid_api_key", "fake_llm: wrong or missing key"),
                  NULL);
    } else if (!a) {
        send_json(fd, anthropic, 400,
                  error_json(anthropic, "invalid_request_error", "", "fake_llm: no scripted answer left"), NULL);
    } else if (!strcmp(a->kind, "status")) {
        answer_status(fd, anthropic, a, key);
    } else if (!strcmp(a->kind, "raw")) {
        if (send_head(fd, anthropic, a->raw_status, a->ctype, -1, NULL) == 0)
            send_str(fd, a->content);
    } else {
        json_t *body = json_loadb(r.body, r.body_len, 0, NULL);
        int stream = json_is_true(json_object_get(body, "stream"));
        json_decref(body);
        if (stream)
            answer_stream(fd, anthropic, a);
        else
            answer_whole(fd, anthropic, a);
    }
    free(r.head);
    free(r.body);
}

int main(int argc, char **argv)
{
    const char *script = NULL, *log_path = NULL, *port_file = NULL;
    double lifetime = 600;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc)
            die("option %s needs a value", argv[i]);
        if (!strcmp(argv[i], "--script"))
            script = argv[++i];
        else if (!strcmp(argv[i], "--log"))
            log_path = argv[++i];
        else if (!strcmp(argv[i], "--key"))
            want_key = argv[++i];
        else if (!strcmp(argv[i], "--port-file"))
            port_file = argv[++i];
        else if (!strcmp(argv[i], "--lifetime"))
            lifetime = atof(argv[++i]);
        else
            die("unknown option %s", argv[i]);
    }
    if (!script || !log_path)
        die("%s", "usage: fake_llm --script FILE --log FILE [--key KEY] [--port-file FILE] [--lifetime S]");
    signal(SIGPIPE, SIG_IGN);
    read_script(script);
    log_file = fopen(log_path, "a");
    if (!log_file)
        die("cannot write the log %s", log_path);
    struct stat st;
    watch_stdin = fstat(0, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof addr;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 16) < 0 ||
        getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0)
        die("cannot listen: %s", strerror(errno));
    int port = ntohs(addr.sin_port);
    if (port_file) {
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, port_file) != 0)
            die("cannot write %s", port_file);
    } else {
        printf("%d\n", port);
        fflush(stdout);
    }
    time_t deadline = time(NULL) + (time_t)lifetime;
    while (time(NULL) < deadline) {
        struct pollfd p[2] = {{lfd, POLLIN, 0}, {watch_stdin ? 0 : -1, POLLIN, 0}};
        if (poll(p, 2, 1000) <= 0)
            continue;
        if (p[1].revents)
            check_parent();
        if (p[0].revents & POLLIN) {
            int fd = accept(lfd, NULL, NULL);
            if (fd < 0)
                continue;
            serve(fd);
            shutdown(fd, SHUT_WR);
            close(fd);
        }
    }
    return 0;
}

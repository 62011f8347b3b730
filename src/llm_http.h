/* llm_http.h - one HTTP POST on a libcurl multi handle that the caller drives without blocking:
 * response headers captured (status, content type, retry-after, x-should-retry, request id),
 * body bytes passed on as they arrive, stall detection by a last-activity clock, abort at once. */
#ifndef KWB_LLM_HTTP_H
#define KWB_LLM_HTTP_H

#include <curl/curl.h>

#include "error.h"
#include "strbuf.h"

/* Receives body bytes as they arrive (after the status line and headers of the final answer). */
typedef void (*http_body_fn)(void *ctx, const char *p, size_t n);

/* One attempt. Fields other than the callbacks are results, valid after http_attempt_start. */
typedef struct http_attempt {
    CURL *easy;
    CURLM *multi;               /* not owned */
    struct curl_slist *headers; /* owned */
    long status;                /* from the last status line; 0 before one arrived */
    char content_type[128];
    char request_id[128]; /* x-request-id or request-id */
    double retry_after_s; /* from retry-after-ms or retry-after (seconds or date); -1 when absent */
    int should_retry;     /* x-should-retry: 1 true, 0 false, -1 absent */
    strbuf body;          /* the body of the final answer as received, up to keep_body bytes */
    size_t keep_body;     /* 0: keep every byte; else bytes past this are passed on, not kept */
    size_t max_body;      /* 0: no limit; else the transfer stops past this many body bytes */
    size_t body_bytes;    /* body bytes received */
    int too_large;        /* stopped at max_body */
    http_body_fn on_body;
    void *ctx;
    double started;       /* monotonic seconds */
    double last_activity; /* last time any byte (header or body) arrived */
    double first_body;    /* when the first body byte arrived; 0 before */
    int running;          /* 1 until the transfer ended, stalled or was aborted */
    int stalled;          /* ended by the stall clock */
    CURLcode result;      /* curl's result when it ended by itself */
    char curl_error[CURL_ERROR_SIZE];
} http_attempt;

/* Starts POST of BODY (LEN bytes; must outlive the attempt) to URL with HEADERS (a NULL-ended list
 * of "Name: value" lines, copied) on MULTI, connecting within CONNECT_TIMEOUT_S. 0, or -1 with
 * *err set. End it with http_attempt_free. */
int http_attempt_start(http_attempt *a, CURLM *multi, const char *url, const char *const *headers, const char *body,
                       size_t len, double connect_timeout_s, http_body_fn on_body, void *ctx, kwb_error *err);

/* Waits at most TIMEOUT_MS for activity and moves the transfer on; an attempt with no byte for
 * STALL_S seconds (> 0) is stopped with stalled set. Returns 1 when the attempt has ended. */
int http_attempt_poll(http_attempt *a, int timeout_ms, double stall_s);

/* Stops the transfer now (never blocks). */
void http_attempt_abort(http_attempt *a);

/* Frees the attempt (aborting it first when it still runs). */
void http_attempt_free(http_attempt *a);

/* Initialises libcurl once per process. */
void http_global_init(void);

#endif

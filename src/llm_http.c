/* llm_http.c - a libcurl easy handle on a caller's multi handle: headers parsed as they come,
 * the body passed on, and the transfer ended by a stall clock or at the caller's word. */
#include "config.h"

#include "llm_http.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proc.h"

static pthread_once_t http_once = PTHREAD_ONCE_INIT;

static void http_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void http_global_init(void)
{
    pthread_once(&http_once, http_init_once);
}

/* Copies header VALUE (N bytes, surrounding blanks and the line end dropped) into DST. */
static void header_value(char *dst, size_t cap, const char *v, size_t n)
{
    while (n && (*v == ' ' || *v == '\t')) {
        v++;
        n--;
    }
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, v, n);
    dst[n] = '\0';
}

static void http_reset_headers(http_attempt *a)
{
    a->content_type[0] = '\0';
    a->request_id[0] = '\0';
    a->retry_after_s = -1;
    a->should_retry = -1;
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *userdata)
{
    http_attempt *a = userdata;
    size_t n = size * nmemb;
    a->last_activity = proc_now();
    if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        /* a new status line starts a new set of headers */
        const char *sp = memchr(p, ' ', n);
        a->status = sp ? strtol(sp + 1, NULL, 10) : 0;
        http_reset_headers(a);
        return n;
    }
    const char *colon = memchr(p, ':', n);
    if (!colon)
        return n;
    size_t name_len = (size_t)(colon - p);
    const char *v = colon + 1;
    size_t vn = n - name_len - 1;
    char value[256];
    header_value(value, sizeof value, v, vn);
#define IS(name) (name_len == strlen(name) && strncasecmp(p, name, name_len) == 0)
    if (IS("content-type"))
        header_value(a->content_type, sizeof a->content_type, v, vn);
    else if (IS("x-request-id") || IS("request-id"))
        header_value(a->request_id, sizeof a->request_id, v, vn);
    else if (IS("x-should-retry"))
        a->should_retry = strcasecmp(value, "true") == 0 ? 1 : strcasecmp(value, "false") == 0 ? 0 : -1;
    else if (IS("retry-after-ms")) {
        char *end;
        double ms = strtod(value, &end);
        if (end != value && ms >= 0)
            a->retry_after_s = ms / 1000.0;
    } else if (IS("retry-after") && a->retry_after_s < 0) {
        char *end;
        double s = strtod(value, &end);
        if (end != value && *end == '\0' && s >= 0) {
            a->retry_after_s = s;
        } else {
            time_t when = curl_getdate(value, NULL);
            if (when != (time_t)-1) {
                double d = difftime(when, time(NULL));
                a->retry_after_s = d > 0 ? d : 0;
            }
        }
    }
#undef IS
    return n;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *userdata)
{
    http_attempt *a = userdata;
    size_t n = size * nmemb;
    a->last_activity = proc_now();
    if (a->first_body == 0)
        a->first_body = a->last_activity;
    a->body_bytes += n;
    if (a->max_body && a->body_bytes > a->max_body) {
        a->too_large = 1;
        return 0; /* curl ends the transfer with a write error */
    }
    size_t keep = !a->keep_body ? n : a->body.len >= a->keep_body ? 0 : a->keep_body - a->body.len;
    strbuf_add(&a->body, p, keep < n ? keep : n);
    if (a->on_body)
        a->on_body(a->ctx, p, n);
    return n;
}

int http_attempt_start(http_attempt *a, CURLM *multi, const char *url, const char *const *headers, const char *body,
                       size_t len, double connect_timeout_s, http_body_fn on_body, void *ctx, kwb_error *err)
{
    http_global_init();
    memset(a, 0, sizeof *a);
    strbuf_init(&a->body);
    http_reset_headers(a);
    a->multi = multi;
    a->on_body = on_body;
    a->ctx = ctx;
    a->easy = curl_easy_init();
    if (!a->easy)
        return kwb_error_set(err, "libcurl: cannot make a handle");
    for (int i = 0; headers && headers[i]; i++)
        a->headers = curl_slist_append(a->headers, headers[i]);
    CURL *e = a->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_POST, 1L);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, a->headers);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, a);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, a);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, a->curl_error);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)(connect_timeout_s * 1000));
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 15L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "kwb/" PACKAGE_VERSION);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (curl_multi_add_handle(multi, e) != CURLM_OK) {
        http_attempt_free(a);
        return kwb_error_set(err, "libcurl: cannot start the transfer");
    }
    a->started = a->last_activity = proc_now();
    a->running = 1;
    return 0;
}

static void http_detach(http_attempt *a)
{
    if (a->easy && a->multi)
        curl_multi_remove_handle(a->multi, a->easy);
    a->running = 0;
}

int http_attempt_poll(http_attempt *a, int timeout_ms, double stall_s)
{
    if (!a->running)
        return 1;
    if (stall_s > 0) {
        double left_ms = (a->last_activity + stall_s - proc_now()) * 1000.0;
        if (left_ms < timeout_ms)
            timeout_ms = left_ms < 0 ? 0 : (int)left_ms + 1;
    }
    int numfds = 0;
    curl_multi_poll(a->multi, NULL, 0, timeout_ms, &numfds);
    int still = 0;
    curl_multi_perform(a->multi, &still);
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(a->multi, &left)))
        if (m->msg == CURLMSG_DONE && m->easy_handle == a->easy) {
            a->result = m->data.result;
            http_detach(a);
        }
    if (a->running && stall_s > 0 && proc_now() - a->last_activity >= stall_s) {
        a->stalled = 1;
        http_detach(a);
    }
    return !a->running;
}

void http_attempt_abort(http_attempt *a)
{
    if (a->running)
        http_detach(a);
}

void http_attempt_free(http_attempt *a)
{
    http_attempt_abort(a);
    if (a->easy)
        curl_easy_cleanup(a->easy);
    a->easy = NULL;
    curl_slist_free_all(a->headers);
    a->headers = NULL;
    strbuf_free(&a->body);
}

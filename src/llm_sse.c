/* llm_sse.c - the server-sent events parser: lines end in LF, CRLF or CR; a blank line
 * dispatches; ':' starts a comment; "field: value" with one space after the colon dropped. */
#include "llm_sse.h"

#include <string.h>

static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};

void sse_init(sse_parser *p, sse_event_fn fn, void *ctx)
{
    strbuf_init(&p->line);
    strbuf_init(&p->data);
    strbuf_init(&p->event);
    p->has_data = 0;
    p->after_cr = 0;
    p->at_start = 1;
    p->bom_seen = 0;
    p->events = 0;
    p->fn = fn;
    p->ctx = ctx;
}

void sse_free(sse_parser *p)
{
    strbuf_free(&p->line);
    strbuf_free(&p->data);
    strbuf_free(&p->event);
}

static void sse_dispatch(sse_parser *p)
{
    if (p->has_data) {
        /* each data line added a LF: the last one is dropped */
        if (p->data.len > 0 && p->data.s[p->data.len - 1] == '\n')
            p->data.s[--p->data.len] = '\0';
        p->events++;
        p->fn(p->ctx, p->event.len ? p->event.s : "message", p->data.s, p->data.len);
    }
    p->data.len = 0;
    p->data.s[0] = '\0';
    p->event.len = 0;
    p->event.s[0] = '\0';
    p->has_data = 0;
}

/* One complete line (without its end). */
static void sse_line(sse_parser *p, const char *s, size_t n)
{
    if (n == 0) {
        sse_dispatch(p);
        return;
    }
    if (s[0] == ':')
        return;
    const char *colon = memchr(s, ':', n);
    size_t name_len = colon ? (size_t)(colon - s) : n;
    const char *value = colon ? colon + 1 : s + n;
    size_t value_len = (size_t)(s + n - value);
    if (value_len > 0 && value[0] == ' ') {
        value++;
        value_len--;
    }
    if (name_len == 4 && memcmp(s, "data", 4) == 0) {
        strbuf_add(&p->data, value, value_len);
        strbuf_add(&p->data, "\n", 1);
        p->has_data = 1;
    } else if (name_len == 5 && memcmp(s, "event", 5) == 0) {
        p->event.len = 0;
        p->event.s[0] = '\0';
        strbuf_add(&p->event, value, value_len);
    }
    /* id, retry and unknown fields: ignored */
}

void sse_feed(sse_parser *p, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (p->at_start) {
            if (c == bom[p->bom_seen]) {
                if (++p->bom_seen == sizeof bom)
                    p->at_start = 0;
                continue;
            }
            /* not a BOM after all: the bytes taken for one were text */
            p->at_start = 0;
            strbuf_add(&p->line, bom, p->bom_seen);
        }
        if (p->after_cr) {
            p->after_cr = 0;
            if (c == '\n')
                continue;
        }
        if (c == '\r' || c == '\n') {
            p->after_cr = (c == '\r');
            sse_line(p, p->line.s, p->line.len);
            p->line.len = 0;
            p->line.s[0] = '\0';
            continue;
        }
        /* copy the run of ordinary bytes at once */
        size_t j = i;
        while (j < n && buf[j] != '\r' && buf[j] != '\n')
            j++;
        strbuf_add(&p->line, buf + i, j - i);
        i = j - 1;
    }
}

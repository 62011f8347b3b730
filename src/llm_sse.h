/* llm_sse.h - an incremental parser of server-sent events (WHATWG event-stream rules): bytes in,
 * in pieces cut anywhere (mid-line, between CR and LF, mid-UTF-8), events out. Independent of
 * curl, so tests can split one stream at every offset and expect the same events. */
#ifndef KWB_LLM_SSE_H
#define KWB_LLM_SSE_H

#include <stddef.h>

#include "strbuf.h"

/* Called once per dispatched event: EVENT is the `event:` name ("message" when none was given),
 * DATA the joined `data:` lines (LF between them, no final LF), LEN its length. */
typedef void (*sse_event_fn)(void *ctx, const char *event, const char *data, size_t len);

/* Parser state; fields are private. */
typedef struct sse_parser {
    strbuf line;     /* the current, unfinished line */
    strbuf data;     /* data lines of the current event */
    strbuf event;    /* event name of the current event */
    int has_data;    /* a data line was seen for the current event */
    int after_cr;    /* the last byte was a CR: a following LF belongs to it */
    int at_start;    /* no byte seen yet (a BOM is skipped there) */
    size_t bom_seen; /* bytes of a BOM matched so far */
    long events;     /* events dispatched so far */
    sse_event_fn fn;
    void *ctx;
} sse_parser;

/* Makes P a parser that reports to FN with CTX. */
void sse_init(sse_parser *p, sse_event_fn fn, void *ctx);

/* Feeds N bytes of BUF; complete events are dispatched before it returns. */
void sse_feed(sse_parser *p, const char *buf, size_t n);

/* Frees P's buffers. An event not ended by a blank line is dropped, as the standard says. */
void sse_free(sse_parser *p);

#endif

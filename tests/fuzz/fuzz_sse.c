/* fuzz_sse.c - a model's streamed reply: the bytes go through the SSE parser in pieces (sizes
 * taken from the first byte), and every event goes to the OpenAI and the Anthropic stream
 * parsers, as llm.c wires them. */
#include <string.h>

#include "fuzz_common.h"
#include "llm_proto.h"
#include "llm_sse.h"

static void parse_init(llm_parse *p)
{
    memset(p, 0, sizeof *p);
    strbuf_init(&p->text);
    strbuf_init(&p->reasoning);
    p->tokens_in = p->tokens_out = -1;
}

static void on_event(void *ctx, const char *event, const char *data, size_t len)
{
    llm_parse *p = ctx;
    llm_openai_protocol.stream_event(&p[0], event, data, len);
    llm_anthropic_protocol.stream_event(&p[1], event, data, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t piece = (size_t)data[0] % 17 + 1;
    data++, size--;
    llm_parse p[2];
    parse_init(&p[0]);
    parse_init(&p[1]);
    sse_parser sse;
    sse_init(&sse, on_event, p);
    for (size_t at = 0; at < size; at += piece)
        sse_feed(&sse, (const char *)data + at, size - at < piece ? size - at : piece);
    sse_free(&sse);
    for (int i = 0; i < 2; i++) {
        strbuf_free(&p[i].text);
        strbuf_free(&p[i].reasoning);
    }
    return 0;
}

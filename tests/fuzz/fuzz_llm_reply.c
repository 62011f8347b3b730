/* fuzz_llm_reply.c - a model's whole (not streamed) reply body, or an error body: the OpenAI and
 * the Anthropic reply parsers and the error-object reader. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "llm_proto.h"

static void parse_one(const llm_protocol *proto, const char *body)
{
    llm_parse p;
    memset(&p, 0, sizeof p);
    strbuf_init(&p.text);
    strbuf_init(&p.reasoning);
    p.tokens_in = p.tokens_out = -1;
    (void)proto->parse_reply(&p, body);
    json_t *root = json_loads(body, 0, NULL);
    if (root)
        (void)llm_parse_error_json(&p, root);
    json_decref(root);
    strbuf_free(&p.text);
    strbuf_free(&p.reasoning);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = fuzz_text(data, size);
    parse_one(&llm_openai_protocol, body);
    parse_one(&llm_anthropic_protocol, body);
    free(body);
    return 0;
}

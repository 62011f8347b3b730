/* llm_anthropic.c - the Anthropic Messages protocol: x-api-key and anthropic-version headers, a
 * top-level system prompt, required max_tokens, content blocks dispatched by type (text joined,
 * thinking kept as reasoning, unknown types ignored), named SSE events ending in message_stop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_proto.h"
#include "xalloc.h"

static char *anthropic_url(const agent_config *cfg)
{
    size_t n = strlen(cfg->base_url);
    while (n && cfg->base_url[n - 1] == '/')
        n--;
    /* the base is normally the host; a base already ending in /v1 is taken as it is */
    int has_v1 = n >= 3 && strncmp(cfg->base_url + n - 3, "/v1", 3) == 0;
    return xasprintf("%.*s%s/messages", (int)n, cfg->base_url, has_v1 ? "" : "/v1");
}

static void anthropic_headers(const agent_config *cfg, const char *key, char **out)
{
    int n = 0;
    if (key[0])
        out[n++] = xasprintf("x-api-key: %s", key);
    out[n++] = xasprintf("anthropic-version: %s", cfg->anthropic_version);
    out[n++] = xstrdup("content-type: application/json");
    if (cfg->stream)
        out[n++] = xstrdup("accept: text/event-stream");
    out[n++] = xstrdup("Expect:");
    out[n] = NULL;
}

static void anthropic_build_body(const agent_config *cfg, const llm_request *req, strbuf *out)
{
    json_t *msgs = json_array();
    for (int i = 0; i < req->nmessages; i++)
        json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", req->messages[i].role, "content",
                                              req->messages[i].content ? req->messages[i].content : ""));
    json_t *body = json_pack("{s:s, s:i}", "model", cfg->model, "max_tokens", cfg->max_tokens);
    if (req->system)
        json_object_set_new(body, "system", json_string(req->system));
    json_object_set_new(body, "messages", msgs);
    if (cfg->temperature >= 0)
        json_object_set_new(body, "temperature", json_real(cfg->temperature));
    if (cfg->stream)
        json_object_set_new(body, "stream", json_true());
    char *s = json_dumps(body, JSON_COMPACT);
    strbuf_puts(out, s);
    free(s);
    json_decref(body);
}

static void anthropic_usage(llm_parse *p, json_t *usage)
{
    if (!json_is_object(usage))
        return;
    llm_json_long(&p->tokens_in, usage, "input_tokens");
    /* cumulative in message_delta: the last value counts */
    llm_json_long(&p->tokens_out, usage, "output_tokens");
}

/* A content block (whole, or as content_block_start announces it). */
static void anthropic_block(llm_parse *p, json_t *block)
{
    const char *type = json_string_value(json_object_get(block, "type"));
    if (!type)
        return;
    json_t *t = NULL;
    int reasoning = 0;
    if (!strcmp(type, "text") || !strcmp(type, "text_delta")) {
        t = json_object_get(block, "text");
    } else if (!strcmp(type, "thinking") || !strcmp(type, "thinking_delta")) {
        t = json_object_get(block, "thinking");
        reasoning = 1;
    }
    if (json_is_string(t))
        llm_parse_add_text(p, json_string_value(t), reasoning);
}

static void anthropic_stream_event(llm_parse *p, const char *event, const char *data, size_t len)
{
    json_error_t je;
    json_t *root = json_loadb(data, len, 0, &je);
    if (!json_is_object(root)) {
        p->bad = 1;
        snprintf(p->bad_message, sizeof p->bad_message, "event '%s' is not JSON: %s", event, je.text);
        json_decref(root);
        return;
    }
    const char *type = json_string_value(json_object_get(root, "type"));
    if (!type)
        type = event;
    if (!strcmp(type, "error") || !strcmp(event, "error")) {
        llm_parse_error_json(p, root);
        p->stream_error = 1;
    } else if (!strcmp(type, "message_start")) {
        json_t *m = json_object_get(root, "message");
        llm_json_copy(p->model, sizeof p->model, m, "model");
        anthropic_usage(p, json_object_get(m, "usage"));
    } else if (!strcmp(type, "content_block_start")) {
        anthropic_block(p, json_object_get(root, "content_block"));
    } else if (!strcmp(type, "content_block_delta")) {
        anthropic_block(p, json_object_get(root, "delta"));
    } else if (!strcmp(type, "message_delta")) {
        llm_json_copy(p->stop_reason, sizeof p->stop_reason, json_object_get(root, "delta"), "stop_reason");
        anthropic_usage(p, json_object_get(root, "usage"));
    } else if (!strcmp(type, "message_stop")) {
        p->ended = 1;
    }
    /* ping, content_block_stop and unknown events: activity only */
    json_decref(root);
}

static int anthropic_parse_reply(llm_parse *p, const char *body)
{
    json_error_t je;
    json_t *root = json_loads(body, 0, &je);
    json_t *content = json_object_get(root, "content");
    if (json_is_object(root) && llm_parse_error_json(p, root)) {
        p->stream_error = 1;
        json_decref(root);
        return -1;
    }
    if (!json_is_object(root) || !json_is_array(content)) {
        p->bad = 1;
        snprintf(p->bad_message, sizeof p->bad_message, "the reply is not a message: %s",
                 root ? "no content" : je.text);
        json_decref(root);
        return -1;
    }
    llm_json_copy(p->model, sizeof p->model, root, "model");
    llm_json_copy(p->stop_reason, sizeof p->stop_reason, root, "stop_reason");
    size_t i;
    json_t *block;
    json_array_foreach(content, i, block) anthropic_block(p, block);
    anthropic_usage(p, json_object_get(root, "usage"));
    p->ended = 1;
    json_decref(root);
    return 0;
}

const llm_protocol llm_anthropic_protocol = {
    .name = "anthropic",
    .url = anthropic_url,
    .headers = anthropic_headers,
    .build_body = anthropic_build_body,
    .stream_event = anthropic_stream_event,
    .parse_reply = anthropic_parse_reply,
};

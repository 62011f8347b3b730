/* llm_openai.c - the OpenAI chat completions protocol (also llama.cpp's server, vLLM, Ollama):
 * Bearer key, messages with a system turn, max_tokens or (reasoning models) max_completion_tokens
 * without temperature, SSE chunks ending in [DONE], errors as {"error": {...}} anywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_proto.h"
#include "xalloc.h"

static char *openai_url(const agent_config *cfg)
{
    size_t n = strlen(cfg->base_url);
    while (n && cfg->base_url[n - 1] == '/')
        n--;
    return xasprintf("%.*s/chat/completions", (int)n, cfg->base_url);
}

static void openai_headers(const agent_config *cfg, const char *key, char **out)
{
    int n = 0;
    if (key[0])
        out[n++] = xasprintf("Authorization: Bearer %s", key);
    out[n++] = xstrdup("Content-Type: application/json");
    if (cfg->stream)
        out[n++] = xstrdup("Accept: text/event-stream");
    out[n++] = xstrdup("Expect:");
    out[n] = NULL;
}

static json_t *message(const char *role, const char *content)
{
    return json_pack("{s:s, s:s}", "role", role, "content", content ? content : "");
}

static void openai_build_body(const agent_config *cfg, const llm_request *req, strbuf *out)
{
    json_t *msgs = json_array();
    if (req->system)
        json_array_append_new(msgs, message("system", req->system));
    for (int i = 0; i < req->nmessages; i++)
        json_array_append_new(msgs, message(req->messages[i].role, req->messages[i].content));
    json_t *body = json_pack("{s:s, s:o}", "model", cfg->model, "messages", msgs);
    if (cfg->reasoning) {
        json_object_set_new(body, "max_completion_tokens", json_integer(cfg->max_tokens));
        if (cfg->reasoning_effort[0])
            json_object_set_new(body, "reasoning_effort", json_string(cfg->reasoning_effort));
    } else {
        json_object_set_new(body, "max_tokens", json_integer(cfg->max_tokens));
        if (cfg->temperature >= 0)
            json_object_set_new(body, "temperature", json_real(cfg->temperature));
    }
    if (cfg->stream) {
        json_object_set_new(body, "stream", json_true());
        if (cfg->stream_usage)
            json_object_set_new(body, "stream_options", json_pack("{s:b}", "include_usage", 1));
    }
    char *s = json_dumps(body, JSON_COMPACT);
    strbuf_puts(out, s);
    free(s);
    json_decref(body);
}

static void openai_usage(llm_parse *p, json_t *root)
{
    json_t *usage = json_object_get(root, "usage");
    if (json_is_object(usage)) {
        llm_json_long(&p->tokens_in, usage, "prompt_tokens");
        llm_json_long(&p->tokens_out, usage, "completion_tokens");
    }
}

/* Text of a content member: a string, or an array of {type:"text", text} parts. */
static void openai_add_content(llm_parse *p, json_t *content, int reasoning)
{
    if (json_is_string(content)) {
        llm_parse_add_text(p, json_string_value(content), reasoning);
        return;
    }
    size_t i;
    json_t *part;
    json_array_foreach(content, i, part)
    {
        json_t *t = json_object_get(part, "text");
        if (json_is_string(t))
            llm_parse_add_text(p, json_string_value(t), reasoning);
    }
}

/* The fields of one choice's message or delta M. */
static void openai_message(llm_parse *p, json_t *m)
{
    json_t *r = json_object_get(m, "reasoning_content");
    if (!json_is_string(r))
        r = json_object_get(m, "reasoning");
    openai_add_content(p, r, 1);
    openai_add_content(p, json_object_get(m, "content"), 0);
}

static void openai_choice(llm_parse *p, json_t *root, const char *member)
{
    json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
    if (!json_is_object(choice))
        return;
    openai_message(p, json_object_get(choice, member));
    llm_json_copy(p->stop_reason, sizeof p->stop_reason, choice, "finish_reason");
}

static void openai_stream_event(llm_parse *p, const char *event, const char *data, size_t len)
{
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        p->ended = 1;
        return;
    }
    json_error_t je;
    json_t *root = json_loadb(data, len, 0, &je);
    if (!json_is_object(root)) {
        p->bad = 1;
        snprintf(p->bad_message, sizeof p->bad_message, "a stream chunk is not JSON: %s", je.text);
        json_decref(root);
        return;
    }
    if (llm_parse_error_json(p, root)) {
        p->stream_error = 1;
    } else {
        llm_json_copy(p->model, sizeof p->model, root, "model");
        openai_choice(p, root, "delta");
        openai_usage(p, root);
    }
    json_decref(root);
}

static int openai_parse_reply(llm_parse *p, const char *body)
{
    json_error_t je;
    json_t *root = json_loads(body, 0, &je);
    if (json_is_object(root) && llm_parse_error_json(p, root)) {
        p->stream_error = 1;
        json_decref(root);
        return -1;
    }
    if (!json_is_object(root) || !json_is_array(json_object_get(root, "choices"))) {
        p->bad = 1;
        snprintf(p->bad_message, sizeof p->bad_message, "the reply is not a chat completion: %s",
                 root ? "no choices" : je.text);
        json_decref(root);
        return -1;
    }
    llm_json_copy(p->model, sizeof p->model, root, "model");
    openai_choice(p, root, "message");
    openai_usage(p, root);
    p->ended = 1;
    json_decref(root);
    return 0;
}

const llm_protocol llm_openai_protocol = {
    .name = "openai",
    .url = openai_url,
    .headers = openai_headers,
    .build_body = openai_build_body,
    .stream_event = openai_stream_event,
    .parse_reply = openai_parse_reply,
};

/* llm_proto.h - what each wire protocol (llm_openai.c, llm_anthropic.c) gives llm.c: the URL, the
 * headers, the request body, and parsers for streamed events and whole replies, all filling one
 * llm_parse. Private to the llm modules. */
#ifndef KWB_LLM_PROTO_H
#define KWB_LLM_PROTO_H

#include <jansson.h>

#include "agentcfg.h"
#include "llm.h"
#include "strbuf.h"

/* What one attempt's reply said so far. */
typedef struct llm_parse {
    strbuf text; /* visible text */
    strbuf reasoning;
    char model[128];
    char stop_reason[64];
    long tokens_in, tokens_out; /* -1 unknown */
    int ended;                  /* [DONE] / message_stop seen */
    int stream_error;           /* an error payload arrived in the stream */
    char error_type[64];        /* of that error (or of a non-2xx body) */
    char error_code[64];
    char error_message[512];
    int bad; /* a payload that is not the expected JSON */
    char bad_message[256];
    llm_progress_fn progress;
    void *progress_ctx;
} llm_parse;

/* One protocol. */
typedef struct llm_protocol {
    const char *name;
    /* The endpoint for CFG; the caller frees it. */
    char *(*url)(const agent_config *cfg);
    /* Header lines for KEY ("" for none) into OUT (room for 8, NULL-ended); the caller frees them. */
    void (*headers)(const agent_config *cfg, const char *key, char **out);
    /* The request body for REQ under CFG. */
    void (*build_body)(const agent_config *cfg, const llm_request *req, strbuf *out);
    /* One SSE event of a streamed reply. */
    void (*stream_event)(llm_parse *p, const char *event, const char *data, size_t len);
    /* A whole (non-streamed) 2xx reply; 0, or -1 with p->bad set. */
    int (*parse_reply)(llm_parse *p, const char *body);
} llm_protocol;

extern const llm_protocol llm_openai_protocol;
extern const llm_protocol llm_anthropic_protocol;

/* Reads an error object (OpenAI {"error":{...}}, Anthropic {"type":"error","error":{...}}, or
 * an error string) from ROOT into P's error fields. Returns 1 when ROOT held one. */
int llm_parse_error_json(llm_parse *p, json_t *root);

/* Appends PIECE to P's text (REASONING: to its reasoning) and reports it as progress. */
void llm_parse_add_text(llm_parse *p, const char *piece, int reasoning);

/* Copies a JSON string member NAME of OBJ into DST (CAP bytes) when present. */
void llm_json_copy(char *dst, size_t cap, json_t *obj, const char *name);

/* Reads a JSON integer member NAME of OBJ into *out when present. */
void llm_json_long(long *out, json_t *obj, const char *name);

#endif

/* secrets.h - API keys: from the environment, or from the configuration file only when that file
 * is mode 0600; and redaction, so that no key reaches a log, the store, a transcript or a report. */
#ifndef KWB_SECRETS_H
#define KWB_SECRETS_H

#include <stddef.h>

#include "agentcfg.h"
#include "error.h"
#include "strbuf.h"

/* Finds CFG's key: the variable CFG->api_key_env (default OPENAI_API_KEY or ANTHROPIC_API_KEY by
 * provider), else the key written in CFG->path, refused ("FILE: holds an API key but is mode 0644;
 * chmod 600 FILE") unless that file is mode 0600 (no group/other bits). The key is registered for
 * secrets_redact. Writes it into KEY (capacity CAP). Returns 1 found, 0 none (KEY = ""), -1 refused
 * with *err set (the message never contains the key). */
int secrets_api_key(const agent_config *cfg, char *key, size_t cap, kwb_error *err);

/* Adds KEY (any length but empty) to the set secrets_redact removes. */
void secrets_register(const char *key);

/* A copy of TEXT with every registered key, the value of every environment variable named like
 * an API key (*API_KEY*: OPENAI_API_KEY, a key variable a child process read), the value (8
 * characters or more) of every other one named like a credential (*_KEY, *_TOKEN, *SECRET*), and the value after
 * "Authorization: Bearer " / "x-api-key: " replaced by "[REDACTED]". The caller frees it; NULL gives NULL. */
char *secrets_redact(const char *text);

/* Replaces SB's text by secrets_redact's copy of it. */
void secrets_redact_strbuf(strbuf *sb);

/* 1 when TEXT contains a registered key or a credential variable's value, else 0. */
int secrets_contains_key(const char *text);

/* Text arriving in pieces (a streamed reply, a child's output) redacted on the way: a key split
 * between pieces is still caught, since the last bytes that could start one are held back. */
typedef struct secrets_stream {
    strbuf pending;
} secrets_stream;

/* Starts S empty. */
void secrets_stream_init(secrets_stream *s);
/* Adds PIECE (N bytes) to S; returns the text now safe to write, redacted (the caller frees it). */
char *secrets_stream_feed(secrets_stream *s, const char *piece, size_t n);
/* Returns the rest of S, redacted (the caller frees it), and frees what S holds. */
char *secrets_stream_flush(secrets_stream *s);

#endif

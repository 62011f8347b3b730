/* secrets.c - API keys from the environment or a private (0600) configuration file, and the
 * redaction every log, transcript and report goes through. */
#define _GNU_SOURCE /* memmem */
#include "secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strbuf.h"
#include "xalloc.h"

#define SECRETS_MAX 16
#define SECRETS_MIN_LEN 8 /* for values found by their variable's name alone (*_TOKEN, *SECRET*) */

static char *registered[SECRETS_MAX];
static int nregistered;

void secrets_register(const char *key)
{
    if (!key || !*key)
        return;
    for (int i = 0; i < nregistered; i++)
        if (strcmp(registered[i], key) == 0)
            return;
    if (nregistered == SECRETS_MAX) {
        free(registered[0]);
        memmove(registered, registered + 1, (SECRETS_MAX - 1) * sizeof registered[0]);
        nregistered--;
    }
    registered[nregistered++] = xstrdup(key);
}

int secrets_api_key(const agent_config *cfg, char *key, size_t cap, kwb_error *err)
{
    key[0] = '\0';
    if (cfg->api_key[0] && (cfg->file_mode & 077)) {
        char where[4200];
        if (cfg->api_key_line)
            snprintf(where, sizeof where, "%s:%d", cfg->path, cfg->api_key_line);
        else
            snprintf(where, sizeof where, "%s", cfg->path);
        return kwb_error_set(err,
                             "%s: holds an API key but the file is mode %04o (readable by others); "
                             "refusing to use it: run 'chmod 600 %s' or take the key from the environment",
                             where, (unsigned)cfg->file_mode, cfg->path);
    }
    const char *env = cfg->api_key_env[0] ? getenv(cfg->api_key_env) : NULL;
    const char *found = env && *env ? env : cfg->api_key[0] ? cfg->api_key : NULL;
    if (!found)
        return 0;
    if (strlen(found) >= cap)
        return kwb_error_set(err, "the API key for agent %s is longer than %zu characters", cfg->name, cap - 1);
    memcpy(key, found, strlen(found) + 1);
    secrets_register(key);
    return 1;
}

/* 1 when an environment variable named NAME (N bytes) holds a credential by its name:
 * *API_KEY*, *_KEY, *_TOKEN, *SECRET*. */
static int secret_name(const char *name, size_t n)
{
    static const char *ends[] = {"_KEY", "_TOKEN"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        size_t e = strlen(ends[i]);
        if (n >= e && strncmp(name + n - e, ends[i], e) == 0)
            return 1;
    }
    char buf[256];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, name, n);
    buf[n] = '\0';
    return strstr(buf, "API_KEY") || strstr(buf, "SECRET");
}

/* Every secret to look for: the registered ones, and the values of environment variables named
 * like credentials (OPENAI_API_KEY, ANTHROPIC_API_KEY, a key variable another process read). */
static int secrets_all(const char **out, int cap)
{
    extern char **environ;
    int n = 0;
    for (int i = 0; i < nregistered && n < cap; i++)
        out[n++] = registered[i];
    for (char **e = environ; e && *e && n < cap; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || !eq[1] || !secret_name(*e, (size_t)(eq - *e)))
            continue;
        /* an API key variable is a key whatever its length; other credential-like names from 8 on */
        if (strlen(eq + 1) >= SECRETS_MIN_LEN || memmem(*e, (size_t)(eq - *e), "API_KEY", 7))
            out[n++] = eq + 1;
    }
    return n;
}

/* Length of a header-borne credential starting at P (up to blank, quote or line end). */
static size_t token_len(const char *p)
{
    return strcspn(p, " \t\r\n\"'\\,;");
}

static int starts_with_ci(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

char *secrets_redact(const char *text)
{
    if (!text)
        return NULL;
    const char *keys[SECRETS_MAX + 32];
    int nkeys = secrets_all(keys, SECRETS_MAX + 32);
    static const char *headers[] = {"Authorization: Bearer ", "x-api-key: "};
    strbuf sb;
    strbuf_init(&sb);
    const char *p = text;
    while (*p) {
        size_t skip = 0;
        for (int i = 0; i < nkeys && !skip; i++)
            if (strncmp(p, keys[i], strlen(keys[i])) == 0)
                skip = strlen(keys[i]);
        if (skip) {
            strbuf_puts(&sb, "[REDACTED]");
            p += skip;
            continue;
        }
        const char *hdr = NULL;
        for (size_t i = 0; i < sizeof headers / sizeof headers[0] && !hdr; i++)
            if (starts_with_ci(p, headers[i]))
                hdr = headers[i];
        if (hdr && token_len(p + strlen(hdr)) > 0) {
            strbuf_add(&sb, p, strlen(hdr));
            p += strlen(hdr);
            strbuf_puts(&sb, "[REDACTED]");
            p += token_len(p);
            continue;
        }
        strbuf_add(&sb, p, 1);
        p++;
    }
    return strbuf_detach(&sb);
}

void secrets_redact_strbuf(strbuf *sb)
{
    char *clean = secrets_redact(sb->s);
    strbuf_free(sb);
    strbuf_init(sb);
    strbuf_puts(sb, clean);
    free(clean);
}

int secrets_contains_key(const char *text)
{
    const char *keys[SECRETS_MAX + 32];
    int nkeys = secrets_all(keys, SECRETS_MAX + 32);
    for (int i = 0; text && i < nkeys; i++)
        if (strstr(text, keys[i]))
            return 1;
    return 0;
}

/* Length of the longest secret (0: none). */
static size_t longest_secret(void)
{
    const char *keys[SECRETS_MAX + 32];
    int nkeys = secrets_all(keys, SECRETS_MAX + 32);
    size_t m = 0;
    for (int i = 0; i < nkeys; i++)
        if (strlen(keys[i]) > m)
            m = strlen(keys[i]);
    return m;
}

void secrets_stream_init(secrets_stream *s)
{
    strbuf_init(&s->pending);
}

/* Moves pending text before CUT (extended over a key that starts before it) into OUT, redacted. */
static void stream_emit(secrets_stream *s, size_t cut, strbuf *out)
{
    const char *keys[SECRETS_MAX + 32];
    int nkeys = secrets_all(keys, SECRETS_MAX + 32);
    size_t i = 0;
    while (i < cut) {
        size_t skip = 0;
        for (int k = 0; k < nkeys && !skip; k++) {
            size_t kl = strlen(keys[k]);
            if (i + kl <= s->pending.len && memcmp(s->pending.s + i, keys[k], kl) == 0)
                skip = kl;
        }
        if (skip) {
            strbuf_puts(out, "[REDACTED]");
            i += skip;
        } else {
            strbuf_add(out, s->pending.s + i, 1);
            i++;
        }
    }
    memmove(s->pending.s, s->pending.s + i, s->pending.len - i + 1);
    s->pending.len -= i;
}

char *secrets_stream_feed(secrets_stream *s, const char *piece, size_t n)
{
    strbuf_add(&s->pending, piece, n);
    size_t hold = longest_secret();
    hold = hold ? hold - 1 : 0;
    strbuf out;
    strbuf_init(&out);
    if (s->pending.len > hold)
        stream_emit(s, s->pending.len - hold, &out);
    return strbuf_detach(&out);
}

char *secrets_stream_flush(secrets_stream *s)
{
    strbuf out;
    strbuf_init(&out);
    stream_emit(s, s->pending.len, &out);
    strbuf_free(&s->pending);
    return strbuf_detach(&out);
}

/* secrets.c - API keys from the environment or a private (0600) configuration file, and the
 * redaction every log, transcript and report goes through. */
#include "secrets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strbuf.h"
#include "xalloc.h"

#define SECRETS_MAX 16
#define SECRETS_MIN_LEN 8

static char *registered[SECRETS_MAX];
static int nregistered;

void secrets_register(const char *key)
{
    if (!key || strlen(key) < SECRETS_MIN_LEN)
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
        if (eq && strlen(eq + 1) >= SECRETS_MIN_LEN && secret_name(*e, (size_t)(eq - *e)))
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

int secrets_contains_key(const char *text)
{
    const char *keys[SECRETS_MAX + 32];
    int nkeys = secrets_all(keys, SECRETS_MAX + 32);
    for (int i = 0; text && i < nkeys; i++)
        if (strstr(text, keys[i]))
            return 1;
    return 0;
}

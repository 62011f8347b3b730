/* agentcfg.c - reads the agents' configuration: `set agent.[NAME.]KEY VALUE` lines (or the same keys
 * as JSON), generic keys first, then NAME's own, so that the more specific setting wins. */
#include "agentcfg.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonpos.h"
#include "secrets.h"
#include "strbuf.h"
#include "xalloc.h"

/* A setting as read: key, value, line (0 for JSON). */
typedef struct cfg_line {
    char *key;
    char *value;
    int line;
} cfg_line;

typedef struct cfg_lines {
    cfg_line *v;
    int n, cap;
} cfg_lines;

static void lines_add(cfg_lines *ls, const char *key, const char *value, int line)
{
    if (ls->n == ls->cap) {
        ls->cap = ls->cap ? 2 * ls->cap : 16;
        ls->v = xrealloc(ls->v, (size_t)ls->cap * sizeof *ls->v);
    }
    ls->v[ls->n++] = (cfg_line){xstrdup(key), xstrdup(value), line};
}

static void lines_free(cfg_lines *ls)
{
    for (int i = 0; i < ls->n; i++) {
        free(ls->v[i].key);
        free(ls->v[i].value);
    }
    free(ls->v);
}

void agentcfg_defaults(agent_config *cfg, const char *name)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->name, sizeof cfg->name, "%s", name);
    const char *provider = "openai";
    if (strcmp(name, "anthropic") == 0 || strcmp(name, "command") == 0)
        provider = name;
    snprintf(cfg->provider, sizeof cfg->provider, "%s", provider);
    if (strcmp(provider, "anthropic") == 0) {
        snprintf(cfg->base_url, sizeof cfg->base_url, "https://api.anthropic.com");
        snprintf(cfg->api_key_env, sizeof cfg->api_key_env, "ANTHROPIC_API_KEY");
    } else {
        snprintf(cfg->base_url, sizeof cfg->base_url, "https://api.openai.com/v1");
        snprintf(cfg->api_key_env, sizeof cfg->api_key_env, "OPENAI_API_KEY");
    }
    cfg->max_tokens = 8192;
    cfg->temperature = -1;
    cfg->stream = 1;
    cfg->stream_usage = 1;
    snprintf(cfg->anthropic_version, sizeof cfg->anthropic_version, "2023-06-01");
    cfg->connect_timeout_s = 10;
    cfg->stall_timeout_s = 120;
    cfg->total_timeout_s = 1800;
    cfg->max_reply_bytes = 8L << 20;
    cfg->max_retries = 3;
    cfg->retry_base_s = 0.5;
    cfg->retry_cap_s = 8;
    cfg->retry_after_cap_s = 60;
    cfg->command_timeout_s = 1800;
}

void agentcfg_free(agent_config *cfg)
{
    for (int i = 0; i < cfg->nextra; i++) {
        free(cfg->extra[i].key);
        free(cfg->extra[i].value);
    }
    free(cfg->extra);
    cfg->extra = NULL;
    cfg->nextra = 0;
}

char *agentcfg_default_path(char *buf, size_t cap)
{
    const char *env = getenv("KWB_AGENT_CONFIG");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(buf, cap, "%s", env);
    else if (xdg && *xdg)
        snprintf(buf, cap, "%s/kwb/agents.conf", xdg);
    else
        snprintf(buf, cap, "%s/.config/kwb/agents.conf", home ? home : ".");
    return buf;
}

/* ---- values ---------------------------------------------------------------------------- */

static int parse_double(const char *v, double lo, double *out, const char *where, const char *key, kwb_error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == v || *end || d < lo)
        return kwb_error_set(err, "%s: %s: expected a number >= %g, got '%s'", where, key, lo, v);
    *out = d;
    return 0;
}

static int parse_int(const char *v, long lo, long *out, const char *where, const char *key, kwb_error *err)
{
    char *end;
    errno = 0;
    long l = strtol(v, &end, 10);
    while (*end == ' ' || *end == '\t')
        end++;
    if (errno || end == v || *end || l < lo)
        return kwb_error_set(err, "%s: %s: expected a whole number >= %ld, got '%s'", where, key, lo, v);
    *out = l;
    return 0;
}

static int parse_bool(const char *v, int *out, const char *where, const char *key, kwb_error *err)
{
    if (!strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "off"))
        *out = 0;
    else
        return kwb_error_set(err, "%s: %s: expected yes or no, got '%s'", where, key, v);
    return 0;
}

static int copy_text(char *dst, size_t cap, const char *v, const char *where, const char *key, kwb_error *err)
{
    if (strlen(v) >= cap)
        return kwb_error_set(err, "%s: %s: value longer than %zu characters", where, key, cap - 1);
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

/* Splits V into words: blanks separate, "..." (with \" and \\) and '...' group. No shell. */
static int split_command(agent_config *cfg, const char *v, const char *where, kwb_error *err)
{
    cfg->command_argc = 0;
    const char *p = v;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            return 0;
        if (cfg->command_argc == AGENTCFG_MAX_ARGS)
            return kwb_error_set(err, "%s: command: more than %d words", where, AGENTCFG_MAX_ARGS);
        char *out = cfg->command_args[cfg->command_argc];
        size_t n = 0, cap = sizeof cfg->command_args[0];
        while (*p && *p != ' ' && *p != '\t') {
            char quote = (*p == '"' || *p == '\'') ? *p++ : 0;
            while (*p && (quote ? *p != quote : (*p != ' ' && *p != '\t' && *p != '"' && *p != '\''))) {
                if (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                if (n + 1 >= cap)
                    return kwb_error_set(err, "%s: command: a word longer than %zu characters", where, cap - 1);
                out[n++] = *p++;
            }
            if (quote) {
                if (*p != quote)
                    return kwb_error_set(err, "%s: command: unterminated %c quote", where, quote);
                p++;
            }
        }
        out[n] = '\0';
        cfg->command_argc++;
    }
}

static int parse_price(agent_config *cfg, const char *v, const char *where, kwb_error *err)
{
    char model[128];
    double in, out;
    char extra;
    if (sscanf(v, "%127s %lf %lf %c", model, &in, &out, &extra) != 3 || in < 0 || out < 0)
        return kwb_error_set(err,
                             "%s: price: expected 'MODEL INPUT OUTPUT' (dollars per million tokens), "
                             "got '%s'",
                             where, v);
    for (int i = 0; i < cfg->nprices; i++)
        if (strcmp(cfg->prices[i].model, model) == 0) {
            cfg->prices[i].in_per_mtok = in;
            cfg->prices[i].out_per_mtok = out;
            return 0;
        }
    if (cfg->nprices == AGENTCFG_MAX_PRICES)
        return kwb_error_set(err, "%s: price: more than %d models", where, AGENTCFG_MAX_PRICES);
    agent_price *pr = &cfg->prices[cfg->nprices++];
    snprintf(pr->model, sizeof pr->model, "%s", model);
    pr->in_per_mtok = in;
    pr->out_per_mtok = out;
    return 0;
}

static void extra_set(agent_config *cfg, const char *key, const char *value, int line)
{
    for (int i = 0; i < cfg->nextra; i++)
        if (strcmp(cfg->extra[i].key, key) == 0) {
            free(cfg->extra[i].value);
            cfg->extra[i].value = xstrdup(value);
            cfg->extra[i].line = line;
            return;
        }
    cfg->extra = xrealloc(cfg->extra, (size_t)(cfg->nextra + 1) * sizeof *cfg->extra);
    cfg->extra[cfg->nextra++] = (agentcfg_entry){xstrdup(key), xstrdup(value), line};
}

/* Applies SHORT = V (an interpreted key, or kept in extra under FULL). */
static int apply(agent_config *cfg, const char *full, const char *s, const char *v, const char *where, int line,
                 kwb_error *err)
{
    long l;
    double d;
    if (!strcmp(s, "provider")) {
        if (strcmp(v, "openai") && strcmp(v, "anthropic") && strcmp(v, "command"))
            return kwb_error_set(err, "%s: %s: expected openai, anthropic or command, got '%s'", where, full, v);
        int was_anthropic = !strcmp(cfg->provider, "anthropic");
        snprintf(cfg->provider, sizeof cfg->provider, "%s", v);
        /* the provider's own address and key variable, unless set explicitly later */
        if (!strcmp(v, "anthropic") && !was_anthropic) {
            snprintf(cfg->base_url, sizeof cfg->base_url, "https://api.anthropic.com");
            snprintf(cfg->api_key_env, sizeof cfg->api_key_env, "ANTHROPIC_API_KEY");
        } else if (strcmp(v, "anthropic") && was_anthropic) {
            snprintf(cfg->base_url, sizeof cfg->base_url, "https://api.openai.com/v1");
            snprintf(cfg->api_key_env, sizeof cfg->api_key_env, "OPENAI_API_KEY");
        }
        return 0;
    }
    if (!strcmp(s, "base_url"))
        return copy_text(cfg->base_url, sizeof cfg->base_url, v, where, full, err);
    if (!strcmp(s, "model"))
        return copy_text(cfg->model, sizeof cfg->model, v, where, full, err);
    if (!strcmp(s, "reasoning_effort"))
        return copy_text(cfg->reasoning_effort, sizeof cfg->reasoning_effort, v, where, full, err);
    if (!strcmp(s, "anthropic_version"))
        return copy_text(cfg->anthropic_version, sizeof cfg->anthropic_version, v, where, full, err);
    if (!strcmp(s, "api_key_env"))
        return copy_text(cfg->api_key_env, sizeof cfg->api_key_env, v, where, full, err);
    if (!strcmp(s, "api_key")) {
        cfg->api_key_line = line;
        return copy_text(cfg->api_key, sizeof cfg->api_key, v, where, full, err);
    }
    if (!strcmp(s, "reasoning"))
        return parse_bool(v, &cfg->reasoning, where, full, err);
    if (!strcmp(s, "stream"))
        return parse_bool(v, &cfg->stream, where, full, err);
    if (!strcmp(s, "stream_usage"))
        return parse_bool(v, &cfg->stream_usage, where, full, err);
    if (!strcmp(s, "max_tokens") || !strcmp(s, "max_retries")) {
        if (parse_int(v, !strcmp(s, "max_tokens") ? 1 : 0, &l, where, full, err) < 0 || l > 100000000)
            return kwb_error_set(err, "%s: %s: expected a whole number, got '%s'", where, full, v);
        *(!strcmp(s, "max_tokens") ? &cfg->max_tokens : &cfg->max_retries) = (int)l;
        return 0;
    }
    if (!strcmp(s, "max_reply_bytes"))
        return parse_int(v, 1024, &cfg->max_reply_bytes, where, full, err);
    if (!strcmp(s, "budget_tokens"))
        return parse_int(v, 0, &cfg->budget_tokens, where, full, err);
    if (!strcmp(s, "temperature")) {
        if (!strcmp(v, "none") || !strcmp(v, "omit")) {
            cfg->temperature = -1;
            return 0;
        }
        return parse_double(v, 0, &cfg->temperature, where, full, err);
    }
    static const struct {
        const char *key;
        size_t off;
    } secs[] = {
        {"connect_timeout", offsetof(agent_config, connect_timeout_s)},
        {"stall_timeout", offsetof(agent_config, stall_timeout_s)},
        {"total_timeout", offsetof(agent_config, total_timeout_s)},
        {"retry_base", offsetof(agent_config, retry_base_s)},
        {"retry_cap", offsetof(agent_config, retry_cap_s)},
        {"retry_after_cap", offsetof(agent_config, retry_after_cap_s)},
        {"command_timeout", offsetof(agent_config, command_timeout_s)},
        {"budget_usd", offsetof(agent_config, budget_usd)},
    };
    for (size_t i = 0; i < sizeof secs / sizeof secs[0]; i++)
        if (!strcmp(s, secs[i].key)) {
            if (parse_double(v, 0, &d, where, full, err) < 0)
                return -1;
            *(double *)((char *)cfg + secs[i].off) = d;
            return 0;
        }
    if (!strcmp(s, "price"))
        return parse_price(cfg, v, where, err);
    if (!strcmp(s, "command"))
        return split_command(cfg, v, where, err);
    extra_set(cfg, full, v, line);
    return 0;
}

/* The short key of FULL when it concerns CFG's agent: *specific set when it names the agent. */
static const char *short_key(const agent_config *cfg, const char *full, int *specific)
{
    if (strncmp(full, "agent.", 6) != 0)
        return NULL;
    const char *rest = full + 6;
    const char *dot = strchr(rest, '.');
    if (!dot) {
        *specific = 0;
        return *rest ? rest : NULL;
    }
    size_t n = strlen(cfg->name);
    if ((size_t)(dot - rest) == n && strncmp(rest, cfg->name, n) == 0 && dot[1]) {
        *specific = 1;
        return dot + 1;
    }
    return NULL;
}

int agentcfg_set(agent_config *cfg, const char *key, const char *value, const char *where, kwb_error *err)
{
    int specific;
    const char *s = short_key(cfg, key, &specific);
    if (!s)
        return 0;
    return apply(cfg, key, s, value, where, 0, err);
}

const char *agentcfg_value(const agent_config *cfg, const char *short_key_name)
{
    const char *generic = NULL;
    size_t n = strlen(cfg->name);
    for (int i = 0; i < cfg->nextra; i++) {
        const char *k = cfg->extra[i].key;
        if (strncmp(k, "agent.", 6) != 0)
            continue;
        k += 6;
        if (strncmp(k, cfg->name, n) == 0 && k[n] == '.' && strcmp(k + n + 1, short_key_name) == 0)
            return cfg->extra[i].value;
        if (strcmp(k, short_key_name) == 0)
            generic = cfg->extra[i].value;
    }
    return generic;
}

const agent_price *agentcfg_price(const agent_config *cfg, const char *model)
{
    for (int i = 0; model && i < cfg->nprices; i++)
        if (strcmp(cfg->prices[i].model, model) == 0)
            return &cfg->prices[i];
    return NULL;
}

/* ---- files --------------------------------------------------------------------------- */

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* `set KEY VALUE` lines; '#' starts a comment line; VALUE may be "double quoted". */
static int read_lines(const char *path, char *text, cfg_lines *ls, kwb_error *err)
{
    int lineno = 0;
    for (char *save = NULL, *raw = text; raw; raw = save) {
        save = strchr(raw, '\n');
        if (save)
            *save++ = '\0';
        lineno++;
        char *s = trim(raw);
        if (!*s || *s == '#')
            continue;
        if (strncmp(s, "set", 3) != 0 || (s[3] != ' ' && s[3] != '\t'))
            return kwb_error_set(err, "%s:%d: expected 'set KEY VALUE', got '%.60s'", path, lineno, s);
        char *key = trim(s + 3);
        char *sp = key + strcspn(key, " \t");
        if (!*sp)
            return kwb_error_set(err, "%s:%d: %s: no value", path, lineno, key);
        *sp = '\0';
        char *value = trim(sp + 1);
        size_t n = strlen(value);
        if (n >= 2 && value[0] == '"' && value[n - 1] == '"' && strchr(value + 1, '"') == value + n - 1) {
            value[n - 1] = '\0';
            value++;
        }
        lines_add(ls, key, value, lineno);
    }
    return 0;
}

/* The JSON text being read, for FILE:LINE in its errors. */
typedef struct json_src {
    const char *path;
    const char *text;
    size_t len;
} json_src;

/* Deepest object nesting under "agent" (agent.NAME.prices.MODEL); deeper is refused, not walked. */
#define AGENTCFG_JSON_DEPTH 4

/* A JSON scalar, or an array of scalars, as the text a `set` line would hold; NULL for anything
 * else (a nested array or an object in an array). */
static char *json_as_text(json_t *v)
{
    if (json_is_string(v))
        return xstrdup(json_string_value(v));
    if (json_is_true(v))
        return xstrdup("yes");
    if (json_is_false(v))
        return xstrdup("no");
    if (json_is_integer(v))
        return xasprintf("%lld", (long long)json_integer_value(v));
    if (json_is_real(v))
        return xasprintf("%.17g", json_real_value(v));
    if (!json_is_array(v))
        return NULL;
    strbuf sb;
    strbuf_init(&sb);
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        char *t = json_is_array(e) ? NULL : json_as_text(e);
        if (!t) {
            strbuf_free(&sb);
            return NULL;
        }
        strbuf_puts(&sb, i ? " \"" : "\"");
        for (const char *c = t; *c; c++) {
            if (*c == '"' || *c == '\\')
                strbuf_add(&sb, "\\", 1);
            strbuf_add(&sb, c, 1);
        }
        strbuf_puts(&sb, "\"");
        free(t);
    }
    return strbuf_detach(&sb);
}

/* The line of the value at POINTER/NAME in the source. */
static int json_line(const json_src *src, const char *pointer, const char *name)
{
    char tok[512];
    char *ptr = xasprintf("%s/%s", pointer, jsonpos_token(name, tok, sizeof tok));
    int line = jsonpos_line(src->text, src->len, ptr);
    free(ptr);
    return line;
}

/* "prices": {"MODEL": [IN, OUT]} at POINTER as `PREFIX.price MODEL IN OUT` lines. */
static int json_prices(const json_src *src, const char *prefix, const char *pointer, json_t *v, cfg_lines *ls,
                       kwb_error *err)
{
    const char *model;
    json_t *pair;
    json_object_foreach(v, model, pair)
    {
        if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_number(json_array_get(pair, 0)) ||
            !json_is_number(json_array_get(pair, 1)))
            return kwb_error_set(err, "%s:%d: %s.prices.%s: expected [INPUT, OUTPUT] dollars per million tokens",
                                 src->path, json_line(src, pointer, model), prefix, model);
        char *val = xasprintf("%s %.17g %.17g", model, json_number_value(json_array_get(pair, 0)),
                              json_number_value(json_array_get(pair, 1)));
        char *pk = xasprintf("%s.price", prefix);
        lines_add(ls, pk, val, json_line(src, pointer, model));
        free(pk);
        free(val);
    }
    return 0;
}

/* The members of OBJ (at JSON Pointer POINTER, DEPTH objects down) as `set` lines with their lines. */
static int json_object_lines(const json_src *src, const char *prefix, const char *pointer, int depth, json_t *obj,
                             cfg_lines *ls, kwb_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v)
    {
        char *key = xasprintf("%s.%s", prefix, k), tok[512];
        char *ptr = xasprintf("%s/%s", pointer, jsonpos_token(k, tok, sizeof tok));
        int rc = 0, line = jsonpos_line(src->text, src->len, ptr);
        if (json_is_object(v) && depth + 1 > AGENTCFG_JSON_DEPTH)
            rc = kwb_error_set(err, "%s:%d: %s: objects nested deeper than %d levels", src->path, line, key,
                               AGENTCFG_JSON_DEPTH);
        else if (!strcmp(k, "prices") && json_is_object(v))
            rc = json_prices(src, prefix, ptr, v, ls, err);
        else if (json_is_object(v))
            rc = json_object_lines(src, key, ptr, depth + 1, v, ls, err);
        else {
            char *t = json_as_text(v);
            if (t)
                lines_add(ls, key, t, line);
            else if (!json_is_null(v))
                rc = kwb_error_set(err, "%s:%d: %s: unsupported value (a string, number, yes/no or a flat list)",
                                   src->path, line, key);
            free(t);
        }
        free(ptr);
        free(key);
        if (rc < 0)
            return -1;
    }
    return 0;
}

static int read_json(const char *path, const char *text, cfg_lines *ls, kwb_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root)
        return kwb_error_set(err, "%s:%d: %s", path, je.line, je.text);
    int rc = 0;
    json_src src = {path, text, strlen(text)};
    json_t *agent = json_object_get(root, "agent");
    if (!json_is_object(root) || (agent && !json_is_object(agent)))
        rc = kwb_error_set(err, "%s:%d: expected {\"agent\": {...}}", path, jsonpos_line(text, src.len, "/agent"));
    else if (agent)
        rc = json_object_lines(&src, "agent", "/agent", 1, agent, ls, err);
    json_decref(root);
    return rc;
}

int agentcfg_load(const char *path, const char *name, agent_config *cfg, kwb_error *err)
{
    agentcfg_defaults(cfg, name);
    struct stat st;
    if (stat(path, &st) != 0)
        return kwb_error_set(err, "%s: %s", path, strerror(errno));
    char *text = strbuf_read_file(path, NULL);
    if (!text)
        return kwb_error_set(err, "%s: %s", path, strerror(errno));
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    cfg->file_mode = st.st_mode & 07777;
    cfg_lines ls = {0};
    char *body = strncmp(text, "\xEF\xBB\xBF", 3) == 0 ? text + 3 : text; /* a UTF-8 byte-order mark */
    const char *first = body + strspn(body, " \t\r\n");
    int rc = *first == '{' ? read_json(path, body, &ls, err) : read_lines(path, body, &ls, err);
    /* the provider first (it brings its own address and key variable), then generic keys, then
       the agent's own, so that the more specific and the explicit settings win */
    for (int pass = 0; rc == 0 && pass < 4; pass++)
        for (int i = 0; rc == 0 && i < ls.n; i++) {
            int specific;
            const char *s = short_key(cfg, ls.v[i].key, &specific);
            if (!s || specific != pass % 2 || (pass < 2) != (strcmp(s, "provider") == 0))
                continue;
            char where[4200];
            if (ls.v[i].line)
                snprintf(where, sizeof where, "%s:%d", path, ls.v[i].line);
            else
                snprintf(where, sizeof where, "%s", path);
            rc = apply(cfg, ls.v[i].key, s, ls.v[i].value, where, ls.v[i].line, err);
        }
    for (int i = 0; i < ls.n; i++) { /* every agent's key, used or not, is redacted */
        size_t kl = strlen(ls.v[i].key);
        if (kl >= 7 && strcmp(ls.v[i].key + kl - 7, "api_key") == 0)
            secrets_register(ls.v[i].value);
    }
    lines_free(&ls);
    free(text);
    if (rc < 0)
        agentcfg_free(cfg);
    else if (cfg->api_key[0])
        secrets_register(cfg->api_key); /* redacted wherever this process writes, used or not */
    return rc;
}

void agentcfg_register_keys(void)
{
    agent_config cfg;
    kwb_error err;
    if (agentcfg_load_default("openai", &cfg, &err) == 0)
        agentcfg_free(&cfg);
}

int agentcfg_load_default(const char *name, agent_config *cfg, kwb_error *err)
{
    char path[4096];
    agentcfg_default_path(path, sizeof path);
    if (access(path, F_OK) != 0) {
        agentcfg_defaults(cfg, name);
        return 0;
    }
    return agentcfg_load(path, name, cfg, err);
}

const char *agentcfg_writer(const char *name)
{
    if (!name || strcmp(name, "tuner") == 0)
        return "tuner";
    agent_config cfg;
    kwb_error err = {{0}};
    const char *writer = strcmp(name, "command") == 0 ? "command" : "llm";
    if (agentcfg_load_default(name, &cfg, &err) == 0) {
        writer = strcmp(cfg.provider, "command") == 0 ? "command" : "llm";
        agentcfg_free(&cfg);
    }
    return writer;
}

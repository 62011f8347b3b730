/* agentcfg.h - the agents' configuration: provider, address, model, limits, retries, prices
 * and budget for each named agent, read from a file of `set agent.NAME.KEY VALUE` lines or
 * from a JSON file ({"agent": {"NAME": {"KEY": VALUE}}}). Keys are documented in man/kwb.1
 * (AGENT CONFIGURATION). A key `agent.KEY` is the default for every agent; `agent.NAME.KEY`
 * overrides it for agent NAME. */
#ifndef KWB_AGENTCFG_H
#define KWB_AGENTCFG_H

#include <sys/types.h>

#include "error.h"

#define AGENTCFG_MAX_PRICES 32
#define AGENTCFG_MAX_ARGS 32

/* Dollars per million tokens for one model (`set agent.price MODEL IN OUT`). */
typedef struct agent_price {
    char model[128];
    double in_per_mtok;
    double out_per_mtok;
} agent_price;

/* One key the parser does not interpret itself, kept for other modules (agentcfg_value). */
typedef struct agentcfg_entry {
    char *key; /* full key, e.g. "agent.openai.references" */
    char *value;
    int line; /* where it was set, 0 for defaults */
} agentcfg_entry;

/* The settings of one agent. Plain values, plus `extra` (owned: agentcfg_free releases it). */
typedef struct agent_config {
    char name[32];      /* the agent's name: "openai", "anthropic", "command", "local", ... */
    char provider[32];  /* wire protocol: "openai", "anthropic" or "command" (default: the name
                           when it is one of those, else "openai") */
    char base_url[512]; /* e.g. "https://api.openai.com/v1", "http://127.0.0.1:8080/v1" */
    char model[128];
    int max_tokens;             /* output cap (default 8192) */
    int reasoning;              /* 1: OpenAI reasoning variant: max_completion_tokens, no temperature */
    char reasoning_effort[16];  /* "" or "low"/"medium"/"high": sent as reasoning_effort when reasoning */
    double temperature;         /* < 0: not sent (default -1) */
    int stream;                 /* 1: stream over SSE (default 1) */
    int stream_usage;           /* OpenAI: 1 sends stream_options.include_usage (default 1; some servers
                                   such as Mistral's, Groq's or older Ollama reject it) */
    char anthropic_version[32]; /* default "2023-06-01" */
    double connect_timeout_s;   /* default 10 */
    double stall_timeout_s;     /* no byte for this long ends the attempt (default 120) */
    double total_timeout_s;     /* a call (every attempt and wait) past this fails (default 1800; 0: none) */
    long max_reply_bytes;       /* a reply body past this many bytes is stopped (default 8 MiB) */
    int max_retries;            /* retries after the first attempt (default 3) */
    double retry_base_s;        /* first backoff delay (default 0.5), doubled each retry */
    double retry_cap_s;         /* backoff cap (default 8) */
    double retry_after_cap_s;   /* a longer retry-after fails instead of waiting (default 60) */
    char api_key_env[64];       /* variable holding the key (default OPENAI_API_KEY/ANTHROPIC_API_KEY) */
    char api_key[512];          /* a key written in the file ("" if none); use secrets_api_key() */
    char path[4096];            /* the file read ("" when none) */
    mode_t file_mode;           /* that file's permission bits */
    int api_key_line;           /* line of the key in that file */
    agent_price prices[AGENTCFG_MAX_PRICES];
    int nprices;
    double budget_usd;                         /* session cost budget in dollars; 0: none */
    long budget_tokens;                        /* session token budget (in + out); 0: none */
    char command_args[AGENTCFG_MAX_ARGS][512]; /* `command` agent: argv, split on blanks, "..." quoting */
    int command_argc;
    double command_timeout_s; /* `command` agent's wall-clock limit (default 1800) */
    agentcfg_entry *extra;    /* every key of this agent (and agent.* defaults) not listed above */
    int nextra;
} agent_config;

/* Registers for redaction (secrets_register) every API key written in the default agents.conf,
 * for any agent; a missing or bad file registers nothing and says nothing. */
void agentcfg_register_keys(void);

/* Fills CFG with the built-in defaults for agent NAME (no file read). */
void agentcfg_defaults(agent_config *cfg, const char *name);

/* Reads PATH (lines or JSON) and fills CFG for agent NAME over the defaults; a key in the file is
 * registered for secrets_redact. A missing PATH is an error; bad lines give "PATH:LINE: problem".
 * 0, or -1 with *err set. Free CFG with agentcfg_free. */
int agentcfg_load(const char *path, const char *name, agent_config *cfg, kwb_error *err);

/* Like agentcfg_load from the default file (agentcfg_default_path), or defaults only when that file
 * does not exist. 0, or -1 with *err set. */
int agentcfg_load_default(const char *name, agent_config *cfg, kwb_error *err);

/* Who writes a candidate with agent NAME, as the store records it (kwb eval --origin): "tuner"
 * for the built-in tuner (or NULL), "command" for a command agent (its provider), else "llm". */
const char *agentcfg_writer(const char *name);

/* Writes the default file's path into BUF: $KWB_AGENT_CONFIG, else $XDG_CONFIG_HOME/kwb/agents.conf,
 * else $HOME/.config/kwb/agents.conf. Returns BUF. */
char *agentcfg_default_path(char *buf, size_t cap);

/* Applies one setting "KEY VALUE" (KEY as in the file, e.g. "agent.openai.model") to CFG, as a
 * command-line override would; WHERE names the origin for messages. 0, or -1 with *err set. */
int agentcfg_set(agent_config *cfg, const char *key, const char *value, const char *where, kwb_error *err);

/* The value of an uninterpreted key for CFG's agent: `agent.NAME.SHORT`, else `agent.SHORT`;
 * NULL when unset. The string belongs to CFG. */
const char *agentcfg_value(const agent_config *cfg, const char *short_key);

/* The price entry for MODEL (exact name), or NULL when the table has none. */
const agent_price *agentcfg_price(const agent_config *cfg, const char *model);

/* Releases CFG's owned memory (extra keys); CFG stays valid with defaults' plain values. */
void agentcfg_free(agent_config *cfg);

#endif

/* agent.h - the agent interface (DESIGN.md section 11): an agent turns one chosen direction
 * into a candidate, a new solution folder written from the current best, with its diff.
 * Agents: "tuner" (built in, offline: the direction is a knob change, tuner.h); the LLM
 * providers and CLI agents register behind the same call. */
#ifndef KWB_AGENT_H
#define KWB_AGENT_H

#include "directions.h"
#include "error.h"
#include "strbuf.h"

struct agent_config; /* an agent's settings (provider, model, command, budget); see agentcfg.h */

/* Progress from an agent: KIND "status" (a line for people), "text" (model text as it
 * streams), "call" (one finished LLM call, as JSON). */
typedef void (*agent_progress_fn)(void *ctx, const char *kind, const char *text);

/* One piece of work for an agent. */
typedef struct agent_task {
    const char *definition_path; /* the definition JSON */
    const char *best_dir;        /* the current best solution folder: read only */
    const char *out_dir;         /* the new candidate folder (must not exist yet) */
    const direction *dir;        /* the chosen direction */
    const char *context;         /* per-workload table, bottleneck evidence, earlier attempts (may be NULL) */
    agent_progress_fn progress;  /* may be NULL */
    void *progress_ctx;
    volatile int *cancel;   /* nonzero: stop soon (may be NULL) */
    const char *files_base; /* prefix of the transcript, log and prompt files (NULL: out_dir) */
} agent_task;

/* What an agent did. */
typedef struct agent_outcome {
    strbuf diff; /* unified diff from best_dir to out_dir */
    int calls, tokens_in, tokens_out;
    double cost, seconds;
    char transcript[4096]; /* the transcript file kept with the round, or "" */
} agent_outcome;

/* An empty outcome (free with agent_outcome_free). */
void agent_outcome_init(agent_outcome *o);
/* Frees what O owns. */
void agent_outcome_free(agent_outcome *o);
/* Nonzero when NAME is an agent this kwb knows. */
int agent_known(const char *name);
/* Writes the candidate for T->dir into T->out_dir with agent NAME, configured by CFG (NULL
 * for the tuner). Returns 0, or -1 with *err set and T->out_dir removed. */
int agent_write(const char *name, const struct agent_config *cfg, const agent_task *t, agent_outcome *o,
                kwb_error *err);
/* The tuner agent: applies the knob change T->dir->id ("tune.NAME=VALUE") to T->best_dir. */
int agent_tuner_write(const agent_task *t, agent_outcome *o, kwb_error *err);

#endif

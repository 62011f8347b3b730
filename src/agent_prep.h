/* agent_prep.h - what the LLM and command agents share before and after the model works: the
 * editable scope of a task (the best's sources and the direction's scope globs), the
 * reconnaissance of the direction's references, the prompt, the files kept with the round
 * (OUT_DIR.prompt.md, OUT_DIR.transcript.jsonl, OUT_DIR.agent.log beside the candidate folder),
 * and the final diff. */
#ifndef KWB_AGENT_PREP_H
#define KWB_AGENT_PREP_H

#include "agent.h"
#include "agentcfg.h"
#include "edits.h"
#include "solution.h"
#include "store.h"
#include "strbuf.h"

/* A task made ready. */
typedef struct agent_prep {
    solution *best;       /* the current best, loaded */
    const char **sources; /* its source paths (point into best) */
    edits_scope scope;
    strbuf system;     /* the system prompt */
    strbuf user;       /* the first user turn */
    strbuf consulted;  /* the reference folders consulted, comma separated ("" for none) */
    char *transcript;  /* OUT_DIR.transcript.jsonl */
    char *log;         /* OUT_DIR.agent.log */
    char *prompt_file; /* OUT_DIR.prompt.md: system and user prompt as one text */
} agent_prep;

/* Loads T's best, works out the scope, runs the reconnaissance (references from the skill and
 * CFG's `references` key, comma separated) and builds the prompt; reports progress on T. Writes
 * OUT_DIR.prompt.md. Returns 0, or -1 with *err set; free with agent_prep_free either way. */
int agent_prep_task(const agent_config *cfg, const agent_task *t, agent_prep *p, kwb_error *err);
/* Frees what P holds. */
void agent_prep_free(agent_prep *p);

/* The round's context for the prompt (agent_task.context): the per-workload table of candidate
 * BEST of SESSION from the store (uuid, axes from the dataset's workloads of DEF_NAME, status,
 * median and baseline latency, speedup, roofline share, GB/s), the line EVIDENCE (bottleneck and
 * regimes; may be NULL), and the session's decided directions with outcome and reason (error
 * tails included), oldest first. The caller frees it. */
char *agent_context_build(store *st, int64_t session, int64_t best, const char *def_name, const char *evidence);

/* Records the finished call CALL_JSON (the text of a "call" progress event) as a row of
 * SESSION's agent calls; LINE (CAP bytes) gets a one-line summary for the log. 0, or -1 with
 * *err set (LINE still filled). */
int agent_call_record(store *st, int64_t session, const char *call_json, char *line, size_t cap, kwb_error *err);

/* 1 when SESSION's agent calls recorded in ST have reached CFG's session budget (*err says
 * which; *calls, when CALLS is not NULL, their count), else 0. A store that cannot be read
 * counts as nothing spent. */
int agent_budget_spent(store *st, int64_t session, const agent_config *cfg, int *calls, kwb_error *err);

/* Sends KIND and TEXT to T's progress function, when it has one. */
void agent_say(const agent_task *t, const char *kind, const char *text);
/* Appends one JSON object line to P's transcript: {"kind": KIND, ...FIELDS}, every string passed
 * through secrets_redact. FIELDS are NULL-terminated KEY, VALUE string pairs. */
void agent_transcript(const agent_prep *p, const char *kind, ...) __attribute__((sentinel));
/* Fills O's diff from T->best_dir to T->out_dir; an empty diff is an error ("the agent changed
 * nothing"). Returns 0 or -1 with *err set. */
int agent_finish_diff(const agent_task *t, agent_outcome *o, kwb_error *err);

#endif

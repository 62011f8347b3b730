/* agent_llm.h - the agents behind agent_write() other than the tuner: `openai` and `anthropic`
 * (an LLM over HTTP, src/llm.h) and `command` (an external CLI agent run in a scratch copy). */
#ifndef KWB_AGENT_LLM_H
#define KWB_AGENT_LLM_H

#include "agent.h"
#include "agentcfg.h"
#include "error.h"

/* Writes T's candidate with the LLM agent CFG (provider openai or anthropic): prompt, call,
 * edits applied, one retry turn with the failure report when a block does not apply. Each call
 * is reported as a "call" progress event and kept in OUT_DIR.transcript.jsonl. Returns 0, or -1
 * with *err set and T->out_dir removed (the transcript stays). */
int agent_llm_write(const agent_config *cfg, const agent_task *t, agent_outcome *o, kwb_error *err);

/* Writes T's candidate with the CLI agent CFG->command_args: run without a shell in a scratch
 * copy of the best, the prompt on stdin, output into OUT_DIR.agent.log, killed after
 * CFG->command_timeout_s or on cancel; the files it changed (checked against the scope) are the
 * candidate. Returns 0, or -1 with *err set and T->out_dir removed. */
int agent_command_write(const agent_config *cfg, const agent_task *t, agent_outcome *o, kwb_error *err);

#endif

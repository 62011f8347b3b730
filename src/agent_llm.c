/* agent_llm.c - the `openai` and `anthropic` agents: the prompt goes to the model through
 * src/llm.h (streamed text shown as progress), the reply's edits are applied to a copy of the
 * best (src/edits.h); when a block does not apply, the failure report goes back for one retry
 * turn. Every call is reported as a "call" progress event (one JSON line: tokens, cost,
 * seconds, status) and kept in full, credentials redacted, in OUT_DIR.transcript.jsonl. */
#include "agent_llm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_prep.h"
#include "ftree.h"
#include "llm.h"
#include "paths.h"
#include "prompt.h"
#include "proc.h"
#include "secrets.h"
#include "xalloc.h"

/* Bytes of the model's first answer sent back in the retry turn (head and tail kept). */
#define AGENT_RETRY_ECHO_MAX (32u << 10)

/* One call with the conversation MSGS[0..N); accounts it in O, keeps it in the transcript and
 * reports it. Returns 0, or -1 with *err set. */
static int one_call(const agent_config *cfg, const agent_task *t, const agent_prep *p, const llm_message *msgs, int n,
                    strbuf *reply, agent_outcome *o, kwb_error *err)
{
    llm_request req = {p->system.s, msgs, n};
    llm_result r;
    llm_result_init(&r);
    int rc = llm_call(cfg, &req, t->progress, t->progress_ctx, t->cancel, &r, err);
    o->calls++;
    o->tokens_in += r.tokens_in > 0 ? (int)r.tokens_in : 0;
    o->tokens_out += r.tokens_out > 0 ? (int)r.tokens_out : 0;
    o->cost += r.cost;
    char *summary = llm_result_json(&r);
    /* the summary with the outcome, for the store's agent-call row */
    strbuf call;
    strbuf_init(&call);
    strbuf_add(&call, summary, strlen(summary) - 1);
    strbuf_printf(&call, ",\"turn\":%d,\"status\":\"%s\"}", n / 2 + 1, rc == 0 ? "ok" : "error");
    agent_say(t, "call", call.s);
    agent_transcript(p, "call", "summary", call.s, "request", r.request.s, "response", r.response.s, "text", r.text.s,
                     "reasoning", r.reasoning.s, "attempts", r.attempts_log.s, "error", rc == 0 ? "" : err->msg,
                     (char *)NULL);
    if (rc == 0)
        strbuf_add(reply, r.text.s, r.text.len);
    strbuf_free(&call);
    free(summary);
    llm_result_free(&r);
    return rc;
}

/* Applies REPLY to the candidate; 0, or -1 with *err and REPORT (the text for the retry turn). */
static int apply_reply(const agent_task *t, const agent_prep *p, const char *reply, strbuf *report, kwb_error *err)
{
    int rc = edits_apply(t->out_dir, reply, &p->scope, report, err);
    agent_transcript(p, "edits", "outcome", rc == 0 ? "applied" : "failed", "report", report->s, (char *)NULL);
    agent_say(t, "status", rc == 0 ? "edits applied" : err->msg);
    return rc;
}

int agent_llm_write(const agent_config *cfg, const agent_task *t, agent_outcome *o, kwb_error *err)
{
    double t0 = proc_now();
    agent_prep p;
    int rc = agent_prep_task(cfg, t, &p, err);
    if (rc == 0)
        rc = ftree_copy(t->best_dir, t->out_dir, err);
    snprintf(o->transcript, sizeof o->transcript, "%s", p.transcript ? p.transcript : "");
    strbuf reply, report, retry, echo;
    strbuf_init(&echo);
    strbuf_init(&reply);
    strbuf_init(&report);
    strbuf_init(&retry);
    if (rc == 0) {
        char line[1024];
        snprintf(line, sizeof line, "%s: asking %s at %s", cfg->name, cfg->model[0] ? cfg->model : "the model",
                 cfg->base_url);
        agent_say(t, "status", line);
        llm_message msgs[3] = {{"user", p.user.s}, {"assistant", NULL}, {"user", NULL}};
        rc = one_call(cfg, t, &p, msgs, 1, &reply, o, err);
        if (rc == 0 && apply_reply(t, &p, reply.s, &report, err) != 0) {
            /* one retry turn: the failure report, the closest lines; the folder is unchanged. The
               model's first answer goes back clipped (its edits, not a runaway reply), and no key
               goes back at all. */
            strbuf_free(&echo);
            strbuf_init(&echo);
            prompt_clip(reply.s, AGENT_RETRY_ECHO_MAX, &echo);
            prompt_retry(report.s, &retry);
            secrets_redact_strbuf(&echo);
            secrets_redact_strbuf(&retry);
            msgs[1].content = echo.s;
            msgs[2].content = retry.s;
            agent_say(t, "status", "the edit did not apply: one retry turn with the failure report");
            strbuf second;
            strbuf_init(&second);
            strbuf_free(&report);
            strbuf_init(&report);
            rc = one_call(cfg, t, &p, msgs, 3, &second, o, err);
            if (rc == 0 && (rc = apply_reply(t, &p, second.s, &report, err)) != 0)
                kwb_error_prefix(err, "after one retry turn");
            strbuf_free(&second);
        }
    }
    if (rc == 0)
        rc = agent_finish_diff(t, o, err);
    if (rc != 0) {
        agent_transcript(&p, "failed", "error", err->msg, (char *)NULL);
        paths_remove_tree(t->out_dir);
    }
    strbuf_free(&reply);
    strbuf_free(&report);
    strbuf_free(&retry);
    strbuf_free(&echo);
    agent_prep_free(&p);
    o->seconds = proc_now() - t0;
    return rc;
}

/* agent.c - agent dispatch and the built-in tuner agent (see agent.h). */
#include "agent.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "agent_llm.h"
#include "agentcfg.h"
#include "paths.h"
#include "proc.h"
#include "solution.h"
#include "tuner.h"

void agent_outcome_init(agent_outcome *o)
{
    memset(o, 0, sizeof *o);
    strbuf_init(&o->diff);
}

void agent_outcome_free(agent_outcome *o)
{
    strbuf_free(&o->diff);
}

static const char *const agents[] = {"tuner", "openai", "anthropic", "command", NULL};

int agent_known(const char *name)
{
    for (int i = 0; agents[i]; i++)
        if (strcmp(agents[i], name) == 0)
            return 1;
    return 0;
}

static void say(const agent_task *t, const char *kind, const char *text)
{
    if (t->progress)
        t->progress(t->progress_ctx, kind, text);
}

/* The knob and value named by a tuner direction id "tune.NAME=VALUE" into *p. */
static int tuner_proposal_of(const tuner_knob *k, int nk, const char *id, tuner_proposal *p, kwb_error *err)
{
    const char *eq = strchr(id, '=');
    if (strncmp(id, "tune.", 5) != 0 || !eq)
        return kwb_error_set(err, "direction '%s' is not a tuner direction (tune.KNOB=VALUE)", id);
    size_t len = (size_t)(eq - id - 5);
    for (int i = 0; i < nk; i++) {
        if (strlen(k[i].name) != len || strncmp(k[i].name, id + 5, len) != 0)
            continue;
        for (int j = 0; j < k[i].nvalues; j++)
            if (strcmp(k[i].values[j], eq + 1) == 0) {
                memset(p, 0, sizeof *p);
                snprintf(p->id, sizeof p->id, "%s", id);
                snprintf(p->title, sizeof p->title, "set %s %s -> %s", k[i].name, k[i].value, k[i].values[j]);
                p->knob = &k[i];
                p->to = k[i].values[j];
                return 0;
            }
        return kwb_error_set(err, "direction '%s': %s is not among knob %s's declared values", id, eq + 1,
                             k[i].name);
    }
    return kwb_error_set(err, "direction '%s': the solution declares no knob %.*s", id, (int)len, id + 5);
}

int agent_tuner_write(const agent_task *t, agent_outcome *o, kwb_error *err)
{
    double t0 = proc_now();
    solution *best = solution_load(t->best_dir, err);
    if (!best)
        return -1;
    tuner_knob *k = NULL;
    int nk = 0, rc = -1;
    tuner_proposal p;
    if (tuner_scan(best, &k, &nk, err) == 0 && tuner_proposal_of(k, nk, t->dir->id, &p, err) == 0) {
        char line[256];
        snprintf(line, sizeof line, "tuner: %s", p.title);
        say(t, "status", line);
        rc = tuner_apply(best, &p, t->out_dir, &o->diff, err);
        if (rc != 0)
            paths_remove_tree(t->out_dir);
    }
    tuner_knobs_free(k, nk);
    solution_free(best);
    o->seconds = proc_now() - t0;
    return rc;
}

int agent_write(const char *name, const struct agent_config *cfg, const agent_task *t, agent_outcome *o,
                kwb_error *err)
{
    struct stat st;
    if (stat(t->out_dir, &st) == 0)
        return kwb_error_set(err, "%s: already exists; a candidate is written into a new folder", t->out_dir);
    if (t->cancel && *t->cancel)
        return kwb_error_set(err, "cancelled");
    if (strcmp(name, "tuner") == 0)
        return agent_tuner_write(t, o, err);
    if (!agent_known(name))
        return kwb_error_set(err, "unknown agent '%s' (known: tuner, openai, anthropic, command)", name);
    /* the LLM and command agents: their callers load the configuration (and check its budget) */
    if (!cfg)
        return kwb_error_set(err, "agent '%s' needs its configuration", name);
    return strcmp(cfg->provider, "command") == 0 ? agent_command_write(cfg, t, o, err)
                                                 : agent_llm_write(cfg, t, o, err);
}

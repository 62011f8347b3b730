/* agent.c - agent dispatch and the built-in tuner agent (see agent.h). */
#include "agent.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent_llm.h"
#include "agentcfg.h"
#include "ftree.h"
#include "paths.h"
#include "proc.h"
#include "secrets.h"
#include "solution.h"
#include "tuner.h"
#include "xalloc.h"

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
        return kwb_error_set(err, "direction '%s': %s is not among knob %s's declared values", id, eq + 1, k[i].name);
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

/* The agent's progress on its way to the caller: every line redacted; streamed text through a
 * secrets_stream, so that a key split between pieces is caught too. */
typedef struct redacting {
    agent_progress_fn progress;
    void *ctx;
    secrets_stream text;
} redacting;

static void redact_progress(void *ctx, const char *kind, const char *text)
{
    redacting *r = ctx;
    int streamed = strcmp(kind, "text") == 0;
    char *clean = streamed ? secrets_stream_feed(&r->text, text, strlen(text)) : secrets_redact(text);
    if (r->progress && (!streamed || *clean))
        r->progress(r->ctx, kind, clean);
    free(clean);
}

/* Refuses the candidate folder DIR when a file in it holds a key kwb knows (the file is named,
 * never the key). */
static int refuse_keys(const char *dir, kwb_error *err)
{
    char **files;
    int n, rc = 0;
    if (ftree_list(dir, &files, &n, err) != 0)
        return -1;
    for (int i = 0; i < n && rc == 0; i++) {
        char *path = xasprintf("%s/%s", dir, files[i]), *text = strbuf_read_file(path, NULL);
        if (text && secrets_contains_key(text))
            rc = kwb_error_set(err, "%s holds an API key known to kwb: the candidate is refused", files[i]);
        free(text);
        free(path);
    }
    ftree_list_free(files, n);
    return rc;
}

/* The agent NAME writing into T's folder (T->out_dir is the scratch folder). */
static int dispatch(const char *name, const struct agent_config *cfg, const agent_task *t, agent_outcome *o,
                    kwb_error *err)
{
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

int agent_write(const char *name, const struct agent_config *cfg, const agent_task *t, agent_outcome *o, kwb_error *err)
{
    struct stat st;
    if (stat(t->out_dir, &st) == 0)
        return kwb_error_set(err, "%s: already exists; a candidate is written into a new folder", t->out_dir);
    if (t->cancel && *t->cancel)
        return kwb_error_set(err, "cancelled");
    /* written under a scratch name and renamed when complete: a killed write leaves no OUT behind,
       and its scratch folder is taken away by the next write to OUT */
    char *partial = xasprintf("%s.partial", t->out_dir);
    paths_remove_tree(partial);
    redacting red = {t->progress, t->progress_ctx, {{0}}};
    secrets_stream_init(&red.text);
    agent_task scratch = *t;
    scratch.out_dir = partial;
    scratch.files_base = t->files_base ? t->files_base : t->out_dir;
    scratch.progress = redact_progress;
    scratch.progress_ctx = &red;
    int rc = dispatch(name, cfg, &scratch, o, err);
    char *rest = secrets_stream_flush(&red.text);
    if (*rest && t->progress)
        t->progress(t->progress_ctx, "text", rest);
    free(rest);
    if (rc == 0)
        rc = refuse_keys(partial, err);
    if (rc == 0 && rename(partial, t->out_dir) != 0)
        rc = kwb_error_set(err, "%s: cannot move into place: %s", t->out_dir, strerror(errno));
    if (rc != 0) {
        paths_remove_tree(partial);
        strbuf_free(&o->diff);
        strbuf_init(&o->diff);
        char *clean = secrets_redact(err->msg); /* an error may quote the reply */
        snprintf(err->msg, sizeof err->msg, "%s", clean);
        free(clean);
    }
    free(partial);
    return rc;
}

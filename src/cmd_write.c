/* cmd_write.c - `kwb write`: the chosen direction, the session's best (or --from) and an agent
 * give a new candidate folder and its diff. With --events, progress goes to stdout as JSON
 * lines for the workbench (contract in kwb(1)); SIGTERM or SIGINT cancels the agent. */
#include "cmd_write.h"

#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "agent_prep.h"
#include "agentcfg.h"
#include "roundctx.h"
#include "suggest.h"

static volatile int cancel_flag;

static void on_cancel(int sig)
{
    (void)sig;
    cancel_flag = 1;
}

static void usage(FILE *f)
{
    fputs("usage: kwb write --session NAME --direction ID --out DIR [--agent NAME] [--from DIR]\n"
          "                 [--files-as PATH] [--workspace DIR] [--events]\n",
          f);
}

/* Prints one event as a JSON line: {"event": KIND, KEY: TEXT}. */
static void emit(const char *kind, const char *key, const char *text)
{
    json_t *o = json_pack("{s:s, s:s}", "event", kind, key, text ? text : "");
    char *s = json_dumps(o, JSON_COMPACT);
    printf("%s\n", s);
    fflush(stdout);
    free(s);
    json_decref(o);
}

/* Where progress goes: events on stdout or text on stderr; finished calls into the store. */
typedef struct write_progress {
    int events;
    store *st;
    int64_t session;
} write_progress;

static void on_progress(void *ctx, const char *kind, const char *text)
{
    write_progress *w = ctx;
    if (strcmp(kind, "call") == 0) {
        char line[512];
        kwb_error err = {{0}};
        if (agent_call_record(w->st, w->session, text, line, sizeof line, &err) != 0)
            fprintf(stderr, "kwb write: agent call not recorded: %s\n", err.msg);
        if (!w->events)
            fprintf(stderr, "kwb write: agent call: %s\n", line);
    }
    if (w->events) {
        emit(kind, "text", text);
    } else if (strcmp(kind, "text") == 0) {
        fputs(text, stderr);
    } else if (strcmp(kind, "call") != 0) {
        fprintf(stderr, "kwb write: %s\n", text);
    }
}

/* The direction ID as the agent gets it: a skill direction with its guidance and scope, or a
 * tuner direction by its id alone. */
static int find_direction(const round_ctx *c, const char *id, direction *d, kwb_error *err)
{
    memset(d, 0, sizeof *d);
    snprintf(d->id, sizeof d->id, "%s", id);
    if (strncmp(id, "tune.", 5) == 0) {
        snprintf(d->source, sizeof d->source, "tuner");
        snprintf(d->title, sizeof d->title, "%s", id);
        return 0;
    }
    for (int i = 0; i < c->skills.n; i++)
        for (int j = 0; j < c->skills.skills[i].ndirs; j++)
            if (strcmp(c->skills.skills[i].dirs[j].id, id) == 0) {
                d->skill = &c->skills.skills[i];
                d->sd = &c->skills.skills[i].dirs[j];
                snprintf(d->source, sizeof d->source, "skill");
                snprintf(d->title, sizeof d->title, "%s", d->sd->title);
                return 0;
            }
    return kwb_error_set(err, "no direction '%s' in the skills or the tuner (kwb propose lists them)", id);
}

int cmd_write(int argc, char **argv)
{
    static const struct option opts[] = {
        {"session", required_argument, NULL, 'S'},  {"workspace", required_argument, NULL, 'W'},
        {"agent", required_argument, NULL, 'a'},    {"direction", required_argument, NULL, 'd'},
        {"out", required_argument, NULL, 'o'},      {"from", required_argument, NULL, 'f'},
        {"files-as", required_argument, NULL, 'F'}, {"events", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
    };
    const char *session = NULL, *ws_dir = NULL, *agent = "tuner", *id = NULL, *out = NULL, *from = NULL,
               *files_as = NULL;
    int events = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'S': session = optarg; break;
        case 'W': ws_dir = optarg; break;
        case 'a': agent = optarg; break;
        case 'd': id = optarg; break;
        case 'o': out = optarg; break;
        case 'f': from = optarg; break;
        case 'F': files_as = optarg; break;
        case 'e': events = 1; break;
        case 'h': usage(stdout); return 0;
        default:
            suggest_bad_option("write", argv, opts);
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc || !id || !out) {
        fprintf(stderr, "kwb write: %s\n",
                optind < argc ? "unexpected argument" : "--direction and --out are required");
        usage(stderr);
        return 2;
    }
    round_ctx rc;
    /* read-write: the agent's calls become rows of the session's agent calls */
    if (round_ctx_open_for("kwb write", ws_dir, session, agent, 0, &rc) != 0)
        return 2;
    kwb_error err = {{0}};
    direction d;
    int code = 0;
    if (!from && !(from = rc.best_dir)) {
        kwb_error_set(&err, "session '%s' has no promoted candidate to start from (give --from DIR)", rc.session_name);
        code = 2;
    } else if (find_direction(&rc, id, &d, &err) != 0) {
        code = 2;
    }
    if (code) {
        if (events)
            emit("error", "message", err.msg);
        fprintf(stderr, "kwb write: %s\n", err.msg);
        round_ctx_close(&rc);
        return code;
    }
    agent_config cfg;
    int have_cfg = 0;
    if (strcmp(agent, "tuner") != 0) {
        if (agentcfg_load_default(agent, &cfg, &err) != 0)
            code = 2;
        else if ((have_cfg = 1, agent_budget_spent(rc.h.st, rc.session, &cfg, NULL, &err))) /* as kwb run stops */
            code = 1;
    }
    if (code) {
        if (events)
            emit("error", "message", err.msg);
        fprintf(stderr, "kwb write: %s\n", err.msg);
        if (have_cfg)
            agentcfg_free(&cfg);
        round_ctx_close(&rc);
        return code;
    }
    signal(SIGTERM, on_cancel);
    signal(SIGINT, on_cancel);
    /* the per-workload table, bottleneck and earlier directions for an LLM or CLI agent's prompt */
    int64_t best_id = 0;
    char evidence[128];
    snprintf(evidence, sizeof evidence, "class %s, latency-weighted roofline share %.0f%%", rc.cls,
             100.0 * rc.roofline);
    kwb_error cerr = {{0}};
    store_candidate_promoted(rc.h.st, rc.session, &best_id, NULL, &cerr);
    char *context =
        strcmp(agent, "tuner") ? agent_context_build(rc.h.st, rc.session, best_id, rc.definition, evidence) : NULL;
    write_progress progress = {events, rc.h.st, rc.session};
    agent_task t = {
        .definition_path = rc.definition_path,
        .best_dir = from,
        .out_dir = out,
        .dir = &d,
        .context = context,
        .progress = on_progress,
        .progress_ctx = &progress,
        .cancel = &cancel_flag,
        .files_base = files_as, /* the caller renames OUT to that: the agent's files are named for it */
    };
    agent_outcome o;
    agent_outcome_init(&o);
    if (agent_write(agent, have_cfg ? &cfg : NULL, &t, &o, &err) != 0) {
        if (events)
            emit("error", "message", err.msg);
        fprintf(stderr, "kwb write: %s\n", err.msg);
        code = 1;
    } else if (events) {
        json_t *ev = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:f}", "event", "done", "dir", out,
                               "direction", id, "diff", o.diff.s ? o.diff.s : "", "calls", o.calls, "tokens_in",
                               o.tokens_in, "tokens_out", o.tokens_out, "cost", o.cost, "seconds", o.seconds);
        char *s = json_dumps(ev, JSON_COMPACT);
        printf("%s\n", s);
        free(s);
        json_decref(ev);
    } else {
        fputs(o.diff.s ? o.diff.s : "", stdout);
    }
    agent_outcome_free(&o);
    free(context);
    if (have_cfg)
        agentcfg_free(&cfg);
    round_ctx_close(&rc);
    return code;
}

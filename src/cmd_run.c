/* cmd_run.c - `kwb run`: the round loop of DESIGN.md section 1 without the terminal UI.
 *
 * Each round: a direction is proposed (the tuner's knob change, or the best-ranked untried
 * skill direction for an LLM or command agent); the human accepts it (y/n/e on stdin) or, with
 * --auto, the policy does; the candidate folder is written with its diff; the harness judges it
 * (judge.h: gate on each regime's representative, sweep of every workload, replay where the
 * definition asks for it, each a child `kwb eval` recorded in the session); then `kwb decide`
 * promotes it or rejects it with the reason. Directions and their decisions are stored too, so
 * a rejected one is not proposed again. Children are kwb itself: a crash in one round is that
 * round's failure, and the session in the store is never left half-written. */
#include "cmd_run.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdarg.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_prep.h"
#include "agentcfg.h"
#include "judge.h"
#include "paths.h"
#include "proc.h"
#include "roundctx.h"
#include "solution.h"
#include "strbuf.h"
#include "supervisor.h"
#include "tuner.h"
#include "wsopen.h"
#include "xalloc.h"
#include "suggest.h"

typedef struct run_args {
    const char *definition;
    const char *solution;
    const char *session;
    const char *workspace;
    const char *agent;
    const char *device;
    const char *filter;
    const char *max_time;
    int rounds;
    int auto_mode;
    int plateau;
} run_args;

static void run_usage(FILE *f)
{
    fputs("usage: kwb run --definition NAME --solution DIR --session NAME [--rounds N]\n"
          "               [--agent tuner|openai|anthropic|command]\n"
          "               [--auto] [--device cpu|cuda[:N]] [--workloads FILTER] [--max-time S]\n"
          "               [--plateau N] [--workspace DIR]\n",
          f);
}

static int parse_run_args(int argc, char **argv, run_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'}, {"solution", required_argument, NULL, 's'},
        {"session", required_argument, NULL, 'S'},    {"workspace", required_argument, NULL, 'W'},
        {"agent", required_argument, NULL, 'a'},      {"device", required_argument, NULL, 'v'},
        {"workloads", required_argument, NULL, 'w'},  {"max-time", required_argument, NULL, 'm'},
        {"rounds", required_argument, NULL, 'r'},     {"auto", no_argument, NULL, 'A'},
        {"plateau", required_argument, NULL, 'p'},    {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (run_args){.agent = "tuner", .device = "cpu", .rounds = 5, .plateau = 3};
    int c;
    char *end;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 's': a->solution = optarg; break;
        case 'S': a->session = optarg; break;
        case 'W': a->workspace = optarg; break;
        case 'a': a->agent = optarg; break;
        case 'v': a->device = optarg; break;
        case 'w': a->filter = optarg; break;
        case 'm': a->max_time = optarg; break;
        case 'A': a->auto_mode = 1; break;
        case 'r':
        case 'p': {
            long v = strtol(optarg, &end, 10);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 10000) {
                fprintf(stderr, "kwb run: --%s: '%s' is not a whole number from 1 to 10000\n",
                        c == 'r' ? "rounds" : "plateau", optarg);
                return -1;
            }
            *(c == 'r' ? &a->rounds : &a->plateau) = (int)v;
            break;
        }
        case 'h': run_usage(stdout); exit(0);
        default: suggest_bad_option("run", argv, opts); run_usage(stderr); return -1;
        }
    }
    if (optind < argc || !a->definition || !a->solution || !a->session) {
        fprintf(stderr, "kwb run: %s\n",
                optind < argc ? "unexpected argument" : "--definition, --solution and --session are required");
        run_usage(stderr);
        return -1;
    }
    if (!agent_known(a->agent)) {
        fprintf(stderr, "kwb run: unknown agent '%s' (known: tuner, openai, anthropic, command)\n", a->agent);
        return -1;
    }
    return 0;
}

/* The run's state between rounds. */
typedef struct run_state {
    run_args a;
    ws_handle h;
    int64_t session;
    char *folder;           /* WORKSPACE/run/SESSION: candidate folders and eval outputs */
    char *best_dir;
    char *best_name;
    double best_ms;
    char **tried;           /* direction ids already decided */
    int ntried;
    sv_round *hist;         /* the rounds so far, for the supervisor (directions owned) */
    int nhist;
    agent_config cfg;       /* the LLM or command agent's settings (not for the tuner) */
    int have_cfg;
    char best_evidence[1024]; /* regimes and classes of the best's latest evaluation */
    int midline;            /* streamed model text left a line open on stderr */
} run_state;

/* Adds a finished round to the supervisor's history. */
static void remember_round(run_state *r, const char *direction_id, int promoted)
{
    r->hist = xrealloc(r->hist, (size_t)(r->nhist + 1) * sizeof *r->hist);
    r->hist[r->nhist++] = (sv_round){xstrdup(direction_id), promoted, r->best_ms};
}

/* Records a note on the session (a failure to record is said, not fatal). */
__attribute__((format(printf, 2, 3)))
static void note(run_state *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kwb run: %s\n", text);
    kwb_error err = {{0}};
    if (r->session && store_note_add(r->h.st, r->session, 0, 0, text, NULL, &err) != 0)
        fprintf(stderr, "kwb run: note not recorded: %s\n", err.msg);
}

/* Judges DIR as candidate NAME for DIRECTION_ID against the best (none for the start):
 * gate, sweep, replay (judge.h), recorded in the session; fills *v. */
static int evaluate(run_state *r, const char *dir, const char *name, const char *direction_id, judge_verdict *v,
                    kwb_error *err)
{
    int64_t best_id = 0;
    kwb_error ignored = {{0}};
    if (r->best_dir)
        store_candidate_promoted(r->h.st, r->session, &best_id, NULL, &ignored);
    judge_request q = {
        .definition = r->a.definition, .session = r->a.session, .workspace = r->a.workspace,
        .device = r->a.device, .filter = r->a.filter, .max_time = r->a.max_time,
        .name = name, .dir = dir, .direction = direction_id,
        .best_name = r->best_dir ? r->best_name : NULL, .best_dir = r->best_dir,
        .st = r->h.st, .best_id = best_id, .folder = r->folder,
    };
    return judge_candidate(&q, v, err);
}

/* `kwb decide NAME promote|reject --reason REASON` in a child. */
static int decide(run_state *r, const char *name, int promote, const char *reason, kwb_error *err)
{
    char *argv[12] = {NULL, "decide", (char *)name, promote ? "promote" : "reject", "--session",
                      (char *)r->a.session, "--reason", (char *)reason};
    int n = 8;
    if (r->a.workspace)
        argv[n++] = "--workspace", argv[n++] = (char *)r->a.workspace;
    argv[n] = NULL;
    int code = judge_run_kwb(argv, NULL, err);
    return code == 0 ? 0 : code < 0 ? -1 : kwb_error_set(err, "kwb decide %s ended with code %d", name, code);
}

/* Asks the human QUESTION; returns the first letter answered, or 'q' at the end of input. */
static int ask(const char *question)
{
    fprintf(stderr, "%s ", question);
    fflush(stderr);
    char line[64];
    if (!fgets(line, sizeof line, stdin))
        return 'q';
    if (!isatty(0))
        fprintf(stderr, "%s", line);  /* the answer, as a terminal would have echoed it */
    return line[0] == '\n' ? 'y' : line[0];
}

/* Opens $EDITOR (default vi) on PATH and waits. */
static void edit(const char *path)
{
    const char *editor = getenv("EDITOR");
    char *argv[] = {(char *)(editor && *editor ? editor : "vi"), (char *)path, NULL};
    proc_io io = proc_io_default();
    io.stdin_fd = 0;
    kwb_error err = {{0}};
    pid_t pid = proc_spawn(argv, &io, &err);
    int status;
    if (pid > 0)
        proc_wait(pid, -1, &status);
    else
        fprintf(stderr, "kwb run: %s\n", err.msg);
}

/* Remembers direction ID (from SKILL, "tuner" for knob changes) as decided, in memory and in
 * the store. */
static void record_direction(run_state *r, const char *skill_id, const char *id, const char *title, const char *decision,
                             const char *reason)
{
    kwb_error err = {{0}};
    int64_t rowid;
    if (store_direction_add(r->h.st, r->session, 0, skill_id, id, title, &rowid, &err) != 0 ||
        store_direction_decide(r->h.st, rowid, decision, reason, &err) != 0)
        fprintf(stderr, "kwb run: direction not recorded: %s\n", err.msg);
    r->tried = xrealloc(r->tried, (size_t)(r->ntried + 1) * sizeof *r->tried);
    r->tried[r->ntried++] = xstrdup(id);
}

/* The directions decided in earlier runs of the session, tuner's and skills' (their titles are
 * the ids). */
static void load_tried(run_state *r)
{
    store_direction *d = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_direction_list(r->h.st, r->session, 0, &d, &n, &err) != 0)
        return;
    for (int i = 0; i < n; i++)
        if (d[i].skill && strcmp(d[i].state, "proposed") != 0) {
            r->tried = xrealloc(r->tried, (size_t)(r->ntried + 1) * sizeof *r->tried);
            r->tried[r->ntried++] = xstrdup(d[i].title);
        }
    store_direction_list_free(d, n);
}

/* Evaluates candidate NAME in DIR for direction ID (from SKILL, titled TITLE), decides it and
 * records the outcome; a promoted candidate becomes the best. Returns 1 promoted, 0 rejected. */
static int judge(run_state *r, int number, const char *name, const char *dir, const char *skill_id, const char *id,
                 const char *title, kwb_error *err)
{
    judge_verdict v;
    if (evaluate(r, dir, name, id, &v, err) != 0) {
        note(r, "round %d: %s: %s", number, name, err->msg);
        char why[512];
        snprintf(why, sizeof why, "evaluation failed: %.400s", err->msg);
        record_direction(r, skill_id, id, title, "rejected", why);
        decide(r, name, 0, "evaluation failed", err);
        remember_round(r, id, 0);
        return 0;
    }
    int promote = v.promote;
    const eval_summary *m = v.sweep.total > 0 ? &v.sweep : &v.gate;
    if (m->total > 0)
        note(r, "round %d: %s: measured (%s, %d workloads); %s", number, name, m == &v.sweep ? "sweep" : "gate", m->total,
             m->evidence);
    record_direction(r, skill_id, id, title, promote ? "accepted" : "rejected", v.reason);
    if (decide(r, name, promote, v.reason, err) != 0)
        note(r, "round %d: %s: %s", number, name, err->msg);
    note(r, "round %d: %s %s at the %s: %s", number, name, promote ? "promoted" : "rejected",
         promote ? "end" : v.stage, v.reason);
    if (promote) {
        free(r->best_dir);
        free(r->best_name);
        r->best_dir = xstrdup(dir);
        r->best_name = xstrdup(name);
        r->best_ms = v.sweep.mean_ms;
        snprintf(r->best_evidence, sizeof r->best_evidence, "%s", v.sweep.evidence);
    }
    remember_round(r, id, promote);
    return promote;
}

/* One round; returns 1 when it ran, 0 when there is nothing left to try, -1 on error. */
static int one_round(run_state *r, int number, kwb_error *err)
{
    solution *best = solution_load(r->best_dir, err);
    if (!best)
        return -1;
    tuner_knob *k;
    int nk, rc = 0;
    if (tuner_scan(best, &k, &nk, err) != 0) {
        solution_free(best);
        return -1;
    }
    tuner_proposal p;
    for (;;) {
        if (!tuner_propose(k, nk, (const char *const *)r->tried, r->ntried, &p)) {
            note(r, "round %d: the tuner has no untried knob value left (%d knobs)", number, nk);
            break;
        }
        int answer = 'y';
        if (!r->a.auto_mode) {
            fprintf(stderr, "  %s  %s\n", p.id, p.title);
            answer = ask("accept this direction? [y]es / [n]o / [q]uit");
        }
        if (answer == 'q')
            break;
        if (answer != 'y') {
            record_direction(r, "tuner", p.id, p.title, "rejected", "declined by the human");
            continue;
        }
        char *name = xasprintf("r%d-%s-%s", number, p.knob->name, p.to);
        char *dir = xasprintf("%s/%s", r->folder, name);
        strbuf diff;
        strbuf_init(&diff);
        rc = tuner_apply(best, &p, dir, &diff, err) == 0 ? 1 : -1;
        if (rc == 1) {
            fprintf(stderr, "kwb run: round %d: %s\n%s", number, p.title, diff.s);
            if (!r->a.auto_mode) {
                int review = ask("build and evaluate it? [y]es / [n]o / [e]dit first");
                if (review == 'e') {
                    char *src = xasprintf("%s/%s", dir, best->sources[p.knob->source].path);
                    edit(src);
                    free(src);
                } else if (review != 'y') {
                    record_direction(r, "tuner", p.id, p.title, "rejected", "candidate declined at review");
                    rc = 1;
                    goto done;
                }
            }
            if (judge(r, number, name, dir, "tuner", p.id, p.title, err) == 1) {
                /* going back to the value it left would be a cycle: never propose it */
                tuner_proposal back = p;
                snprintf(back.id, sizeof back.id, "tune.%s=%s", p.knob->name, p.knob->value);
                snprintf(back.title, sizeof back.title, "set %s back to %s", p.knob->name, p.knob->value);
                record_direction(r, "tuner", back.id, back.title, "rejected",
                                 "cycle: the value this knob was promoted from");
            }
        }
    done:
        strbuf_free(&diff);
        free(dir);
        free(name);
        break;
    }
    tuner_knobs_free(k, nk);
    solution_free(best);
    return rc;
}

/* Set by SIGINT or SIGTERM while an agent works: the agent stops (its children killed), the
 * round fails as cancelled and the run ends there. */
static volatile int agent_cancel;

static void on_agent_signal(int sig)
{
    (void)sig;
    agent_cancel = 1;
}

/* Progress of the LLM or command agent: streamed text and status lines on stderr, each finished
 * call a row of the store's agent-call table. */
static void on_agent_progress(void *ctx, const char *kind, const char *text)
{
    run_state *r = ctx;
    if (strcmp(kind, "text") == 0 || strcmp(kind, "reasoning") == 0) {
        if (strcmp(kind, "text") == 0 && text[0]) {
            fputs(text, stderr);
            r->midline = text[strlen(text) - 1] != '\n';
        }
        return;
    }
    if (r->midline)
        fputc('\n', stderr), r->midline = 0;
    if (strcmp(kind, "call") != 0) {
        if (strncmp(text, "reconnaissance:", 15) == 0)
            note(r, "agent %s", text);   /* which references the round consulted, in the store */
        else
            fprintf(stderr, "kwb run: agent: %s\n", text);
        return;
    }
    char line[512];
    kwb_error err = {{0}};
    if (agent_call_record(r->h.st, r->session, text, line, sizeof line, &err) != 0)
        fprintf(stderr, "kwb run: agent call not recorded: %s\n", err.msg);
    fprintf(stderr, "kwb run: agent call: %s\n", line);
}

/* The candidate name for round NUMBER and direction ID: "rN-" and the id with '.' and '=' as '-'. */
static char *candidate_name(int number, const char *id)
{
    char *name = xasprintf("r%d-%s", number, id);
    for (char *p = name; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
            *p = '-';
    return name;
}

/* The agent writes the candidate for direction D (the round's context C), then the gate judges
 * it; a failing agent fails the round only. Returns 1, or -1 when cancelled. */
static int agent_write_and_judge(run_state *r, int number, const round_ctx *c, const direction *d, kwb_error *err)
{
    const char *skill_id = d->skill ? d->skill->id : "skill";
    char *name = candidate_name(number, d->id), *dir = xasprintf("%s/%s", r->folder, name);
    int64_t best_id = 0;
    kwb_error cerr = {{0}};
    store_candidate_promoted(r->h.st, r->session, &best_id, NULL, &cerr);
    char *context = agent_context_build(r->h.st, r->session, best_id, r->a.definition, r->best_evidence);
    fprintf(stderr, "kwb run: round %d: %s: %s (agent %s)\n", number, d->id, d->title, r->a.agent);
    agent_task t = {c->definition_path, r->best_dir, dir, d, context, on_agent_progress, r, &agent_cancel, NULL};
    agent_outcome o;
    agent_outcome_init(&o);
    kwb_error aerr = {{0}};
    int rc = 1;
    struct sigaction sa = {.sa_handler = on_agent_signal}, old_int, old_term;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int failed = agent_write(r->a.agent, &r->cfg, &t, &o, &aerr) != 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (r->midline)
        fputc('\n', stderr), r->midline = 0;
    if (agent_cancel) {
        note(r, "round %d: %s: cancelled while the agent worked; the run stops", number, d->id);
        rc = kwb_error_set(err, "cancelled while the agent worked on %s", d->id);
    } else if (failed) {
        note(r, "round %d: %s: the agent failed: %s%s%s", number, d->id, aerr.msg, o.transcript[0] ? "; transcript " : "",
             o.transcript);
        char reason[1024];
        snprintf(reason, sizeof reason, "agent failed: %.900s", aerr.msg);
        record_direction(r, skill_id, d->id, d->title, "rejected", reason);
        remember_round(r, d->id, 0);
    } else {
        fprintf(stderr, "kwb run: round %d: %s: %d call(s), %d+%d tokens, $%.4f, %.1f s; transcript %s\n%s", number, name,
                o.calls, o.tokens_in, o.tokens_out, o.cost, o.seconds, o.transcript[0] ? o.transcript : "-", o.diff.s);
        int review = r->a.auto_mode ? 'y' : ask("build and evaluate it? [y]es / [n]o");
        if (review != 'y')
            record_direction(r, skill_id, d->id, d->title, "rejected", "candidate declined at review");
        else
            judge(r, number, name, dir, skill_id, d->id, d->title, err);
    }
    agent_outcome_free(&o);
    free(context);
    free(name);
    free(dir);
    return rc;
}

/* One round with an LLM or command agent: the best-ranked untried skill direction, the agent
 * writes the candidate, then the same gate as the tuner's. A failing agent fails the round, not
 * the run. Returns 1 when it ran, 0 when nothing is left to try, -1 on error. */
static int agent_round(run_state *r, int number, kwb_error *err)
{
    round_ctx c;
    if (round_ctx_open(r->a.workspace, r->a.session, 1, &c, err) != 0)
        return -1;
    direction *dirs = NULL;
    tuner_knob *k = NULL;
    int nd = 0, nk = 0, rc = 0, pick = -1, quit = 0;
    if (round_ctx_propose(&c, r->a.agent, 0, &dirs, &nd, &k, &nk, err) != 0) {
        round_ctx_close(&c);
        return -1;
    }
    for (int i = 0; i < nd && pick < 0; i++) {
        int tried = 0;
        for (int j = 0; j < r->ntried; j++)
            tried |= strcmp(r->tried[j], dirs[i].id) == 0;
        if (tried)
            continue;
        int answer = 'y';
        if (!r->a.auto_mode) {
            fprintf(stderr, "  %s  %s\n  why: %s\n  predicted: %s\n", dirs[i].id, dirs[i].title, dirs[i].rationale,
                    dirs[i].predicted);
            answer = ask("accept this direction? [y]es / [n]o / [q]uit");
        }
        if (answer == 'q') {
            quit = 1;
            break;
        }
        if (answer == 'y')
            pick = i;
        else
            record_direction(r, dirs[i].skill ? dirs[i].skill->id : "skill", dirs[i].id, dirs[i].title, "rejected",
                             "declined by the human");
    }
    if (pick < 0 && !quit) {
        note(r, "round %d: no untried direction left in the skills for %s (class %s)", number, c.definition, c.cls);
    } else if (pick >= 0) {
        rc = agent_write_and_judge(r, number, &c, &dirs[pick], err);
    }
    free(dirs);
    tuner_knobs_free(k, nk);
    round_ctx_close(&c);
    return rc;
}

/* Nonzero when the agent's budget for the session is spent; says so in a note. */
static int budget_spent(run_state *r)
{
    kwb_error err = {{0}};
    int calls = 0;
    if (!r->have_cfg || !agent_budget_spent(r->h.st, r->session, &r->cfg, &calls, &err))
        return 0;
    note(r, "%s after %d agent call(s); the session stops here", err.msg, calls);
    return 1;
}

/* Evaluates the starting solution as the session's first candidate and promotes it when
 * every workload passes. */
static int start(run_state *r, kwb_error *err)
{
    judge_verdict v;
    if (evaluate(r, r->a.solution, "start", "start", &v, err) != 0)
        return -1;
    eval_summary s = v.sweep;
    if (!v.promote)
        return kwb_error_set(err, "the starting solution %s does not pass: %d of %d workloads failed (first: %s)",
                             r->a.solution, s.total - s.passed, s.total, s.first_failure);
    if (decide(r, "start", 1, "starting point of the run", err) != 0 ||
        wsopen_session(&r->h, r->a.session, &r->session, err) != 0)
        return -1;
    r->best_dir = xstrdup(r->a.solution);
    r->best_name = xstrdup("start");
    r->best_ms = s.mean_ms;
    snprintf(r->best_evidence, sizeof r->best_evidence, "%s", s.evidence);
    note(r, "start: %s, mean %.4f ms over %d workloads; %s", r->a.solution, s.mean_ms, s.total, s.evidence);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_state r;
    memset(&r, 0, sizeof r);
    if (parse_run_args(argc, argv, &r.a) != 0)
        return 2;
    kwb_error err = {{0}};
    if (wsopen(r.a.workspace, 0, &r.h, &err) != 0) {
        fprintf(stderr, "kwb run: %s\n", err.msg);
        return 2;
    }
    r.folder = xasprintf("%s/run/%s", r.h.ws.root, r.a.session);
    int code = 0;
    if (strcmp(r.a.agent, "tuner") != 0) {
        if (agentcfg_load_default(r.a.agent, &r.cfg, &err) != 0) {
            fprintf(stderr, "kwb run: %s\n", err.msg);
            free(r.folder);
            wsclose(&r.h);
            return 2;
        }
        r.have_cfg = 1;
    }
    if (paths_mkdir_p(r.folder) != 0)
        kwb_error_set(&err, "%s: cannot make the folder: %s", r.folder, strerror(errno));
    if (err.msg[0] || start(&r, &err) != 0) {
        fprintf(stderr, "kwb run: %s\n", err.msg);
        code = 2;
    }
    if (code == 0)
        load_tried(&r);
    int promoted = 0;
    for (int n = 1; code == 0 && n <= r.a.rounds; n++) {
        double before = r.best_ms;
        if (budget_spent(&r))
            break;
        int rc = r.have_cfg ? agent_round(&r, n, &err) : one_round(&r, n, &err);
        if (rc < 0) {
            fprintf(stderr, "kwb run: round %d: %s\n", n, err.msg);
            code = 1;
        } else if (rc == 0) {
            break;
        }
        promoted += r.best_ms < before;
        sv_policy policy = {r.a.plateau, r.a.plateau, 0.02};
        char advice[2048];
        if (rc > 0 && sv_advise(r.hist, r.nhist, &policy, advice, sizeof advice) > 0)
            for (char *line = strtok(advice, "\n"); line; line = strtok(NULL, "\n"))
                note(&r, "supervisor: %s", line);
    }
    if (code == 0)
        fprintf(stderr, "kwb run: %d candidate(s) promoted; best %s, mean %.4f ms (kwb log, kwb report show the "
                        "trajectory)\n", promoted, r.best_name, r.best_ms);
    for (int i = 0; i < r.nhist; i++)
        free((char *)r.hist[i].direction);
    free(r.hist);
    for (int i = 0; i < r.ntried; i++)
        free(r.tried[i]);
    free(r.tried);
    free(r.best_dir);
    free(r.best_name);
    free(r.folder);
    if (r.have_cfg)
        agentcfg_free(&r.cfg);
    wsclose(&r.h);
    return code;
}

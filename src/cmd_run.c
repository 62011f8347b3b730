/* cmd_run.c - `kwb run`: the rounds without the terminal UI, a front end
 * of the round engine (round.h), which holds the policy: numbering and names, what is recorded
 * and when, the no-cycle bar, decisions, overrides and resuming.
 *
 * Each round: a direction is proposed (the tuner's knob change, or the best-ranked untried
 * skill direction for an LLM or command agent); the human accepts it (y/n/e on stdin) or, with
 * --auto, the policy does; the candidate folder is written (under a temporary name, renamed when
 * whole) with its diff; the harness judges it (judge.h: gate, sweep, replay, held-out); the
 * human accepts the verdict, overrules it with a reason or measures again (--auto accepts); the
 * engine records the decision. A killed run resumes: the candidate it was judging is judged again,
 * and a session with a best is not started again. */
#include "cmd_run.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "agent_prep.h"
#include "agentcfg.h"
#include "executor.h"
#include "judge.h"
#include "round.h"
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
          "               [--plateau N] [--workspace DIR] [--executor local|ssh:HOSTS|slurm[:OPTIONS]]\n",
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
        {"executor", required_argument, NULL, 'X'},   {NULL, 0, NULL, 0},
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
        case 'X':
            if (executor_use(optarg, "run") != 0)
                return -1;
            break;
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
        default:
            suggest_bad_option("run", argv, opts);
            run_usage(stderr);
            return -1;
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

/* The run's state between rounds: the round engine (round.h) holds the round's policy. */
typedef struct run_state {
    run_args a;
    ws_handle h;
    round_engine e;
    double best_ms;
    sv_round *hist; /* the rounds so far, for the supervisor (directions owned) */
    int nhist;
    agent_config cfg; /* the LLM or command agent's settings (not for the tuner) */
    int have_cfg;
    char best_evidence[1024]; /* regimes and classes of the best's latest evaluation */
    int midline;              /* streamed model text left a line open on stderr */
} run_state;

/* Adds a finished round to the supervisor's history. */
static void remember_round(run_state *r, const char *direction_id, int promoted)
{
    r->hist = xrealloc(r->hist, (size_t)(r->nhist + 1) * sizeof *r->hist);
    r->hist[r->nhist++] = (sv_round){xstrdup(direction_id), promoted, r->best_ms};
}

/* Records a note on the session (a failure to record is said, not fatal). */
__attribute__((format(printf, 2, 3))) static void note(run_state *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "kwb run: %s\n", text);
    kwb_error err = {{0}};
    if (round_note(&r->e, text, &err) != 0)
        fprintf(stderr, "kwb run: note not recorded: %s\n", err.msg);
}

/* Asks the human QUESTION; returns the first letter answered, or 'q' at the end of input.
 * With LINE (CAP bytes), the rest of the answer line goes there (an overrule's reason). */
static int ask_line(const char *question, char *rest, size_t cap)
{
    fprintf(stderr, "%s ", question);
    fflush(stderr);
    char line[512];
    if (!fgets(line, sizeof line, stdin))
        return 'q';
    if (!isatty(0))
        fprintf(stderr, "%s", line); /* the answer, as a terminal would have echoed it */
    line[strcspn(line, "\n")] = '\0';
    if (rest) {
        const char *p = line[0] ? line + 1 : line;
        while (*p == ' ')
            p++;
        snprintf(rest, cap, "%s", p);
    }
    return line[0] == '\0' ? 'y' : line[0];
}

static int ask(const char *question)
{
    return ask_line(question, NULL, 0);
}

/* Opens $VISUAL, else $EDITOR, else vi on PATH on this terminal and waits. */
static void edit(const char *path)
{
    const char *editor = getenv("VISUAL");
    if (!editor || !*editor)
        editor = getenv("EDITOR");
    char *argv[] = {(char *)(editor && *editor ? editor : "vi"), (char *)path, NULL};
    proc_io io = proc_io_default();
    io.stdin_fd = 0, io.stdout_fd = 1, io.stderr_fd = 2;
    kwb_error err = {{0}};
    pid_t pid = proc_spawn(argv, &io, &err);
    int status;
    if (pid > 0)
        proc_wait(pid, -1, &status);
    else
        fprintf(stderr, "kwb run: %s\n", err.msg);
}

/* Runs the judge on the candidate in play into *V and records its verdict in the engine. */
static void judge_once(run_state *r, judge_verdict *v)
{
    round_engine *e = &r->e;
    judge_request q;
    round_judge_request(e, &q, r->a.device, r->a.filter, r->a.max_time);
    kwb_error jerr = {{0}};
    memset(v, 0, sizeof *v);
    if (judge_candidate(&q, v, &jerr) != 0) {
        note(r, "round %d: %s: %s", e->number, e->cand_name, jerr.msg);
        char failed[600];
        snprintf(failed, sizeof failed, "evaluation failed: %.500s", jerr.msg);
        round_judged(e, 0, "build", failed);
    } else {
        const eval_summary *m = v->sweep.total > 0 ? &v->sweep : &v->gate;
        if (m->total > 0)
            note(r, "round %d: %s: measured (%s, %d workloads); %s", e->number, e->cand_name,
                 m == &v->sweep ? "sweep" : "gate", m->total, m->evidence);
        round_judged(e, v->promote, v->promote ? "end" : v->stage, v->reason);
    }
}

/* Judges the engine's candidate (the start included; not when resumed at its recorded verdict)
 * and lets the human answer the verdict: accept it, overrule it with a reason, or measure again;
 * --auto accepts. Returns 1 promoted, 0 rejected, -1 when the decision could not be recorded or
 * the human quit. */
static int judge_and_decide(run_state *r, kwb_error *err)
{
    round_engine *e = &r->e;
    judge_verdict v;
    round_answer answer = ROUND_ACCEPT;
    char why[512] = "";
    memset(&v, 0, sizeof v);
    /* resumed at a recorded verdict: it is shown, not judged twice */
    for (int judged = e->step == ROUND_VERDICT;; judged = 0) {
        if (!judged)
            judge_once(r, &v);
        if (r->a.auto_mode || strcmp(e->cand_name, "start") == 0) /* a start that passes is the start */
            break;
        char prompt[2048];
        round_verdict_prompt(e, "y", "o REASON", "m", prompt, sizeof prompt);
        fprintf(stderr, "kwb run: %s\n", prompt);
        int key = ask_line("[y]es, as advised / [o]verrule REASON / [m]easure again / [q]uit", why, sizeof why);
        if (key == 'q')
            return kwb_error_set(err, "quit at the verdict on %s (the run resumes at it)", e->cand_name);
        if (key == 'o') {
            answer = ROUND_OVERRULE;
            if (!why[0])
                snprintf(why, sizeof why, "overruled by the human");
        }
        if (key != 'm')
            break;
    }
    int number = e->number;
    char said[512];
    int rc = round_decide(e, answer, why, said, sizeof said, err);
    if (rc < 0)
        return -1;
    if (answer == ROUND_OVERRULE)
        note(r, "round %d: %s: %s", number, said, why);
    else
        note(r, "round %d: %s %s at the %s: %s", number, e->cand_name, rc ? "promoted" : "rejected",
             rc ? "end" : e->verdict_stage, e->verdict_reason);
    if (rc && v.sweep.total > 0) {
        r->best_ms = v.sweep.mean_ms;
        snprintf(r->best_evidence, sizeof r->best_evidence, "%s", v.sweep.evidence);
    } else if (rc) { /* decided on a recorded verdict: the store has the new best's figures */
        int64_t id = 0;
        kwb_error ignored = {{0}};
        store_candidate_promoted(r->h.st, e->session, &id, &r->best_ms, &ignored);
    }
    if (strcmp(e->cand_name, "start") != 0)
        remember_round(r, e->direction, rc);
    return rc;
}

/* The candidate in play is written (into the engine's part_dir): made whole under its name,
 * shown, reviewed (y/n/e), judged and decided. Returns 0, or -1 on error. */
static int review_and_judge(run_state *r, const char *diff, const char *edit_path, kwb_error *err)
{
    round_engine *e = &r->e;
    if (round_written(e, err) != 0)
        return -1;
    fprintf(stderr, "kwb run: round %d: %s\n%s", e->number, e->title, diff);
    if (!r->a.auto_mode) {
        int review = ask(edit_path ? "build and evaluate it? [y]es / [n]o / [e]dit first"
                                   : "build and evaluate it? [y]es / [n]o");
        if (review == 'e' && edit_path) {
            char *src = xasprintf("%s/%s", e->cand_dir, edit_path);
            edit(src);
            free(src);
        } else if (review != 'y') {
            return round_decline(e, NULL, NULL, NULL, "candidate declined at review", err);
        }
    }
    return judge_and_decide(r, err) < 0 ? -1 : 0;
}

/* One round with the tuner; returns 1 when it ran, 0 when there is nothing left to try, -1 on
 * error. */
static int one_round(run_state *r, kwb_error *err)
{
    round_engine *e = &r->e;
    solution *best = solution_load(e->best_dir, err);
    if (!best)
        return -1;
    tuner_knob *k;
    int nk, rc = 0;
    if (tuner_scan(best, &k, &nk, err) != 0) {
        solution_free(best);
        return -1;
    }
    for (;;) {
        char **tried = NULL;
        int ntried = 0;
        tuner_proposal p;
        if (round_tried(e, &tried, &ntried, err) != 0) {
            rc = -1;
            break;
        }
        int found = tuner_propose(k, nk, (const char *const *)tried, ntried, &p);
        round_ids_free(tried, ntried);
        if (!found) {
            note(r, "round %d: the tuner has no untried knob value left (%d knobs)", e->number, nk);
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
            if (round_decline(e, "tuner", p.id, p.title, "declined by the human", err) != 0) {
                rc = -1;
                break;
            }
            continue;
        }
        strbuf diff;
        strbuf_init(&diff);
        rc = round_choose(e, "tuner", p.id, p.title, err) == 0 && tuner_apply(best, &p, e->part_dir, &diff, err) == 0 &&
                     review_and_judge(r, diff.s, best->sources[p.knob->source].path, err) == 0
                 ? 1
                 : -1;
        strbuf_free(&diff);
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
            note(r, "agent %s", text); /* which references the round consulted, in the store */
        else
            fprintf(stderr, "kwb run: agent: %s\n", text);
        return;
    }
    char line[512];
    kwb_error err = {{0}};
    if (agent_call_record(r->h.st, r->e.session, text, line, sizeof line, &err) != 0)
        fprintf(stderr, "kwb run: agent call not recorded: %s\n", err.msg);
    fprintf(stderr, "kwb run: agent call: %s\n", line);
}

/* The agent writes the candidate for direction D (the round's context C), then it is judged;
 * a failing agent fails the round only. Returns 1, or -1 when cancelled or on error. */
static int agent_write_and_judge(run_state *r, const round_ctx *c, const direction *d, kwb_error *err)
{
    round_engine *e = &r->e;
    const char *skill_id = d->skill ? d->skill->id : "skill";
    if (round_choose(e, skill_id, d->id, d->title, err) != 0)
        return -1;
    int64_t best_id = 0;
    kwb_error cerr = {{0}};
    store_candidate_promoted(r->h.st, e->session, &best_id, NULL, &cerr);
    char *context = agent_context_build(r->h.st, e->session, best_id, r->a.definition, r->best_evidence);
    fprintf(stderr, "kwb run: round %d: %s: %s (agent %s)\n", e->number, d->id, d->title, r->a.agent);
    /* written into part_dir; its log and transcript are named for the candidate (cand_dir) */
    agent_task t = {c->definition_path, e->best_dir, e->part_dir,   d,          context,
                    on_agent_progress,  r,           &agent_cancel, e->cand_dir};
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
        note(r, "round %d: %s: cancelled while the agent worked; the run stops", e->number, d->id);
        rc = kwb_error_set(err, "cancelled while the agent worked on %s", d->id);
    } else if (failed) {
        note(r, "round %d: %s: the agent failed: %s%s%s", e->number, d->id, aerr.msg,
             o.transcript[0] ? "; transcript " : "", o.transcript);
        char reason[1024];
        snprintf(reason, sizeof reason, "agent failed: %.900s", aerr.msg);
        if (round_decline(e, NULL, NULL, NULL, reason, err) != 0)
            rc = -1;
        remember_round(r, d->id, 0);
    } else {
        fprintf(stderr, "kwb run: round %d: %s: %d call(s), %d+%d tokens, $%.4f, %.1f s; transcript %s\n", e->number,
                e->cand_name, o.calls, o.tokens_in, o.tokens_out, o.cost, o.seconds,
                o.transcript[0] ? o.transcript : "-");
        if (review_and_judge(r, o.diff.s, NULL, err) != 0)
            rc = -1;
    }
    agent_outcome_free(&o);
    free(context);
    return rc;
}

/* One round with an LLM or command agent: the best-ranked untried skill direction, the agent
 * writes the candidate, then the same judge as the tuner's. A failing agent fails the round, not
 * the run. Returns 1 when it ran, 0 when nothing is left to try, -1 on error. */
static int agent_round(run_state *r, kwb_error *err)
{
    round_ctx c;
    if (round_ctx_open(r->a.workspace, r->a.session, 1, &c, err) != 0)
        return -1;
    direction *dirs = NULL;
    tuner_knob *k = NULL;
    char **tried = NULL;
    int nd = 0, nk = 0, ntried = 0, rc = 0, pick = -1, quit = 0;
    if (round_ctx_propose(&c, r->a.agent, 0, &dirs, &nd, &k, &nk, err) != 0 ||
        round_tried(&r->e, &tried, &ntried, err) != 0) {
        free(dirs);
        tuner_knobs_free(k, nk);
        round_ctx_close(&c);
        return -1;
    }
    for (int i = 0; i < nd && pick < 0; i++) {
        int done = 0;
        for (int j = 0; j < ntried; j++)
            done |= strcmp(tried[j], dirs[i].id) == 0;
        if (done)
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
        else if (round_decline(&r->e, dirs[i].skill ? dirs[i].skill->id : "skill", dirs[i].id, dirs[i].title,
                               "declined by the human", err) != 0)
            quit = 1, rc = -1;
    }
    if (pick < 0 && !quit)
        note(r, "round %d: no untried direction left in the skills for %s (class %s)", r->e.number, c.definition,
             c.cls);
    else if (pick >= 0)
        rc = agent_write_and_judge(r, &c, &dirs[pick], err);
    round_ids_free(tried, ntried);
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
    if (!r->have_cfg || !agent_budget_spent(r->h.st, r->e.session, &r->cfg, &calls, &err))
        return 0;
    note(r, "%s after %d agent call(s); the session stops here", err.msg, calls);
    return 1;
}

/* The session's start: a killed run's undecided candidate is judged again first; a session
 * with no best evaluates the starting solution as its first candidate and promotes it when
 * every workload passes; an existing one goes on from its best. */
static int start(run_state *r, kwb_error *err)
{
    round_engine *e = &r->e;
    int resumed = round_resume(e, err);
    if (resumed < 0)
        return -1;
    if (resumed && e->step == ROUND_VERDICT)
        note(r, "resuming: %s (round %d) at the verdict recorded before the stop: %s at the %s", e->cand_name,
             e->number, e->verdict_promote ? "promote" : "reject", e->verdict_stage);
    else if (resumed)
        note(r, "resuming: %s (round %d) is judged again", e->cand_name, e->number);
    if (resumed && (e->step == ROUND_JUDGING || e->step == ROUND_VERDICT) && judge_and_decide(r, err) < 0)
        return -1;
    if (!round_needs_start(e)) {
        double mean = NAN;
        int64_t id = 0;
        store_candidate_promoted(r->h.st, e->session, &id, &mean, err);
        r->best_ms = mean;
        fprintf(stderr, "kwb run: session %s goes on from %s (round %d next)\n", r->a.session, e->best_name, e->number);
        return 0;
    }
    if (!resumed)
        round_begin_start(e, r->a.solution);
    if (judge_and_decide(r, err) < 0) /* a start that does not pass is said so by the engine */
        return -1;
    note(r, "start: %s, mean %.4f ms; %s", e->cand_dir, r->best_ms, r->best_evidence);
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
    if (strcmp(r.a.agent, "tuner") != 0) {
        if (agentcfg_load_default(r.a.agent, &r.cfg, &err) != 0) {
            fprintf(stderr, "kwb run: %s\n", err.msg);
            wsclose(&r.h);
            return 2;
        }
        r.have_cfg = 1;
    }
    int code = 0;
    int opened = round_open(&r.e, &r.h, r.a.session, r.a.definition, r.a.workspace, &err) == 0;
    if (opened) /* the agent's candidates are recorded as its kind's (the tuner's knob changes: tuner) */
        r.e.writer = agentcfg_writer(r.a.agent);
    if (!opened || start(&r, &err) != 0) {
        fprintf(stderr, "kwb run: %s\n", err.msg);
        code = 2;
    }
    int promoted = 0;
    for (int n = 1; code == 0 && n <= r.a.rounds; n++) {
        double before = r.best_ms;
        if (budget_spent(&r))
            break;
        int rc = r.have_cfg ? agent_round(&r, &err) : one_round(&r, &err);
        if (rc < 0) {
            fprintf(stderr, "kwb run: round %d: %s\n", r.e.number, err.msg);
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
        fprintf(stderr,
                "kwb run: %d candidate(s) promoted; best %s, mean %.4f ms (kwb log, kwb report show the "
                "trajectory)\n",
                promoted, r.e.best_name, r.best_ms);
    for (int i = 0; i < r.nhist; i++)
        free((char *)r.hist[i].direction);
    free(r.hist);
    round_close(&r.e);
    if (r.have_cfg)
        agentcfg_free(&r.cfg);
    wsclose(&r.h);
    return code;
}

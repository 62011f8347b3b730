/* cmd_run.c - `kwb run`: the round loop of DESIGN.md section 1 without the terminal UI.
 *
 * Each round: the tuner proposes one direction (a knob change) from the current best
 * candidate; the human accepts it (y/n/e on stdin) or, with --auto, the policy does; the
 * candidate folder is written with its diff; a child `kwb eval --session` builds it, checks
 * every workload and times it paired against the best (A B B A, a verdict per workload), and
 * records everything; then `kwb decide` promotes it (every workload PASSED, none slower, at
 * least one faster) or rejects it with the reason. Directions and their decisions are stored
 * too, so a rejected one is not proposed again. Children are kwb itself: a crash in one round
 * is that round's failure, and the session in the store is never left half-written. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "agent_prep.h"
#include "agentcfg.h"
#include "bottleneck.h"
#include "llm.h"
#include "paths.h"
#include "proc.h"
#include "regimes.h"
#include "roundctx.h"
#include "solution.h"
#include "strbuf.h"
#include "supervisor.h"
#include "tuner.h"
#include "wsopen.h"
#include "xalloc.h"

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
        default: run_usage(stderr); return -1;
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

/* This kwb, for its children ("kwb" on PATH when /proc/self/exe cannot be read). */
static char *self_path(void)
{
    char *self = paths_self();
    return self ? self : xstrdup("kwb");
}

/* Runs kwb ARGV (argv[0] replaced by this kwb) with stdout into OUT_PATH (NULL: inherited).
 * Returns its exit code, 128+signal, or -1 with *err set. */
static int run_kwb(char **argv, const char *out_path, kwb_error *err)
{
    char *self = self_path();
    argv[0] = self;
    proc_io io = proc_io_default();
    FILE *out = NULL;
    if (out_path && !(out = fopen(out_path, "w"))) {
        free(self);
        return kwb_error_set(err, "%s: cannot write: %s", out_path, strerror(errno));
    }
    if (out)
        io.stdout_fd = fileno(out);
    pid_t pid = proc_spawn(argv, &io, err);
    if (out)
        fclose(out);
    free(self);
    if (pid < 0)
        return -1;
    int status = 0;
    proc_wait(pid, -1, &status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What one child eval found, from its --json output. */
typedef struct eval_summary {
    int total, passed, faster, slower;
    double mean_ms;
    char first_failure[256];
    char evidence[1024];    /* regimes and their bottleneck class, one clause each */
} eval_summary;

/* The classify step: the workloads of DOC grouped into regimes by their first axis, each with
 * the class its latency-weighted roofline share gives (bottleneck.h's fallback rule). */
static void classify(json_t *doc, char *out, size_t cap)
{
    json_t *wls = json_object_get(doc, "workloads"), *w;
    size_t n = json_array_size(wls), i;
    double *key = calloc(n + 1, sizeof *key), *lat = calloc(n + 1, sizeof *lat), *roof = calloc(n + 1, sizeof *roof);
    int *assign = calloc(n + 1, sizeof *assign);
    const char *axis = "size";
    json_array_foreach(wls, i, w) {
        json_t *axes = json_object_get(w, "axes");
        const char *name;
        json_t *v;
        json_object_foreach(axes, name, v) {
            axis = name;
            key[i] = (double)json_integer_value(v);
            break;
        }
        lat[i] = json_number_value(json_object_get(json_object_get(w, "latency"), "median_ms"));
        roof[i] = json_number_value(json_object_get(w, "roofline"));
    }
    regime rg[REGIMES_MAX];
    int k = regimes_split(key, lat, (int)n, rg, assign);
    out[0] = '\0';
    for (int g = 0; g < k; g++) {
        double wsum = 0, rsum = 0;
        for (i = 0; i < n; i++)
            if (assign[i] == g && lat[i] > 0)
                wsum += lat[i], rsum += lat[i] * roof[i];
        bottleneck_input in = bottleneck_input_empty();
        in.roofline_share = wsum > 0 ? rsum / wsum : 0;
        in.memory_floor = 1;
        bottleneck b = bottleneck_classify(&in);
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%s%s %g-%g (%d workloads, %.0f%% of latency): %s%s%s%s", g ? "; " : "", axis,
                 rg[g].key_lo, rg[g].key_hi, rg[g].count, 100.0 * rg[g].share, b.cls, b.evidence[0] ? " (" : "",
                 b.evidence, b.evidence[0] ? ")" : "");
    }
    free(key);
    free(lat);
    free(roof);
    free(assign);
}

static int read_summary(const char *path, eval_summary *s, kwb_error *err)
{
    memset(s, 0, sizeof *s);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        return kwb_error_set(err, "%s:%d: the evaluation's JSON: %s", path, jerr.line, jerr.text);
    json_t *wls = json_object_get(doc, "workloads"), *w;
    size_t i;
    json_array_foreach(wls, i, w) {
        const char *st = json_string_value(json_object_get(w, "status"));
        const char *v = json_string_value(json_object_get(json_object_get(w, "verdict"), "kind"));
        s->total++;
        if (st && strcmp(st, "PASSED") == 0)
            s->passed++;
        else if (!s->first_failure[0])
            snprintf(s->first_failure, sizeof s->first_failure, "%.8s %s", json_string_value(json_object_get(w, "uuid")),
                     st ? st : "?");
        s->faster += v && strcmp(v, "faster") == 0;
        s->slower += v && strcmp(v, "slower") == 0;
    }
    s->mean_ms = json_number_value(json_object_get(json_object_get(doc, "summary"), "mean_latency_ms"));
    classify(doc, s->evidence, sizeof s->evidence);
    json_decref(doc);
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

/* Evaluates DIR as candidate NAME (parent and paired baseline: the best, when there is
 * one), recorded in the session; fills *s. */
static int evaluate(run_state *r, const char *dir, const char *name, const char *direction_id, eval_summary *s,
                    kwb_error *err)
{
    char *out = xasprintf("%s/%s.json", r->folder, name);
    char *argv[32];
    int n = 0;
    argv[n++] = NULL;
    argv[n++] = "eval";
    argv[n++] = "--definition", argv[n++] = (char *)r->a.definition;
    argv[n++] = "--solution", argv[n++] = (char *)dir;
    argv[n++] = "--session", argv[n++] = (char *)r->a.session;
    argv[n++] = "--name", argv[n++] = (char *)name;
    argv[n++] = "--direction", argv[n++] = (char *)direction_id;
    argv[n++] = "--device", argv[n++] = (char *)r->a.device;
    argv[n++] = "--json";
    argv[n++] = "--quiet";
    if (r->a.workspace)
        argv[n++] = "--workspace", argv[n++] = (char *)r->a.workspace;
    if (r->a.filter)
        argv[n++] = "--workloads", argv[n++] = (char *)r->a.filter;
    if (r->a.max_time)
        argv[n++] = "--max-time", argv[n++] = (char *)r->a.max_time;
    if (r->best_dir) {
        argv[n++] = "--parent", argv[n++] = r->best_name;
        argv[n++] = "--against", argv[n++] = r->best_dir;
    }
    argv[n] = NULL;
    int code = run_kwb(argv, out, err);
    int rc = code < 0 ? -1 : (code > 1 ? kwb_error_set(err, "kwb eval of %s ended with code %d", name, code)
                                       : read_summary(out, s, err));
    free(out);
    return rc;
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
    int code = run_kwb(argv, NULL, err);
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

/* The decision for a candidate's evaluation against the best; REASON gets why. */
static int verdict_of(const eval_summary *s, char *reason, size_t cap)
{
    if (s->passed < s->total)
        snprintf(reason, cap, "%d of %d workloads failed (first: %s)", s->total - s->passed, s->total, s->first_failure);
    else if (s->slower > 0)
        snprintf(reason, cap, "slower on %d of %d workloads", s->slower, s->total);
    else if (s->faster == 0)
        snprintf(reason, cap, "faster on no workload (paired gate)");
    else {
        snprintf(reason, cap, "all %d PASSED; faster on %d, slower on none; mean %.4f ms", s->total, s->faster,
                 s->mean_ms);
        return 1;
    }
    return 0;
}

/* Evaluates candidate NAME in DIR for direction ID (from SKILL, titled TITLE), decides it and
 * records the outcome; a promoted candidate becomes the best. Returns 1 promoted, 0 rejected. */
static int judge(run_state *r, int number, const char *name, const char *dir, const char *skill_id, const char *id,
                 const char *title, kwb_error *err)
{
    eval_summary s;
    char reason[512];
    int promote = 0;
    if (evaluate(r, dir, name, id, &s, err) != 0) {
        note(r, "round %d: %s: %s", number, name, err->msg);
        char why[512];
        snprintf(why, sizeof why, "evaluation failed: %.400s", err->msg);
        record_direction(r, skill_id, id, title, "rejected", why);
        decide(r, name, 0, "evaluation failed", err);
        return 0;
    }
    note(r, "round %d: %s: measured; %s", number, name, s.evidence);
    promote = verdict_of(&s, reason, sizeof reason);
    record_direction(r, skill_id, id, title, promote ? "accepted" : "rejected", reason);
    if (decide(r, name, promote, reason, err) != 0)
        note(r, "round %d: %s: %s", number, name, err->msg);
    note(r, "round %d: %s %s: %s", number, name, promote ? "promoted" : "rejected", reason);
    if (promote) {
        free(r->best_dir);
        free(r->best_name);
        r->best_dir = xstrdup(dir);
        r->best_name = xstrdup(name);
        r->best_ms = s.mean_ms;
        snprintf(r->best_evidence, sizeof r->best_evidence, "%s", s.evidence);
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
    json_error_t jerr;
    json_t *c = json_loads(text, 0, &jerr);
    store_agent_call call = {
        .session = r->session,
        .provider = json_string_value(json_object_get(c, "provider")),
        .model = json_string_value(json_object_get(c, "model")),
        .tokens_in = json_is_integer(json_object_get(c, "tokens_in")) ? json_integer_value(json_object_get(c, "tokens_in")) : -1,
        .tokens_out = json_is_integer(json_object_get(c, "tokens_out")) ? json_integer_value(json_object_get(c, "tokens_out")) : -1,
        .cost = json_number_value(json_object_get(c, "cost")),
        .duration_s = json_number_value(json_object_get(c, "seconds")),
    };
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *failure = json_string_value(json_object_get(c, "failure"));
    char st[160];
    snprintf(st, sizeof st, "%s%s%s", status ? status : "?", failure && strcmp(failure, "ok") ? ": " : "",
             failure && strcmp(failure, "ok") ? failure : "");
    call.status = st;
    kwb_error err = {{0}};
    if (store_agent_call_add(r->h.st, &call, NULL, &err) != 0)
        fprintf(stderr, "kwb run: agent call not recorded: %s\n", err.msg);
    fprintf(stderr, "kwb run: agent call: %s %s, tokens %lld in / %lld out, $%.4f, %.1f s, %d attempt(s), %s\n",
            call.provider ? call.provider : "?", call.model ? call.model : "?", (long long)call.tokens_in,
            (long long)call.tokens_out, call.cost, call.duration_s,
            (int)json_integer_value(json_object_get(c, "attempts")), st);
    json_decref(c);
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
    agent_task t = {c->definition_path, r->best_dir, dir, d, context, on_agent_progress, r, &agent_cancel};
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
    store_agent_totals tot;
    kwb_error err = {{0}};
    if (!r->have_cfg || store_agent_totals_get(r->h.st, r->session, &tot, &err) != 0)
        return 0;
    if (!llm_session_budget_check(&r->cfg, tot.cost, (long)(tot.tokens_in + tot.tokens_out), &err))
        return 0;
    note(r, "%s after %d agent call(s); the session stops here", err.msg, tot.calls);
    return 1;
}

/* Evaluates the starting solution as the session's first candidate and promotes it when
 * every workload passes. */
static int start(run_state *r, kwb_error *err)
{
    eval_summary s;
    if (evaluate(r, r->a.solution, "start", "start", &s, err) != 0)
        return -1;
    if (s.passed < s.total)
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

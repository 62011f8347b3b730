#define _GNU_SOURCE
#include "cmd_store.h"

#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "report.h"
#include "status.h"
#include "strbuf.h"
#include "trace.h"
#include "traceset.h"
#include "wsopen.h"
#include "xalloc.h"
#include "suggest.h"

/* Options every workspace command takes, and its positional arguments. */
typedef struct ws_args {
    const char *workspace;
    const char *session;
    const char *reason;
    const char *format;
    const char *output;
    const char *repo;
    const char *dataset;
    const char *pos[3];
    int npos;
    int redo; /* kwb decide --redo: the workbench's redo makes a decision again */
} ws_args;

static int parse_ws_args(const char *cmd, int argc, char **argv, int min_pos, int max_pos, const char *usage,
                         ws_args *a)
{
    static const struct option opts[] = {
        {"workspace", required_argument, NULL, 'w'},
        {"session", required_argument, NULL, 's'},
        {"reason", required_argument, NULL, 'r'},
        {"format", required_argument, NULL, 'f'},
        {"output", required_argument, NULL, 'o'},
        {"repo", required_argument, NULL, 'R'},
        {"dataset", required_argument, NULL, 'D'},
        {"redo", no_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'w': a->workspace = optarg; break;
        case 's': a->session = optarg; break;
        case 'r': a->reason = optarg; break;
        case 'f': a->format = optarg; break;
        case 'o': a->output = optarg; break;
        case 'R': a->repo = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'e': a->redo = 1; break;
        case 'h': printf("usage: kwb %s %s\n", cmd, usage); exit(0);
        default:
            suggest_bad_option(cmd, argv, opts);
            fprintf(stderr, "usage: kwb %s %s\n", cmd, usage);
            return -1;
        }
    }
    for (; optind < argc && a->npos < 3; optind++)
        a->pos[a->npos++] = argv[optind];
    if (optind < argc || a->npos < min_pos || a->npos > max_pos) {
        fprintf(stderr, "usage: kwb %s %s\n", cmd, usage);
        return -1;
    }
    return 0;
}

/* Reports ERR for command CMD and returns 2. */
static int fail(const char *cmd, const kwb_error *err)
{
    fprintf(stderr, "kwb %s: %s\n", cmd, err->msg);
    return 2;
}

int cmd_init(int argc, char **argv)
{
    ws_args a;
    if (parse_ws_args("init", argc, argv, 0, 1, "[DIR] [--repo PATH]", &a) != 0)
        return 2;
    const char *dir = a.npos ? a.pos[0] : ".";
    kwb_error err = {{0}};
    workspace ws;
    if (workspace_create(dir, a.repo, &ws, &err) != 0)
        return fail("init", &err);
    store *st = store_open(ws.db_path, 0, &err);
    archive *ar = st ? archive_open(ws.repo_path, a.repo == NULL, &err) : NULL;
    int code = st && ar ? 0 : 2;
    if (code == 0)
        printf("kwb: workspace %s: store %s, candidates in %s\n", ws.root, ws.db_path, ws.repo_path);
    else {
        fprintf(stderr, "kwb init: %s\n", err.msg);
        char *marker = xasprintf("%s/%s", ws.root, WORKSPACE_MARKER);
        unlink(marker); /* nothing half-made stays a workspace */
        free(marker);
    }
    archive_close(ar);
    store_close(st);
    workspace_free(&ws);
    return code;
}

static void format_time(double t, char *buf, size_t cap)
{
    time_t s = (time_t)t;
    strftime(buf, cap, "%Y-%m-%d %H:%M:%S", localtime(&s));
}

int cmd_sessions(int argc, char **argv)
{
    ws_args a;
    if (parse_ws_args("sessions", argc, argv, 0, 0, "[--workspace DIR]", &a) != 0)
        return 2;
    kwb_error err = {{0}};
    ws_handle h;
    if (wsopen(a.workspace, 1, &h, &err) != 0)
        return fail("sessions", &err);
    store_session *s = NULL;
    int n = 0, code = store_session_list(h.st, &s, &n, &err) == 0 ? 0 : fail("sessions", &err);
    if (code == 0)
        printf("%-20s  %-44s  %-19s  %s\n", "session", "definition", "created", "held by");
    for (int i = 0; code == 0 && i < n; i++) {
        char when[32], holder[96] = "-";
        format_time(s[i].created, when, sizeof when);
        if (s[i].holder_pid)
            snprintf(holder, sizeof holder, "pid %lld on %s", (long long)s[i].holder_pid, s[i].holder_host);
        printf("%-20s  %-44s  %-19s  %s\n", s[i].name, s[i].definition, when, holder);
    }
    store_session_list_free(s, n);
    wsclose(&h);
    return code;
}

static char *candidate_name(store *st, int64_t id)
{
    store_candidate c = {0};
    kwb_error err;
    if (id <= 0 || store_candidate_get(st, id, &c, &err) != 0)
        return xstrdup("-");
    char *name = xstrdup(c.name);
    store_candidate_free(&c);
    return name;
}

/* " (partial: N of M workloads)" when candidate ID's evidence covers fewer workloads than the
 * session's fullest evaluation; "" otherwise. */
static void partial_note(store *st, int64_t id, char *buf, size_t cap)
{
    store_evidence ev;
    kwb_error err;
    buf[0] = '\0';
    if (id > 0 && store_candidate_evidence(st, id, &ev, &err) == 1 && ev.n_done < ev.n_session)
        snprintf(buf, cap, " (partial: %d of %d workloads)", ev.n_done, ev.n_session);
}

/* "best: NAME, mean X ms (partial: N of M workloads)": the session's best, as decided. */
static void print_best(store *st, int64_t session)
{
    int64_t id = 0;
    double mean = NAN;
    kwb_error err;
    if (store_candidate_best(st, session, &id, &mean, &err) != 1)
        return;
    char *name = candidate_name(st, id), note[96];
    partial_note(st, id, note, sizeof note);
    printf("\nbest: %s", name);
    if (mean > 0)
        printf(", mean %.4f ms", mean);
    printf("%s\n", note);
    free(name);
}

/* The trajectory, each column as wide as its longest cell (names are never cut). */
static void print_trajectory(ws_handle *h, int64_t session, const store_round *r, int n)
{
    char **cand = xcalloc((size_t)n + 1, sizeof *cand), **best = xcalloc((size_t)n + 1, sizeof *best);
    int wt = 5, wc = 9, wb = 10;
    for (int i = 0; i < n; i++) {
        cand[i] = candidate_name(h->st, r[i].candidate);
        best[i] = candidate_name(h->st, r[i].best_candidate);
        int lt = r[i].title ? (int)strlen(r[i].title) : 0, lc = (int)strlen(cand[i]), lb = (int)strlen(best[i]);
        wt = lt > wt ? lt : wt, wc = lc > wc ? lc : wc, wb = lb > wb ? lb : wb;
    }
    printf("%-5s  %-*s  %-11s  %-*s  %-*s  %s\n", "round", wt, "title", "state", wc, "candidate", wb, "best after",
           "best ms");
    for (int i = 0; i < n; i++) {
        printf("%-5d  %-*s  %-11s  %-*s  %-*s  %s", r[i].number, wt, r[i].title ? r[i].title : "", r[i].state, wc,
               cand[i], wb, best[i], r[i].best_mean_ms > 0 ? "" : "-");
        char note[96] = "";
        if (r[i].best_mean_ms > 0) {
            printf("%.4f", r[i].best_mean_ms);
            partial_note(h->st, r[i].best_candidate, note, sizeof note);
        }
        printf("%s%s%s\n", note, r[i].outcome ? "  " : "", r[i].outcome ? r[i].outcome : "");
        free(cand[i]);
        free(best[i]);
    }
    free(cand);
    free(best);
    (void)session;
}

int cmd_log(int argc, char **argv)
{
    ws_args a;
    if (parse_ws_args("log", argc, argv, 0, 1, "[SESSION] [--workspace DIR]", &a) != 0)
        return 2;
    kwb_error err = {{0}};
    ws_handle h;
    int64_t session;
    if (wsopen(a.workspace, 1, &h, &err) != 0)
        return fail("log", &err);
    if (wsopen_session(&h, a.npos ? a.pos[0] : a.session, &session, &err) != 0) {
        wsclose(&h);
        return fail("log", &err);
    }
    store_round *r = NULL;
    store_log_entry *e = NULL;
    int nr = 0, ne = 0, code = 0;
    if (store_trajectory(h.st, session, 0, &r, &nr, &err) != 0 ||
        store_log_list(h.st, session, 0, 0, &e, &ne, &err) != 0)
        code = fail("log", &err);
    else {
        print_trajectory(&h, session, r, nr);
        print_best(h.st, session);
        printf("\ndecisions:\n");
        for (int i = 0; i < ne; i++) {
            if (strcmp(e[i].kind, "decision") != 0 && strcmp(e[i].kind, "direction") != 0)
                continue;
            char when[32];
            format_time(e[i].time, when, sizeof when);
            printf("  %s  %s\n", when, e[i].text);
        }
    }
    store_round_list_free(r, nr);
    store_log_list_free(e, ne);
    wsclose(&h);
    return code;
}

static void print_wl_table(const store_wl_table *t)
{
    printf("%-36s  %-19s  %11s  %11s  %8s  %9s  %9s\n", "uuid", "status", "median ms", "compare ms", "speedup",
           "max_abs", "max_rel");
    for (int i = 0; i < t->n; i++) {
        const store_wl_row *w = &t->rows[i];
        double cmp = w->baseline_median_ms > 0 ? w->baseline_median_ms : w->ref_median_ms;
        printf("%-36.36s  %-19s  %11.5f  %11.5f  %7.2fx  %9.2e  %9.2e\n", w->uuid, w->status, w->median_ms, cmp,
               w->speedup, w->max_abs, w->max_rel);
        if (w->message && w->message[0]) /* the reason (a failure's, or a flag for a human) */
            printf("    %.400s\n", w->message);
    }
}

/* Opens the workspace and finds candidate REF of the --session (or newest) session. */
static int open_candidate(const char *cmd, const ws_args *a, const char *ref, int readonly, ws_handle *h,
                          int64_t *session, store_candidate *c)
{
    kwb_error err = {{0}};
    if (wsopen(a->workspace, readonly, h, &err) != 0)
        return fail(cmd, &err);
    if (wsopen_session(h, a->session, session, &err) != 0 || wsopen_candidate(h, *session, ref, c, &err) != 0) {
        wsclose(h);
        return fail(cmd, &err);
    }
    return 0;
}

int cmd_show(int argc, char **argv)
{
    ws_args a;
    ws_handle h;
    int64_t session;
    store_candidate c = {0}, p = {0};
    if (parse_ws_args("show", argc, argv, 1, 1, "CANDIDATE [--session S] [--workspace DIR]", &a) != 0)
        return 2;
    if (open_candidate("show", &a, a.pos[0], 1, &h, &session, &c) != 0)
        return 2;
    kwb_error err = {{0}};
    int code = 0;
    if (c.parent && store_candidate_get(h.st, c.parent, &p, &err) != 0)
        code = fail("show", &err);
    strbuf diff;
    strbuf_init(&diff);
    if (code == 0 && archive_diff(h.ar, p.commit, c.commit, &diff, &err) != 0)
        code = fail("show", &err);
    if (code == 0) {
        printf("candidate %s (%s, %s), commit %s, parent %s\n\n", c.name, c.origin, c.state, c.commit,
               p.name ? p.name : "none");
        fputs(diff.s, stdout);
        store_wl_table t = {0};
        int has = store_wl_table_get(h.st, c.id, &t, &err);
        if (has > 0) { /* the run that speaks for it: a cut sweep over its complete gate */
            printf("\nevaluation (%s", t.state);
            if (t.n < t.planned)
                printf(", %d of %d workloads", t.n, t.planned);
            printf("):\n");
            print_wl_table(&t);
        } else if (has == 0)
            printf("\nnot evaluated yet\n");
        store_wl_table_free(&t);
    }
    strbuf_free(&diff);
    store_candidate_free(&p);
    store_candidate_free(&c);
    wsclose(&h);
    return code;
}

/* The evidence a promotion tag carries: the latest sweep's mean latency, speedup, trials. */
static char *evidence(ws_handle *h, const store_candidate *c, const char *reason)
{
    store_wl_table t = {0};
    kwb_error err;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s promoted by kwb\n\n", c->name);
    if (store_wl_table_get(h->st, c->id, &t, &err) > 0) {
        double lat = 0, logsp = 0;
        int passed = 0, nsp = 0;
        for (int i = 0; i < t.n; i++) {
            passed += strcmp(t.rows[i].status, "PASSED") == 0;
            lat += t.rows[i].median_ms;
            if (t.rows[i].speedup > 0) {
                logsp += log(t.rows[i].speedup);
                nsp++;
            }
        }
        strbuf_printf(&sb, "sweep: %d of %d workloads PASSED (%s)\nmean latency: %.5f ms\n", passed, t.n, t.state,
                      t.n ? lat / t.n : 0.0);
        if (nsp)
            strbuf_printf(&sb, "speedup: %.3fx geomean over %d workloads\n", exp(logsp / nsp), nsp);
    }
    if (reason)
        strbuf_printf(&sb, "reason: %s\n", reason);
    store_wl_table_free(&t);
    return strbuf_detach(&sb);
}

int cmd_decide(int argc, char **argv)
{
    ws_args a;
    ws_handle h;
    int64_t session;
    store_candidate c = {0};
    if (parse_ws_args("decide", argc, argv, 2, 2, "CANDIDATE promote|reject [--reason TEXT] [--session S] [--redo]",
                      &a) != 0)
        return 2;
    int promote = strcmp(a.pos[1], "promote") == 0;
    if (!promote && strcmp(a.pos[1], "reject") != 0) {
        fprintf(stderr, "kwb decide: the decision is promote or reject, not '%s'\n", a.pos[1]);
        return 2;
    }
    if (open_candidate("decide", &a, a.pos[0], 0, &h, &session, &c) != 0)
        return 2;
    kwb_error err = {{0}};
    store_session s = {0};
    char tag[256] = "";
    int code = store_session_get(h.st, session, &s, &err) == 0 ? 0 : 2;
    if (code == 0 && promote) {
        char *msg = evidence(&h, &c, a.reason);
        code = archive_tag_promoted(h.ar, s.definition, c.commit, msg, tag, &err) == 0 ? 0 : 2;
        free(msg);
    } else if (code == 0) {
        char *name = xasprintf("%s-%s", s.name, c.name);
        code = archive_mark_rejected(h.ar, c.commit, name, &err) == 0 ? 0 : 2;
        free(name);
    }
    int (*record)(store *, int64_t, const char *, const char *, kwb_error *) =
        a.redo ? store_candidate_redecide : store_candidate_decide; /* a new decision drops the redo stack */
    if (code == 0 && record(h.st, c.id, promote ? "promoted" : "rejected", a.reason, &err) != 0)
        code = 2;
    if (code != 0)
        fail("decide", &err);
    else
        printf("kwb: %s %s%s%s\n", c.name, promote ? "promoted as " : "rejected", tag, "");
    store_session_free(&s);
    store_candidate_free(&c);
    wsclose(&h);
    return code;
}

int cmd_checkout(int argc, char **argv)
{
    ws_args a;
    ws_handle h;
    int64_t session;
    store_candidate c = {0};
    if (parse_ws_args("checkout", argc, argv, 2, 2, "CANDIDATE DIR [--session S] [--workspace DIR]", &a) != 0)
        return 2;
    if (open_candidate("checkout", &a, a.pos[0], 1, &h, &session, &c) != 0)
        return 2;
    kwb_error err = {{0}};
    int code = archive_checkout(h.ar, c.commit, a.pos[1], &err) == 0 ? 0 : fail("checkout", &err);
    if (code == 0)
        printf("kwb: %s (%.12s) written to %s\n", c.name, c.commit, a.pos[1]);
    store_candidate_free(&c);
    wsclose(&h);
    return code;
}

/* ---- kwb report --------------------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return v > 0 ? json_real(v) : json_null();
}

static json_t *candidate_json(ws_handle *h, int64_t id, double mean_ms)
{
    store_candidate c = {0};
    kwb_error err;
    if (store_candidate_get(h->st, id, &c, &err) != 0)
        return NULL;
    char *reason = NULL;
    store_candidate_reason(h->st, id, &reason, &err);
    json_t *o = json_pack("{s:I, s:s, s:o, s:s, s:s?, s:s, s:o, s:s?}", "id", (json_int_t)c.id, "name", c.name,
                          "parent", c.parent ? json_integer(c.parent) : json_null(), "origin", c.origin, "commit",
                          c.commit, "state", c.state, "mean_ms", num_or_null(mean_ms), "decision_reason", reason);
    free(reason);
    store_candidate_free(&c);
    return o;
}

/* The mean latency of candidate ID over the PASSED workloads of its latest eval run (as kwb
 * eval's summary line computes it); 0 when it has none. */
static double candidate_mean_ms(ws_handle *h, int64_t id)
{
    store_wl_table t = {0};
    kwb_error err;
    double sum = 0;
    int n = 0;
    if (store_wl_table_get(h->st, id, &t, &err) == 1)
        for (int i = 0; i < t.n; i++)
            if (strcmp(t.rows[i].status, "PASSED") == 0 && t.rows[i].median_ms > 0) {
                sum += t.rows[i].median_ms;
                n++;
            }
    store_wl_table_free(&t);
    return n ? sum / n : 0;
}

/* Candidates of the rounds (each once), baseline first. */
static json_t *candidates_json(ws_handle *h, const store_round *r, int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        if (!r[i].candidate)
            continue;
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = r[k].candidate == r[i].candidate;
        json_t *c = seen ? NULL : candidate_json(h, r[i].candidate, candidate_mean_ms(h, r[i].candidate));
        if (c)
            json_array_append_new(arr, c);
    }
    return arr;
}

static json_t *rounds_json(const store_round *r, int n)
{
    json_t *arr = json_array();
    double base = n > 0 ? r[0].best_mean_ms : 0;
    for (int i = 0; i < n; i++) {
        double sp = base > 0 && r[i].best_mean_ms > 0 ? base / r[i].best_mean_ms : 0;
        json_array_append_new(
            arr, json_pack("{s:i, s:s?, s:s, s:o, s:o, s:o}", "number", r[i].number, "title", r[i].title, "state",
                           r[i].state, "candidate", r[i].candidate ? json_integer(r[i].candidate) : json_null(),
                           "best_mean_ms", num_or_null(r[i].best_mean_ms), "speedup", num_or_null(sp)));
    }
    return arr;
}

/* The session's best as decided (store_candidate_best) with the workloads its evidence covers
 * ("workloads" of "of": partial when fewer); JSON null when there is none. */
static json_t *best_json(ws_handle *h, int64_t session)
{
    int64_t id = 0;
    double mean = NAN;
    store_evidence ev = {0};
    kwb_error err;
    if (store_candidate_best(h->st, session, &id, &mean, &err) != 1 ||
        store_candidate_evidence(h->st, id, &ev, &err) < 0)
        return json_null();
    char *name = candidate_name(h->st, id);
    json_t *o = json_pack("{s:I, s:s, s:o, s:i, s:i}", "candidate", (json_int_t)id, "name", name, "mean_ms",
                          num_or_null(mean), "workloads", ev.n_done, "of", ev.n_session);
    free(name);
    return o;
}

/* The workload WL of the shipped dataset with uuid UUID, for axes and traces; may be NULL. */
static const workload *find_workload(const workload_set *set, const char *uuid)
{
    for (int i = 0; set && i < set->count; i++)
        if (strcmp(set->items[i].uuid, uuid) == 0)
            return &set->items[i];
    return NULL;
}

static json_t *axes_json(const definition *d, const workload *w)
{
    if (!d || !w)
        return json_null();
    json_t *o = json_object();
    for (int a = 0; a < d->naxes; a++)
        if (!d->axes[a].is_const)
            json_object_set_new(o, d->axes[a].name, json_integer(w->axis_value[a]));
    return o;
}

static double baseline_ms_of(const store_wl_table *base, const char *uuid)
{
    for (int i = 0; base && i < base->n; i++)
        if (strcmp(base->rows[i].uuid, uuid) == 0)
            return base->rows[i].median_ms;
    return 0;
}

/* A trace line for row W of the best candidate NAME (when the workload is known). */
static json_t *trace_of(const definition *d, const workload *wl, const store_wl_row *w, const char *name,
                        const char *device)
{
    wl_result r = {0};
    r.wl = wl;
    status_from_name(w->status, &r.status);
    r.message = w->message;
    r.max_abs = w->max_abs;
    r.max_rel = w->max_rel;
    r.matched_ratio = w->matched_ratio;
    r.has_candidate = w->median_ms > 0;
    r.candidate.median = w->median_ms;
    r.has_reference = w->ref_median_ms > 0;
    r.reference.median = w->ref_median_ms;
    json_t *env = trace_environment(NULL, device);
    json_t *line = trace_line(d, name, env, &r);
    json_decref(env);
    return line;
}

static void workloads_json(json_t *model, const store_wl_table *best, const store_wl_table *base, const definition *d,
                           const workload_set *set, const char *best_name, const char *device)
{
    json_t *arr = json_array(), *traces = json_array();
    for (int i = 0; best && i < best->n; i++) {
        const store_wl_row *w = &best->rows[i];
        const workload *wl = find_workload(set, w->uuid);
        double bms = baseline_ms_of(base, w->uuid);
        json_array_append_new(arr,
                              json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:o, s:f, s:f, s:s?}", "uuid", w->uuid, "axes",
                                        axes_json(d, wl), "status", w->status, "best_ms", num_or_null(w->median_ms),
                                        "baseline_ms", num_or_null(bms), "reference_ms", num_or_null(w->ref_median_ms),
                                        "speedup", num_or_null(bms > 0 && w->median_ms > 0 ? bms / w->median_ms : 0),
                                        "max_abs", w->max_abs, "max_rel", w->max_rel, "message", w->message));
        if (wl)
            json_array_append_new(traces, trace_of(d, wl, w, best_name, device));
    }
    json_object_set_new(model, "workloads", arr);
    json_object_set_new(model, "traces", traces);
}

/* The report model of SESSION (see report.h). */
static json_t *build_model(ws_handle *h, int64_t session, const char *dataset_dir, kwb_error *err)
{
    store_session s = {0};
    store_round *r = NULL;
    store_eval_run *runs = NULL;
    int nr = 0, nruns = 0;
    if (store_session_get(h->st, session, &s, err) != 0 || store_trajectory(h->st, session, 0, &r, &nr, err) != 0 ||
        store_eval_run_list(h->st, session, NULL, &runs, &nruns, err) != 0) {
        store_session_free(&s);
        return NULL;
    }
    const char *device = nruns ? runs[nruns - 1].device : "none";
    json_t *model =
        json_pack("{s:s, s:s, s:s, s:o, s:o, s:o}", "session", s.name, "definition", s.definition, "device", device,
                  "candidates", candidates_json(h, r, nr), "rounds", rounds_json(r, nr), "best", best_json(h, session));
    store_wl_table best = {0}, base = {0};
    int has_best = store_wl_table_best(h->st, session, &best, err);
    if (has_best <= 0)
        has_best = store_wl_table_current(h->st, session, &best, err);
    int has_base = nr > 0 && r[0].candidate ? store_wl_table_get(h->st, r[0].candidate, &base, err) : 0;
    char *dataset = dataset_dir ? xstrdup(dataset_dir) : paths_dataset();
    definition *d = NULL;
    workload_set set = {0};
    kwb_error derr;
    int known = traceset_load(dataset, s.definition, &d, &set, &derr) == 0;
    char *best_name = candidate_name(h->st, best.candidate);
    workloads_json(model, has_best > 0 ? &best : NULL, has_base > 0 ? &base : NULL, known ? d : NULL,
                   known ? &set : NULL, best_name, device);
    free(best_name);
    free(dataset);
    workload_set_free(&set);
    definition_free(d);
    store_wl_table_free(&best);
    store_wl_table_free(&base);
    store_eval_run_list_free(runs, nruns);
    store_round_list_free(r, nr);
    store_session_free(&s);
    return model;
}

static int write_output(const char *path, const strbuf *sb, kwb_error *err)
{
    if (!path)
        return fwrite(sb->s, 1, sb->len, stdout) == sb->len ? 0 : kwb_error_set(err, "cannot write the report");
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    int rc = f && fwrite(sb->s, 1, sb->len, f) == sb->len ? 0 : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0) {
        unlink(tmp);
        kwb_error_set(err, "%s: cannot write", path);
    }
    free(tmp);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    ws_args a;
    if (parse_ws_args("report", argc, argv, 0, 1,
                      "[SESSION] [--format md|csv|json|traces|html] [--output FILE] [--dataset DIR]", &a) != 0)
        return 2;
    kwb_error err = {{0}};
    ws_handle h;
    int64_t session;
    if (wsopen(a.workspace, 1, &h, &err) != 0)
        return fail("report", &err);
    int code = 0;
    json_t *model = NULL;
    strbuf out;
    strbuf_init(&out);
    if (wsopen_session(&h, a.npos ? a.pos[0] : a.session, &session, &err) != 0 ||
        !(model = build_model(&h, session, a.dataset, &err)) ||
        report_render(model, a.format ? a.format : "md", &out, &err) != 0 || write_output(a.output, &out, &err) != 0)
        code = fail("report", &err);
    json_decref(model);
    strbuf_free(&out);
    wsclose(&h);
    return code;
}

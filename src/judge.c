/* judge.c - gate, sweep, replay and held-out shapes of one candidate through child evals (see judge.h). */
#include "judge.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bottleneck.h"
#include "paths.h"
#include "proc.h"
#include "regimes.h"
#include "roundplan.h"
#include "traceset.h"
#include "xalloc.h"

/* This kwb, for its children ("kwb" on PATH when /proc/self/exe cannot be read). */
static char *self_path(void)
{
    char *self = paths_self();
    return self ? self : xstrdup("kwb");
}

int judge_run_kwb(char **argv, const char *out_path, kwb_error *err)
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

/* The classify step: the workloads of DOC grouped into regimes by their first axis, each with
 * the class its latency-weighted roofline share gives (bottleneck.h's fallback rule). */
static void classify(json_t *doc, char *out, size_t cap)
{
    json_t *wls = json_object_get(doc, "workloads"), *w;
    size_t n = json_array_size(wls), i;
    double *key = calloc(n + 1, sizeof *key), *lat = calloc(n + 1, sizeof *lat), *roof = calloc(n + 1, sizeof *roof);
    int *assign = calloc(n + 1, sizeof *assign);
    const char *axis = "size";
    json_array_foreach(wls, i, w)
    {
        json_t *axes = json_object_get(w, "axes");
        const char *name;
        json_t *v;
        json_object_foreach(axes, name, v)
        {
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

int judge_read_summary(const char *path, eval_summary *s, kwb_error *err)
{
    memset(s, 0, sizeof *s);
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!doc)
        return kwb_error_set(err, "%s:%d: the evaluation's JSON: %s", path, jerr.line, jerr.text);
    json_t *wls = json_object_get(doc, "workloads"), *w;
    size_t i;
    json_array_foreach(wls, i, w)
    {
        const char *st = json_string_value(json_object_get(w, "status"));
        const char *v = json_string_value(json_object_get(json_object_get(w, "verdict"), "kind"));
        s->total++;
        if (st && strcmp(st, "PASSED") == 0)
            s->passed++;
        else if (!s->first_failure[0])
            snprintf(s->first_failure, sizeof s->first_failure, "%.8s %s",
                     json_string_value(json_object_get(w, "uuid")), st ? st : "?");
        s->faster += v && strcmp(v, "faster") == 0;
        s->slower += v && strcmp(v, "slower") == 0;
        /* few samples leave the paired verdict unclear even for a plainly slower median */
        double ratio = json_number_value(json_object_get(json_object_get(w, "verdict"), "ratio"));
        s->slower_unclear += v && strcmp(v, "unclear") == 0 && ratio > JUDGE_UNCLEAR_SLOWER;
        if (v && ratio > s->worst_ratio)
            s->worst_ratio = ratio;
    }
    s->mean_ms = json_number_value(json_object_get(json_object_get(doc, "summary"), "mean_latency_ms"));
    classify(doc, s->evidence, sizeof s->evidence);
    json_decref(doc);
    return 0;
}

int judge_rule(const eval_summary *s, char *reason, size_t cap)
{
    if (s->passed < s->total)
        snprintf(reason, cap, "%d of %d workloads failed (first: %s)", s->total - s->passed, s->total,
                 s->first_failure);
    else if (s->slower + s->slower_unclear > 0) {
        int used = snprintf(reason, cap, "slower on %d of %d workloads", s->slower + s->slower_unclear, s->total);
        if (s->slower_unclear > 0 && used >= 0 && (size_t)used < cap)
            snprintf(reason + used, cap - (size_t)used,
                     " (%d by the medians alone: paired verdict unclear, median over %.2fx)", s->slower_unclear,
                     JUDGE_UNCLEAR_SLOWER);
    } else if (s->faster == 0)
        snprintf(reason, cap, "faster on no workload (paired gate)");
    else {
        snprintf(reason, cap, "all %d PASSED; faster on %d, slower on none; mean %.4f ms", s->total, s->faster,
                 s->mean_ms);
        return 1;
    }
    return 0;
}

int judge_rule_fix(const eval_summary *s, char *reason, size_t cap)
{
    if (s->passed < s->total) {
        snprintf(reason, cap, "%d of %d workloads failed (first: %s)", s->total - s->passed, s->total,
                 s->first_failure);
        return 0;
    }
    if (s->worst_ratio > 1 + JUDGE_FIX_SLOWER) {
        snprintf(reason, cap, "a fix, but %.1f%% slower than the best on a workload (at most %.0f%% allowed)",
                 100 * (s->worst_ratio - 1), 100 * JUDGE_FIX_SLOWER);
        return 0;
    }
    snprintf(reason, cap,
             "all %d PASSED; a fix: at most %.1f%% slower than the best (%.0f%% allowed), faster on %d; mean %.4f ms",
             s->total, s->worst_ratio > 1 ? 100 * (s->worst_ratio - 1) : 0.0, 100 * JUDGE_FIX_SLOWER, s->faster,
             s->mean_ms);
    return 1;
}

/* The gate's --workloads filter for Q from definition D and its workloads SET (cut to Q's
 * filter here): one representative per regime, weighted by the best's latencies, into OUT; how
 * many, or 0 when the gate would cover every workload anyway (then the sweep alone judges). */
static int gate_filter(const judge_request *q, const definition *d, workload_set *set, char *out, size_t cap)
{
    if (q->filter && workload_set_filter(set, d, q->filter) == 0)
        return 0;
    double *lat = xcalloc((size_t)set->count + 1, sizeof *lat);
    store_wl_table t;
    kwb_error err = {{0}};
    if (q->st && q->best_id && store_wl_table_get(q->st, q->best_id, &t, &err) == 1) {
        for (int i = 0; i < set->count; i++)
            for (int j = 0; j < t.n; j++)
                if (strcmp(t.rows[j].uuid, set->items[i].uuid) == 0)
                    lat[i] = t.rows[j].median_ms;
        store_wl_table_free(&t);
    }
    int picked = roundplan_gate_filter(d, set, lat, out, cap);
    free(lat);
    return picked >= set->count ? 0 : picked;
}

/* One child `kwb eval` of Q's candidate for STEP with EXTRA arguments (NULL-terminated); the
 * session is recorded unless UNRECORDED. Its JSON goes to FOLDER/NAME.STEP.json (kept in
 * JSON_PATH when not NULL) and is summarised into *s. */
static int step_eval(const judge_request *q, const char *step, const char *const *extra, int unrecorded,
                     eval_summary *s, char *json_path, size_t cap, kwb_error *err)
{
    char *out = xasprintf("%s/%s.%s.json", q->folder, q->name, step);
    if (!q->quiet) {
        int against = q->best_name && strcmp(q->best_name, q->name) != 0;
        fprintf(stderr, JUDGE_STEP_PREFIX "%s: %s%s%s\n", step, q->name, against ? " against " : "",
                against ? q->best_name : "");
    }
    const char *argv[48];
    int n = 0;
    argv[n++] = NULL;
    argv[n++] = "eval";
    argv[n++] = "--definition", argv[n++] = q->definition;
    argv[n++] = "--solution", argv[n++] = q->dir;
    argv[n++] = "--device", argv[n++] = q->device;
    argv[n++] = "--json"; /* its progress (stderr) shows on the caller's terminal or the workbench's log */
    if (q->dataset)
        argv[n++] = "--dataset", argv[n++] = q->dataset;
    if (!unrecorded) {
        argv[n++] = "--session", argv[n++] = q->session;
        if (q->workspace)
            argv[n++] = "--workspace", argv[n++] = q->workspace;
    }
    if (q->max_time)
        argv[n++] = "--max-time", argv[n++] = q->max_time;
    for (int i = 0; extra[i] && n < 46; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int code = judge_run_kwb((char **)argv, out, err);
    int rc = code < 0 ? -1
                      : (code > 1 ? kwb_error_set(err, "kwb eval (%s) of %s ended with code %d", step, q->name, code)
                                  : judge_read_summary(out, s, err));
    if (json_path)
        snprintf(json_path, cap, "%s", out);
    free(out);
    return rc;
}

/* The gate: Q's candidate against the best on V's representatives (recorded: the candidate's
 * first eval run). 1 passed, 0 failed (V's reason says why), -1 on error. */
static int gate_step(const judge_request *q, judge_verdict *v, kwb_error *err)
{
    const char *first[] = {"--name",      q->name,        "--direction", q->direction,
                           "--parent",    q->best_name,   "--against",   q->best_dir,
                           "--workloads", v->gate_filter, "--origin",    q->origin ? q->origin : "human",
                           NULL};
    const char *again[] = {"--candidate", q->name, "--against", q->best_dir, "--workloads", v->gate_filter, NULL};
    const char **extra = q->again ? again : first;
    char why[512];
    snprintf(v->stage, sizeof v->stage, "gate");
    if (step_eval(q, "gate", extra, 0, &v->gate, NULL, 0, err) != 0)
        return -1;
    if (v->fix ? judge_rule_fix(&v->gate, why, sizeof why) : judge_rule(&v->gate, why, sizeof why))
        return 1;
    size_t used = strlen(v->reason);
    snprintf(v->reason + used, sizeof v->reason - used, "gate on %d representative workload(s) (%s): %s",
             v->gate_workloads, v->gate_filter, why);
    return 0;
}

/* The sweep: every workload, another eval run of the candidate when the gate recorded it (else
 * its first), paired against the best when there is one. 1 passed, 0 failed, -1 on error; V's
 * reason gets the gate's and the sweep's figures either way. */
static int sweep_step(const judge_request *q, judge_verdict *v, kwb_error *err)
{
    const char *extra[16];
    int n = 0;
    if (v->gate_workloads > 0 || q->again) {
        extra[n++] = "--candidate", extra[n++] = q->name;
    } else {
        extra[n++] = "--name", extra[n++] = q->name, extra[n++] = "--direction", extra[n++] = q->direction;
        extra[n++] = "--origin", extra[n++] = q->origin ? q->origin : "human";
        if (q->best_name)
            extra[n++] = "--parent", extra[n++] = q->best_name;
    }
    if (q->best_dir)
        extra[n++] = "--against", extra[n++] = q->best_dir;
    if (q->filter)
        extra[n++] = "--workloads", extra[n++] = q->filter;
    extra[n] = NULL;
    snprintf(v->stage, sizeof v->stage, "sweep");
    if (step_eval(q, "sweep", extra, 0, &v->sweep, v->sweep_json, sizeof v->sweep_json, err) != 0)
        return -1;
    char why[512], gate[384] = "";
    int pass = !q->best_dir ? v->sweep.passed == v->sweep.total
               : v->fix     ? judge_rule_fix(&v->sweep, why, sizeof why)
                            : judge_rule(&v->sweep, why, sizeof why);
    if (!q->best_dir)
        snprintf(why, sizeof why, "%d of %d PASSED; mean %.4f ms", v->sweep.passed, v->sweep.total, v->sweep.mean_ms);
    if (v->gate_workloads > 0)
        snprintf(gate, sizeof gate, "gate passed on %d representative(s) (%s): faster on %d; ", v->gate_workloads,
                 v->gate_filter, v->gate.faster);
    size_t used = strlen(v->reason); /* the fix step's figures come first */
    snprintf(v->reason + used, sizeof v->reason - used, "%ssweep: %s", gate, why);
    return pass;
}

/* The replay: V's replay_trials correctness trials per workload on inputs of another seed
 * (unrecorded). 1 passed, 0 failed, -1 on error; its figures are added to V's reason. */
static int replay_step(const judge_request *q, judge_verdict *v, kwb_error *err)
{
    char trials[16], scope[64] = "";
    snprintf(trials, sizeof trials, "%d", v->replay_trials);
    const char *filter = q->filter;
    if (q->replay_on_gate && v->gate_workloads > 0) {
        filter = v->gate_filter;
        snprintf(scope, sizeof scope, " on the gate's %d representatives", v->gate_workloads);
    }
    const char *extra[] = {"--trials", trials, "--seed", "7919", filter ? "--workloads" : NULL, filter, NULL};
    eval_summary r;
    snprintf(v->stage, sizeof v->stage, "replay");
    if (step_eval(q, "replay", extra, 1, &r, NULL, 0, err) != 0)
        return -1;
    size_t used = strlen(v->reason);
    if (r.passed < r.total) {
        snprintf(v->reason + used, sizeof v->reason - used,
                 "; replay of %d trials%s: %d of %d workloads failed (first: %s)", v->replay_trials, scope,
                 r.total - r.passed, r.total, r.first_failure);
        return 0;
    }
    snprintf(v->reason + used, sizeof v->reason - used, "; replay of %d trials%s: all %d PASSED", v->replay_trials,
             scope, r.total);
    return 1;
}

/* The held-out step: the definition's held-out shapes, which no agent was shown (unrecorded),
 * all PASSED. 1 passed, 0 failed, -1 on error; its figures are added to V's reason. */
static int held_out_step(const judge_request *q, judge_verdict *v, kwb_error *err)
{
    const char *extra[] = {"--held-out", NULL};
    eval_summary h;
    snprintf(v->stage, sizeof v->stage, "heldout");
    if (step_eval(q, "heldout", extra, 1, &h, NULL, 0, err) != 0)
        return -1;
    v->heldout_workloads = h.total;
    size_t used = strlen(v->reason);
    if (h.passed < h.total) {
        snprintf(v->reason + used, sizeof v->reason - used, "; held-out shapes: %d of %d failed (first: %s)",
                 h.total - h.passed, h.total, h.first_failure);
        return 0;
    }
    snprintf(v->reason + used, sizeof v->reason - used, "; held-out shapes: all %d PASSED", h.total);
    return 1;
}

/* The fix step: TRIALS replay trials (seed 7919, unrecorded) of the best, then of the candidate,
 * on q->fixes. 1 to go on (V's fix says whether the fix rule applies), 0 when the candidate fails
 * there, -1 on error; the figures open V's reason. */
static int fix_step(const judge_request *q, judge_verdict *v, int trials, kwb_error *err)
{
    char n[16];
    snprintf(n, sizeof n, "%d", trials);
    const char *extra[] = {"--trials", n, "--seed", "7919", "--workloads", q->fixes, NULL};
    judge_request best = *q;
    best.dir = q->best_dir;
    best.name = q->best_name;
    eval_summary b, c;
    snprintf(v->stage, sizeof v->stage, "fix");
    if (step_eval(&best, "fix", extra, 1, &b, NULL, 0, err) != 0 ||
        step_eval(q, "fix", extra, 1, &c, NULL, 0, err) != 0)
        return -1;
    if (c.passed < c.total) {
        snprintf(v->reason, sizeof v->reason,
                 "not a fix: the replay of %d trials on %s fails %d of %d workloads (first: %s)", trials, q->fixes,
                 c.total - c.passed, c.total, c.first_failure);
        return 0;
    }
    v->fix = b.passed < b.total;
    if (v->fix)
        snprintf(v->reason, sizeof v->reason,
                 "a fix: the replay of %d trials on %s fails the best on %d of %d workloads (first: %s), the candidate "
                 "on none; ",
                 trials, q->fixes, b.total - b.passed, b.total, b.first_failure);
    else
        snprintf(v->reason, sizeof v->reason,
                 "nothing to fix: the best passes the replay of %d trials on %s (%d workloads), so the usual rule; ",
                 trials, q->fixes, b.total);
    return 1;
}

int judge_candidate(const judge_request *q, judge_verdict *v, kwb_error *err)
{
    memset(v, 0, sizeof *v);
    /* the definition and its workloads, read once for the plan (a dataset that cannot be read
     * plans no gate and no replay; the sweep's eval then says what is wrong with it) */
    char *dataset = q->dataset ? xstrdup(q->dataset) : paths_dataset();
    char *held_out = traceset_held_out_path(dataset, q->definition);
    definition *d = NULL;
    workload_set set = {0};
    kwb_error lerr = {{0}};
    int loaded = traceset_load(dataset, q->definition, &d, &set, &lerr) == 0;
    if (loaded && q->best_name && q->best_dir)
        v->gate_workloads = gate_filter(q, d, &set, v->gate_filter, sizeof v->gate_filter);
    int rc = 1;
    if (q->fixes && q->best_dir) {
        int trials = loaded ? roundplan_replay_trials(d) : 0;
        rc = fix_step(q, v, trials > 0 ? trials : JUDGE_FIX_TRIALS, err);
    }
    if (rc == 1 && v->gate_workloads > 0)
        rc = gate_step(q, v, err);
    if (rc == 1)
        rc = sweep_step(q, v, err);
    if (rc == 1 && loaded && (v->replay_trials = roundplan_replay_trials(d)) > 0)
        rc = replay_step(q, v, err);
    if (rc == 1 && q->best_dir && access(held_out, R_OK) == 0)
        rc = held_out_step(q, v, err);
    workload_set_free(&set);
    if (d)
        definition_free(d);
    free(held_out);
    free(dataset);
    if (rc < 0)
        return -1;
    v->promote = rc;
    return 0;
}

int judge_step_parse(const char *line, char *step, size_t cap)
{
    const char *s = strstr(line, JUDGE_STEP_PREFIX);
    if (!s || cap == 0)
        return -1;
    s += strlen(JUDGE_STEP_PREFIX);
    size_t n = strcspn(s, ": ");
    if (n == 0 || s[n] != ':')
        return -1;
    snprintf(step, cap, "%.*s", (int)n, s);
    return 0;
}

/* flow.c - the round as child processes (see flow.h). */
#include "tui/flow.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "paths.h"
#include "proc.h"
#include "sweepprog.h"
#include "tui/model.h"
#include "xalloc.h"

/* Starts `kwb ARGS...` (this kwb) as job KIND; the argument list ends with NULL. */
static int spawn_kwb(tui_app *a, int kind, const char *label, int capture, const char **args)
{
    char *argv[48];
    char *self = paths_self();
    int n = 0;
    argv[n++] = self ? self : (char *)"kwb";
    for (int i = 0; args[i] && n < 46; i++)
        argv[n++] = (char *)args[i];
    if (a->opt.workspace && n < 46)
        argv[n++] = "--workspace", argv[n++] = (char *)a->opt.workspace;
    argv[n] = NULL;
    job *slot = NULL;
    for (int i = 0; i < JOB_MAX && !slot; i++)
        if (!a->jobs[i].active)
            slot = &a->jobs[i];
    kwb_error err = {{0}};
    int rc = slot ? job_start(slot, kind, label, argv, capture, &err) : kwb_error_set(&err, "too many jobs");
    free(self);
    if (rc != 0)
        app_log(a, TC_LOG_ERROR, "%s: %s", label, err.msg);
    else
        app_log(a, TC_LOG_INFO, "%s: started", label);
    a->dirty = 1;
    return rc;
}

/* Adds the eval options shared by the start and the rounds to ARGS at *N. */
static void eval_options(tui_app *a, const char **args, int *n)
{
    args[(*n)++] = "--definition", args[(*n)++] = a->definition;
    args[(*n)++] = "--session", args[(*n)++] = a->opt.session;
    args[(*n)++] = "--device", args[(*n)++] = a->opt.device ? a->opt.device : "cpu";
    args[(*n)++] = "--json", args[(*n)++] = "--quiet";
    if (a->opt.workloads)
        args[(*n)++] = "--workloads", args[(*n)++] = a->opt.workloads;
    if (a->opt.max_time)
        args[(*n)++] = "--max-time", args[(*n)++] = a->opt.max_time;
}

static void propose(tui_app *a)
{
    const char *args[] = {
        "propose", "--session", a->opt.session, "--json", "--agent", a->opt.agent ? a->opt.agent : "tuner", NULL};
    a->step = STEP_PROPOSING;
    a->round_no = a->store_rounds; /* the candidate's own round, once recorded, does not advance it */
    spawn_kwb(a, JOB_PROPOSE, "propose", 1, args);
}

int flow_begin(tui_app *a, kwb_error *err)
{
    if (a->session) {
        propose(a);
        return 0;
    }
    if (!a->opt.definition || !a->opt.solution || !a->opt.session)
        return kwb_error_set(err, "session '%s' does not exist: give --definition NAME and --solution DIR to start it",
                             a->opt.session ? a->opt.session : "(none)");
    snprintf(a->definition, sizeof a->definition, "%s", a->opt.definition);
    const char *args[32] = {"eval", "--solution", a->opt.solution, "--name", "start", "--direction", "start"};
    int n = 7;
    eval_options(a, args, &n);
    args[n] = NULL;
    a->step = STEP_STARTING;
    return spawn_kwb(a, JOB_START_EVAL, "start: eval", 1, args) == 0 ? 0 : kwb_error_set(err, "cannot start kwb eval");
}

/* The verdict on kwb judge's JSON (its "judge" object: gate, sweep, replay), or on kwb eval's
 * for the start (every workload PASSED); 1 promote, 0 not, -1 unreadable. */
static int read_verdict(const char *json, char *reason, size_t cap, double *mean_ms)
{
    json_error_t jerr;
    json_t *doc = json_loads(json, 0, &jerr);
    if (!doc) {
        snprintf(reason, cap, "the evaluation's JSON: line %d: %s", jerr.line, jerr.text);
        return -1;
    }
    *mean_ms = json_number_value(json_object_get(json_object_get(doc, "summary"), "mean_latency_ms"));
    json_t *verdict = json_object_get(doc, "judge");
    int promote = 0;
    if (verdict) {
        promote = json_is_true(json_object_get(verdict, "promote"));
        snprintf(reason, cap, "%s", json_string_value(json_object_get(verdict, "reason")) ?: "no reason given");
    } else {
        int total = 0, passed = 0;
        json_t *w;
        size_t i;
        json_array_foreach(json_object_get(doc, "workloads"), i, w)
        {
            const char *st = json_string_value(json_object_get(w, "status"));
            total++;
            passed += st && strcmp(st, "PASSED") == 0;
        }
        promote = total > 0 && passed == total;
        snprintf(reason, cap, promote ? "all %d PASSED" : "%d of %d workloads failed", promote ? total : total - passed,
                 total);
    }
    json_decref(doc);
    return promote;
}

static void read_proposals(tui_app *a, const char *json)
{
    json_error_t jerr;
    json_t *doc = json_loads(json, 0, &jerr);
    if (!doc) {
        app_log(a, TC_LOG_ERROR, "propose: not JSON: line %d: %s", jerr.line, jerr.text);
        return;
    }
    snprintf(a->bn_class, sizeof a->bn_class, "%s", json_string_value(json_object_get(doc, "class")) ?: "");
    snprintf(a->bn_regime, sizeof a->bn_regime, "%s", json_string_value(json_object_get(doc, "regime")) ?: "");
    json_t *d;
    size_t i;
    int added = 0, keep = 0;
    for (int k = 0; k < a->nprops; k++) /* this answer replaces the pending ones */
        if (strcmp(a->props[k].state, "pending") != 0 && strcmp(a->props[k].state, "chosen") != 0 &&
            strcmp(a->props[k].state, "written") != 0)
            a->props[keep++] = a->props[k];
    a->nprops = keep;
    a->chosen = -1;
    json_array_foreach(json_object_get(doc, "directions"), i, d)
    {
        a->props = xrealloc(a->props, (size_t)(a->nprops + 1) * sizeof *a->props);
        memmove(a->props + added + 1, a->props + added, (size_t)(a->nprops - added) * sizeof *a->props);
        proposal *p = &a->props[added++];
        a->nprops++;
        memset(p, 0, sizeof *p);
#define COPY(field, key) snprintf(p->field, sizeof p->field, "%s", json_string_value(json_object_get(d, key)) ?: "")
        COPY(id, "id");
        COPY(title, "title");
        COPY(source, "source");
        COPY(rationale, "rationale");
        COPY(predicted, "predicted");
#undef COPY
        snprintf(p->state, sizeof p->state, "pending");
    }
    json_decref(doc);
    a->ps[PANE_PROPOSALS].sel = 0;
    a->step = added ? STEP_CHOOSE : STEP_DONE;
    app_status(a, TC_NORMAL, added ? "%d directions: a chooses one, x rejects it" : "no direction left to try", added);
    if (added)
        a->focus = PANE_PROPOSALS;
}

/* Records direction P as DECISION with REASON in the store (as kwb run does). */
static void record_direction(tui_app *a, proposal *p, const char *decision, const char *reason)
{
    int64_t id;
    kwb_error err = {{0}};
    if (store_direction_add(a->h.st, a->session, 0, p->source[0] ? p->source : "tuner", p->id, p->title, &id, &err) !=
            0 ||
        store_direction_decide(a->h.st, id, decision, reason, &err) != 0)
        app_log(a, TC_LOG_ERROR, "direction not recorded: %s", err.msg);
    snprintf(p->state, sizeof p->state, "%s", decision);
    snprintf(p->reason, sizeof p->reason, "%s", reason ? reason : "");
}

/* After promoting a knob change "tune.K=V", going back to the value it left would be a cycle: the
 * old value (the deleted "#define K OLD" line of the diff) is recorded as rejected, as kwb run does. */
static void bar_cycle(tui_app *a, const proposal *p)
{
    char knob[48];
    if (sscanf(p->id, "tune.%47[^=]=", knob) != 1)
        return;
    for (int i = 0; i < a->diff.nlines; i++) {
        char name[48], value[24];
        if (a->diff.lines[i].kind == '-' && sscanf(a->diff.lines[i].text, "#define %47s %23s", name, value) == 2 &&
            strcmp(name, knob) == 0) {
            proposal back;
            memset(&back, 0, sizeof back);
            snprintf(back.id, sizeof back.id, "tune.%s=%s", knob, value);
            snprintf(back.title, sizeof back.title, "set %s back to %s", knob, value);
            snprintf(back.source, sizeof back.source, "tuner");
            record_direction(a, &back, "rejected", "cycle: the value this knob was promoted from");
            return;
        }
    }
}

static void write_event(tui_app *a, const char *line)
{
    json_t *ev = json_loads(line, 0, NULL);
    if (!ev) {
        app_log(a, TC_LOG_INFO, "agent: %s", line);
        return;
    }
    const char *kind = json_string_value(json_object_get(ev, "event")) ?: "";
    const char *text = json_string_value(json_object_get(ev, "text"));
    if (strcmp(kind, "done") == 0) {
        diff_free(&a->diff);
        diff_parse(json_string_value(json_object_get(ev, "diff")), &a->diff);
        a->ps[PANE_DIFF] = (pane_state){0, 0, 0};
    } else if (strcmp(kind, "error") == 0) {
        app_log(a, TC_LOG_ERROR, "agent: %s", json_string_value(json_object_get(ev, "message")) ?: "failed");
    } else if (text) {
        char *copy = xstrdup(text), *save = NULL;
        for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
            app_log(a, TC_LOG_INFO, "agent %s: %s", kind, l);
        free(copy);
    }
    json_decref(ev);
}

void flow_job_line(void *ctx, job *j, int is_err, const char *line)
{
    tui_app *a = ctx;
    int done, total, passed, failed;
    if (is_err && sweep_progress_parse(line, &done, &total, &passed, &failed) == 0)  /* counts for the title */
        snprintf(a->sweep, sizeof a->sweep, "%s %d/%d, %d passed, %d failed", j->label, done, total, passed, failed);
    if (j->kind == JOB_WRITE && !is_err)
        write_event(a, line);
    else if (j->kind == JOB_REDIFF && !is_err)
        return; /* captured whole */
    else if (is_err || (j->kind != JOB_PROPOSE && j->kind != JOB_EVAL && j->kind != JOB_START_EVAL))
        app_log(a, strstr(line, "error") ? TC_LOG_ERROR : TC_LOG_INFO, "%s: %s", j->label, line);
    a->dirty = 1;
}

static int exit_code(const job *j)
{
    return WIFEXITED(j->status) ? WEXITSTATUS(j->status) : 128 + WTERMSIG(j->status);
}

static void decide(tui_app *a, const char *name, int promote, const char *reason)
{
    const char *args[] = {"decide", name, promote ? "promote" : "reject", "--session", a->opt.session, "--reason",
                          reason,   NULL};
    spawn_kwb(a, promote ? JOB_DECIDE : JOB_DECIDE + 100, "decide", 0, args);
}

static proposal *chosen(tui_app *a)
{
    return a->chosen >= 0 && a->chosen < a->nprops ? &a->props[a->chosen] : NULL;
}

static void eval_done(tui_app *a, job *j)
{
    double mean = 0;
    int v = exit_code(j) == 0 || j->out.len ? read_verdict(j->out.s, a->verdict_reason, sizeof a->verdict_reason, &mean)
                                            : -1;
    if (v < 0 && !a->verdict_reason[0])
        snprintf(a->verdict_reason, sizeof a->verdict_reason, "evaluation failed (%s)",
                 j->cancelled ? "cancelled" : "exit");
    a->verdict_promote = v == 1;
    a->step = STEP_CONFIRM;
    model_reload(a);
    a->focus = PANE_WORKLOADS;
    app_log(a, v == 1 ? TC_LOG_INFO : TC_LOG_WARN, "judged: %s", a->verdict_reason);
    /* the question first: a long verdict is cut at the screen's edge, the keys must not be */
    app_status(a, v == 1 ? TC_NORMAL : TC_WARNING, "%s: %s? y/a confirms, x rejects with a reason; %s", a->cand_name,
               v == 1 ? "promote" : "reject", a->verdict_reason);
}

void flow_job_done(void *ctx, job *j)
{
    tui_app *a = ctx;
    int code = exit_code(j);
    a->sweep[0] = '\0';
    app_log(a, code == 0 ? TC_LOG_INFO : TC_LOG_WARN, "%s: %s (exit %d)", j->label, j->cancelled ? "cancelled" : "done",
            code);
    kwb_error err = {{0}};
    a->dirty = 1;
    if (j->cancelled && j->kind != JOB_PROFILE) {
        if (j->kind == JOB_WRITE || j->kind == JOB_EVAL)
            a->step = STEP_CHOOSE;
        app_status(a, TC_WARNING, "%s cancelled", j->label);
        if (chosen(a) && j->kind == JOB_WRITE)
            snprintf(chosen(a)->state, sizeof chosen(a)->state, "pending");
        return;
    }
    switch (j->kind) {
    case JOB_START_EVAL: {
        double mean;
        char reason[512];
        if (read_verdict(j->out.s, reason, sizeof reason, &mean) != 1) {
            app_status(a, TC_ERROR, "the starting solution does not pass: %s", reason);
            a->step = STEP_DONE;
            return;
        }
        const char *args[] = {
            "decide", "start", "promote", "--session", a->opt.session, "--reason", "starting point of the session",
            NULL};
        spawn_kwb(a, JOB_START_DECIDE, "start: decide", 0, args);
        break;
    }
    case JOB_START_DECIDE:
        if (wsopen_session(&a->h, a->opt.session, &a->session, &err) != 0) {
            app_status(a, TC_ERROR, "%s", err.msg);
            return;
        }
        model_reload(a);
        propose(a);
        break;
    case JOB_PROPOSE:
        if (code == 0)
            read_proposals(a, j->out.s);
        else
            a->step = STEP_DONE, app_status(a, TC_ERROR, "kwb propose failed (exit %d); the log has its message", code);
        break;
    case JOB_WRITE:
        if (code == 0 && a->diff.nlines > 0) {
            a->step = STEP_REVIEW;
            snprintf(chosen(a)->state, sizeof chosen(a)->state, "written");
            a->focus = PANE_DIFF;
            a->bottom = PANE_DIFF;
            app_status(a, TC_NORMAL, "%s written: a accepts (build, judge), x rejects, e edits", a->cand_name);
        } else {
            record_direction(a, chosen(a), "rejected", "the agent wrote no candidate");
            a->step = STEP_CHOOSE;
            app_status(a, TC_ERROR, "the agent failed (exit %d); choose another direction", code);
        }
        break;
    case JOB_EVAL: eval_done(a, j); break;
    case JOB_DECIDE:
    case JOB_DECIDE + 100: {
        int promoted = j->kind == JOB_DECIDE;
        if (chosen(a))
            record_direction(a, chosen(a), promoted ? "accepted" : "rejected", a->verdict_reason);
        if (chosen(a) && promoted)
            bar_cycle(a, chosen(a));
        snprintf(a->last_undo, sizeof a->last_undo, promoted ? "candidate %s" : "", a->cand_name);
        app_status(a, TC_NORMAL, "%s %s; next round", a->cand_name, promoted ? "promoted" : "rejected");
        a->step = STEP_PROPOSING; /* decided: the table shows the best alone, no candidate beside it */
        model_reload(a);
        propose(a);
        break;
    }
    case JOB_REDIFF:
        diff_free(&a->diff);
        diff_parse(j->out.s, &a->diff);
        app_status(a, TC_NORMAL, "edited: the diff is fresh; a accepts, x rejects");
        break;
    }
}

/* A candidate name from the direction id: r<round>-<id with unsafe characters as '-'>. */
static void candidate_name(tui_app *a, const char *id, char *out, size_t cap)
{
    int n = snprintf(out, cap, "r%d-", a->round_no);
    for (const char *p = id; *p && (size_t)n + 1 < cap; p++)
        out[n++] = isalnum((unsigned char)*p) || *p == '_' || *p == '-' ? *p : '-';
    out[n] = '\0';
}

static void choose(tui_app *a)
{
    int i = a->ps[PANE_PROPOSALS].sel;
    if (i >= a->nprops || strcmp(a->props[i].state, "pending") != 0) {
        app_status(a, TC_WARNING, "select a pending direction in the proposals pane");
        return;
    }
    a->chosen = i;
    proposal *p = &a->props[i];
    snprintf(p->state, sizeof p->state, "chosen");
    candidate_name(a, p->id, a->cand_name, sizeof a->cand_name);
    snprintf(a->cand_dir, sizeof a->cand_dir, "%s/run/%s/%s", a->h.ws.root, a->opt.session, a->cand_name);
    char *parent = xstrdup(a->cand_dir);
    *strrchr(parent, '/') = '\0';
    paths_mkdir_p(parent);
    free(parent);
    paths_remove_tree(a->cand_dir);
    diff_free(&a->diff);
    const char *args[] = {"write",       "--session", a->opt.session,
                          "--direction", p->id,       "--out",
                          a->cand_dir,   "--agent",   a->opt.agent ? a->opt.agent : "tuner",
                          "--events",    NULL};
    a->step = STEP_WRITING;
    a->focus = PANE_LOG;
    a->bottom = PANE_LOG;
    spawn_kwb(a, JOB_WRITE, "write", 0, args);
}

static void evaluate(tui_app *a)
{
    const char *args[40] = {
        "judge", "--solution", a->cand_dir, "--name", a->cand_name, "--direction", chosen(a) ? chosen(a)->id : "edit"};
    int n = 7;
    eval_options(a, args, &n);
    args[n] = NULL;
    a->verdict_reason[0] = '\0';
    a->step = STEP_EVALUATING;
    a->bottom = PANE_LOG;
    app_status(a, TC_NORMAL, "%s: build, gate, sweep, replay, held-out shapes against %s (Esc cancels)", a->cand_name,
               a->best_name);
    spawn_kwb(a, JOB_EVAL, "judge", 1, args);
}

void flow_accept(tui_app *a)
{
    switch (a->step) {
    case STEP_CHOOSE: choose(a); break;
    case STEP_REVIEW: evaluate(a); break;
    case STEP_CONFIRM:
        a->step = STEP_DECIDING;
        decide(a, a->cand_name, a->verdict_promote, a->verdict_reason);
        break;
    default: app_status(a, TC_WARNING, "nothing to accept now"); break;
    }
    a->dirty = 1;
}

void flow_reject(tui_app *a)
{
    if (a->step != STEP_CHOOSE && a->step != STEP_REVIEW && a->step != STEP_CONFIRM) {
        app_status(a, TC_WARNING, "nothing to reject now");
        return;
    }
    if (a->step == STEP_CHOOSE &&
        (a->ps[PANE_PROPOSALS].sel >= a->nprops || strcmp(a->props[a->ps[PANE_PROPOSALS].sel].state, "pending") != 0)) {
        app_status(a, TC_WARNING, "select a pending direction to reject");
        return;
    }
    a->prompt = PROMPT_REASON;
    a->input[0] = '\0';
    a->input_len = 0;
    a->dirty = 1;
}

void flow_reject_with(tui_app *a, const char *reason)
{
    char why[400];
    snprintf(why, sizeof why, "%s", reason && *reason ? reason : "rejected by the engineer");
    if (a->step == STEP_CHOOSE) {
        int i = a->ps[PANE_PROPOSALS].sel;
        record_direction(a, &a->props[i], "rejected", why);
        snprintf(a->last_undo, sizeof a->last_undo, "direction %d", i);
        app_status(a, TC_NORMAL, "%s rejected: %s", a->props[i].id, why);
        int left = 0;
        for (int k = 0; k < a->nprops; k++)
            left += strcmp(a->props[k].state, "pending") == 0;
        if (!left)
            propose(a);
    } else if (a->step == STEP_REVIEW) {
        char r2[512];
        snprintf(r2, sizeof r2, "candidate declined at review: %s", why);
        record_direction(a, chosen(a), "rejected", r2);
        snprintf(a->last_undo, sizeof a->last_undo, "direction %d", a->chosen);
        a->step = STEP_CHOOSE;
        a->focus = PANE_PROPOSALS;
        app_status(a, TC_NORMAL, "%s rejected at review", a->cand_name);
        propose(a);
    } else if (a->step == STEP_CONFIRM) {
        snprintf(a->verdict_reason, sizeof a->verdict_reason, "%s", why);
        a->step = STEP_DECIDING;
        decide(a, a->cand_name, 0, why);
    }
    a->dirty = 1;
}

/* The candidate's file named by the diff's first file header, or NULL. */
static char *changed_file(tui_app *a)
{
    for (int i = 0; i < a->diff.nlines; i++)
        if (a->diff.lines[i].kind == 'F') {
            const char *p = a->diff.lines[i].text;
            const char *base = strrchr(p, '/');
            char *path = xasprintf("%s/%s", a->cand_dir, base ? base + 1 : p);
            struct stat st;
            if (stat(path, &st) == 0)
                return path;
            free(path);
        }
    return NULL;
}

void flow_edit(tui_app *a, void (*suspend)(void), void (*resume)(void))
{
    if (a->step != STEP_REVIEW) {
        app_status(a, TC_WARNING, "e edits the candidate under review");
        return;
    }
    char *path = changed_file(a);
    if (!path) {
        app_status(a, TC_ERROR, "no file of %s to edit", a->cand_dir);
        return;
    }
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    char *argv[] = {(char *)(ed && *ed ? ed : "vi"), path, NULL};
    if (suspend)
        suspend();
    proc_io io = proc_io_default();
    if (a->script)
        io.stdout_fd = io.stderr_fd = open("/dev/null", 1);
    kwb_error err = {{0}};
    pid_t pid = proc_spawn(argv, &io, &err);
    int status = 0;
    if (pid > 0)
        proc_wait(pid, -1, &status);
    if (a->script)
        close(io.stdout_fd);
    if (resume)
        resume();
    app_log(a, pid > 0 ? TC_LOG_INFO : TC_LOG_ERROR, "edit %s: %s", path, pid > 0 ? "done" : err.msg);
    free(path);
    char *dargv[] = {"diff", "-ru", a->best_dir, a->cand_dir, NULL};
    job *slot = &a->jobs[JOB_MAX - 1];
    if (!slot->active && job_start(slot, JOB_REDIFF, "diff", dargv, 1, &err) != 0)
        app_log(a, TC_LOG_ERROR, "diff: %s", err.msg);
    a->full_redraw = a->dirty = 1;
}

void flow_undo(tui_app *a)
{
    int i;
    char name[160];
    if (sscanf(a->last_undo, "direction %d", &i) == 1 && i >= 0 && i < a->nprops && a->step == STEP_CHOOSE) {
        kwb_error err = {{0}};
        store_note_add(a->h.st, a->session, 0, 0, "undo: the rejection of a direction was withdrawn", NULL, &err);
        snprintf(a->props[i].state, sizeof a->props[i].state, "pending");
        a->ps[PANE_PROPOSALS].sel = i;
        app_status(a, TC_NORMAL, "%s is pending again", a->props[i].id);
    } else if (sscanf(a->last_undo, "candidate %159s", name) == 1 && (a->step == STEP_CHOOSE || a->step == STEP_DONE)) {
        job_cancel(&a->jobs[0]);
        snprintf(a->cand_name, sizeof a->cand_name, "%s", name);
        a->step = STEP_DECIDING;
        a->chosen = -1;
        snprintf(a->verdict_reason, sizeof a->verdict_reason, "undo of the promotion");
        decide(a, name, 0, "undo of the promotion");
    } else {
        app_status(a, TC_WARNING, "nothing to undo");
        return;
    }
    a->last_undo[0] = '\0';
    a->dirty = 1;
}

void flow_profile(tui_app *a)
{
    int s = a->ps[PANE_WORKLOADS].sel;
    if (s >= a->norder || !a->best_dir[0]) {
        app_status(a, TC_WARNING, "select a workload of an evaluated session");
        return;
    }
    const char *args[] = {"profile",
                          "--definition",
                          a->definition,
                          "--solution",
                          a->best_dir,
                          "--workload",
                          a->rows[a->order[s]].uuid,
                          "--device",
                          a->opt.device ? a->opt.device : "cpu",
                          "--session",
                          a->opt.session,
                          NULL};
    a->bottom = PANE_LOG;
    spawn_kwb(a, JOB_PROFILE, "profile", 0, args);
}

int flow_cancel(tui_app *a)
{
    int n = 0;
    for (int i = 0; i < JOB_MAX; i++)
        if (a->jobs[i].active && !a->jobs[i].cancelled)
            job_cancel(&a->jobs[i]), n++;
    return n > 0;
}

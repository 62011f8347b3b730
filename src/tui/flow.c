/* flow.c - the round as child processes (see flow.h). */
#include "tui/flow.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentcfg.h"
#include "ftree.h"
#include "paths.h"
#include "proc.h"
#include "round.h"
#include "strbuf.h"
#include "sweepprog.h"
#include "tui/model.h"
#include "tui/view.h"
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
    view_mark(a, PANE_LOG); /* its title says that work is in flight */
    return rc;
}

/* Adds the eval options shared by the start and the rounds to ARGS at *N. */
static void eval_options(tui_app *a, const char **args, int *n)
{
    args[(*n)++] = "--definition", args[(*n)++] = a->definition;
    args[(*n)++] = "--session", args[(*n)++] = a->opt.session;
    args[(*n)++] = "--device", args[(*n)++] = a->opt.device ? a->opt.device : "cpu";
    args[(*n)++] = "--json"; /* not quiet: each step's line names it in the title */
    if (a->opt.workloads)
        args[(*n)++] = "--workloads", args[(*n)++] = a->opt.workloads;
    if (a->opt.max_time)
        args[(*n)++] = "--max-time", args[(*n)++] = a->opt.max_time;
}

static void propose(tui_app *a)
{
    const char *args[] = {
        "propose", "--session", a->opt.session, "--json", "--agent", a->opt.agent ? a->opt.agent : "tuner", NULL};
    kwb_error err = {{0}};
    if (round_refresh(&a->eng, &err) != 0)
        app_log(a, TC_LOG_ERROR, "%s", err.msg);
    a->eng.step = ROUND_PROPOSING;
    spawn_kwb(a, JOB_PROPOSE, "propose", 1, args);
}

static void evaluate(tui_app *a);
static void verdict_status(tui_app *a);

int flow_begin(tui_app *a, kwb_error *err)
{
    if (!a->opt.session)
        a->opt.session = "demo"; /* a fresh workspace: the session kwb tui's headless fallback names too */
    if (round_open(&a->eng, &a->h, a->opt.session, a->opt.definition, a->opt.workspace, err) != 0)
        return -1;
    a->eng.writer = agentcfg_writer(a->opt.agent); /* who writes this session's skill directions */
    int resumed = round_resume(&a->eng, err);
    if (resumed < 0)
        return -1;
    if (resumed && !a->definition[0])
        snprintf(a->definition, sizeof a->definition, "%s", a->eng.definition);
    if (resumed && a->eng.step == ROUND_VERDICT) { /* killed after the verdict: shown, not judged again */
        app_log(a, TC_LOG_WARN, "resuming: %s (round %d) at the verdict recorded before kwb stopped", a->eng.cand_name,
                a->eng.number);
        model_reload(a);
        verdict_status(a);
        return 0;
    }
    if (resumed) { /* a killed kwb left a candidate undecided: it is judged again, from its step */
        app_log(a, TC_LOG_WARN, "resuming: %s (round %d) is judged again", a->eng.cand_name, a->eng.number);
        evaluate(a);
        return 0;
    }
    if (!round_needs_start(&a->eng)) {
        propose(a);
        return 0;
    }
    if (!a->opt.definition || !a->opt.solution)
        return kwb_error_set(err,
                             "session '%s' has no start yet: give --definition NAME and --solution DIR to start it",
                             a->opt.session);
    snprintf(a->definition, sizeof a->definition, "%s", a->opt.definition);
    round_begin_start(&a->eng, a->opt.solution);
    evaluate(a);
    return 0;
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
    snprintf(a->bn.cls, sizeof a->bn.cls, "%s", json_string_value(json_object_get(doc, "class")) ?: "");
    snprintf(a->bn.regime, sizeof a->bn.regime, "%s", json_string_value(json_object_get(doc, "regime")) ?: "");
    json_t *d;
    size_t i;
    int added = 0, keep = 0;
    for (int k = 0; k < a->pr.nprops; k++) /* this answer replaces the pending ones */
        if (strcmp(a->pr.props[k].state, "pending") != 0 && strcmp(a->pr.props[k].state, "chosen") != 0 &&
            strcmp(a->pr.props[k].state, "written") != 0)
            a->pr.props[keep++] = a->pr.props[k];
    a->pr.nprops = keep;
    a->chosen = -1;
    json_array_foreach(json_object_get(doc, "directions"), i, d)
    {
        a->pr.props = xrealloc(a->pr.props, (size_t)(a->pr.nprops + 1) * sizeof *a->pr.props);
        memmove(a->pr.props + added + 1, a->pr.props + added, (size_t)(a->pr.nprops - added) * sizeof *a->pr.props);
        proposal *p = &a->pr.props[added++];
        a->pr.nprops++;
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
    a->view[PANE_PROPOSALS].sel = 0;
    a->eng.step = added ? ROUND_CHOOSE : ROUND_DONE;
    /* what was just decided stays in front, with what comes next */
    app_status(a, TC_NORMAL, added ? "%s%s%d directions: a chooses one, x rejects it" : "%s%sno direction left to try",
               a->said, a->said[0] ? "; " : "", added);
    a->said[0] = '\0';
    if (added)
        view_focus(a, PANE_PROPOSALS);
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
        diff_free(&a->df.doc);
        diff_parse(json_string_value(json_object_get(ev, "diff")), &a->df.doc);
        a->view[PANE_DIFF].sel = a->view[PANE_DIFF].top = a->view[PANE_DIFF].hscroll = 0;
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
    if (is_err && strstr(line, " worker(s) up")) /* kwb eval's remote workers: how many and where */
        app_status(a, TC_NORMAL, "%s", strncmp(line, "kwb: ", 5) == 0 ? line + 5 : line);
    int done, total, passed, failed;
    if (is_err && judge_step_parse(line, a->judge_step, sizeof a->judge_step) == 0)
        a->sweep[0] = '\0'; /* a new step: its counts come with its first workload */
    if (is_err && sweep_progress_parse(line, &done, &total, &passed, &failed) == 0) /* counts for the title */
        snprintf(a->sweep, sizeof a->sweep, "%s%s%s %d/%d, %d passed, %d failed", j->label, a->judge_step[0] ? " " : "",
                 a->judge_step, done, total, passed, failed);
    if (j->kind == JOB_WRITE && !is_err)
        write_event(a, line);
    else if (is_err || (j->kind != JOB_PROPOSE && j->kind != JOB_EVAL))
        app_log(a, strstr(line, "error") ? TC_LOG_ERROR : TC_LOG_INFO, "%s: %s", j->label, line);
    view_mark_bars(a); /* the sweep's counts are in the title */
}

static int exit_code(const job *j)
{
    return WIFEXITED(j->status) ? WEXITSTATUS(j->status) : 128 + WTERMSIG(j->status);
}

static proposal *chosen(tui_app *a)
{
    return a->chosen >= 0 && a->chosen < a->pr.nprops ? &a->pr.props[a->chosen] : NULL;
}

/* Shows the verdict step's prompt (title and status line say the same verdict). */
static void verdict_status(tui_app *a)
{
    char line[1600];
    round_verdict_prompt(&a->eng, "a/y", "o", "m", line, sizeof line);
    app_status(a, a->eng.verdict_promote ? TC_NORMAL : TC_WARNING, "%s", line);
}

/* The engine decides (ANSWER, WHY); then the next round is proposed. */
static void decide(tui_app *a, round_answer answer, const char *why)
{
    char said[600];
    kwb_error err = {{0}};
    int start = strcmp(a->eng.cand_name, "start") == 0;
    int rc = round_decide(&a->eng, answer, why, said, sizeof said, &err);
    if (rc < 0) {
        app_status(a, TC_ERROR, "%s", err.msg);
        a->eng.step = start ? ROUND_DONE : ROUND_VERDICT;
        return;
    }
    if (!a->session && wsopen_session(&a->h, a->opt.session, &a->session, &err) != 0) {
        app_status(a, TC_ERROR, "%s", err.msg);
        return;
    }
    if (start && !rc) {
        app_status(a, TC_ERROR, "the starting solution does not pass: %s", a->eng.verdict_reason);
        a->eng.step = ROUND_DONE;
        model_reload(a);
        return;
    }
    a->chosen = -1;
    model_reload(a);
    snprintf(a->said, sizeof a->said, "%s", said);
    app_status(a, TC_NORMAL, "%s; next round", said);
    propose(a);
}

static void eval_done(tui_app *a, job *j)
{
    double mean = 0;
    char reason[1024] = "";
    int v = exit_code(j) <= 1 && j->out.len ? read_verdict(j->out.s, reason, sizeof reason, &mean) : -1;
    if (v < 0 && !reason[0])
        snprintf(reason, sizeof reason, "evaluation failed (exit %d); the log has its message", exit_code(j));
    char stage[16] = "";
    json_t *doc = v >= 0 ? json_loads(j->out.s, 0, NULL) : NULL;
    snprintf(stage, sizeof stage, "%s",
             json_string_value(json_object_get(json_object_get(doc, "judge"), "stage")) ?: (v < 0 ? "build" : "end"));
    json_decref(doc);
    round_judged(&a->eng, v == 1, v == 1 ? "end" : stage, reason);
    if (strcmp(a->eng.cand_name, "start") == 0) { /* a start that passes is the start: no question */
        decide(a, ROUND_ACCEPT, NULL);
        return;
    }
    model_reload(a);
    view_focus(a, PANE_WORKLOADS);
    app_log(a, v == 1 ? TC_LOG_INFO : TC_LOG_WARN, "judged: %s", a->eng.verdict_reason);
    verdict_status(a);
}

void flow_job_done(void *ctx, job *j)
{
    tui_app *a = ctx;
    int code = exit_code(j);
    a->sweep[0] = a->judge_step[0] = '\0';
    app_log(a, code == 0 ? TC_LOG_INFO : TC_LOG_WARN, "%s: %s (exit %d)", j->label, j->cancelled ? "cancelled" : "done",
            code);
    kwb_error err = {{0}};
    view_mark_all(a, 0);                        /* the step, the candidate and the jobs show in every view */
    if (j->cancelled && j->kind == JOB_PROPOSE) /* asked again (undo, redo): the new answer counts */
        return;
    if (j->cancelled && j->kind != JOB_PROFILE) {
        if (j->kind == JOB_WRITE || j->kind == JOB_EVAL)
            a->eng.step = ROUND_CHOOSE;
        app_status(a, TC_WARNING, "%s cancelled", j->label);
        if (chosen(a) && j->kind == JOB_WRITE)
            snprintf(chosen(a)->state, sizeof chosen(a)->state, "pending");
        return;
    }
    switch (j->kind) {
    case JOB_PROPOSE:
        if (code == 0)
            read_proposals(a, j->out.s);
        else
            a->eng.step = ROUND_DONE,
            app_status(a, TC_ERROR, "kwb propose failed (exit %d); the log has its message", code);
        break;
    case JOB_WRITE:
        if (code == 0 && a->df.doc.nlines > 0 && round_written(&a->eng, &err) == 0) {
            snprintf(chosen(a)->state, sizeof chosen(a)->state, "written");
            view_focus(a, PANE_DIFF);
            a->bottom = PANE_DIFF;
            app_status(a, TC_NORMAL, "%s written: a accepts (build, judge), x rejects, e edits", a->eng.cand_name);
        } else {
            if (round_decline(&a->eng, NULL, NULL, NULL, "the agent wrote no candidate", &err) != 0)
                app_log(a, TC_LOG_ERROR, "%s", err.msg);
            model_reload(a);
            a->eng.step = ROUND_CHOOSE;
            app_status(a, TC_ERROR, "the agent failed (exit %d)%s%s; choose another direction", code,
                       err.msg[0] ? ": " : "", err.msg);
        }
        break;
    case JOB_EVAL: eval_done(a, j); break;
    }
}

static void choose(tui_app *a)
{
    int i = a->view[PANE_PROPOSALS].sel;
    if (i >= a->pr.nprops || strcmp(a->pr.props[i].state, "pending") != 0) {
        app_status(a, TC_WARNING, "select a pending direction in the proposals pane");
        return;
    }
    proposal *p = &a->pr.props[i];
    kwb_error err = {{0}};
    if (round_choose(&a->eng, p->source[0] ? p->source : "tuner", p->id, p->title, &err) != 0) {
        app_status(a, TC_ERROR, "%s", err.msg);
        return;
    }
    a->chosen = i;
    snprintf(p->state, sizeof p->state, "chosen");
    diff_free(&a->df.doc);
    /* written into NAME.part, renamed by the engine; the agent's log and transcript are NAME's */
    const char *args[] = {"write",
                          "--session",
                          a->opt.session,
                          "--direction",
                          p->id,
                          "--out",
                          a->eng.part_dir,
                          "--files-as",
                          a->eng.cand_dir,
                          "--agent",
                          a->opt.agent ? a->opt.agent : "tuner",
                          "--events",
                          NULL};
    view_focus(a, PANE_LOG);
    a->bottom = PANE_LOG;
    spawn_kwb(a, JOB_WRITE, "write", 0, args);
}

static void evaluate(tui_app *a)
{
    judge_request q;
    round_judge_request(&a->eng, &q, a->opt.device ? a->opt.device : "cpu", a->opt.workloads, a->opt.max_time);
    const char *args[40] = {"judge", "--solution", q.dir, "--name", q.name, "--direction", q.direction};
    int n = 7;
    if (q.origin)
        args[n++] = "--origin", args[n++] = q.origin;
    eval_options(a, args, &n);
    if (q.again)
        args[n++] = "--again";
    args[n] = NULL;
    a->bottom = PANE_LOG;
    app_status(a, TC_NORMAL, "%s: build, gate, sweep, replay, held-out shapes against %s (Esc cancels)", q.name,
               q.best_name ? q.best_name : "nothing (the start)");
    spawn_kwb(a, JOB_EVAL, q.best_name ? "judge" : "start: judge", 1, args);
}

void flow_accept(tui_app *a)
{
    switch (a->eng.step) {
    case ROUND_CHOOSE: choose(a); break;
    case ROUND_REVIEW: evaluate(a); break;
    case ROUND_VERDICT: decide(a, ROUND_ACCEPT, NULL); break;
    default: app_status(a, TC_WARNING, "nothing to accept now"); break;
    }
    view_mark_all(a, 0); /* the step, the candidate and the jobs show in every view */
}

/* Opens the reason prompt, for a rejection or (OVERRULE) for overruling the verdict. */
static void ask_reason(tui_app *a, int overrule)
{
    a->reason_overrule = overrule;
    a->prompt = PROMPT_REASON;
    a->input[0] = '\0';
    a->input_len = 0;
    view_mark_bars(a); /* the prompt is on the status line */
}

void flow_reject(tui_app *a)
{
    if (a->eng.step != ROUND_CHOOSE && a->eng.step != ROUND_REVIEW && a->eng.step != ROUND_VERDICT) {
        app_status(a, TC_WARNING, "nothing to reject now");
        return;
    }
    if (a->eng.step == ROUND_CHOOSE && (a->view[PANE_PROPOSALS].sel >= a->pr.nprops ||
                                        strcmp(a->pr.props[a->view[PANE_PROPOSALS].sel].state, "pending") != 0)) {
        app_status(a, TC_WARNING, "select a pending direction to reject");
        return;
    }
    /* rejecting what the judge advises to promote is overruling it */
    ask_reason(a, a->eng.step == ROUND_VERDICT && a->eng.verdict_promote);
}

void flow_overrule(tui_app *a)
{
    if (a->eng.step != ROUND_VERDICT) {
        app_status(a, TC_WARNING, "o overrules the judge's verdict; there is none in front of you");
        return;
    }
    ask_reason(a, 1);
}

void flow_again(tui_app *a)
{
    if (a->eng.step != ROUND_VERDICT) {
        app_status(a, TC_WARNING, "m measures a judged candidate again; there is none in front of you");
        return;
    }
    app_log(a, TC_LOG_INFO, "measure again: %s (the verdict was %s at the %s)", a->eng.cand_name,
            a->eng.verdict_promote ? "promote" : "reject", a->eng.verdict_stage);
    evaluate(a);
}

void flow_reject_with(tui_app *a, const char *reason)
{
    char why[400];
    snprintf(why, sizeof why, "%s", reason && *reason ? reason : "rejected by the engineer");
    kwb_error err = {{0}};
    if (a->eng.step == ROUND_VERDICT) {
        if (a->reason_overrule && !(reason && *reason)) {
            app_status(a, TC_WARNING, "overruling the judge needs a reason; nothing decided");
            return;
        }
        decide(a, a->reason_overrule ? ROUND_OVERRULE : ROUND_ACCEPT, why);
    } else if (a->eng.step == ROUND_CHOOSE) {
        int i = a->view[PANE_PROPOSALS].sel;
        proposal *p = &a->pr.props[i];
        if (round_decline(&a->eng, p->source[0] ? p->source : "tuner", p->id, p->title, why, &err) != 0) {
            app_status(a, TC_ERROR, "%s", err.msg);
            return;
        }
        snprintf(p->state, sizeof p->state, "rejected");
        snprintf(p->reason, sizeof p->reason, "%.250s", why);
        app_status(a, TC_NORMAL, "%s rejected: %s", p->id, why);
        snprintf(a->said, sizeof a->said, "%s", a->status);
        int left = 0;
        for (int k = 0; k < a->pr.nprops; k++)
            left += strcmp(a->pr.props[k].state, "pending") == 0;
        if (!left)
            propose(a);
    } else if (a->eng.step == ROUND_REVIEW) {
        char r2[512];
        snprintf(r2, sizeof r2, "candidate declined at review: %s", why);
        if (round_decline(&a->eng, NULL, NULL, NULL, r2, &err) != 0)
            app_log(a, TC_LOG_ERROR, "%s", err.msg);
        a->chosen = -1;
        view_focus(a, PANE_PROPOSALS);
        app_status(a, TC_NORMAL, "%s rejected at review", a->eng.cand_name);
        model_reload(a);
        propose(a);
    }
    view_mark_all(a, 0); /* the step, the candidate and the jobs show in every view */
}

/* The candidate's file named by the diff's first file header, or NULL. */
static char *changed_file(tui_app *a)
{
    for (int i = 0; i < a->df.doc.nlines; i++)
        if (a->df.doc.lines[i].kind == 'F') {
            const char *p = a->df.doc.lines[i].text; /* "b/sub/file.c": the path relative to the candidate */
            const char *rel = (p[0] == 'a' || p[0] == 'b') && p[1] == '/' ? p + 2 : p;
            char *path = xasprintf("%s/%s", a->eng.cand_dir, rel);
            struct stat st;
            if (stat(path, &st) == 0)
                return path;
            free(path);
        }
    return NULL;
}

void flow_edit(tui_app *a, void (*suspend)(void), void (*resume)(void))
{
    if (a->eng.step != ROUND_REVIEW) {
        app_status(a, TC_WARNING, "e edits the candidate under review");
        return;
    }
    char *path = changed_file(a);
    if (!path) {
        app_status(a, TC_ERROR, "no file of %s to edit", a->eng.cand_dir);
        return;
    }
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    char *argv[] = {(char *)(ed && *ed ? ed : "vi"), path, NULL};
    if (suspend)
        suspend();
    /* the editor gets the real terminal (stdin, stdout, stderr) and its foreground; in script
     * mode there is none: the editor must not need one */
    int tty = a->script ? open("/dev/null", O_RDWR) : open("/dev/tty", O_RDWR);
    proc_io io = proc_io_default();
    io.stdin_fd = io.stdout_fd = io.stderr_fd = tty;
    kwb_error err = {{0}};
    pid_t pid = tty >= 0 ? proc_spawn(argv, &io, &err) : kwb_error_set(&err, "no terminal: %s", strerror(errno));
    int status = 0;
    if (pid > 0) {
        void (*old_ttou)(int) = signal(SIGTTOU, SIG_IGN);
        if (!a->script && tcsetpgrp(tty, pid) == 0)
            kill(-pid, SIGCONT); /* it may have tried the terminal before it was its own */
        proc_wait(pid, -1, &status);
        if (!a->script)
            tcsetpgrp(tty, getpgrp());
        signal(SIGTTOU, old_ttou);
    }
    if (tty >= 0)
        close(tty);
    if (resume)
        resume();
    app_log(a, pid > 0 ? TC_LOG_INFO : TC_LOG_ERROR, "edit %s: %s", path, pid > 0 ? "done" : err.msg);
    free(path);
    strbuf diff; /* headers relative to the candidate (a/FILE, b/FILE), as the writer's diff */
    strbuf_init(&diff);
    if (ftree_diff(a->best_dir, a->eng.cand_dir, &diff, &err) != 0) {
        app_log(a, TC_LOG_ERROR, "diff: %s", err.msg);
    } else {
        diff_free(&a->df.doc);
        diff_parse(diff.s, &a->df.doc);
        app_status(a, TC_NORMAL, "edited: the diff is fresh; a accepts, x rejects");
    }
    strbuf_free(&diff);
    view_mark_all(a, 1);
}

/* Undo (REDO 0) or redo (1) through the engine; the round then starts over from the store. */
static void undo_redo(tui_app *a, int redo)
{
    if (a->eng.step != ROUND_CHOOSE && a->eng.step != ROUND_DONE && a->eng.step != ROUND_VERDICT &&
        a->eng.step != ROUND_REVIEW && a->eng.step != ROUND_PROPOSING) { /* proposals are asked again */
        app_status(a, TC_WARNING, "%s waits until the work in flight is done", redo ? "redo" : "undo");
        return;
    }
    char said[1024];
    kwb_error err = {{0}};
    int rc = redo ? round_redo(&a->eng, said, sizeof said, &err) : round_undo(&a->eng, said, sizeof said, &err);
    if (rc < 0) {
        app_status(a, TC_ERROR, "%s", err.msg);
        return;
    }
    if (rc == 0) {
        app_status(a, TC_WARNING, "%s", said);
        return;
    }
    for (int i = 0; i < JOB_MAX; i++)
        if (a->jobs[i].active && a->jobs[i].kind == JOB_PROPOSE)
            job_cancel(&a->jobs[i]);
    a->pr.nprops = 0; /* the store says which directions are decided now */
    a->chosen = -1;
    model_reload(a);
    if (a->eng.step == ROUND_VERDICT) { /* a candidate's decision taken back: its verdict again */
        char line[1600];
        round_verdict_prompt(&a->eng, "a/y", "o", "m", line, sizeof line);
        app_status(a, TC_NORMAL, "%s; %s", said, line);
    } else {
        snprintf(a->said, sizeof a->said, "%.590s", said);
        app_status(a, TC_NORMAL, "%s", said);
        propose(a);
    }
}

void flow_undo(tui_app *a)
{
    undo_redo(a, 0);
}

void flow_redo(tui_app *a)
{
    undo_redo(a, 1);
}

void flow_profile(tui_app *a)
{
    int s = a->view[PANE_WORKLOADS].sel;
    if (s >= a->wl.norder || !a->best_dir[0]) {
        app_status(a, TC_WARNING, "select a workload of an evaluated session");
        return;
    }
    const char *args[] = {"profile",
                          "--definition",
                          a->definition,
                          "--solution",
                          a->best_dir,
                          "--workload",
                          a->wl.rows[a->wl.order[s]].uuid,
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

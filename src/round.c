/* round.c - the round engine (see round.h). */
#include "round.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "proc.h"
#include "solution.h"
#include "store.h"
#include "strbuf.h"
#include "tuner.h"
#include "xalloc.h"

int round_open(round_engine *e, ws_handle *h, const char *session_name, const char *def_name, const char *ws_dir,
               kwb_error *err)
{
    memset(e, 0, sizeof *e);
    e->h = h;
    e->workspace = ws_dir;
    snprintf(e->session_name, sizeof e->session_name, "%s", session_name);
    snprintf(e->definition, sizeof e->definition, "%s", def_name ? def_name : "");
    snprintf(e->folder, sizeof e->folder, "%s/run/%s", h->ws.root, session_name);
    if (paths_mkdir_p(e->folder) != 0)
        return kwb_error_set(err, "%s: cannot make the folder: %s", e->folder, strerror(errno));
    return round_refresh(e, err);
}

/* One taken-back decision group (newest first, as store_decision_undo gives it). */
typedef struct round_group {
    store_decision *d;
    int n;
} round_group;

/* A new decision: what was undone before can no longer be redone. */
static void redo_clear(round_engine *e)
{
    kwb_error err = {{0}};
    if (e->session && store_redo_drop(e->h->st, e->session, 1, &err) != 0)
        fprintf(stderr, "kwb: the redo stack: %s\n", err.msg);
}

void round_close(round_engine *e)
{
    (void)e; /* the redo stack is the store's */
}

int round_refresh(round_engine *e, kwb_error *err)
{
    if (!e->session) {
        int rc = store_session_find(e->h->st, e->session_name, &e->session, err);
        if (rc < 0)
            return -1;
    }
    e->best_name[0] = e->best_dir[0] = '\0';
    e->number = 1;
    if (!e->session)
        return 0;
    store_session s;
    if (store_session_get(e->h->st, e->session, &s, err) != 0)
        return -1;
    snprintf(e->definition, sizeof e->definition, "%s", s.definition);
    store_session_free(&s);
    int64_t best = 0;
    int rc = store_candidate_promoted(e->h->st, e->session, &best, NULL, err);
    store_candidate c;
    if (rc < 0 || (rc == 1 && store_candidate_get(e->h->st, best, &c, err) != 0))
        return -1;
    if (rc == 1) {
        snprintf(e->best_name, sizeof e->best_name, "%s", c.name);
        snprintf(e->best_dir, sizeof e->best_dir, "%s", c.solution_dir ? c.solution_dir : "");
        store_candidate_free(&c);
    }
    store_round *r = NULL;
    int n = 0;
    if (store_trajectory(e->h->st, e->session, 1, &r, &n, err) != 0)
        return -1;
    e->number = n > 0 ? r[n - 1].number + 1 : 1;
    store_round_list_free(r, n);
    return 0;
}

void round_candidate_name(int number, const char *id, char *out, size_t cap)
{
    int n = snprintf(out, cap, "r%d-", number);
    for (const char *p = id; *p && n > 0 && (size_t)n + 1 < cap; p++)
        out[n++] = isalnum((unsigned char)*p) || *p == '_' || *p == '-' ? *p : '-';
    if (n > 0 && (size_t)n < cap)
        out[n] = '\0';
}

int round_needs_start(round_engine *e)
{
    return !e->session || !e->best_name[0];
}

/* Sets the candidate in play: NAME in DIR, for direction ID (SKILL, TITLE). */
static void set_candidate(round_engine *e, const char *name, const char *dir, const char *skill, const char *id,
                          const char *title)
{
    snprintf(e->cand_name, sizeof e->cand_name, "%s", name);
    snprintf(e->cand_dir, sizeof e->cand_dir, "%s", dir);
    snprintf(e->part_dir, sizeof e->part_dir, "%s.part", dir);
    snprintf(e->skill, sizeof e->skill, "%s", skill);
    snprintf(e->direction, sizeof e->direction, "%s", id);
    snprintf(e->title, sizeof e->title, "%s", title);
    e->verdict_reason[0] = e->verdict_stage[0] = '\0';
    e->verdict_promote = 0;
    e->origin[0] = '\0';
}

/* 1 when candidate NAME is recorded in the session. */
static int recorded(round_engine *e, const char *name)
{
    store_candidate c;
    kwb_error ignored = {{0}};
    if (!e->session || store_candidate_find(e->h->st, e->session, name, &c, &ignored) != 1)
        return 0;
    store_candidate_free(&c);
    return 1;
}

void round_begin_start(round_engine *e, const char *dir)
{
    set_candidate(e, "start", dir, "", "start", "the starting solution");
    e->direction_row = 0;
    e->again = recorded(e, "start");
    e->step = ROUND_STARTING;
}

/* The round title (the direction id) of the round that evaluated CANDIDATE into OUT, its number
 * into e->number. */
static void round_title_of(round_engine *e, int64_t candidate, char *out, size_t cap)
{
    store_round *r = NULL;
    int n = 0;
    kwb_error ignored = {{0}};
    out[0] = '\0';
    if (store_trajectory(e->h->st, e->session, 0, &r, &n, &ignored) != 0)
        return;
    for (int i = n - 1; i >= 0 && !out[0]; i--)
        if (r[i].candidate == candidate) {
            snprintf(out, cap, "%s", r[i].title ? r[i].title : "");
            e->number = r[i].number;
        }
    store_round_list_free(r, n);
}

/* The newest directions row of ID still proposed: *row and SKILL/TITLE (CAP bytes each). */
static void proposed_row(round_engine *e, const char *id, int64_t *row, char *skill, char *title, size_t cap)
{
    store_direction *d = NULL;
    int n = 0;
    kwb_error ignored = {{0}};
    *row = 0;
    if (store_direction_list(e->h->st, e->session, 0, &d, &n, &ignored) != 0)
        return;
    for (int i = n - 1; i >= 0 && !*row; i--)
        if (d[i].title && strcmp(d[i].title, id) == 0 && strcmp(d[i].state, "proposed") == 0) {
            *row = d[i].id;
            snprintf(skill, cap, "%s", d[i].skill ? d[i].skill : "tuner");
            snprintf(title, cap, "%s", d[i].rationale ? d[i].rationale : id);
        }
    store_direction_list_free(d, n);
}

/* The verdict in front of the human (already recorded). */
static void show_verdict(round_engine *e, int promote, const char *stage, const char *reason)
{
    e->verdict_promote = promote;
    snprintf(e->verdict_stage, sizeof e->verdict_stage, "%s", stage && *stage ? stage : "judge");
    snprintf(e->verdict_reason, sizeof e->verdict_reason, "%s", reason ? reason : "");
    e->again = 1; /* judged: the candidate is recorded now */
    e->step = ROUND_VERDICT;
}

int round_resume(round_engine *e, kwb_error *err)
{
    if (!e->session)
        return 0;
    int64_t id = 0;
    int rc = store_candidate_undecided(e->h->st, e->session, &id, err);
    if (rc <= 0)
        return rc;
    /* what a killed kwb left running is interrupted (unless a live kwb holds the session) */
    kwb_error held = {{0}};
    if (store_session_acquire(e->h->st, e->session, getpid(), &held) == 0) {
        if (store_session_mark_interrupted(e->h->st, e->session, NULL, NULL, err) != 0)
            return -1;
        store_session_release(e->h->st, e->session, getpid(), &held);
    }
    store_candidate c;
    if (store_candidate_get(e->h->st, id, &c, err) != 0)
        return -1;
    char direction[160], skill[64] = "tuner", title[200] = "";
    round_title_of(e, id, direction, sizeof direction);
    if (strcmp(c.name, "start") == 0) {
        int number = e->number;
        round_begin_start(e, c.solution_dir ? c.solution_dir : "");
        e->number = number;
    } else {
        int64_t row = 0;
        char s2[200] = "", t2[200] = "";
        proposed_row(e, direction, &row, s2, t2, sizeof s2);
        if (row)
            snprintf(skill, sizeof skill, "%s", s2), snprintf(title, sizeof title, "%s", t2);
        set_candidate(e, c.name, c.solution_dir ? c.solution_dir : "", skill, direction, title[0] ? title : direction);
        e->direction_row = row;
        e->again = 1;
        e->step = ROUND_JUDGING;
        int promote = 0;
        char stage[16] = "", *reason = NULL;
        int judged = store_verdict_last(e->h->st, id, &promote, stage, sizeof stage, &reason, err);
        if (judged == 1) /* killed after the verdict: it is shown again, not judged again */
            show_verdict(e, promote, stage, reason);
        free(reason);
        if (judged < 0) {
            store_candidate_free(&c);
            return -1;
        }
    }
    store_candidate_free(&c);
    return 1;
}

int round_choose(round_engine *e, const char *skill, const char *id, const char *title, kwb_error *err)
{
    if (round_refresh(e, err) != 0)
        return -1;
    char name[192], dir[1300];
    round_candidate_name(e->number, id, name, sizeof name);
    snprintf(dir, sizeof dir, "%s/%s", e->folder, name);
    set_candidate(e, name, dir, skill && *skill ? skill : "tuner", id, title ? title : id);
    snprintf(e->origin, sizeof e->origin, "%s",
             strcmp(e->skill, "tuner") == 0 ? "tuner"
             : e->writer                    ? e->writer
                                            : "human");
    e->again = recorded(e, name);
    paths_remove_tree(e->part_dir);
    if (store_direction_add(e->h->st, e->session, 0, e->skill, id, e->title, &e->direction_row, err) != 0)
        return -1;
    e->step = ROUND_WRITING;
    return 0;
}

int round_written(round_engine *e, kwb_error *err)
{
    struct stat st;
    if (stat(e->part_dir, &st) != 0)
        return kwb_error_set(err, "%s: the writer left no folder", e->part_dir);
    if (e->again)
        return kwb_error_set(err, "candidate %s is already recorded; it is judged again, not rewritten", e->cand_name);
    paths_remove_tree(e->cand_dir); /* a killed run's folder: no candidate of that name was recorded */
    if (rename(e->part_dir, e->cand_dir) != 0)
        return kwb_error_set(err, "%s: cannot rename to %s: %s", e->part_dir, e->cand_dir, strerror(errno));
    e->step = ROUND_REVIEW;
    return 0;
}

int round_decline(round_engine *e, const char *skill, const char *id, const char *title, const char *reason,
                  kwb_error *err)
{
    int64_t row = id ? 0 : e->direction_row;
    if (!row && store_direction_add(e->h->st, e->session, 0, skill && *skill ? skill : "tuner", id ? id : e->direction,
                                    title ? title
                                    : id  ? id
                                          : e->title,
                                    &row, err) != 0)
        return -1;
    if (store_direction_decide(e->h->st, row, "rejected", reason, err) != 0)
        return -1;
    if (!id && e->session) { /* the chosen direction's attempt ended without a candidate: still a round */
        int64_t rid = 0;
        int number = 0;
        if (store_round_begin(e->h->st, e->session, e->direction[0] ? e->direction : e->title, &rid, &number, err) !=
                0 ||
            store_round_end(e->h->st, rid, "rejected", reason, err) != 0)
            return -1;
        e->number = number + 1;
    }
    if (!id)
        e->direction_row = 0;
    redo_clear(e);
    e->step = ROUND_CHOOSE;
    return 0;
}

void round_judge_request(round_engine *e, judge_request *q, const char *device, const char *filter,
                         const char *max_time)
{
    int start = strcmp(e->cand_name, "start") == 0;
    int64_t best_id = 0;
    kwb_error ignored = {{0}};
    if (!start && e->session)
        store_candidate_promoted(e->h->st, e->session, &best_id, NULL, &ignored);
    *q = (judge_request){
        .definition = e->definition,
        .session = e->session_name,
        .workspace = e->workspace,
        .device = device,
        .filter = filter,
        .max_time = max_time,
        .name = e->cand_name,
        .dir = e->cand_dir,
        .direction = e->direction,
        .origin = e->origin[0] ? e->origin : NULL,
        .best_name = start ? NULL : e->best_name,
        .best_dir = start ? NULL : e->best_dir,
        .st = e->h->st,
        .best_id = best_id,
        .folder = e->folder,
        .again = e->again,
    };
    e->step = start ? ROUND_STARTING : ROUND_JUDGING;
}

void round_judged(round_engine *e, int promote, const char *stage, const char *reason)
{
    show_verdict(e, promote, stage, reason);
    store_candidate c;
    kwb_error err = {{0}};
    int rc = e->session ? store_candidate_find(e->h->st, e->session, e->cand_name, &c, &err) : 0;
    if (rc == 1) { /* a candidate that never built has no record: it is judged again on resume */
        rc = store_verdict_add(e->h->st, e->session, c.id, promote, e->verdict_stage, e->verdict_reason, &err);
        store_candidate_free(&c);
    }
    if (rc < 0)
        fprintf(stderr, "kwb: the verdict is not recorded: %s\n", err.msg);
}

void round_verdict_prompt(const round_engine *e, const char *accept_keys, const char *overrule_key,
                          const char *again_key, char *out, size_t cap)
{
    const char *advice = e->verdict_promote ? "promote" : "reject";
    snprintf(out, cap, "%s: the judge advises %s (%s): %s %ss, %s overrules (%s, reason asked), %s measures again; %s",
             e->cand_name, advice, e->verdict_stage, accept_keys, advice, overrule_key,
             e->verdict_promote ? "reject" : "promote", again_key, e->verdict_reason);
}

/* `kwb decide NAME promote|reject --reason REASON` for the session (with --redo when REDO: the
 * redo stack stays); 0 or -1 with *err (the child's last line). */
static int run_decide(round_engine *e, const char *name, int promote, const char *reason, int redo, kwb_error *err)
{
    char *self = paths_self(), *log = xasprintf("%s/%s.decide.log", e->folder, name);
    char *argv[12] = {self ? self : (char *)"kwb",
                      "decide",
                      (char *)name,
                      promote ? "promote" : "reject",
                      "--session",
                      e->session_name,
                      "--reason",
                      (char *)reason};
    int n = 8;
    if (redo)
        argv[n++] = "--redo";
    if (e->workspace)
        argv[n++] = "--workspace", argv[n++] = (char *)e->workspace;
    argv[n] = NULL;
    int code = proc_run_logged(argv, NULL, log, 120, err);
    if (code > 0) {
        char *text = strbuf_read_file(log, NULL);
        size_t len = text ? strlen(text) : 0;
        while (len > 0 && text[len - 1] == '\n') /* the last non-empty line */
            text[--len] = '\0';
        char *last = text ? strrchr(text, '\n') : NULL;
        kwb_error_set(err, "kwb decide %s ended with code %d: %s", name, code, last ? last + 1 : text ? text : "");
        free(text);
    }
    free(log);
    free(self);
    return code == 0 ? 0 : -1;
}

/* After promoting knob change "tune.K=V" from PREV_DIR: going back to K's value there would be
 * a cycle; that direction is recorded as rejected in ROUND. */
static void bar_cycle(round_engine *e, const char *prev_dir, int64_t round)
{
    char knob[64];
    if (strncmp(e->direction, "tune.", 5) != 0 || sscanf(e->direction + 5, "%63[^=]", knob) != 1 || !prev_dir[0])
        return;
    kwb_error err = {{0}};
    solution *sol = solution_load(prev_dir, &err);
    tuner_knob *k = NULL;
    int nk = 0;
    if (sol && tuner_scan(sol, &k, &nk, &err) == 0)
        for (int i = 0; i < nk; i++)
            if (strcmp(k[i].name, knob) == 0) {
                char id[160], title[200];
                int64_t row;
                snprintf(id, sizeof id, "tune.%s=%s", knob, k[i].value);
                snprintf(title, sizeof title, "set %s back to %s", knob, k[i].value);
                if (store_direction_add(e->h->st, e->session, round, "tuner", id, title, &row, &err) != 0 ||
                    store_direction_decide(e->h->st, row, "rejected", "cycle: the value this knob was promoted from",
                                           &err) != 0)
                    fprintf(stderr, "kwb: cycle bar not recorded: %s\n", err.msg);
            }
    tuner_knobs_free(k, nk);
    if (sol)
        solution_free(sol);
}

/* The candidate NAME's id and round in the session; 0 or -1. */
static int candidate_ids(round_engine *e, const char *name, int64_t *id, int64_t *round, kwb_error *err)
{
    store_candidate c;
    int rc = store_candidate_find(e->h->st, e->session, name, &c, err);
    if (rc != 1)
        return rc == 0 ? kwb_error_set(err, "candidate %s is not recorded", name) : -1;
    *id = c.id;
    store_candidate_free(&c);
    return store_candidate_round(e->h->st, *id, round, err);
}

int round_decide(round_engine *e, round_answer answer, const char *why, char *said, size_t cap, kwb_error *err)
{
    if (answer == ROUND_OVERRULE && (!why || !*why))
        return kwb_error_set(err, "overruling the judge needs a reason");
    int promote = answer == ROUND_ACCEPT ? e->verdict_promote : !e->verdict_promote;
    int start = strcmp(e->cand_name, "start") == 0;
    if (start && !promote) /* nothing to go on from: the session does not start */
        return kwb_error_set(err, "the starting solution %s does not pass: %s", e->cand_dir, e->verdict_reason);
    char reason[1600];
    if (start && promote)
        snprintf(reason, sizeof reason, "starting point of the session");
    else if (answer == ROUND_OVERRULE)
        snprintf(reason, sizeof reason, "override: the judge advised %s at the %s (%s); the human decided %s: %s",
                 e->verdict_promote ? "promote" : "reject", e->verdict_stage, e->verdict_reason,
                 promote ? "promote" : "reject", why);
    else
        snprintf(reason, sizeof reason, "%s", e->verdict_reason);
    e->step = ROUND_DECIDING;
    char prev_dir[1024];
    snprintf(prev_dir, sizeof prev_dir, "%s", e->best_dir);
    if (run_decide(e, e->cand_name, promote, reason, 0, err) != 0)
        return -1;
    if (!e->session && round_refresh(e, err) != 0)
        return -1;
    int64_t cand = 0, round = 0;
    kwb_error derr = {{0}};
    if (candidate_ids(e, e->cand_name, &cand, &round, &derr) == 0 && e->direction_row) {
        if (store_direction_set_round(e->h->st, e->direction_row, round, &derr) != 0 ||
            store_direction_decide(e->h->st, e->direction_row, promote ? "accepted" : "rejected", reason, &derr) != 0)
            fprintf(stderr, "kwb: direction not recorded: %s\n", derr.msg);
        e->direction_row = 0;
    }
    if (promote)
        bar_cycle(e, prev_dir, round);
    redo_clear(e);
    snprintf(said, cap, "%s %s%s", e->cand_name, promote ? "promoted" : "rejected",
             answer == ROUND_OVERRULE ? " (the judge overruled)" : "");
    e->step = ROUND_PROPOSING;
    return round_refresh(e, err) == 0 ? promote : -1;
}

/* Takes the archive's side of decision D back (the promotion tag, or the rejected ref); REDO
 * puts it back through `kwb decide` instead (the caller). */
static int archive_undo(round_engine *e, const store_decision *d, kwb_error *err)
{
    store_candidate c;
    if (store_candidate_get(e->h->st, d->candidate, &c, err) != 0)
        return -1;
    int rc = 0;
    char tag[256];
    if (!c.commit)
        ;
    else if (strcmp(d->decision, "promoted") == 0)
        rc = archive_untag_promoted(e->h->ar, e->definition, c.commit, tag, err);
    else {
        char *name = xasprintf("%s-%s", e->session_name, c.name);
        rc = archive_unmark_rejected(e->h->ar, name, err);
        free(name);
    }
    store_candidate_free(&c);
    return rc;
}

/* The name of decision D's subject into OUT: the candidate's name or the direction's id. */
static void subject(round_engine *e, const store_decision *d, char *out, size_t cap)
{
    store_candidate c;
    kwb_error ignored = {{0}};
    if (d->candidate && store_candidate_get(e->h->st, d->candidate, &c, &ignored) == 0) {
        snprintf(out, cap, "candidate %s", c.name);
        store_candidate_free(&c);
    } else {
        snprintf(out, cap, "direction %s", d->title ? d->title : "?");
    }
}

/* What group G holds, as "candidate X promoted, direction Y accepted". */
static void describe(round_engine *e, const round_group *g, char *out, size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = g->n - 1; i >= 0 && used < cap; i--) {
        char who[256];
        subject(e, &g->d[i], who, sizeof who);
        used += (size_t)snprintf(out + used, cap - used, "%s%s %s", i == g->n - 1 ? "" : ", ", who, g->d[i].decision);
    }
}

int round_undo(round_engine *e, char *said, size_t cap, kwb_error *err)
{
    int total = 0;
    store_direction *d = NULL;
    int nd = 0;
    /* the start's promotion is the session's first decision: it is not taken back */
    if (!e->session || store_direction_list(e->h->st, e->session, 0, &d, &nd, err) != 0)
        return snprintf(said, cap, "nothing to undo"), 0;
    for (int i = 0; i < nd; i++)
        total += strcmp(d[i].state, "proposed") != 0;
    store_direction_list_free(d, nd);
    if (total == 0) {
        snprintf(said, cap, "nothing to undo");
        return 0;
    }
    round_group g = {0};
    if (store_decision_undo(e->h->st, e->session, &g.d, &g.n, err) != 0)
        return -1;
    if (g.n == 0) {
        snprintf(said, cap, "nothing to undo");
        return 0;
    }
    for (int i = 0; i < g.n; i++)
        if (g.d[i].candidate && archive_undo(e, &g.d[i], err) != 0)
            fprintf(stderr, "kwb: undo in the archive: %s\n", err->msg);
    char what[900];
    describe(e, &g, what, sizeof what);
    snprintf(said, cap, "undone: %s", what);
    int kept = store_redo_push(e->h->st, e->session, g.d, g.n, err);
    e->direction_row = 0;
    e->step = ROUND_PROPOSING;
    if (kept != 0 || round_refresh(e, err) != 0) {
        store_decision_list_free(g.d, g.n);
        return -1;
    }
    for (int i = 0; i < g.n; i++) /* a candidate's decision taken back: its verdict is in front again */
        if (g.d[i].candidate && round_resume(e, err) == 1 && e->step == ROUND_JUDGING) {
            const char *r = g.d[i].reason ? g.d[i].reason : "";
            int promoted = strcmp(g.d[i].decision, "promoted") == 0;
            char stage[16] = "", verdict[1024];
            const char *open = strstr(r, " ("), *close = strstr(r, "); the human decided ");
            /* an override's reason holds the verdict: "override: the judge advised X at the S (R); ..." */
            if (strncmp(r, "override: the judge advised ", 28) == 0 && open && close && close > open &&
                sscanf(r + 28, "%*s at the %15s", stage) == 1) {
                snprintf(verdict, sizeof verdict, "%.*s", (int)(close - open - 2), open + 2);
                round_judged(e, !promoted, stage, verdict);
            } else {
                round_judged(e, promoted, promoted ? "end" : "judge", r);
            }
        }
    store_decision_list_free(g.d, g.n);
    return 1;
}

int round_redo(round_engine *e, char *said, size_t cap, kwb_error *err)
{
    round_group g = {0};
    if (e->session && store_redo_top(e->h->st, e->session, &g.d, &g.n, err) != 0)
        return -1;
    if (g.n == 0) {
        snprintf(said, cap, "nothing to redo");
        return 0;
    }
    int rc = 0;
    for (int i = g.n - 1; i >= 0 && rc == 0; i--) { /* oldest first, as they were made */
        const store_decision *d = &g.d[i];
        if (d->candidate) {
            store_candidate c;
            if ((rc = store_candidate_get(e->h->st, d->candidate, &c, err)) != 0)
                break;
            rc = run_decide(e, c.name, strcmp(d->decision, "promoted") == 0, d->reason ? d->reason : "", 1, err);
            store_candidate_free(&c);
        } else {
            rc = store_direction_decide(e->h->st, d->direction, d->decision, d->reason, err);
        }
    }
    char what[900];
    describe(e, &g, what, sizeof what);
    store_decision_list_free(g.d, g.n);
    if (rc != 0 || store_redo_drop(e->h->st, e->session, 0, err) != 0)
        return -1;
    snprintf(said, cap, "redone: %s", what);
    e->step = ROUND_PROPOSING;
    return round_refresh(e, err) == 0 ? 1 : -1;
}

int round_tried(round_engine *e, char ***out, int *n, kwb_error *err)
{
    *out = NULL;
    *n = 0;
    store_direction *d = NULL;
    int nd = 0;
    if (e->session && store_direction_list(e->h->st, e->session, 0, &d, &nd, err) != 0)
        return -1;
    for (int i = 0; i < nd; i++)
        if (d[i].title && strcmp(d[i].state, "proposed") != 0) {
            *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
            (*out)[(*n)++] = xstrdup(d[i].title);
        }
    store_direction_list_free(d, nd);
    return 0;
}

void round_ids_free(char **ids, int n)
{
    for (int i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
}

int round_note(round_engine *e, const char *text, kwb_error *err)
{
    return e->session ? store_note_add(e->h->st, e->session, 0, 0, text, NULL, err) : 0;
}

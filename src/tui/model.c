/* model.c - the panes' data from the store (see model.h). */
#define _GNU_SOURCE
#include "tui/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "paths.h"
#include "regimes.h"
#include "traceset.h"
#include "tui/view.h"
#include "tui/views.h"
#include "xalloc.h"

int model_open(tui_app *a, kwb_error *err)
{
    if (wsopen(a->opt.workspace, 0, &a->h, err) != 0)
        return -1;
    a->ws_open = 1;
    int64_t id = 0;
    int rc = a->opt.session ? store_session_find(a->h.st, a->opt.session, &id, err) : 0;
    if (!a->opt.session) {
        kwb_error e2 = {{0}};
        rc = wsopen_session(&a->h, NULL, &id, &e2) == 0;
    }
    if (rc < 0)
        return -1;
    a->session = rc == 1 ? id : 0;
    return rc;
}

void model_close(tui_app *a)
{
    if (a->ws_open)
        wsclose(&a->h);
    a->ws_open = 0;
}

/* The axes text and size key of workload UUID, from the definition's workloads (read once). */
static void axes_of(tui_app *a, const char *uuid, char *axes, size_t cap, double *key)
{
    static definition *def;
    static workload_set set;
    static char loaded_for[160];
    if (strcmp(loaded_for, a->definition) != 0) {
        char *root = paths_dataset();
        kwb_error err = {{0}};
        if (def)
            definition_free(def), workload_set_free(&set);
        def = NULL;
        memset(&set, 0, sizeof set);
        if (root && traceset_load(root, a->definition, &def, &set, &err) != 0)
            def = NULL;
        free(root);
        snprintf(loaded_for, sizeof loaded_for, "%s", a->definition);
    }
    snprintf(axes, cap, "-");
    *key = 0;
    for (int i = 0; def && i < set.count; i++)
        if (strcmp(set.items[i].uuid, uuid) == 0) {
            workload_axes_string(&set.items[i], def, axes, cap);
            for (int k = 0; k < def->naxes; k++)
                if (!def->axes[k].is_const) {
                    *key = (double)set.items[i].axis_value[k];
                    break;
                }
            return;
        }
}

static wl_line *row_for(tui_app *a, const char *uuid)
{
    for (int i = 0; i < a->wl.nrows; i++)
        if (strcmp(a->wl.rows[i].uuid, uuid) == 0)
            return &a->wl.rows[i];
    a->wl.rows = xrealloc(a->wl.rows, (size_t)(a->wl.nrows + 1) * sizeof *a->wl.rows);
    wl_line *r = &a->wl.rows[a->wl.nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->uuid, sizeof r->uuid, "%s", uuid);
    axes_of(a, uuid, r->axes, sizeof r->axes, &r->key);
    return r;
}

/* Merges candidate CAND's table into the rows as ROLE 0 baseline, 1 best, 2 candidate. */
static void merge_table(tui_app *a, int64_t cand, int role)
{
    store_wl_table t;
    kwb_error err = {{0}};
    if (cand <= 0 || store_wl_table_get(a->h.st, cand, &t, &err) != 1)
        return;
    for (int i = 0; i < t.n; i++) {
        wl_line *r = row_for(a, t.rows[i].uuid);
        double ms = t.rows[i].median_ms;
        if (role == 0)
            r->base_ms = ms;
        else if (role == 1) {
            r->best_ms = ms, r->roofline = t.rows[i].roofline;
            snprintf(r->status, sizeof r->status, "%s", t.rows[i].status);
        } else {
            r->cand_ms = ms;
            if (t.rows[i].baseline_median_ms > 0) /* the best, timed in the same run (paired) */
                r->best_ms = t.rows[i].baseline_median_ms;
            snprintf(r->status, sizeof r->status, "%s", t.rows[i].status);
            snprintf(r->verdict, sizeof r->verdict, "%s", t.rows[i].verdict);
            if (t.rows[i].ratio > 0) { /* the verdict's paired ratio: candidate time over the best's */
                r->paired = 1 / t.rows[i].ratio;
                r->paired_lo = t.rows[i].ratio_hi > 0 ? 1 / t.rows[i].ratio_hi : 0;
                r->paired_hi = t.rows[i].ratio_lo > 0 ? 1 / t.rows[i].ratio_lo : 0;
                a->wl.paired = 1;
            }
            if (t.rows[i].roofline > 0)
                r->roofline = t.rows[i].roofline;
        }
    }
    store_wl_table_free(&t);
}

static void load_table(tui_app *a)
{
    a->wl.nrows = 0;
    a->wl.paired = 0;
    int64_t best = 0, cur = 0;
    kwb_error err = {{0}};
    store_candidate c;
    int64_t base = 0;
    if (store_candidate_find(a->h.st, a->session, "start", &c, &err) == 1)
        base = c.id, store_candidate_free(&c);
    a->best_ms = 0;
    a->best_name[0] = a->best_dir[0] = a->best_partial[0] = '\0';
    /* the best is the candidate promoted last: what the rounds start from and what a candidate is
     * judged against (a faster one still awaiting its decision is not the best yet) */
    if (store_candidate_promoted(a->h.st, a->session, &best, &a->best_ms, &err) == 1 &&
        store_candidate_get(a->h.st, best, &c, &err) == 0) {
        if (isnan(a->best_ms))
            a->best_ms = 0; /* NaN: no complete evaluation */
        snprintf(a->best_name, sizeof a->best_name, "%s", c.name);
        snprintf(a->best_dir, sizeof a->best_dir, "%s", c.solution_dir ? c.solution_dir : "");
        store_candidate_free(&c);
        store_evidence ev;
        if (store_candidate_evidence(a->h.st, best, &ev, &err) == 1 && ev.n_done < ev.n_session)
            snprintf(a->best_partial, sizeof a->best_partial, " (partial: %d of %d)", ev.n_done, ev.n_session);
    }
    store_candidate_current(a->h.st, a->session, &cur, &err);
    merge_table(a, base ? base : best, 0);
    merge_table(a, best, 1);
    int64_t show = 0;
    if (a->eng.cand_name[0] && a->eng.step >= ROUND_JUDGING && a->eng.step <= ROUND_DECIDING &&
        store_candidate_find(a->h.st, a->session, a->eng.cand_name, &c, &err) == 1) {
        show = c.id; /* the candidate under decision, beside the best it was timed against */
        store_candidate_free(&c);
    } else if (cur != best && store_candidate_get(a->h.st, cur, &c, &err) == 0) {
        int open = strcmp(c.state, "promoted") != 0 && strcmp(c.state, "rejected") != 0;
        store_candidate_free(&c);
        show = open ? cur : 0;
    }
    if (show)
        merge_table(a, show, 2);
    for (int i = 0; i < a->wl.nrows; i++) {
        wl_line *r = &a->wl.rows[i];
        double now = r->cand_ms > 0 ? r->cand_ms : r->best_ms;
        r->speedup = r->base_ms > 0 && now > 0 ? r->base_ms / now : 0;
    }
}

/* The bottleneck per regime of the best candidate's rows: regimes by the size key, each classed by
 * its latency-weighted roofline share (bottleneck.h's roofline rule). */
static void load_bottleneck(tui_app *a)
{
    a->bn.n = 0;
    int n = a->wl.nrows;
    if (n == 0)
        return;
    double *key = xcalloc((size_t)n, sizeof *key), *lat = xcalloc((size_t)n, sizeof *lat);
    int *assign = xcalloc((size_t)n, sizeof *assign);
    for (int i = 0; i < n; i++)
        key[i] = a->wl.rows[i].key, lat[i] = a->wl.rows[i].best_ms;
    regime rg[REGIMES_MAX];
    int k = regimes_split(key, lat, n, rg, assign);
    for (int g = 0; g < k && a->bn.n < 8; g++) {
        double wsum = 0, rsum = 0;
        for (int i = 0; i < n; i++)
            if (assign[i] == g && lat[i] > 0)
                wsum += lat[i], rsum += lat[i] * a->wl.rows[i].roofline;
        bottleneck_input in = bottleneck_input_empty();
        in.roofline_share = wsum > 0 ? rsum / wsum : 0;
        in.memory_floor = 1;
        bottleneck b = bottleneck_classify(&in);
        snprintf(a->bn.evidence[a->bn.n++], sizeof a->bn.evidence[0],
                 "%g-%g: %s  roofline %.0f%%, %d wl, %.0f%% of time", rg[g].key_lo, rg[g].key_hi, b.cls,
                 100 * in.roofline_share, rg[g].count, 100 * rg[g].share);
    }
    free(key);
    free(lat);
    free(assign);
}

/* Keeps the pending proposals; appends the directions decided in the store, newest first. */
static void load_directions(tui_app *a)
{
    int keep = 0;
    for (int i = 0; i < a->pr.nprops; i++)
        if (strcmp(a->pr.props[i].state, "pending") == 0 || strcmp(a->pr.props[i].state, "chosen") == 0 ||
            strcmp(a->pr.props[i].state, "written") == 0)
            a->pr.props[keep++] = a->pr.props[i];
    a->pr.nprops = keep;
    store_direction *d = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_direction_list(a->h.st, a->session, 0, &d, &n, &err) != 0)
        return;
    a->pr.props = xrealloc(a->pr.props, (size_t)(a->pr.nprops + n + 1) * sizeof *a->pr.props);
    for (int i = n - 1; i >= 0; i--) {
        if (strcmp(d[i].state, "proposed") == 0)
            continue;
        proposal *p = &a->pr.props[a->pr.nprops++];
        memset(p, 0, sizeof *p);
        snprintf(p->id, sizeof p->id, "%s", d[i].title ? d[i].title : "");
        snprintf(p->title, sizeof p->title, "%s", d[i].rationale ? d[i].rationale : "");
        snprintf(p->source, sizeof p->source, "%s", d[i].skill ? d[i].skill : "");
        snprintf(p->state, sizeof p->state, "%s", d[i].state);
        snprintf(p->reason, sizeof p->reason, "%s", d[i].reason ? d[i].reason : "");
    }
    store_direction_list_free(d, n);
}

static void load_history(tui_app *a)
{
    store_round *r = NULL;
    int n = 0;
    kwb_error err = {{0}};
    int follow = a->view[PANE_HISTORY].sel >= a->hi.n - 1; /* at the newest round: stay there */
    a->hi.n = 0;
    if (store_trajectory(a->h.st, a->session, 0, &r, &n, &err) != 0)
        return;
    a->hi.points = xrealloc(a->hi.points, (size_t)(n + 1) * sizeof *a->hi.points);
    for (int i = 0; i < n; i++) {
        if (r[i].best_mean_ms <= 0)
            continue;
        history_point *h = &a->hi.points[a->hi.n++];
        h->round = r[i].number;
        h->best_ms = r[i].best_mean_ms;
        snprintf(h->title, sizeof h->title, "%s", r[i].title ? r[i].title : "");
    }
    if (follow && a->hi.n > 0)
        a->view[PANE_HISTORY].sel = a->hi.n - 1;
    store_round_list_free(r, n);
}

void model_poll_log(tui_app *a)
{
    if (!a->session)
        return;
    store_log_entry *e = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_log_list(a->h.st, a->session, a->lg.after, 200, &e, &n, &err) != 0)
        return;
    for (int i = 0; i < n; i++) {
        int cls = strstr(e[i].text, "rejected") || strstr(e[i].text, "failed") ? TC_LOG_WARN : TC_LOG_INFO;
        app_log(a, cls, "[%s] %s", e[i].kind, e[i].text);
        a->lg.after = e[i].id;
    }
    store_log_list_free(e, n);
}

void model_poll_progress(tui_app *a)
{
    if (!a->session)
        return;
    store_eval_run *r = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_eval_run_list(a->h.st, a->session, "running", &r, &n, &err) != 0)
        return;
    int done = n > 0 ? r[n - 1].n_done : 0, total = n > 0 ? r[n - 1].n_workloads : 0;
    if (done != a->progress_done || total != a->progress_total) {
        view_mark(a, PANE_LOG); /* its title holds the progress */
        load_table(a);          /* the candidate's rows as its workloads finish */
        workloads_apply(a);     /* in the table's sort and filter */
    }
    a->progress_done = done;
    a->progress_total = total;
    store_eval_run_list_free(r, n);
}

void model_reload(tui_app *a)
{
    if (!a->session)
        return;
    store_session s;
    kwb_error err = {{0}};
    if (store_session_get(a->h.st, a->session, &s, &err) == 0) {
        snprintf(a->definition, sizeof a->definition, "%s", s.definition);
        store_session_free(&s);
    }
    load_table(a);
    load_bottleneck(a);
    load_directions(a);
    load_history(a);
    model_poll_log(a);
    view_open_all(a);
}

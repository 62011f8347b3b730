/* model.c - the panes' data from the store (see model.h). */
#define _GNU_SOURCE
#include "tui/model.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "paths.h"
#include "regimes.h"
#include "traceset.h"
#include "xalloc.h"

static const char *const columns[] = {"uuid", "axes", "baseline", "best", "candidate", "speedup", "roofline", "status"};

int model_columns(void)
{
    return (int)(sizeof columns / sizeof columns[0]);
}

const char *model_column_name(int i)
{
    return i >= 0 && i < model_columns() ? columns[i] : "";
}

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

/* The log pane and the status line are the model's too: every module may add to them without
 * reaching back into app.c (no circle between the loop and its modules). */
#define LOG_KEEP 4000

void app_log(tui_app *a, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = xstrdup("?");
    va_end(ap);
    if (a->nlog == LOG_KEEP) {
        free(a->log[0].text);
        memmove(a->log, a->log + 1, (LOG_KEEP - 1) * sizeof *a->log);
        a->nlog--;
        a->ps[PANE_LOG].sel -= a->ps[PANE_LOG].sel > 0;
    }
    int follow = a->ps[PANE_LOG].sel >= a->nlog - 1;
    a->log = xrealloc(a->log, (size_t)(a->nlog + 1) * sizeof *a->log);
    a->log[a->nlog++] = (log_line){text, cls};
    if (follow)
        a->ps[PANE_LOG].sel = a->nlog - 1;
    a->dirty = 1;
}

void app_status(tui_app *a, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
    a->status_cls = cls;
    a->dirty = 1;
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
    for (int i = 0; i < a->nrows; i++)
        if (strcmp(a->rows[i].uuid, uuid) == 0)
            return &a->rows[i];
    a->rows = xrealloc(a->rows, (size_t)(a->nrows + 1) * sizeof *a->rows);
    wl_line *r = &a->rows[a->nrows++];
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
            if (t.rows[i].roofline > 0)
                r->roofline = t.rows[i].roofline;
        }
    }
    store_wl_table_free(&t);
}

static void load_table(tui_app *a)
{
    a->nrows = 0;
    int64_t best = 0, cur = 0;
    kwb_error err = {{0}};
    store_candidate c;
    int64_t base = 0;
    if (store_candidate_find(a->h.st, a->session, "start", &c, &err) == 1)
        base = c.id, store_candidate_free(&c);
    a->best_ms = 0;
    a->best_name[0] = a->best_dir[0] = '\0';
    /* the best is the candidate promoted last: what the rounds start from and what a candidate is
     * judged against (a faster one still awaiting its decision is not the best yet) */
    if (store_candidate_promoted(a->h.st, a->session, &best, &a->best_ms, &err) == 1 &&
        store_candidate_get(a->h.st, best, &c, &err) == 0) {
        if (isnan(a->best_ms))
            a->best_ms = 0; /* NaN: no complete evaluation */
        snprintf(a->best_name, sizeof a->best_name, "%s", c.name);
        snprintf(a->best_dir, sizeof a->best_dir, "%s", c.solution_dir ? c.solution_dir : "");
        store_candidate_free(&c);
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
    for (int i = 0; i < a->nrows; i++) {
        wl_line *r = &a->rows[i];
        double now = r->cand_ms > 0 ? r->cand_ms : r->best_ms;
        r->speedup = r->base_ms > 0 && now > 0 ? r->base_ms / now : 0;
    }
}

/* The bottleneck per regime of the best candidate's rows: regimes by the size key, each classed by
 * its latency-weighted roofline share (bottleneck.h's roofline rule). */
static void load_bottleneck(tui_app *a)
{
    a->nbn = 0;
    int n = a->nrows;
    if (n == 0)
        return;
    double *key = xcalloc((size_t)n, sizeof *key), *lat = xcalloc((size_t)n, sizeof *lat);
    int *assign = xcalloc((size_t)n, sizeof *assign);
    for (int i = 0; i < n; i++)
        key[i] = a->rows[i].key, lat[i] = a->rows[i].best_ms;
    regime rg[REGIMES_MAX];
    int k = regimes_split(key, lat, n, rg, assign);
    for (int g = 0; g < k && a->nbn < 8; g++) {
        double wsum = 0, rsum = 0;
        for (int i = 0; i < n; i++)
            if (assign[i] == g && lat[i] > 0)
                wsum += lat[i], rsum += lat[i] * a->rows[i].roofline;
        bottleneck_input in = bottleneck_input_empty();
        in.roofline_share = wsum > 0 ? rsum / wsum : 0;
        in.memory_floor = 1;
        bottleneck b = bottleneck_classify(&in);
        snprintf(a->bn_evidence[a->nbn++], sizeof a->bn_evidence[0],
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
    for (int i = 0; i < a->nprops; i++)
        if (strcmp(a->props[i].state, "pending") == 0 || strcmp(a->props[i].state, "chosen") == 0 ||
            strcmp(a->props[i].state, "written") == 0)
            a->props[keep++] = a->props[i];
    a->nprops = keep;
    store_direction *d = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_direction_list(a->h.st, a->session, 0, &d, &n, &err) != 0)
        return;
    a->props = xrealloc(a->props, (size_t)(a->nprops + n + 1) * sizeof *a->props);
    for (int i = n - 1; i >= 0; i--) {
        if (strcmp(d[i].state, "proposed") == 0)
            continue;
        proposal *p = &a->props[a->nprops++];
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
    int follow = a->ps[PANE_HISTORY].sel >= a->nhist - 1; /* at the newest round: stay there */
    a->nhist = 0;
    if (store_trajectory(a->h.st, a->session, 0, &r, &n, &err) != 0)
        return;
    a->hist = xrealloc(a->hist, (size_t)(n + 1) * sizeof *a->hist);
    for (int i = 0; i < n; i++) {
        if (r[i].best_mean_ms <= 0)
            continue;
        history_point *h = &a->hist[a->nhist++];
        h->round = r[i].number;
        h->best_ms = r[i].best_mean_ms;
        snprintf(h->title, sizeof h->title, "%s", r[i].title ? r[i].title : "");
    }
    if (follow && a->nhist > 0)
        a->ps[PANE_HISTORY].sel = a->nhist - 1;
    store_round_list_free(r, n);
}

void model_poll_log(tui_app *a)
{
    if (!a->session)
        return;
    store_log_entry *e = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_log_list(a->h.st, a->session, a->log_after, 200, &e, &n, &err) != 0)
        return;
    for (int i = 0; i < n; i++) {
        int cls = strstr(e[i].text, "rejected") || strstr(e[i].text, "failed") ? TC_LOG_WARN : TC_LOG_INFO;
        app_log(a, cls, "[%s] %s", e[i].kind, e[i].text);
        a->log_after = e[i].id;
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
    if (done != a->progress_done || total != a->progress_total)
        a->dirty = 1;
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
    model_apply_view(a);
    a->dirty = 1;
}

static double column_value(const wl_line *r, int col)
{
    switch (col) {
    case 2: return r->base_ms;
    case 3: return r->best_ms;
    case 4: return r->cand_ms;
    case 5: return r->speedup;
    case 6: return r->roofline;
    default: return r->key;
    }
}

static const tui_app *sort_app;
static int compare_rows(const void *pa, const void *pb)
{
    const wl_line *x = &sort_app->rows[*(const int *)pa], *y = &sort_app->rows[*(const int *)pb];
    int c, col = sort_app->sort_col;
    if (col == 0)
        c = strcmp(x->uuid, y->uuid);
    else if (col == 7)
        c = strcmp(x->status, y->status);
    else {
        double u = column_value(x, col), v = column_value(y, col);
        c = u < v ? -1 : u > v;
    }
    if (c == 0)
        c = *(const int *)pa - *(const int *)pb;
    return sort_app->sort_desc ? -c : c;
}

void model_apply_view(tui_app *a)
{
    a->order = xrealloc(a->order, (size_t)(a->nrows + 1) * sizeof *a->order);
    a->norder = 0;
    pcre2_match_data *md = a->filter_re ? pcre2_match_data_create_from_pattern(a->filter_re, NULL) : NULL;
    for (int i = 0; i < a->nrows; i++) {
        if (md) {
            char line[256];
            snprintf(line, sizeof line, "%s %s %s", a->rows[i].uuid, a->rows[i].axes, a->rows[i].status);
            if (pcre2_match(a->filter_re, (PCRE2_SPTR)line, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) < 0)
                continue;
        }
        a->order[a->norder++] = i;
    }
    if (md)
        pcre2_match_data_free(md);
    sort_app = a;
    qsort(a->order, (size_t)a->norder, sizeof *a->order, compare_rows);
    pane_state *ps = &a->ps[PANE_WORKLOADS];
    if (ps->sel >= a->norder)
        ps->sel = a->norder > 0 ? a->norder - 1 : 0;
    a->dirty = 1;
}

int model_set_filter(tui_app *a, const char *re, kwb_error *err)
{
    pcre2_code *code = NULL;
    if (re && *re) {
        int ec;
        PCRE2_SIZE off;
        code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS | PCRE2_UTF, &ec, &off, NULL);
        if (!code) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(ec, msg, sizeof msg);
            return kwb_error_set(err, "filter /%s/: at %zu: %s", re, (size_t)off, (const char *)msg);
        }
    }
    if (a->filter_re)
        pcre2_code_free(a->filter_re);
    a->filter_re = code;
    snprintf(a->filter, sizeof a->filter, "%s", re ? re : "");
    model_apply_view(a);
    return 0;
}

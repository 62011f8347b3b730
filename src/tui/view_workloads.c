/* view_workloads.c - the workloads table: baseline, best and candidate per workload, columns sized
 * to their content, sort and filter (see views.h). */
#include "tui/views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/columns.h"
#include "tui/view.h"
#include "xalloc.h"

enum { COL_UUID, COL_AXES, COL_BASE, COL_BEST, COL_CAND, COL_SPEEDUP, COL_ROOF, COL_STATUS, NCOLS };
static const char *const col_names[NCOLS] = {"uuid",      "axes",    "baseline", "best",
                                             "candidate", "speedup", "roofline", "status"};

int workloads_columns(void)
{
    return NCOLS;
}

const char *workloads_column_name(int i)
{
    return i >= 0 && i < NCOLS ? col_names[i] : "";
}

/* The speedup column's heading: the comparison it holds. */
static const char *speedup_heading(const wl_table *t)
{
    return t->paired ? "paired" : "vs start";
}

/* What each column wants (its widest cell or its heading) and needs at least. */
static void column_wants(const wl_table *t, int *want, int *min)
{
    static const int fixed[NCOLS] = {8, 4, 6, 6, 6, 5, 8, 6};
    const char *heads[NCOLS] = {"uuid",     "axes",  "baseline", "best", "candidate", speedup_heading(t),
                                "roofline", "status"};
    for (int c = 0; c < NCOLS; c++) {
        min[c] = fixed[c];
        want[c] = tui_text_width(heads[c]) > fixed[c] ? tui_text_width(heads[c]) : fixed[c];
    }
    for (int i = 0; i < t->nrows; i++) {
        const wl_line *r = &t->rows[i];
        char b[32];
        int w[NCOLS] = {0,
                        tui_text_width(r->axes),
                        (int)strlen(fmt_ms(r->base_ms, b, sizeof b)),
                        (int)strlen(fmt_ms(r->best_ms, b, sizeof b)),
                        (int)strlen(fmt_ms(r->cand_ms, b, sizeof b)),
                        0,
                        0,
                        (int)strlen(r->status)};
        for (int c = 0; c < NCOLS; c++)
            want[c] = w[c] > want[c] ? w[c] : want[c];
    }
}

int workloads_width(const wl_table *t)
{
    int want[NCOLS], min[NCOLS], out[NCOLS];
    column_wants(t, want, min);
    return columns_fit(want, min, NCOLS, 1, 1 << 20, out);
}

static int want_width(const tui_app *a, const tui_view *v)
{
    (void)v;
    return workloads_width(&a->wl) + 1; /* a blank before the separator */
}

static int speedup_class(const wl_line *r, double s)
{
    if (strcmp(r->verdict, "faster") == 0)
        return TC_SPEEDUP_FASTER;
    if (strcmp(r->verdict, "slower") == 0)
        return TC_SPEEDUP_SLOWER;
    if (r->verdict[0] && strcmp(r->verdict, "same") != 0)
        return TC_SPEEDUP_UNCLEAR;
    if (s <= 0)
        return TC_NORMAL;
    return s > 1.02 ? TC_SPEEDUP_FASTER : s < 0.98 ? TC_SPEEDUP_SLOWER : TC_SPEEDUP_SAME;
}

/* The figure in the speedup column: the verdict's paired comparison while a candidate is judged. */
static double shown_speedup(const wl_table *t, const wl_line *r)
{
    return t->paired ? r->paired : r->speedup;
}

static void draw_row(tui_app *a, tui_view *v, const wl_line *w, const int *width, int y)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    column_line l = column_line_start(&a->scr, y, r->x, r->x + r->w, v->hscroll);
    char id[16], b[3][32], sp[32], roof[16];
    double s = shown_speedup(&a->wl, w);
    snprintf(sp, sizeof sp, s > 0 ? "%.2fx" : "-", s);
    snprintf(id, sizeof id, "%.8s", w->uuid); /* its first eight digits name it (Enter: in full) */
    column_put(&l, id, width[COL_UUID], 0, TC_NORMAL, 1);
    column_put(&l, w->axes, width[COL_AXES], 0, TC_NORMAL, 1);
    column_put(&l, fmt_ms(w->base_ms, b[0], sizeof b[0]), width[COL_BASE], 1, TC_NORMAL, 1);
    column_put(&l, fmt_ms(w->best_ms, b[1], sizeof b[1]), width[COL_BEST], 1, TC_NORMAL, 1);
    column_put(&l, fmt_ms(w->cand_ms, b[2], sizeof b[2]), width[COL_CAND], 1, TC_NORMAL, 1);
    column_put(&l, sp, width[COL_SPEEDUP], 1, speedup_class(w, s), 1);
    int bars = (int)lround(w->roofline * 4);
    for (int i = 0; i < 4; i++)
        column_fill(&l, 1, i < bars ? a->scr.g.bar_full : ' ', TC_ROOFLINE_BAR);
    snprintf(roof, sizeof roof, "%3.0f%%", 100 * w->roofline);
    column_put(&l, roof, width[COL_ROOF] - 4, 1, TC_NORMAL, 1);
    int scls = w->status[0] == 0                   ? TC_NORMAL
               : strcmp(w->status, "PASSED") == 0  ? TC_STATUS_PASSED
               : strcmp(w->status, "RUNNING") == 0 ? TC_STATUS_RUNNING
                                                   : TC_STATUS_FAILED;
    column_put(&l, w->status[0] ? w->status : "-", width[COL_STATUS], 0, scls, 0);
}

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    wl_table *t = &a->wl;
    char extra[400];
    snprintf(extra, sizeof extra, "(%d of %d) sort %s%s%s%s%s", t->norder, t->nrows, col_names[t->sort_col],
             t->sort_desc ? " desc" : "", t->filter[0] ? "  /" : "", t->filter,
             t->paired ? "  paired: the verdict's ratio, candidate vs best in one run" : "");
    view_draw_title(a, v, extra);
    int want[NCOLS], min[NCOLS], width[NCOLS];
    column_wants(t, want, min);
    columns_fit(want, min, NCOLS, 1, r->w, width);
    const char *heads[NCOLS] = {"uuid",     "axes",  "baseline", "best", "candidate", speedup_heading(t),
                                "roofline", "status"};
    surface_fill(&a->scr, r->y + 1, r->x, r->w, ' ', TC_TABLE_HEADER);
    column_line l = column_line_start(&a->scr, r->y + 1, r->x, r->x + r->w, v->hscroll);
    l.fill_cls = TC_TABLE_HEADER;
    for (int c = 0; c < NCOLS; c++)
        column_put(&l, heads[c], width[c], c >= COL_BASE && c <= COL_SPEEDUP, TC_TABLE_HEADER, c < NCOLS - 1);
    int top = view_scroll_top(a, v), h = view_height(a, v->pane);
    for (int i = 0; i < h && top + i < t->norder; i++) {
        draw_row(a, v, &t->rows[t->order[top + i]], width, r->y + 2 + i);
        view_draw_cursor(a, v, top + i, r->y + 2 + i);
    }
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return a->wl.norder;
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    const wl_line *r = &a->wl.rows[a->wl.order[row]];
    snprintf(buf, cap, "%s %s %s", r->uuid, r->axes, r->status);
    return buf;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    (void)v;
    const wl_line *w = &a->wl.rows[a->wl.order[row]];
    char paired[160] = "";
    if (w->paired > 0)
        snprintf(paired, sizeof paired, "\npaired against the best in the same run: %.3fx (interval %.3fx-%.3fx)",
                 w->paired, w->paired_lo, w->paired_hi);
    return xasprintf("workload %s\naxes: %s\nbaseline %.4f ms, best %.4f ms, candidate %.4f ms\n"
                     "speedup over the start %.3fx, roofline %.0f%%%s\nstatus: %s\nverdict: %s",
                     w->uuid, w->axes, w->base_ms, w->best_ms, w->cand_ms, w->speedup, 100 * w->roofline, paired,
                     w->status, w->verdict[0] ? w->verdict : "-");
}

static int request(tui_app *a, tui_view *v, int req)
{
    (void)v;
    if (req == REQ_SORT_NEXT || req == REQ_SORT_PREV) {
        a->wl.sort_col = (a->wl.sort_col + (req == REQ_SORT_NEXT ? 1 : -1) + NCOLS) % NCOLS;
        workloads_apply(a);
        return 1;
    }
    if (req == REQ_CANCEL && a->wl.filter[0] && !job_count(a->jobs, JOB_MAX)) {
        workloads_set_filter(a, "", NULL);
        return 1;
    }
    return 0;
}

static void done(tui_app *a, tui_view *v)
{
    (void)v;
    free(a->wl.rows);
    free(a->wl.order);
    if (a->wl.filter_re)
        pcre2_code_free(a->wl.filter_re);
    memset(&a->wl, 0, sizeof a->wl);
}

static void open_view(tui_app *a, tui_view *v)
{
    (void)v;
    workloads_apply(a);
}

const view_ops view_workloads_ops = {
    "workloads", 1, open_view, draw, request, NULL, done, rows, row_text, detail, want_width,
};

/* ---- sort and filter ------------------------------------------------------------------- */

static double column_value(const wl_table *t, const wl_line *r, int col)
{
    switch (col) {
    case COL_BASE: return r->base_ms;
    case COL_BEST: return r->best_ms;
    case COL_CAND: return r->cand_ms;
    case COL_SPEEDUP: return shown_speedup(t, r);
    case COL_ROOF: return r->roofline;
    default: return r->key;
    }
}

static const wl_table *sorting;
static int compare_rows(const void *pa, const void *pb)
{
    const wl_line *x = &sorting->rows[*(const int *)pa], *y = &sorting->rows[*(const int *)pb];
    int c, col = sorting->sort_col;
    if (col == COL_UUID)
        c = strcmp(x->uuid, y->uuid);
    else if (col == COL_STATUS)
        c = strcmp(x->status, y->status);
    else {
        double u = column_value(sorting, x, col), w = column_value(sorting, y, col);
        c = u < w ? -1 : u > w;
    }
    if (c == 0)
        c = *(const int *)pa - *(const int *)pb;
    return sorting->sort_desc ? -c : c;
}

void workloads_apply(tui_app *a)
{
    wl_table *t = &a->wl;
    t->order = xrealloc(t->order, (size_t)(t->nrows + 1) * sizeof *t->order);
    t->norder = 0;
    pcre2_match_data *md = t->filter_re ? pcre2_match_data_create_from_pattern(t->filter_re, NULL) : NULL;
    for (int i = 0; i < t->nrows; i++) {
        if (md) {
            char line[256];
            snprintf(line, sizeof line, "%s %s %s", t->rows[i].uuid, t->rows[i].axes, t->rows[i].status);
            if (pcre2_match(t->filter_re, (PCRE2_SPTR)line, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) < 0)
                continue;
        }
        t->order[t->norder++] = i;
    }
    if (md)
        pcre2_match_data_free(md);
    sorting = t;
    qsort(t->order, (size_t)t->norder, sizeof *t->order, compare_rows);
    tui_view *v = &a->view[PANE_WORKLOADS];
    if (v->sel >= t->norder)
        v->sel = t->norder > 0 ? t->norder - 1 : 0;
    view_mark(a, PANE_WORKLOADS);
}

int workloads_set_filter(tui_app *a, const char *re, kwb_error *err)
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
    if (a->wl.filter_re)
        pcre2_code_free(a->wl.filter_re);
    a->wl.filter_re = code;
    snprintf(a->wl.filter, sizeof a->wl.filter, "%s", re ? re : "");
    workloads_apply(a);
    return 0;
}

/* panes.c - drawing the screen (see panes.h). */
#include "tui/panes.h"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/help.h"
#include "tui/model.h"

static const char *const step_names[] = {
    "idle",          "starting",           "proposing",       "choose a direction",
    "agent writing", "review the diff",    "build and judge", "the judge's verdict",
    "deciding",      "nothing left to try"};

const char *fmt_ms(double ms, char *buf, size_t cap)
{
    if (!(ms > 0)) /* none, or NaN */
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, ms < 1 ? "%.4f" : ms < 100 ? "%.3f" : "%.1f", ms);
    return buf;
}

int pane_diff_side_by_side(const tui_app *a)
{
    if (a->diff_mode == 1)
        return 1;
    if (a->diff_mode == 2)
        return 0;
    return a->lay.pane[PANE_DIFF].w >= 121;
}

int pane_rows(const tui_app *a, int pane)
{
    switch (pane) {
    case PANE_WORKLOADS: return a->norder;
    case PANE_BOTTLENECK: return a->nbn + 1;
    case PANE_PROPOSALS: return a->nprops;
    case PANE_DIFF: return diff_row_count(&a->diff, pane_diff_side_by_side(a));
    case PANE_LOG: return a->nlog;
    case PANE_HISTORY: return a->nhist;
    default: return 0;
    }
}

int pane_height(const tui_app *a, int pane)
{
    const layout_rect *r = &a->lay.pane[pane];
    int h = r->visible ? r->h - 1 : 0;
    return pane == PANE_WORKLOADS && h > 0 ? h - 1 : h; /* the table's header row */
}

const char *pane_row_text(const tui_app *a, int pane, int row, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (row < 0 || row >= pane_rows(a, pane))
        return buf;
    switch (pane) {
    case PANE_WORKLOADS: {
        const wl_line *r = &a->rows[a->order[row]];
        snprintf(buf, cap, "%s %s %s", r->uuid, r->axes, r->status);
        break;
    }
    case PANE_BOTTLENECK: snprintf(buf, cap, "%s", row == 0 ? a->bn_class : a->bn_evidence[row - 1]); break;
    case PANE_PROPOSALS:
        snprintf(buf, cap, "%s %s %s", a->props[row].id, a->props[row].title, a->props[row].reason);
        break;
    case PANE_DIFF: snprintf(buf, cap, "%s", diff_row_text(&a->diff, pane_diff_side_by_side(a), row)); break;
    case PANE_LOG: snprintf(buf, cap, "%s", a->log[row].text); break;
    case PANE_HISTORY: snprintf(buf, cap, "r%d %s", a->hist[row].round, a->hist[row].title); break;
    }
    return buf;
}

/* The first visible row of PANE so that its selection is on screen. */
static int scroll_top(tui_app *a, int pane)
{
    pane_state *p = &a->ps[pane];
    int h = pane_height(a, pane);
    if (h <= 0)
        return 0;
    if (p->sel < p->top)
        p->top = p->sel;
    if (p->sel >= p->top + h)
        p->top = p->sel - h + 1;
    int n = pane_rows(a, pane);
    if (p->top + h > n) /* no blank rows below the end while earlier rows exist */
        p->top = n - h;
    if (p->top < 0)
        p->top = 0;
    return p->top;
}

static void draw_title(tui_app *a, int pane, const char *extra)
{
    const layout_rect *r = &a->lay.pane[pane];
    int cls = a->focus == pane ? TC_TITLE_FOCUS : TC_TITLE_BLUR;
    surface_fill(&a->scr, r->y, r->x, r->w, ' ', cls);
    char t[256];
    snprintf(t, sizeof t, " %d %s %s", pane, layout_pane_names[pane], extra ? extra : "");
    surface_text(&a->scr, r->y, r->x, r->x + r->w, 0, t, cls);
}

static int speedup_class(const wl_line *r)
{
    if (strcmp(r->verdict, "faster") == 0)
        return TC_SPEEDUP_FASTER;
    if (strcmp(r->verdict, "slower") == 0)
        return TC_SPEEDUP_SLOWER;
    if (r->verdict[0] && strcmp(r->verdict, "same") != 0)
        return TC_SPEEDUP_UNCLEAR;
    if (r->speedup <= 0)
        return TC_NORMAL;
    return r->speedup > 1.02 ? TC_SPEEDUP_FASTER : r->speedup < 0.98 ? TC_SPEEDUP_SLOWER : TC_SPEEDUP_SAME;
}

static void draw_workloads(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_WORKLOADS];
    char extra[300];
    snprintf(extra, sizeof extra, "(%d of %d) sort %s%s%s%s", a->norder, a->nrows, model_column_name(a->sort_col),
             a->sort_desc ? " desc" : "", a->filter[0] ? "  /" : "", a->filter);
    draw_title(a, PANE_WORKLOADS, extra);
    int axw = r->w - 79 + 14, stw = 8;
    if (axw > 30)
        stw += axw - 30, axw = 30;
    if (axw < 6)
        axw = 6;
    int y = r->y + 1, limit = r->x + r->w;
    char line[512];
    snprintf(line, sizeof line, "%-8s %-*.*s %9s %9s %9s %7s %-8s %s", "uuid", axw, axw, "axes", "baseline", "best",
             "candidate", "speedup", "roofline", "status");
    surface_fill(&a->scr, y, r->x, r->w, ' ', TC_TABLE_HEADER);
    surface_text(&a->scr, y, r->x, limit, 0, line, TC_TABLE_HEADER);
    int top = scroll_top(a, PANE_WORKLOADS), h = pane_height(a, PANE_WORKLOADS);
    for (int i = 0; i < h && top + i < a->norder; i++) {
        const wl_line *w = &a->rows[a->order[top + i]];
        int yy = y + 1 + i, x = r->x;
        char b1[32], b2[32], b3[32], sp[32];
        snprintf(sp, sizeof sp, w->speedup > 0 ? "%.2fx" : "-", w->speedup);
        snprintf(line, sizeof line, "%-8.8s %-*.*s %9s %9s %9s", w->uuid, axw, axw, w->axes,
                 fmt_ms(w->base_ms, b1, sizeof b1), fmt_ms(w->best_ms, b2, sizeof b2),
                 fmt_ms(w->cand_ms, b3, sizeof b3));
        x = surface_text(&a->scr, yy, x, limit, 0, line, TC_NORMAL);
        snprintf(line, sizeof line, " %7s ", sp);
        x = surface_text(&a->scr, yy, x, limit, 0, line, TC_NORMAL);
        surface_paint(&a->scr, yy, x - 8, 7, speedup_class(w));
        int bars = (int)lround(w->roofline * 4);
        for (int b = 0; b < 4 && x < limit; b++)
            surface_fill(&a->scr, yy, x++, 1, b < bars ? a->scr.g.bar_full : ' ', TC_ROOFLINE_BAR);
        snprintf(line, sizeof line, "%3.0f%% ", 100 * w->roofline);
        x = surface_text(&a->scr, yy, x, limit, 0, line, TC_NORMAL);
        int scls = w->status[0] == 0                   ? TC_NORMAL
                   : strcmp(w->status, "PASSED") == 0  ? TC_STATUS_PASSED
                   : strcmp(w->status, "RUNNING") == 0 ? TC_STATUS_RUNNING
                                                       : TC_STATUS_FAILED;
        snprintf(line, sizeof line, "%-*.*s", stw, stw, w->status[0] ? w->status : "-");
        surface_text(&a->scr, yy, x, limit, 0, line, scls);
        if (a->ps[PANE_WORKLOADS].sel == top + i && a->focus == PANE_WORKLOADS)
            surface_paint(&a->scr, yy, r->x, r->w, TC_CURSOR);
    }
}

static int class_of_bottleneck(const char *s)
{
    return strstr(s, "memory")    ? TC_BOTTLENECK_MEMORY
           : strstr(s, "compute") ? TC_BOTTLENECK_COMPUTE
           : strstr(s, "launch")  ? TC_BOTTLENECK_LAUNCH
           : strstr(s, "latency") ? TC_BOTTLENECK_LATENCY
                                  : TC_NORMAL;
}

static void draw_list_cursor(tui_app *a, int pane, int row, int yy)
{
    const layout_rect *r = &a->lay.pane[pane];
    if (a->ps[pane].sel == row && a->focus == pane)
        surface_paint(&a->scr, yy, r->x, r->w, TC_CURSOR);
}

static void draw_bottleneck(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_BOTTLENECK];
    draw_title(a, PANE_BOTTLENECK, a->bn_regime[0] ? a->bn_regime : "per regime of the size key");
    int h = pane_height(a, PANE_BOTTLENECK), top = scroll_top(a, PANE_BOTTLENECK), limit = r->x + r->w;
    for (int i = 0; i < h && top + i < a->nbn + 1; i++) {
        int row = top + i, yy = r->y + 1 + i;
        char line[300];
        if (row == 0)
            snprintf(line, sizeof line, "class: %s", a->bn_class[0] ? a->bn_class : "(not proposed yet)");
        else
            snprintf(line, sizeof line, "%s", a->bn_evidence[row - 1]);
        surface_text(&a->scr, yy, r->x, limit, 0, line, class_of_bottleneck(line));
        draw_list_cursor(a, PANE_BOTTLENECK, row, yy);
    }
}

static int proposal_class(const char *state)
{
    return strcmp(state, "rejected") == 0  ? TC_PROPOSAL_REJECTED
           : strcmp(state, "pending") == 0 ? TC_PROPOSAL_PENDING
                                           : TC_PROPOSAL_ACCEPTED;
}

static void draw_proposals(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_PROPOSALS];
    char extra[64];
    int pending = 0;
    for (int i = 0; i < a->nprops; i++)
        pending += strcmp(a->props[i].state, "pending") == 0;
    snprintf(extra, sizeof extra, "(%d pending of %d)", pending, a->nprops);
    draw_title(a, PANE_PROPOSALS, extra);
    int h = pane_height(a, PANE_PROPOSALS), limit = r->x + r->w;
    int detail = h >= 5 && a->nprops > 0 ? 2 : 0;
    int hl = h - detail;
    pane_state *ps = &a->ps[PANE_PROPOSALS];
    if (ps->sel < ps->top)
        ps->top = ps->sel;
    if (ps->sel >= ps->top + hl)
        ps->top = ps->sel - hl + 1;
    for (int i = 0; i < hl && ps->top + i < a->nprops; i++) {
        const proposal *p = &a->props[ps->top + i];
        int yy = r->y + 1 + i;
        char line[600];
        snprintf(line, sizeof line, "%-8.8s %s  %s", p->state, p->id, p->predicted[0] ? p->predicted : p->reason);
        surface_text(&a->scr, yy, r->x, limit, 0, line, proposal_class(p->state));
        draw_list_cursor(a, PANE_PROPOSALS, ps->top + i, yy);
    }
    if (detail && ps->sel < a->nprops) {
        const proposal *p = &a->props[ps->sel];
        char line[1200];
        snprintf(line, sizeof line, "%s%s%s", p->source[0] ? p->source : "", p->source[0] ? ": " : "",
                 p->rationale[0] ? p->rationale : p->title);
        int yy = r->y + h - 1, w = r->w;
        surface_text(&a->scr, yy, r->x, limit, 0, line, TC_NORMAL);
        if (tui_text_width(line) > w) /* the second line continues the first */
            surface_text(&a->scr, yy + 1, r->x, limit, w - 1, line, TC_NORMAL);
        else
            surface_text(&a->scr, yy + 1, r->x, limit, 0, p->reason, TC_NORMAL);
    }
}

static void draw_diff(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_DIFF];
    int sbs = pane_diff_side_by_side(a);
    char extra[300];
    snprintf(extra, sizeof extra, "%s %s%s", a->eng.cand_name[0] ? a->eng.cand_name : "(no candidate)",
             sbs ? "side by side" : "unified", a->ps[PANE_DIFF].hscroll ? " >>" : "");
    draw_title(a, PANE_DIFF, extra);
    int top = scroll_top(a, PANE_DIFF), h = pane_height(a, PANE_DIFF);
    diff_draw(&a->diff, &a->scr, r->y + 1, r->x, h, r->w, top, a->ps[PANE_DIFF].hscroll, sbs);
    if (a->focus == PANE_DIFF && a->ps[PANE_DIFF].sel - top < h && pane_rows(a, PANE_DIFF) > 0)
        surface_fill(&a->scr, r->y + 1 + a->ps[PANE_DIFF].sel - top, r->x + r->w - 1, 1, '<', TC_CURSOR);
}

static void draw_log(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_LOG];
    char extra[160] = "";
    if (a->eng.step == ROUND_JUDGING && a->progress_total > 0) { /* the sweep's progress bar */
        int w = 20, fill = a->progress_done * w / a->progress_total;
        char bar[64];
        for (int i = 0; i < w; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[w] = '\0';
        snprintf(extra, sizeof extra, "sweep [%s] %d/%d (Esc cancels)", bar, a->progress_done, a->progress_total);
    } else if (job_count(a->jobs, JOB_MAX)) {
        snprintf(extra, sizeof extra, "(work in flight: Esc cancels)");
    }
    draw_title(a, PANE_LOG, extra);
    int top = scroll_top(a, PANE_LOG), h = pane_height(a, PANE_LOG);
    for (int i = 0; i < h && top + i < a->nlog; i++) {
        surface_text(&a->scr, r->y + 1 + i, r->x, r->x + r->w, a->ps[PANE_LOG].hscroll, a->log[top + i].text,
                     a->log[top + i].cls);
        draw_list_cursor(a, PANE_LOG, top + i, r->y + 1 + i);
    }
}

static void draw_history(tui_app *a)
{
    const layout_rect *r = &a->lay.pane[PANE_HISTORY];
    draw_title(a, PANE_HISTORY, "speedup of the best over round 1");
    int top = scroll_top(a, PANE_HISTORY), h = pane_height(a, PANE_HISTORY);
    double first = a->nhist > 0 ? a->hist[0].best_ms : 0, maxs = 1;
    for (int i = 0; i < a->nhist; i++)
        if (a->hist[i].best_ms > 0 && first / a->hist[i].best_ms > maxs)
            maxs = first / a->hist[i].best_ms;
    int barw = r->w - 22;
    for (int i = 0; i < h && top + i < a->nhist; i++) {
        const history_point *p = &a->hist[top + i];
        double s = p->best_ms > 0 ? first / p->best_ms : 0;
        int yy = r->y + 1 + i, x = r->x, n = barw > 0 ? (int)lround(barw * s / maxs) : 0;
        char lab[64], ms[32];
        snprintf(lab, sizeof lab, "r%-3d %5.2fx ", p->round, s);
        x = surface_text(&a->scr, yy, x, r->x + r->w, 0, lab, TC_NORMAL);
        int best = s >= maxs - 1e-9;
        surface_fill(&a->scr, yy, x, n, a->scr.g.bar_full, best ? TC_CHART_BEST : TC_CHART_LINE);
        surface_text(&a->scr, yy, x + n + 1, r->x + r->w, 0, fmt_ms(p->best_ms, ms, sizeof ms), TC_NORMAL);
        draw_list_cursor(a, PANE_HISTORY, top + i, yy);
    }
}

static void draw_bars(tui_app *a)
{
    const layout *l = &a->lay;
    surface *s = &a->scr;
    char line[900], ms[32];
    char step[64];
    snprintf(step, sizeof step, "%s%s", step_names[a->eng.step],
             a->eng.step != ROUND_VERDICT ? ""
             : a->eng.verdict_promote     ? ": promote advised"
                                          : ": reject advised");
    snprintf(line, sizeof line, " kwb %s | round %d: %s | best %s %s ms | %s%s%s",
             a->opt.session ? a->opt.session : "-", a->eng.number, step, a->best_name[0] ? a->best_name : "-",
             fmt_ms(a->best_ms, ms, sizeof ms), a->definition, a->sweep[0] ? " | " : "", a->sweep);
    surface_fill(s, l->title_row, 0, l->cols, ' ', TC_STATUS_LINE);
    surface_text(s, l->title_row, 0, l->cols, 0, line, TC_STATUS_LINE);
    static const char *const prompts[] = {"", ":", "/", "reason: ", "work in flight; quit anyway? (y/n) "};
    if (a->prompt != PROMPT_NONE) {
        snprintf(line, sizeof line, "%s%s", prompts[a->prompt], a->input);
        surface_text(s, l->status_row, 0, l->cols, 0, line, TC_NORMAL);
    } else {
        surface_text(s, l->status_row, 0, l->cols, 0, a->status, a->status_cls);
    }
    static const int bar_reqs[] = {REQ_HELP,      REQ_ACCEPT, REQ_REJECT, REQ_EDIT,   REQ_UNDO,
                                   REQ_NEXT_PANE, REQ_SEARCH, REQ_PROMPT, REQ_CANCEL, REQ_QUIT};
    static const char *const bar_names[] = {"help", "accept", "reject", "edit",   "undo",
                                            "pane", "find",   "cmd",    "cancel", "quit"};
    int x = 0;
    surface_fill(s, l->keybar_row, 0, l->cols, ' ', TC_KEYBAR);
    for (size_t i = 0; i < sizeof bar_reqs / sizeof bar_reqs[0]; i++) {
        char keys[64], item[96];
        keymap_keys_of(&a->cfg.keys, bar_reqs[i], keys, sizeof keys);
        char *sp = strchr(keys, ' ');
        if (sp)
            *sp = '\0';
        snprintf(item, sizeof item, "%s %s  ", keys, bar_names[i]);
        x = surface_text_clip(s, l->keybar_row, x, l->cols, item, TC_KEYBAR);
    }
}

/* The help: every request with its keys and every ':' command, grouped, scrolled within itself. */
static void draw_help(tui_app *a)
{
    surface *s = &a->scr;
    char **lines;
    int n = a->detail ? help_wrap(a->detail, s->cols - 2, &lines) : help_build(&a->cfg.keys, &lines),
        rows = s->rows - 2 > 1 ? s->rows - 2 : 1;
    if (a->help_top > n - rows)
        a->help_top = n - rows > 0 ? n - rows : 0;
    surface_clear(s);
    surface_fill(s, 0, 0, s->cols, ' ', TC_TITLE_FOCUS);
    surface_text(s, 0, 0, s->cols, 0, a->detail ? " kwb: in full" : " kwb " PACKAGE_VERSION " help", TC_TITLE_FOCUS);
    for (int y = 0; y < rows && a->help_top + y < n; y++) {
        const char *line = lines[a->help_top + y];
        int head = !a->detail && (strncmp(line, "-- ", 3) == 0 || a->help_top + y == 0);
        surface_text(s, 1 + y, 0, s->cols, 0, line, head ? TC_TABLE_HEADER : TC_NORMAL);
        if (!a->detail && !head && line[0] == ' ' && line[1] != ':')
            surface_paint(s, 1 + y, 1, 16, TC_TABLE_HEADER);
    }
    char foot[160];
    snprintf(foot, sizeof foot, " lines %d-%d of %d: j/k, PgDn/PgUp, g/G scroll; q or Esc closes", a->help_top + 1,
             a->help_top + rows < n ? a->help_top + rows : n, n);
    surface_fill(s, s->rows - 1, 0, s->cols, ' ', TC_KEYBAR);
    surface_text(s, s->rows - 1, 0, s->cols, 0, foot, TC_KEYBAR);
    help_free(lines, n);
}

void panes_draw(tui_app *a)
{
    surface *s = &a->scr;
    surface_clear(s);
    a->lay = layout_compute(s->rows, s->cols, a->bottom, a->focus == PANE_DIFF);
    if (a->lay.too_small) {
        char line[128];
        snprintf(line, sizeof line, "terminal too small: %dx%d needed, %dx%d here", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS,
                 s->cols, s->rows);
        surface_text(s, 0, 0, s->cols, 0, line, TC_ERROR);
        return;
    }
    if (a->help_open) {
        draw_help(a);
        return;
    }
    void (*draw[PANE_COUNT])(tui_app *) = {NULL,      draw_workloads, draw_bottleneck, draw_proposals,
                                           draw_diff, draw_log,       draw_history};
    for (int p = 1; p < PANE_COUNT; p++)
        if (a->lay.pane[p].visible)
            draw[p](a);
    if (a->lay.sep_x >= 0)
        for (int y = a->lay.sep_y0; y <= a->lay.sep_y1; y++)
            surface_fill(s, y, a->lay.sep_x, 1, s->g.vline, TC_BORDER);
    draw_bars(a);
}

/* view.c - the generic view code (see view.h). */
#define _GNU_SOURCE
#include "tui/view.h"

#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/help.h"
#include "xalloc.h"

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

void view_init(tui_app *a, int pane, const view_ops *ops)
{
    a->view[pane] = (tui_view){ops, pane, 0, 0, 0, 1, 0};
}

void view_done_all(tui_app *a)
{
    for (int p = 1; p < PANE_COUNT; p++)
        if (a->view[p].ops && a->view[p].ops->done)
            a->view[p].ops->done(a, &a->view[p]);
}

void view_open_all(tui_app *a)
{
    for (int p = 1; p < PANE_COUNT; p++)
        if (a->view[p].ops && a->view[p].ops->open)
            a->view[p].ops->open(a, &a->view[p]);
    view_mark_all(a, 0);
}

void view_mark(tui_app *a, int pane)
{
    if (pane > 0 && pane < PANE_COUNT)
        a->view[pane].dirty = 1;
}

void view_mark_all(tui_app *a, int clear)
{
    for (int p = 1; p < PANE_COUNT; p++)
        a->view[p].dirty = 1;
    a->bars_dirty = 1;
    if (clear)
        a->full_redraw = 1;
}

void view_mark_bars(tui_app *a)
{
    a->bars_dirty = 1;
}

int view_pending(const tui_app *a)
{
    int any = a->bars_dirty || a->full_redraw;
    for (int p = 1; p < PANE_COUNT && !any; p++)
        any = a->view[p].dirty;
    return any;
}

int view_rows(const tui_app *a, int pane)
{
    const tui_view *v = &a->view[pane];
    return v->ops && v->ops->rows ? v->ops->rows(a, v) : 0;
}

int view_height(const tui_app *a, int pane)
{
    const layout_rect *r = &a->lay.pane[pane];
    int h = r->visible ? r->h - 1 : 0, header = a->view[pane].ops ? a->view[pane].ops->header : 0;
    return h > header ? h - header : 0;
}

int view_scroll_top(tui_app *a, tui_view *v)
{
    int h = view_height(a, v->pane);
    if (h <= 0)
        return 0;
    if (v->sel < v->top)
        v->top = v->sel;
    if (v->sel >= v->top + h)
        v->top = v->sel - h + 1;
    int n = view_rows(a, v->pane);
    if (v->top + h > n) /* no blank rows below the end while earlier rows exist */
        v->top = n - h;
    if (v->top < 0)
        v->top = 0;
    return v->top;
}

void view_move(tui_app *a, int pane, int delta, int absolute)
{
    tui_view *v = &a->view[pane];
    int n = view_rows(a, pane), to = absolute ? delta : v->sel + delta;
    to = to >= n ? n - 1 : to;
    to = to < 0 ? 0 : to;
    if (to != v->sel && v->ops && v->ops->select) {
        v->sel = to;
        v->ops->select(a, v);
    }
    v->sel = to;
    view_mark(a, pane);
}

void view_focus(tui_app *a, int pane)
{
    if (pane < 1 || pane >= PANE_COUNT)
        return;
    view_mark(a, a->focus); /* its title and cursor change */
    a->focus = pane;
    if (pane == PANE_DIFF || pane == PANE_LOG || pane == PANE_HISTORY)
        a->bottom = pane;
    view_mark(a, pane); /* the layout may change too: the frame marks every view then */
}

static int can_focus(const tui_app *a, int p)
{
    return a->lay.too_small || a->lay.pane[p].visible || p == PANE_DIFF || p == PANE_LOG || p == PANE_HISTORY;
}

static void cycle_focus(tui_app *a, int dir)
{
    int p = a->focus;
    do
        p = (p - 1 + dir + PANE_COUNT - 1) % (PANE_COUNT - 1) + 1;
    while (!can_focus(a, p) && p != a->focus);
    view_focus(a, p);
}

/* h/l: the view whose rectangle lies nearest to the left or right of the focused one. */
static void side_focus(tui_app *a, int dir)
{
    const layout_rect *f = &a->lay.pane[a->focus];
    int best = 0, bestd = 1 << 30;
    for (int p = 1; p < PANE_COUNT; p++) {
        const layout_rect *r = &a->lay.pane[p];
        if (p == a->focus || !r->visible)
            continue;
        int dx = dir > 0 ? r->x - (f->x + f->w) : f->x - (r->x + r->w);
        int overlap = r->y < f->y + f->h && f->y < r->y + r->h;
        if (dx >= 0 && overlap && dx < bestd)
            best = p, bestd = dx;
    }
    if (best)
        view_focus(a, best);
    else
        cycle_focus(a, dir);
}

void view_hscroll(tui_app *a, int pane, int step)
{
    tui_view *v = &a->view[pane];
    v->hscroll = v->hscroll + step > 0 ? v->hscroll + step : 0;
    view_mark(a, pane);
}

void view_search(tui_app *a, int dir)
{
    if (!a->search[0])
        return;
    int ec;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)a->search, PCRE2_ZERO_TERMINATED, PCRE2_CASELESS, &ec, &off, NULL);
    if (!re) {
        app_status(a, TC_ERROR, "search /%s/: not a regular expression", a->search);
        return;
    }
    tui_view *v = &a->view[a->focus];
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int n = view_rows(a, a->focus), found = -1;
    for (int k = 1; k <= n && found < 0 && v->ops->row_text; k++) {
        int row = ((v->sel + dir * k) % n + n) % n;
        char buf[1024];
        v->ops->row_text(a, v, row, buf, sizeof buf);
        if (pcre2_match(re, (PCRE2_SPTR)buf, PCRE2_ZERO_TERMINATED, 0, 0, md, NULL) >= 0)
            found = row;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    if (found >= 0)
        view_move(a, a->focus, found, 1);
    else
        app_status(a, TC_WARNING, "/%s: no match in %s", a->search, layout_pane_names[a->focus]);
}

void view_help(tui_app *a)
{
    free(a->detail);
    a->detail = NULL;
    a->help_open = 1, a->help_top = 0;
    view_mark_all(a, 1);
}

void view_close_overlay(tui_app *a)
{
    a->help_open = 0;
    free(a->detail);
    a->detail = NULL;
    view_mark_all(a, 1);
}

/* Enter: the focused view's selected row in full, with the judge's verdict while one is in front. */
static void open_detail(tui_app *a)
{
    tui_view *v = &a->view[a->focus];
    char *text = v->ops->detail && v->sel < view_rows(a, a->focus) ? v->ops->detail(a, v, v->sel) : NULL;
    if (a->eng.step == ROUND_VERDICT && a->focus != PANE_LOG && a->focus != PANE_PROPOSALS) {
        char *t = xasprintf("%s%sthe judge's verdict on %s: %s at the %s:\n%s", text ? text : "", text ? "\n\n" : "",
                            a->eng.cand_name, a->eng.verdict_promote ? "promote" : "reject", a->eng.verdict_stage,
                            a->eng.verdict_reason);
        free(text);
        text = t;
    }
    if (!text) {
        app_status(a, TC_WARNING, "nothing selected to open");
        return;
    }
    free(a->detail);
    a->detail = text;
    a->help_open = 1, a->help_top = 0;
    view_mark_all(a, 1);
}

/* The help or detail overlay takes the scrolling requests; another request closes it first. */
static int overlay_request(tui_app *a, int req)
{
    int page = a->scr.rows - 3;
    switch (req) {
    case REQ_DOWN: a->help_top++; break;
    case REQ_UP: a->help_top -= a->help_top > 0; break;
    case REQ_PAGE_DOWN: a->help_top += page; break;
    case REQ_PAGE_UP: a->help_top = a->help_top > page ? a->help_top - page : 0; break;
    case REQ_FIRST: a->help_top = 0; break;
    case REQ_LAST: a->help_top = 1 << 20; break; /* the end is clamped when drawn */
    case REQ_QUIT:
    case REQ_CANCEL: view_close_overlay(a); return 1;
    case REQ_QUIT_NOW:
    case REQ_REDRAW: return 0;
    default: view_close_overlay(a); return view_request(a, req);
    }
    view_mark_bars(a);
    return 1;
}

int view_request(tui_app *a, int req)
{
    if (a->help_open)
        return overlay_request(a, req);
    tui_view *v = &a->view[a->focus];
    if (v->ops && v->ops->request && v->ops->request(a, v, req))
        return 1;
    int page = view_height(a, a->focus) > 1 ? view_height(a, a->focus) - 1 : 1;
    int half = a->lay.pane[a->focus].w / 2 > 0 ? a->lay.pane[a->focus].w / 2 : 1;
    switch (req) {
    case REQ_DOWN: view_move(a, a->focus, 1, 0); break;
    case REQ_UP: view_move(a, a->focus, -1, 0); break;
    case REQ_PAGE_DOWN: view_move(a, a->focus, page, 0); break;
    case REQ_PAGE_UP: view_move(a, a->focus, -page, 0); break;
    case REQ_FIRST: view_move(a, a->focus, 0, 1); break;
    case REQ_LAST: view_move(a, a->focus, view_rows(a, a->focus) - 1, 1); break;
    case REQ_SCROLL_LEFT: view_hscroll(a, a->focus, -half); break;
    case REQ_SCROLL_RIGHT: view_hscroll(a, a->focus, half); break;
    case REQ_NEXT_PANE: cycle_focus(a, 1); break;
    case REQ_PREV_PANE: cycle_focus(a, -1); break;
    case REQ_PANE_LEFT: side_focus(a, -1); break;
    case REQ_PANE_RIGHT: side_focus(a, 1); break;
    case REQ_SEARCH_NEXT: view_search(a, 1); break;
    case REQ_SEARCH_PREV: view_search(a, -1); break;
    case REQ_ENTER: open_detail(a); break;
    case REQ_HELP: view_help(a); break;
    default: return 0;
    }
    return 1;
}

void view_draw_title(tui_app *a, tui_view *v, const char *extra)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    int cls = a->focus == v->pane ? TC_TITLE_FOCUS : TC_TITLE_BLUR;
    surface_fill(&a->scr, r->y, r->x, r->w, ' ', cls);
    char t[512];
    snprintf(t, sizeof t, " %d %s %s%s", v->pane, layout_pane_names[v->pane], extra ? extra : "",
             v->hscroll ? " >>" : "");
    surface_text(&a->scr, r->y, r->x, r->x + r->w, 0, t, cls);
}

void view_draw_cursor(tui_app *a, tui_view *v, int row, int y)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    if (v->sel == row && a->focus == v->pane)
        surface_paint(&a->scr, y, r->x, r->w, TC_CURSOR);
}

/* ---- the log pane's lines and the status line ---------------------------------------- */

#define LOG_KEEP 4000

void app_log(tui_app *a, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *text = NULL;
    if (vasprintf(&text, fmt, ap) < 0)
        text = xstrdup("?");
    va_end(ap);
    log_view *l = &a->lg;
    tui_view *v = &a->view[PANE_LOG];
    if (l->n == LOG_KEEP) {
        free(l->lines[0].text);
        memmove(l->lines, l->lines + 1, (LOG_KEEP - 1) * sizeof *l->lines);
        l->n--;
        v->sel -= v->sel > 0;
    }
    int follow = v->sel >= l->n - 1;
    l->lines = xrealloc(l->lines, (size_t)(l->n + 1) * sizeof *l->lines);
    l->lines[l->n++] = (log_line){text, cls};
    if (follow)
        v->sel = l->n - 1;
    view_mark(a, PANE_LOG);
}

void app_status(tui_app *a, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->status, sizeof a->status, fmt, ap);
    va_end(ap);
    a->status_cls = cls;
    view_mark_bars(a);
}

/* ---- the frame ------------------------------------------------------------------------ */

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
    snprintf(line, sizeof line, " kwb %s | round %d: %s | best %s %s ms%s | %s%s%s",
             a->opt.session ? a->opt.session : "-", a->eng.number, step, a->best_name[0] ? a->best_name : "-",
             fmt_ms(a->best_ms, ms, sizeof ms), a->best_partial, a->definition, a->sweep[0] ? " | " : "", a->sweep);
    surface_fill(s, l->title_row, 0, l->cols, ' ', TC_STATUS_LINE);
    surface_text(s, l->title_row, 0, l->cols, 0, line, TC_STATUS_LINE);
    static const char *const prompts[] = {"", ":", "/", "reason: ", "work in flight; quit anyway? (y/n) "};
    surface_fill(s, l->status_row, 0, l->cols, ' ', TC_NORMAL);
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

/* The help (every request with its keys and every ':' command, grouped) or the detail view (a
 * row in full), scrolled within itself over the whole screen. */
static void draw_overlay(tui_app *a)
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

static void clear_rect(surface *s, const layout_rect *r)
{
    for (int y = r->y; y < r->y + r->h; y++)
        surface_fill(s, y, r->x, r->w, ' ', TC_NORMAL);
}

void view_frame(tui_app *a)
{
    surface *s = &a->scr;
    const tui_view *wv = &a->view[PANE_WORKLOADS];
    int want = wv->ops && wv->ops->want_width ? wv->ops->want_width(a, wv) : 0;
    layout l = layout_compute(s->rows, s->cols, a->bottom, a->focus == PANE_DIFF, want);
    if (memcmp(&l, &a->lay, sizeof l) != 0 || a->full_redraw || a->help_open) { /* new places: all again */
        a->lay = l;
        surface_clear(s);
        view_mark_all(a, 0);
    }
    if (a->lay.too_small) {
        char line[128];
        snprintf(line, sizeof line, "terminal too small: %dx%d needed, %dx%d here", LAYOUT_MIN_COLS, LAYOUT_MIN_ROWS,
                 s->cols, s->rows);
        surface_text(s, 0, 0, s->cols, 0, line, TC_ERROR);
    } else if (a->help_open) {
        draw_overlay(a);
    } else {
        for (int p = 1; p < PANE_COUNT; p++)
            if (a->view[p].dirty && a->lay.pane[p].visible && a->view[p].ops) {
                clear_rect(s, &a->lay.pane[p]);
                a->view[p].ops->draw(a, &a->view[p]);
                a->view[p].draws++;
            }
        if (a->lay.sep_x >= 0)
            for (int y = a->lay.sep_y0; y <= a->lay.sep_y1; y++)
                surface_fill(s, y, a->lay.sep_x, 1, s->g.vline, TC_BORDER);
        if (a->bars_dirty)
            draw_bars(a);
    }
    for (int p = 1; p < PANE_COUNT; p++)
        a->view[p].dirty = 0;
    a->bars_dirty = 0;
}

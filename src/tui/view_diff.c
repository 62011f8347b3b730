/* view_diff.c - the candidate's diff, side by side or unified, both halves scrolled together (see
 * views.h; the document and its drawing are diffview.c's). */
#include "tui/views.h"

#include <stdio.h>
#include <stdlib.h>

#include "tui/view.h"
#include "xalloc.h"

int diff_side_by_side(const tui_app *a)
{
    if (a->df.mode == 1)
        return 1;
    if (a->df.mode == 2)
        return 0;
    return a->lay.pane[PANE_DIFF].w >= 121;
}

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    int sbs = diff_side_by_side(a);
    char extra[300];
    snprintf(extra, sizeof extra, "%s %s", a->eng.cand_name[0] ? a->eng.cand_name : "(no candidate)",
             sbs ? "side by side" : "unified");
    view_draw_title(a, v, extra);
    int top = view_scroll_top(a, v), h = view_height(a, v->pane);
    diff_draw(&a->df.doc, &a->scr, r->y + 1, r->x, h, r->w, top, v->hscroll, sbs);
    if (a->focus == v->pane && v->sel - top < h && diff_row_count(&a->df.doc, sbs) > 0)
        surface_fill(&a->scr, r->y + 1 + v->sel - top, r->x + r->w - 1, 1, '<', TC_CURSOR);
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return diff_row_count(&a->df.doc, diff_side_by_side(a));
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    snprintf(buf, cap, "%s", diff_row_text(&a->df.doc, diff_side_by_side(a), row));
    return buf;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    (void)v;
    return xstrdup(diff_row_text(&a->df.doc, diff_side_by_side(a), row));
}

/* Sideways by a quarter of the width side by side (each half scrolls), half of it unified; hunks;
 * the mode. */
static int request(tui_app *a, tui_view *v, int req)
{
    int sbs = diff_side_by_side(a), step = a->lay.pane[PANE_DIFF].w / (sbs ? 4 : 2);
    switch (req) {
    case REQ_SCROLL_LEFT:
    case REQ_SCROLL_RIGHT: view_hscroll(a, v->pane, req == REQ_SCROLL_RIGHT ? step : -step); return 1;
    case REQ_NEXT_HUNK:
    case REQ_PREV_HUNK: {
        int dir = req == REQ_NEXT_HUNK ? 1 : -1, r = diff_next_hunk(&a->df.doc, sbs, v->sel + dir, dir);
        if (r >= 0)
            v->sel = r, v->top = r;
        view_mark(a, v->pane);
        return 1;
    }
    default: return 0;
    }
}

static void done(tui_app *a, tui_view *v)
{
    (void)v;
    diff_free(&a->df.doc);
}

const view_ops view_diff_ops = {"diff", 0, NULL, draw, request, NULL, done, rows, row_text, detail, NULL};

/* view_history.c - the trajectory: the best's speedup over round 1, one bar per round, following
 * the newest round (see views.h). */
#include "tui/views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tui/view.h"
#include "xalloc.h"

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    const history_view *hv = &a->hi;
    view_draw_title(a, v, "speedup of the best over round 1");
    int top = view_scroll_top(a, v), h = view_height(a, v->pane);
    double first = hv->n > 0 ? hv->points[0].best_ms : 0, maxs = 1;
    for (int i = 0; i < hv->n; i++)
        if (hv->points[i].best_ms > 0 && first / hv->points[i].best_ms > maxs)
            maxs = first / hv->points[i].best_ms;
    int barw = r->w - 22;
    for (int i = 0; i < h && top + i < hv->n; i++) {
        const history_point *p = &hv->points[top + i];
        double s = p->best_ms > 0 ? first / p->best_ms : 0;
        int yy = r->y + 1 + i, x = r->x, n = barw > 0 ? (int)lround(barw * s / maxs) : 0;
        char lab[64], ms[32];
        snprintf(lab, sizeof lab, "r%-3d %5.2fx ", p->round, s);
        x = surface_text(&a->scr, yy, x, r->x + r->w, 0, lab, TC_NORMAL);
        int best = s >= maxs - 1e-9;
        surface_fill(&a->scr, yy, x, n, a->scr.g.bar_full, best ? TC_CHART_BEST : TC_CHART_LINE);
        surface_text(&a->scr, yy, x + n + 1, r->x + r->w, 0, fmt_ms(p->best_ms, ms, sizeof ms), TC_NORMAL);
        view_draw_cursor(a, v, top + i, yy);
    }
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return a->hi.n;
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    snprintf(buf, cap, "r%d %s", a->hi.points[row].round, a->hi.points[row].title);
    return buf;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    (void)v;
    const history_point *p = &a->hi.points[row];
    char ms[32];
    return xasprintf("round %d: the best %s ms\n%s", p->round, fmt_ms(p->best_ms, ms, sizeof ms), p->title);
}

static void done(tui_app *a, tui_view *v)
{
    (void)v;
    free(a->hi.points);
    a->hi.points = NULL;
    a->hi.n = 0;
}

const view_ops view_history_ops = {"history", 0, NULL, draw, NULL, NULL, done, rows, row_text, detail, NULL};

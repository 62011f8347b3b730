/* view_log.c - the log: what the round's steps, the jobs and the store's session log said, newest
 * last, scrolled both ways (see views.h; lines are added by app_log, view.c). */
#include "tui/views.h"

#include <stdio.h>
#include <stdlib.h>

#include "tui/view.h"
#include "xalloc.h"

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
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
    view_draw_title(a, v, extra);
    int top = view_scroll_top(a, v), h = view_height(a, v->pane);
    for (int i = 0; i < h && top + i < a->lg.n; i++) {
        const log_line *l = &a->lg.lines[top + i];
        surface_text(&a->scr, r->y + 1 + i, r->x, r->x + r->w, v->hscroll, l->text, l->cls);
        view_draw_cursor(a, v, top + i, r->y + 1 + i);
    }
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return a->lg.n;
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    snprintf(buf, cap, "%s", a->lg.lines[row].text);
    return buf;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    (void)v;
    return xstrdup(a->lg.lines[row].text);
}

static void done(tui_app *a, tui_view *v)
{
    (void)v;
    for (int i = 0; i < a->lg.n; i++)
        free(a->lg.lines[i].text);
    free(a->lg.lines);
    a->lg.lines = NULL;
    a->lg.n = 0;
}

const view_ops view_log_ops = {"log", 0, NULL, draw, NULL, NULL, done, rows, row_text, detail, NULL};

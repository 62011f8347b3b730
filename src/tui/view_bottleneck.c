/* view_bottleneck.c - the best's bottleneck class per regime of the size key (see views.h). */
#include "tui/views.h"

#include <stdio.h>
#include <string.h>

#include "tui/view.h"
#include "xalloc.h"

static int class_of(const char *s)
{
    return strstr(s, "memory")    ? TC_BOTTLENECK_MEMORY
           : strstr(s, "compute") ? TC_BOTTLENECK_COMPUTE
           : strstr(s, "launch")  ? TC_BOTTLENECK_LAUNCH
           : strstr(s, "latency") ? TC_BOTTLENECK_LATENCY
                                  : TC_NORMAL;
}

static const char *row_text(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap)
{
    (void)v;
    if (row == 0)
        snprintf(buf, cap, "class: %s", a->bn.cls[0] ? a->bn.cls : "(not proposed yet)");
    else
        snprintf(buf, cap, "%s", a->bn.evidence[row - 1]);
    return buf;
}

static void draw(tui_app *a, tui_view *v)
{
    const layout_rect *r = &a->lay.pane[v->pane];
    view_draw_title(a, v, a->bn.regime[0] ? a->bn.regime : "per regime of the size key");
    int h = view_height(a, v->pane), top = view_scroll_top(a, v);
    for (int i = 0; i < h && top + i < a->bn.n + 1; i++) {
        char line[300];
        row_text(a, v, top + i, line, sizeof line);
        surface_text(&a->scr, r->y + 1 + i, r->x, r->x + r->w, v->hscroll, line, class_of(line));
        view_draw_cursor(a, v, top + i, r->y + 1 + i);
    }
}

static int rows(const tui_app *a, const tui_view *v)
{
    (void)v;
    return a->bn.n + 1;
}

static char *detail(const tui_app *a, const tui_view *v, int row)
{
    char line[300];
    return xasprintf("%s%s%s", row_text(a, v, row, line, sizeof line), a->bn.regime[0] ? "\nregime: " : "",
                     a->bn.regime);
}

const view_ops view_bottleneck_ops = {"bottleneck", 0, NULL, draw, NULL, NULL, NULL, rows, row_text, detail, NULL};

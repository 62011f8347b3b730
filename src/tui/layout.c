/* layout.c - panes to rectangles (see layout.h). */
#include "tui/layout.h"

#include <string.h>

const char *const layout_pane_names[PANE_COUNT + 1] = {"generic", "workloads", "bottleneck", "proposals",
                                                       "diff",    "log",       "history",    NULL};

static layout_rect rect(int y, int x, int h, int w)
{
    return (layout_rect){y, x, h, w, h >= 2 && w >= 10};
}

/* The left column's width: what the table wants (WANT; 0: three fifths), between two fifths and
 * two thirds of the width, so that the extra width of a wide terminal goes to the right, where
 * the log and the proposals have long lines. */
static int left_width(int cols, int want)
{
    int lo = cols * 2 / 5, hi = want <= 0 ? cols * 3 / 5 : cols * 2 / 3;
    return want <= 0 ? hi : want < lo ? lo : want > hi ? hi : want;
}

/* Wide: workloads over diff on the left; bottleneck, proposals, history and log on the right. */
static void wide(layout *l, int top, int h, int want)
{
    int left = left_width(l->cols, want), right = l->cols - left - 1;
    int wl = h * 2 / 5;
    l->pane[PANE_WORKLOADS] = rect(top, 0, wl, left);
    l->pane[PANE_DIFF] = rect(top + wl, 0, h - wl, left);
    int bn = 7, hist = 9, props = (h - bn - hist) / 2;
    l->pane[PANE_BOTTLENECK] = rect(top, left + 1, bn, right);
    l->pane[PANE_PROPOSALS] = rect(top + bn, left + 1, props, right);
    l->pane[PANE_HISTORY] = rect(top + bn + props, left + 1, hist, right);
    l->pane[PANE_LOG] = rect(top + bn + props + hist, left + 1, h - bn - props - hist, right);
    l->sep_x = left;
    l->sep_y0 = top;
    l->sep_y1 = top + h - 1;
}

/* Wide with the diff focused: the table and the proposals above, the diff across the whole width. */
static void wide_diff(layout *l, int top, int h, int want)
{
    int left = left_width(l->cols, want), right = l->cols - left - 1, up = h * 2 / 5, bn = 5;
    l->pane[PANE_WORKLOADS] = rect(top, 0, up, left);
    l->pane[PANE_BOTTLENECK] = rect(top, left + 1, bn, right);
    l->pane[PANE_PROPOSALS] = rect(top + bn, left + 1, up - bn, right);
    l->pane[PANE_DIFF] = rect(top + up, 0, h - up, l->cols);
    l->sep_x = left;
    l->sep_y0 = top;
    l->sep_y1 = top + up - 1;
}

/* Narrow: workloads; proposals beside bottleneck; one shared slot for diff, log or history. */
static void narrow(layout *l, int top, int h, int bottom)
{
    int wl = h * 2 / 5, mid = 7, half = l->cols / 2;
    l->pane[PANE_WORKLOADS] = rect(top, 0, wl, l->cols);
    l->pane[PANE_PROPOSALS] = rect(top + wl, 0, mid, half);
    l->pane[PANE_BOTTLENECK] = rect(top + wl, half + 1, mid, l->cols - half - 1);
    if (bottom != PANE_DIFF && bottom != PANE_LOG && bottom != PANE_HISTORY)
        bottom = PANE_LOG;
    l->pane[bottom] = rect(top + wl + mid, 0, h - wl - mid, l->cols);
    l->sep_x = half;
    l->sep_y0 = top + wl;
    l->sep_y1 = top + wl + mid - 1;
}

layout layout_compute(int rows, int cols, int bottom, int diff_zoom, int want_left)
{
    layout l;
    memset(&l, 0, sizeof l);
    l.rows = rows;
    l.cols = cols;
    l.sep_x = -1;
    if (rows < LAYOUT_MIN_ROWS || cols < LAYOUT_MIN_COLS) {
        l.too_small = 1;
        return l;
    }
    l.title_row = 0;
    l.status_row = rows - 2;
    l.keybar_row = rows - 1;
    l.wide = cols >= 120 && rows >= 32;
    if (l.wide && diff_zoom)
        wide_diff(&l, 1, rows - 3, want_left);
    else if (l.wide)
        wide(&l, 1, rows - 3, want_left);
    else
        narrow(&l, 1, rows - 3, bottom);
    return l;
}

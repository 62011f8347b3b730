/* columns.c - column widths and the scrolling line writer (see columns.h). */
#include "tui/columns.h"

#include "tui/theme_classes.h"

int columns_fit(const int *want, const int *min, int n, int gap, int avail, int *out)
{
    int total = n > 0 ? gap * (n - 1) : 0;
    for (int i = 0; i < n; i++)
        out[i] = want[i] > min[i] ? want[i] : min[i], total += out[i];
    while (total > avail) { /* the widest column above its minimum gives one column */
        int widest = -1;
        for (int i = 0; i < n; i++)
            if (out[i] > min[i] && (widest < 0 || out[i] > out[widest]))
                widest = i;
        if (widest < 0)
            break;
        out[widest]--, total--;
    }
    return total;
}

column_line column_line_start(surface *s, int y, int x, int limit, int skip)
{
    return (column_line){s, y, x, limit, skip > 0 ? skip : 0, 0, TC_NORMAL};
}

/* Writes TEXT (already fitted to its cell) at virtual column l->col. */
static void put_at(column_line *l, const char *text, int cls)
{
    int w = tui_text_width(text), start = l->col - l->skip;
    if (start >= 0)
        surface_text(l->s, l->y, l->x + start, l->limit, 0, text, cls);
    else if (start + w > 0)
        surface_text(l->s, l->y, l->x, l->limit, -start, text, cls);
    l->col += w;
}

void column_put(column_line *l, const char *text, int w, int right, int cls, int gap)
{
    int tw = tui_text_width(text);
    if (w <= 0) {
        put_at(l, text, cls);
    } else if (tw > w) { /* cut: drawn into a cell of its own, whose last column is the glyph */
        surface cell = {0, 0, NULL, l->s->g};
        surface_resize(&cell, 1, w);
        surface_text(&cell, 0, 0, w, 0, text, cls);
        for (int i = 0; i < w; i++, l->col++) {
            int sx = l->x + l->col - l->skip;
            if (sx >= l->x && sx < l->limit && cell.cells[i].ch)
                surface_fill(l->s, l->y, sx, 1, cell.cells[i].ch, cls);
        }
        surface_free(&cell);
    } else {
        column_fill(l, right ? w - tw : 0, ' ', l->fill_cls);
        put_at(l, text, cls);
        column_fill(l, right ? 0 : w - tw, ' ', l->fill_cls);
    }
    column_fill(l, gap, ' ', l->fill_cls);
}

void column_fill(column_line *l, int w, uint32_t ch, int cls)
{
    for (int i = 0; i < w; i++, l->col++) {
        int sx = l->x + l->col - l->skip;
        if (sx >= l->x && sx < l->limit)
            surface_fill(l->s, l->y, sx, 1, ch, cls);
    }
}

/* columns.h - table columns sized to their content, and rows written through a line writer that
 * scrolls sideways: pure code on the surface (surface.h), so a test renders a table into text with
 * no terminal. */
#ifndef KWB_TUI_COLUMNS_H
#define KWB_TUI_COLUMNS_H

#include <stdint.h>

#include "tui/surface.h"

/* Widths for N columns that want WANT[i] columns and need at least MIN[i], separated by GAP
 * blanks, in AVAIL columns: every column gets what it wants when that fits; otherwise the widest
 * columns give way first (never below their minimum), so a short column is never cut for a long
 * one. Writes OUT[i]; returns the total width used (more than AVAIL only when the minimums do not fit). */
int columns_fit(const int *want, const int *min, int n, int gap, int avail, int *out);

/* One row being written from left to right at virtual columns 0, 1, ...; the first SKIP virtual
 * columns are scrolled off to the left, and the row stops before screen column LIMIT (a text cut
 * there ends with the truncation glyph). */
typedef struct column_line {
    surface *s;
    int y, x, limit, skip;
    int col;      /* the next virtual column */
    int fill_cls; /* the class of padding and gaps (TC_NORMAL unless set) */
} column_line;

/* Starts a row at screen row Y, columns X .. LIMIT-1, scrolled by SKIP columns. */
column_line column_line_start(surface *s, int y, int x, int limit, int skip);
/* Writes TEXT in class CLS in a cell of width W (W 0: the text's own width; a longer text is cut
 * with the truncation glyph; RIGHT aligns it to the right), then GAP blanks. */
void column_put(column_line *l, const char *text, int w, int right, int cls, int gap);
/* Writes W copies of CH in class CLS. */
void column_fill(column_line *l, int w, uint32_t ch, int cls);

#endif

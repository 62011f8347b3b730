/* panes.h - drawing the screen into the app's surface: the title bar, the six panes, the status
 * line, the key bar, the help overlay and the "terminal too small" notice; plus each pane's row
 * count and row text, which the generic movement and search code use. */
#ifndef KWB_TUI_PANES_H
#define KWB_TUI_PANES_H

#include "tui/app.h"

/* Content rows of PANE (for movement and scrolling). */
int pane_rows(const tui_app *a, int pane);
/* The text of ROW of PANE, for search, into BUF. */
const char *pane_row_text(const tui_app *a, int pane, int row, char *buf, size_t cap);
/* Content height of PANE in the current layout (0 when hidden). */
int pane_height(const tui_app *a, int pane);
/* 1 when the diff is shown side by side at the current size and mode. */
int pane_diff_side_by_side(const tui_app *a);
/* Draws the whole screen into a->scr. */
void panes_draw(tui_app *a);
/* Formats a latency in ms ("0.0123", "12.35", "-" for none) into BUF. */
const char *fmt_ms(double ms, char *buf, size_t cap);

#endif

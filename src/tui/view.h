/* view.h - the generic view code: every pane is a view (workbench.h's tui_view with its table of
 * operations); movement, scrolling both ways, search, focus and the detail view (Enter: the
 * selected row in full) work on any view through those operations. Repaint is by marking: what
 * changes marks the views it touches (view_mark), and one frame (view_frame) draws the marked
 * views, and only those, into the surface. The log pane's lines and the status line are added
 * here, so every module may add to them without reaching into another. */
#ifndef KWB_TUI_VIEW_H
#define KWB_TUI_VIEW_H

#include "tui/workbench.h"

/* Sets pane PANE's operations (OPS lives as long as A). */
void view_init(tui_app *a, int pane, const view_ops *ops);
/* Calls every view's done operation. */
void view_done_all(tui_app *a);
/* The model was read again: every view's open operation, and every view marked. */
void view_open_all(tui_app *a);

/* Marks view PANE to be drawn again at the next frame. */
void view_mark(tui_app *a, int pane);
/* Marks every view, the bars and (CLEAR) a cleared screen: a resize, Ctrl-L, an overlay closed. */
void view_mark_all(tui_app *a, int clear);
/* Marks the title, status and key bars. */
void view_mark_bars(tui_app *a);
/* 1 when a frame is due (something is marked). */
int view_pending(const tui_app *a);
/* Draws the marked views and the bars (or the help/detail overlay) into a->scr, then clears the marks. */
void view_frame(tui_app *a);

/* Content rows of PANE, and its height in the current layout (0 when hidden), header rows left out. */
int view_rows(const tui_app *a, int pane);
int view_height(const tui_app *a, int pane);
/* The first row drawn so that V's selection is on screen (adjusts v->top). */
int view_scroll_top(tui_app *a, tui_view *v);
/* Moves PANE's selection by DELTA rows, or (ABSOLUTE) to row DELTA, clamped. */
void view_move(tui_app *a, int pane, int delta, int absolute);
/* Focuses PANE (narrow layouts show a bottom pane in the shared slot). */
void view_focus(tui_app *a, int pane);
/* Scrolls PANE sideways by STEP columns (negative: left), never before column 0. */
void view_hscroll(tui_app *a, int pane, int step);
/* Moves the focused view's selection to the next (DIR 1) or previous (-1) row matching a->search. */
void view_search(tui_app *a, int dir);
/* Offers REQ to the focused view, then handles the generic requests (movement, scrolling, focus,
 * search steps, Enter's detail view, help). 1 when handled. */
int view_request(tui_app *a, int req);
/* Opens the help overlay, or closes the help or detail overlay. */
void view_help(tui_app *a);
void view_close_overlay(tui_app *a);

/* For the views' draw operations: the title row (focused or not) with EXTRA after the name, and
 * the cursor on ROW drawn at screen row Y when V has the focus. */
void view_draw_title(tui_app *a, tui_view *v, const char *extra);
void view_draw_cursor(tui_app *a, tui_view *v, int row, int y);

/* Appends a line to the log pane (keeps the newest few thousand; the selection follows the newest
 * line when it was there). */
void app_log(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the status line. */
void app_status(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Formats a latency in ms ("0.0123", "12.35", "-" for none) into BUF. */
const char *fmt_ms(double ms, char *buf, size_t cap);

#endif

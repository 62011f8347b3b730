/* input.h - keys into requests: the generic view code (movement, scrolling, search, focus), the
 * text field at the bottom, and the :commands shared by the prompt and script mode. */
#ifndef KWB_TUI_INPUT_H
#define KWB_TUI_INPUT_H

#include "tui/workbench.h"

/* Handles one key KEY (a curses or request.h key code). */
void input_key(tui_app *a, int key);
/* Applies request REQ to the focused pane or the app. */
void input_request(tui_app *a, int req);
/* Runs command LINE (without the ':'): a request name, set/bind/color/source, dump-screen FILE,
 * dump-attrs FILE, dump-model FILE, resize WxH, select PANE [ROW], filter RE, search RE, sort COL,
 * reject REASON, time-keys N KEY, quit. Errors go to the status line (and *failed is set). */
void input_command(tui_app *a, const char *line, int *failed);
/* Called when the screen size changes (set by the front end). */
extern void (*input_on_resize)(tui_app *a, int rows, int cols);
/* Draws a frame: the panes into the surface and, with a terminal, the changed rows to it. */
void input_frame(tui_app *a);

#endif

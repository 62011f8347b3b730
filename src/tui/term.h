/* term.h - the curses front end: starts and restores the terminal (on every exit path: atexit and
 * the fatal-signal handlers), keeps library stderr in a file while curses is up and shows it after
 * exit, maps semantic classes to colour pairs and attributes, copies the changed rows of the
 * surface to the screen with one doupdate() per frame, and reads keys. Script mode may use the same
 * code against a terminal on /dev/null (term_init_virtual). */
#ifndef KWB_TUI_TERM_H
#define KWB_TUI_TERM_H

#include "tui/workbench.h"

/* Starts curses on the terminal: picks the theme and glyphs, sizes a->scr. 0, or -1 with *err. */
int term_init(tui_app *a, kwb_error *err);
/* Starts curses on /dev/null at ROWS x COLS (script mode's timing); 0, or -1 when curses refuses. */
int term_init_virtual(tui_app *a, int rows, int cols);
/* Applies a->cfg's looks again (glyphs; with curses up: mouse, theme, colour overrides), after :set. */
void term_apply_config(tui_app *a);
/* 1 while curses is up. */
int term_active(void);
/* Ends curses and puts the terminal back; shows what libraries wrote to stderr. Safe to call twice. */
void term_restore(void);
/* Hands the terminal to a child (before $EDITOR) and takes it back. */
void term_suspend(void);
void term_resume(void);
/* Copies the rows of a->scr that changed since the last frame to curses and updates the screen. */
void term_flush(tui_app *a);
/* Reads one key without waiting: the key code, or -1 when none is ready. */
int term_read_key(void);
/* Applies a size change (KEY_RESIZE or after SIGCONT): re-reads the size, resizes a->scr. */
void term_resize(tui_app *a);
/* 1 (and clears it) when SIGCONT came since the last call; 1 when SIGTERM/SIGINT/SIGHUP asked to quit. */
int term_take_sigcont(void);
int term_quit_requested(void);

#endif

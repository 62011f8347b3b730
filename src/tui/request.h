/* request.h - every user action as a named request in one table (name, help, default keys); the
 * key bindings, the help screen, the :command prompt, script mode and kwb(1)'s key list all read
 * it. Key names share one parser: "j", "<Enter>", "<Esc>", "<Tab>", "<S-Tab>", "<Space>", "<C-l>",
 * "<F1>", "<Up>", "<PgDn>" ... */
#ifndef KWB_TUI_REQUEST_H
#define KWB_TUI_REQUEST_H

#include <stddef.h>

#include "error.h"

#define TUI_REQUESTS(X)                                                                                                \
    X(DOWN, "down", "move down", "j <Down>")                                                                           \
    X(UP, "up", "move up", "k <Up>")                                                                                   \
    X(PAGE_DOWN, "page-down", "one page down", "<PgDn> <C-d>")                                                         \
    X(PAGE_UP, "page-up", "one page up", "<PgUp> <C-u>")                                                               \
    X(FIRST, "first", "first line", "g <Home>")                                                                        \
    X(LAST, "last", "last line", "G <End>")                                                                            \
    X(NEXT_PANE, "next-pane", "focus the next pane", "<Tab>")                                                          \
    X(PREV_PANE, "prev-pane", "focus the previous pane", "<S-Tab>")                                                    \
    X(PANE_LEFT, "pane-left", "focus the pane to the left", "h")                                                       \
    X(PANE_RIGHT, "pane-right", "focus the pane to the right", "l")                                                    \
    X(ENTER, "enter", "open: choose the direction; the selected line in full (log, proposal, row)", "<Enter>")         \
    X(SEARCH, "search", "search (in the workloads table: filter rows) by regular expression", "/")                     \
    X(SEARCH_NEXT, "search-next", "next match", "n")                                                                   \
    X(SEARCH_PREV, "search-prev", "previous match", "N")                                                               \
    X(SORT_NEXT, "sort-next", "sort the table by the next column (again: reverse)", ">")                               \
    X(SORT_PREV, "sort-prev", "sort the table by the previous column", "<")                                            \
    X(HELP, "help", "this help", "? <F1>")                                                                             \
    X(PROMPT, "prompt", "command prompt (the commands of script mode)", ":")                                           \
    X(ACCEPT, "accept", "accept: choose the direction, judge the candidate, decide as the judge advises", "a")         \
    X(REJECT, "reject", "reject the direction or candidate, with a reason", "x d")                                     \
    X(EDIT, "edit", "edit the candidate in $VISUAL or $EDITOR", "e")                                                   \
    X(UNDO, "undo", "undo the last decision (store and archive)", "u z")                                               \
    X(REDO, "redo", "redo the last undone decision", "U")                                                              \
    X(OVERRULE, "overrule", "overrule the judge's verdict, with a reason", "o")                                        \
    X(AGAIN, "measure-again", "measure the judged candidate again (gate and sweep)", "m")                              \
    X(PROFILE, "profile", "profile the selected workload (kwb profile)", "p")                                          \
    X(REFRESH, "refresh", "reload from the store", "R <F5>")                                                           \
    X(REDRAW, "redraw", "clear and repaint the screen", "<C-l>")                                                       \
    X(CONFIRM, "confirm", "yes: confirm the question asked", "y")                                                      \
    X(CANCEL, "cancel", "cancel the work in flight, close a prompt or the help", "<Esc>")                              \
    X(DIFF_MODE, "diff-mode", "side by side <-> unified", "|")                                                         \
    X(SCROLL_LEFT, "scroll-left", "scroll the focused pane left", "<Left>")                                            \
    X(SCROLL_RIGHT, "scroll-right", "scroll the focused pane right", "<Right>")                                        \
    X(NEXT_HUNK, "next-hunk", "next hunk of the diff", "] @")                                                          \
    X(PREV_HUNK, "prev-hunk", "previous hunk of the diff", "[")                                                        \
    X(QUIT, "quit", "close the help, or quit (asks when work is in flight)", "q")                                      \
    X(QUIT_NOW, "quit-now", "quit from anywhere (asks when work is in flight)", "Q")

typedef enum tui_request {
    REQ_NONE = 0,
#define TUI_REQ_ENUM(id, name, help, keys) REQ_##id,
    TUI_REQUESTS(TUI_REQ_ENUM)
#undef TUI_REQ_ENUM
        REQ_COUNT
} tui_request;

/* Special key codes beyond curses' own (KEY_* values are used as they are). */
enum { TUI_KEY_ESC = 27, TUI_KEY_TAB = 9, TUI_KEY_ENTER = 10 };

/* The request's name ("next-pane"), or "" for REQ_NONE. */
const char *request_name(int req);
/* Its help text. */
const char *request_help(int req);
/* The request named NAME, or REQ_NONE. */
int request_find(const char *name);

/* Parses one key name at *P (advancing it): "<...>" forms or one UTF-8 character. Returns the key
 * code, or -1 when the name is unknown. */
int key_parse(const char **p);
/* Writes the name of KEY into BUF ("<C-l>", "j"). */
const char *tui_key_name(int key, char *buf, size_t cap);

/* The bindings: per scope (0 generic, 1.. one per pane) a key -> request map. */
#define KEYMAP_SCOPES 8
#define KEYMAP_MAX 256
typedef struct keymap_entry {
    int scope, key, req;
} keymap_entry;
typedef struct keymap {
    keymap_entry e[KEYMAP_MAX];
    int n;
} keymap;

/* Fills KM with the default keys of the request table (all generic). */
void keymap_defaults(keymap *km);
/* Binds KEY in SCOPE to REQ (replacing an earlier binding of that key in that scope). */
void keymap_bind(keymap *km, int scope, int key, int req);
/* The request for KEY in SCOPE, else in the generic scope; REQ_NONE when unbound. */
int keymap_lookup(const keymap *km, int scope, int key);
/* Applies `bind SCOPE KEY REQUEST` words (after "bind"); SCOPE is "generic" or a pane name from
 * SCOPE_NAMES[1..]. 0, or -1 with *err. */
int keymap_bind_words(keymap *km, const char *const *scope_names, char **w, int n, kwb_error *err);
/* Writes the keys bound to REQ (any scope) into BUF, space-separated. */
const char *keymap_keys_of(const keymap *km, int req, char *buf, size_t cap);

#endif

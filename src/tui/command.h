/* command.h - the ':' commands beyond the request names, in one table (name, arguments, the
 * fewest words they need, help): the help screen lists it, the prompt completes from it and
 * input.c dispatches by its ids, so a command is written once. */
#ifndef KWB_TUI_COMMAND_H
#define KWB_TUI_COMMAND_H

// clang-format off
#define TUI_COMMANDS(X)                                                                                        \
    X(SET, "set", "NAME = VALUE", 1,                                                                           \
      "diff-mode auto|side-by-side|unified, line-graphics auto|utf-8|ascii, mouse yes|no, "                    \
      "theme NAME... (applied at once)")                                                                       \
    X(COLOR, "color", "CLASS FG BG [ATTR...]", 1, "a class's colours (kwb-themes(5)), applied at once")        \
    X(BIND, "bind", "SCOPE KEY REQUEST", 1, "a key for a request, generic or in one pane")                     \
    X(SOURCE, "source", "FILE", 1, "read a configuration file")                                                \
    X(SELECT, "select", "PANE [ROW]", 1, "focus a pane, select a row")                                         \
    X(FOCUS, "focus", "PANE [ROW]", 1, "the same as select")                                                   \
    X(FILTER, "filter", "[RE]", 0, "keep the workloads whose row matches RE (none: all)")                      \
    X(SEARCH, "search", "RE", 1, "find RE in the focused pane")                                                \
    X(SORT, "sort", "COLUMN [desc]", 1, "sort the workloads table")                                            \
    X(REJECT, "reject", "REASON", 1, "reject what is in front, with REASON")                                   \
    X(RESIZE, "resize", "COLSxROWS", 1, "the size (script mode)")                                              \
    X(DUMP_SCREEN, "dump-screen", "[--normalize] FILE", 1, "the screen as text")                               \
    X(DUMP_ATTRS, "dump-attrs", "FILE", 1, "the screen's runs of classes")                                     \
    X(DUMP_MODEL, "dump-model", "FILE", 1, "focus, selections, step, proposals")                               \
    X(STARTUP_TIME, "startup-time", "", 0, "ms from start to the first frame")                                 \
    X(TIME_KEYS, "time-keys", "N KEY", 2, "ms per keystroke to frame")                                         \
    X(Q, "q", "", 0, "quit")
// clang-format on

typedef enum tui_command_id {
    CMD_NONE = 0,
#define TUI_CMD_ENUM(id, name, args, min, help) CMD_##id,
    TUI_COMMANDS(TUI_CMD_ENUM)
#undef TUI_CMD_ENUM
        CMD_COUNT
} tui_command_id;

/* One ':' command: its id, name, arguments, the fewest argument words and what it does. */
typedef struct tui_command {
    int id;
    const char *name, *args;
    int min_args;
    const char *help;
} tui_command;

/* The commands in the order of the help, ending with a NULL name. */
extern const tui_command tui_commands[];
/* The command named NAME, or NULL. */
const tui_command *command_find(const char *name);

#endif

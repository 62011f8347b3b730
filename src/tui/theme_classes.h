/* theme_classes.h - the semantic classes of the workbench's screen (TUI-NOTES section 3): what
 * :dump-attrs prints and what a theme's `color` lines name, listed once as an X-macro. */
#ifndef KWB_TUI_THEME_CLASSES_H
#define KWB_TUI_THEME_CLASSES_H

// clang-format off
#define TUI_CLASSES(X)                           \
    X(NORMAL, "normal")                          \
    X(TITLE_FOCUS, "title-focus")                \
    X(TITLE_BLUR, "title-blur")                  \
    X(CURSOR, "cursor")                          \
    X(STATUS_LINE, "status-line")                \
    X(KEYBAR, "keybar")                          \
    X(BORDER, "border")                          \
    X(ERROR, "error")                            \
    X(WARNING, "warning")                        \
    X(TABLE_HEADER, "table-header")              \
    X(LATENCY_GOOD, "latency-good")              \
    X(LATENCY_WARN, "latency-warn")              \
    X(LATENCY_BAD, "latency-bad")                \
    X(SPEEDUP_FASTER, "speedup-faster")          \
    X(SPEEDUP_SAME, "speedup-same")              \
    X(SPEEDUP_SLOWER, "speedup-slower")          \
    X(SPEEDUP_UNCLEAR, "speedup-unclear")        \
    X(STATUS_PASSED, "status-passed")            \
    X(STATUS_FAILED, "status-failed")            \
    X(STATUS_RUNNING, "status-running")          \
    X(ROOFLINE_BAR, "roofline-bar")              \
    X(BOTTLENECK_MEMORY, "bottleneck-memory")    \
    X(BOTTLENECK_COMPUTE, "bottleneck-compute")  \
    X(BOTTLENECK_LATENCY, "bottleneck-latency")  \
    X(BOTTLENECK_LAUNCH, "bottleneck-launch")    \
    X(PROPOSAL_PENDING, "proposal-pending")      \
    X(PROPOSAL_ACCEPTED, "proposal-accepted")    \
    X(PROPOSAL_REJECTED, "proposal-rejected")    \
    X(INTEGRITY_FLAG, "integrity-flag")          \
    X(DIFF_ADD, "diff-add")                      \
    X(DIFF_DEL, "diff-del")                      \
    X(DIFF_ADD_EMPH, "diff-add-emph")            \
    X(DIFF_DEL_EMPH, "diff-del-emph")            \
    X(DIFF_CONTEXT, "diff-context")              \
    X(DIFF_HUNK, "diff-hunk")                    \
    X(DIFF_LINENO, "diff-lineno")                \
    X(DIFF_MARKER, "diff-marker")                \
    X(DIFF_FILLER, "diff-filler")                \
    X(LOG_INFO, "log-info")                      \
    X(LOG_WARN, "log-warn")                      \
    X(LOG_ERROR, "log-error")                    \
    X(CHART_LINE, "chart-line")                  \
    X(CHART_BEST, "chart-best")
// clang-format on

/* One value per class; TC_COUNT is how many there are. */
typedef enum tui_class {
#define TUI_CLASS_ENUM(id, name) TC_##id,
    TUI_CLASSES(TUI_CLASS_ENUM)
#undef TUI_CLASS_ENUM
        TC_COUNT
} tui_class;

/* The class's name as themes and dumps write it ("diff-add-emph"). */
const char *tui_class_name(int cls);
/* The class named NAME, or -1 when there is none. */
int tui_class_find(const char *name);

#endif

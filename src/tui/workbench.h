/* workbench.h - the workbench's state, shared by its modules: options, the views (one per pane,
 * each with its own table of operations and its own data, filled from the store by model.c), the
 * round in progress (the engine, round.h) and the jobs (child processes) in flight. Types only:
 * the code that works on them is in view.c (generic view code), view_*.c (each pane), model.c,
 * flow.c, input.c and app.c (the one loop), each including this header and none of them the
 * others in a circle. */
#ifndef KWB_TUI_WORKBENCH_H
#define KWB_TUI_WORKBENCH_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#include "round.h"
#include "tui/conf.h"
#include "tui/diffview.h"
#include "tui/job.h"
#include "tui/layout.h"
#include "tui/request.h"
#include "tui/surface.h"
#include "tui/theme.h"
#include "wsopen.h"

/* The options of `kwb tui`. */
typedef struct tui_options {
    const char *session, *definition, *solution, *workspace, *device, *agent, *workloads, *max_time;
    int no_color;
} tui_options;

typedef struct tui_app tui_app;
typedef struct tui_view tui_view;

/* A view's operations (tig's view_ops): the generic code (view.c) calls them for the focused or
 * marked view; a NULL member means the generic behaviour. */
typedef struct view_ops {
    const char *name;
    int header; /* rows under the title that do not scroll (the table's column names) */
    /* The model was read again: recompute what the view derives from its data (order, follow). */
    void (*open)(tui_app *a, tui_view *v);
    /* Draws the view into its rectangle, title row included. */
    void (*draw)(tui_app *a, tui_view *v);
    /* Offered every request first while the view has the focus: 1 handled, 0 for the generic code. */
    int (*request)(tui_app *a, tui_view *v, int req);
    /* The selection moved to v->sel. */
    void (*select)(tui_app *a, tui_view *v);
    /* Frees the view's data. */
    void (*done)(tui_app *a, tui_view *v);
    /* Its content rows, and the text of ROW (for search) into BUF. */
    int (*rows)(const tui_app *a, const tui_view *v);
    const char *(*row_text)(const tui_app *a, const tui_view *v, int row, char *buf, size_t cap);
    /* ROW in full for the detail view (Enter), allocated; NULL when it has none. */
    char *(*detail)(const tui_app *a, const tui_view *v, int row);
    /* The columns its content wants (the layout gives wide terminals' extra width by it); 0: any. */
    int (*want_width)(const tui_app *a, const tui_view *v);
} view_ops;

/* A view: its operations, its cursor and whether it must be drawn again. */
struct tui_view {
    const view_ops *ops;
    int pane;
    int sel, top, hscroll;
    int dirty;
    int draws; /* frames that drew it (:dump-model shows them, so a test sees what a key repainted) */
};

/* ---- each view's data (filled by model.c and flow.c, drawn by its view) ---- */

/* One row of the workloads table. */
typedef struct wl_line {
    char uuid[40];
    char axes[64];
    double key; /* the size key (first variable axis), for regimes and sorting */
    double base_ms, best_ms, cand_ms, speedup, roofline;
    /* with a candidate judged: the paired comparison the verdict used (candidate against the best
     * timed in the same run), as a speedup over the best with its interval; 0 when none */
    double paired, paired_lo, paired_hi;
    char status[24];
    char verdict[16];
} wl_line;

/* The workloads table: rows, the visible ones (filtered, sorted), the filter and the sort. */
typedef struct wl_table {
    wl_line *rows;
    int nrows;
    int *order; /* visible rows as indices into rows */
    int norder;
    int sort_col, sort_desc;
    char filter[256];
    pcre2_code *filter_re;
    int paired; /* the speedup column holds the verdict's paired comparison (a candidate judged) */
} wl_table;

/* One direction in the proposals pane: proposed by `kwb propose`, or decided earlier. */
typedef struct proposal {
    char id[160], title[200], source[16], rationale[512], predicted[128];
    char state[16]; /* pending, chosen, written, accepted, rejected, promoted */
    char reason[256];
} proposal;

typedef struct proposal_list {
    proposal *props;
    int nprops;
} proposal_list;

/* The bottleneck per regime of the best. */
typedef struct bottleneck_view {
    char cls[64], regime[128];
    char evidence[8][256];
    int n;
} bottleneck_view;

/* One line of the log pane. */
typedef struct log_line {
    char *text;
    int cls;
} log_line;

typedef struct log_view {
    log_line *lines;
    int n;
    int64_t after; /* store log id already read */
} log_view;

/* One point of the history chart. */
typedef struct history_point {
    int round;
    double best_ms;
    char title[64];
} history_point;

typedef struct history_view {
    history_point *points;
    int n;
} history_view;

typedef struct diff_view {
    diff_doc doc;
    int mode; /* 0 auto, 1 side by side, 2 unified */
} diff_view;

/* The text field at the bottom (":" prompt, "/" search, reject reason, a yes/no question). */
typedef enum prompt_kind { PROMPT_NONE, PROMPT_COMMAND, PROMPT_SEARCH, PROMPT_REASON, PROMPT_QUIT } prompt_kind;

struct tui_app {
    tui_options opt;
    tui_config cfg;
    theme th;
    layout lay;
    surface scr;
    int bottom; /* the pane in the narrow layout's shared slot */
    int focus;
    tui_view view[PANE_COUNT]; /* index 0 unused */
    int help_open, help_top;
    char *detail;    /* with help_open: the full text of a log line, proposal or row instead of the help */
    int bars_dirty;  /* title, status line or key bar changed */
    int full_redraw; /* clear the terminal first (resize, Ctrl-L, an overlay closed) */
    int quit;
    int script;                    /* script mode: no terminal */
    double start_s, first_frame_s; /* process start and first frame (proc_now), for startup-time */

    /* the model, from the store */
    ws_handle h;
    int ws_open;
    int64_t session;
    char definition[160];
    char best_name[160], best_dir[1024];
    double best_ms;
    char best_partial[48]; /* " (partial: N of M)" when the best's evidence is a cut sweep, else "" */
    int n_candidates;
    char search[256];
    wl_table wl;
    proposal_list pr;
    bottleneck_view bn;
    log_view lg;
    history_view hi;
    diff_view df;

    /* the round in progress: the engine (round.h) holds its step, candidate and verdict */
    round_engine eng;
    int chosen;                        /* index into pr.props */
    int reason_overrule;               /* the reason prompt is for overruling the verdict (else a rejection) */
    char said[600];                    /* the last decision, kept in the status line beside the next proposals */
    char sweep[160];                   /* the running evaluation's counts from its progress lines ("" when none) */
    char judge_step[16];               /* the judge's step in progress (gate, sweep, ...; "" when none) */
    int progress_done, progress_total; /* the running evaluation's workloads */
    double progress_polled;
    job jobs[JOB_MAX];
    int njobs_running;

    /* the text field */
    prompt_kind prompt;
    char input[512];
    int input_len;
    char status[512];
    int status_cls;
};

#endif

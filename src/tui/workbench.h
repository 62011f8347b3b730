/* app.h - the workbench's state, shared by its modules: options, the model read from the store,
 * the panes' cursors, the round in progress and the jobs (child processes) in flight. One loop
 * (app.c) reads keys and job output, applies requests and repaints. */
#ifndef KWB_TUI_APP_H
#define KWB_TUI_APP_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>

#include "tui/conf.h"
#include "tui/diffview.h"
#include "tui/job.h"
#include "tui/layout.h"
#include "tui/request.h"
#include "tui/surface.h"
#include "tui/theme.h"
#include "round.h"
#include "wsopen.h"

/* The options of `kwb tui`. */
typedef struct tui_options {
    const char *session, *definition, *solution, *workspace, *device, *agent, *workloads, *max_time;
    int no_color;
} tui_options;

/* One row of the workloads table. */
typedef struct wl_line {
    char uuid[40];
    char axes[64];
    double key; /* the size key (first variable axis), for regimes and sorting */
    double base_ms, best_ms, cand_ms, speedup, roofline;
    char status[24];
    char verdict[16];
} wl_line;

/* One direction in the proposals pane: proposed by `kwb propose`, or decided earlier. */
typedef struct proposal {
    char id[160], title[200], source[16], rationale[512], predicted[128];
    char state[16]; /* pending, chosen, written, accepted, rejected, promoted */
    char reason[256];
} proposal;

/* One line of the log pane. */
typedef struct log_line {
    char *text;
    int cls;
} log_line;

/* One point of the history chart. */
typedef struct history_point {
    int round;
    double best_ms;
    char title[64];
} history_point;

/* The text field at the bottom (":" prompt, "/" search, reject reason, a yes/no question). */
typedef enum prompt_kind { PROMPT_NONE, PROMPT_COMMAND, PROMPT_SEARCH, PROMPT_REASON, PROMPT_QUIT } prompt_kind;

/* Per-pane cursor state. */
typedef struct pane_state {
    int sel, top, hscroll;
} pane_state;

typedef struct tui_app {
    tui_options opt;
    tui_config cfg;
    theme th;
    layout lay;
    surface scr;
    int bottom; /* the pane in the narrow layout's shared slot */
    int focus;
    pane_state ps[PANE_COUNT];
    int help_open, help_top;
    char *detail;    /* with help_open: the full text of a log line, proposal or row instead of the help */
    int dirty;       /* something changed: repaint */
    int full_redraw; /* clear the terminal first (resize, Ctrl-L) */
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
    int n_candidates;
    wl_line *rows;
    int nrows;
    int *order; /* visible rows (filtered, sorted) as indices into rows */
    int norder;
    int sort_col, sort_desc;
    char filter[256];
    pcre2_code *filter_re;
    char search[256];
    proposal *props;
    int nprops;
    char bn_class[64], bn_regime[128];
    char bn_evidence[8][256];
    int nbn;
    history_point *hist;
    int nhist;
    log_line *log;
    int nlog;
    int64_t log_after; /* store log id already read */
    diff_doc diff;
    int diff_mode; /* 0 auto, 1 side by side, 2 unified */

    /* the round in progress: the engine (round.h) holds its step, candidate and verdict */
    round_engine eng;
    int chosen;                        /* index into props */
    int reason_overrule;               /* the reason prompt is for overruling the verdict (else a rejection) */
    char said[600];                    /* the last decision, kept in the status line beside the next proposals */
    char sweep[160];                   /* the running evaluation's counts from its progress lines ("" when none) */
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
} tui_app;

/* Appends a line to the log pane (keeps the newest few thousand); defined in model.c. */
void app_log(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the status line; defined in model.c. */
void app_status(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

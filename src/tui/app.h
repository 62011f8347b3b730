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

/* The steps of a round (DESIGN.md section 1). */
typedef enum round_step {
    STEP_IDLE,       /* nothing loaded yet */
    STEP_STARTING,   /* evaluating the starting solution of a new session */
    STEP_PROPOSING,  /* kwb propose in flight */
    STEP_CHOOSE,     /* the engineer picks or rejects a direction */
    STEP_WRITING,    /* kwb write in flight */
    STEP_REVIEW,     /* the diff: accept, reject, edit */
    STEP_EVALUATING, /* kwb eval (build, gate, sweep) in flight */
    STEP_CONFIRM,    /* promote? */
    STEP_DECIDING,   /* kwb decide in flight */
    STEP_DONE        /* nothing left to propose */
} round_step;

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

    /* the round in progress */
    round_step step;
    int round_no;     /* the round being played: the store's round count when it was proposed */
    int store_rounds; /* rounds in the store at the last reload */
    int chosen; /* index into props */
    char cand_name[160], cand_dir[1024];
    char eval_json[1024];
    char verdict_reason[512];
    char sweep[160];         /* the running evaluation's counts from its progress lines ("" when none) */
    int verdict_promote;
    char last_undo[256];               /* what `u` would undo: "direction N" or "candidate NAME" */
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

/* Appends a line to the log pane (keeps the newest few thousand). */
void app_log(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sets the status line. */
void app_status(tui_app *a, int cls, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif

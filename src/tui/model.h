/* model.h - what the panes show, read from the session store: the workloads table (baseline,
 * best and current candidate per workload), the bottleneck per regime, the decided directions, the
 * trajectory and the session log; plus the table's filter and sort. */
#ifndef KWB_TUI_MODEL_H
#define KWB_TUI_MODEL_H

#include "tui/app.h"

/* Opens the workspace of A's options and finds the session: 1 found, 0 absent (A->session 0),
 * -1 with *err when the workspace cannot be opened. */
int model_open(tui_app *a, kwb_error *err);
/* Closes the workspace. */
void model_close(tui_app *a);
/* Reads everything again from the store (keeps cursors, filter, sort and pending proposals). */
void model_reload(tui_app *a);
/* Appends the session log lines recorded since the last call to the log pane. */
void model_poll_log(tui_app *a);
/* While an evaluation of the session runs: its progress (workloads recorded of planned) into
 * a->progress_done / a->progress_total (the log is read when the evaluation ends). */
void model_poll_progress(tui_app *a);
/* Recomputes the visible rows of the table from the filter and the sort. */
void model_apply_view(tui_app *a);
/* Sets the table filter to the regular expression RE ("" clears it). 0, or -1 with *err. */
int model_set_filter(tui_app *a, const char *re, kwb_error *err);
/* Number of table columns, and the name of column I. */
int model_columns(void);
const char *model_column_name(int i);

#endif

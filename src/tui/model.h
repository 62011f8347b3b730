/* model.h - what the panes show, read from the session store: the workloads table (baseline,
 * best and current candidate per workload), the bottleneck per regime, the decided directions, the
 * trajectory and the session log, into the views' data (workbench.h); each view's open operation
 * then derives what it shows (view_open_all). */
#ifndef KWB_TUI_MODEL_H
#define KWB_TUI_MODEL_H

#include "tui/workbench.h"

/* Opens the workspace of A's options and finds the session: 1 found, 0 absent (A->session 0),
 * -1 with *err when the workspace cannot be opened. */
int model_open(tui_app *a, kwb_error *err);
/* Closes the workspace. */
void model_close(tui_app *a);
/* Reads everything again from the store (keeps cursors, filter, sort and pending proposals) and
 * marks every view. */
void model_reload(tui_app *a);
/* Appends the session log lines recorded since the last call to the log pane. */
void model_poll_log(tui_app *a);
/* While an evaluation of the session runs: its progress (workloads recorded of planned) into
 * a->progress_done / a->progress_total, and the table again when it moved, so that the candidate's
 * rows appear as its workloads finish (the log is read when the evaluation ends). */
void model_poll_progress(tui_app *a);
#endif

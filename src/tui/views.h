/* views.h - the six panes as views (workbench.h's view_ops), one file each: view_workloads.c
 * (the table, its sort and filter), view_bottleneck.c, view_proposals.c, view_diff.c, view_log.c
 * and view_history.c. Each draws only its own data and offers requests to itself first; the
 * generic code (view.c) does the rest. */
#ifndef KWB_TUI_VIEWS_H
#define KWB_TUI_VIEWS_H

#include "error.h"
#include "tui/workbench.h"

extern const view_ops view_workloads_ops, view_bottleneck_ops, view_proposals_ops, view_diff_ops, view_log_ops,
    view_history_ops;

/* The workloads table (view_workloads.c): recomputes the visible rows from the filter and the sort. */
void workloads_apply(tui_app *a);
/* Sets the filter to the regular expression RE ("" clears it). 0, or -1 with *err. */
int workloads_set_filter(tui_app *a, const char *re, kwb_error *err);
/* Number of sortable columns, and the name of column I ("uuid", "axes", ..., "speedup", ...). */
int workloads_columns(void);
const char *workloads_column_name(int i);
/* The columns one row of the table takes at its content's widths. */
int workloads_width(const wl_table *t);

/* The diff (view_diff.c): 1 when it is shown side by side at the current size and mode. */
int diff_side_by_side(const tui_app *a);

#endif

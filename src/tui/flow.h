/* flow.h - the workbench's front end of the round engine (round.h): the long steps run as child
 * `kwb` processes (judge for the start and each candidate, propose, write --events), started
 * here and finished by flow_job_done, which hands what came to the engine; accept, reject,
 * overrule, measure again, edit, undo and redo are the engine's transitions. */
#ifndef KWB_TUI_FLOW_H
#define KWB_TUI_FLOW_H

#include "tui/workbench.h"

/* Job kinds. */
enum { JOB_PROPOSE = 1, JOB_WRITE, JOB_EVAL, JOB_PROFILE };

/* Starts the session (a new one: evaluates and promotes the starting solution) or, for an existing
 * one, asks for proposals. 0, or -1 with *err when a new session lacks --definition/--solution. */
int flow_begin(tui_app *a, kwb_error *err);
/* One line of a job's output. */
void flow_job_line(void *ctx, job *j, int is_err, const char *line);
/* A job ended. */
void flow_job_done(void *ctx, job *j);
/* `a`: choose the selected direction, accept the candidate for evaluation, confirm the decision. */
void flow_accept(tui_app *a);
/* `x`: what is being rejected and asks for the reason (flow_reject_with then records it). */
void flow_reject(tui_app *a);
/* Rejects the direction or candidate in front of the engineer with REASON. */
void flow_reject_with(tui_app *a, const char *reason);
/* `e`: the candidate's changed file in $VISUAL/$EDITOR (the terminal is handed over by the caller
 * through SUSPEND/RESUME), then a fresh diff. */
void flow_edit(tui_app *a, void (*suspend)(void), void (*resume)(void));
/* `u`: takes back the last decision group through the round engine (store and archive). */
void flow_undo(tui_app *a);
/* `U`: makes the last undone decision group again. */
void flow_redo(tui_app *a);
/* `o`: overrules the judge's verdict (asks for the reason, then decides the other way). */
void flow_overrule(tui_app *a);
/* `m`: measures the judged candidate again (kwb judge --again). */
void flow_again(tui_app *a);
/* `p`: profiles the selected workload of the best candidate (kwb profile) into the log. */
void flow_profile(tui_app *a);
/* Esc: cancels the work in flight (its process group); 1 when something was cancelled. */
int flow_cancel(tui_app *a);

#endif

/* evalrec.h - `kwb eval --session`: the evaluation recorded in the workspace as it happens.
 * The candidate is archived as a git commit, a round is opened, the build and every
 * workload's result are recorded the moment they are final (one transaction each), so a
 * killed kwb loses at most the workload in flight, and `--resume` finishes the rest. */
#ifndef KWB_EVALREC_H
#define KWB_EVALREC_H

#include <stdint.h>

#include "build.h"
#include "error.h"
#include "results.h"
#include "solution.h"
#include "wsopen.h"

typedef struct eval_recorder {
    ws_handle h;
    char *session_name;
    char *definition; /* the session's definition */
    int64_t session;
    int64_t candidate;
    int64_t round;
    int64_t eval_run;
    int recorded;          /* rows recorded by this process */
    int failed;            /* rows that could not be recorded */
    kwb_error first_error; /* why the first one failed */
    const char *policy;    /* the timing policy in force, recorded with the eval run (may be NULL) */
    int sandbox_off;       /* recorded with the eval run (kwb eval --sandbox off) */
    int pruned;            /* archived candidates the store never recorded, removed by evalrec_open */
} eval_recorder;

/* Opens workspace WS_DIR (NULL: found as usual) and session NAME (created for DEFINITION
 * when new; refused when it belongs to another definition; DEFINITION NULL: the session must
 * exist, and r->definition says its definition), takes the session for this
 * process, marks what an earlier, killed kwb left running as interrupted, and removes archived
 * candidates the store never recorded (r->pruned says how many). */
int evalrec_open(eval_recorder *r, const char *ws_dir, const char *name, const char *def_name, kwb_error *err);
/* Archives SOL (a commit whose parent is PARENT_REF's, else the session's current
 * candidate's), records it as a candidate named NAME (NULL: the solution's name) written by
 * ORIGIN ("human", "tuner", "llm", "command"; NULL: human; the session's first is the
 * baseline), opens a round titled TITLE (NULL: "evaluate NAME") and records the build BR. */
int evalrec_candidate(eval_recorder *r, const solution *sol, const char *parent_ref, const char *name,
                      const char *origin, const char *title, const build_result *br, kwb_error *err);
/* Starts the eval run: N workloads on DEVICE, with OPTIONS (JSON text, NULL: none) recorded
 * for --resume. */
int evalrec_begin(eval_recorder *r, const char *device, int n, const char *options, kwb_error *err);
/* Records one final result (safe to call from one thread at a time); a failure is counted,
 * not fatal, and reported by evalrec_finish. */
void evalrec_record(eval_recorder *r, const wl_result *res);
/* Makes the session's existing candidate NAME the one this evaluation records: a new eval run
 * in the round of its latest one, with build BR added. 0, or -1 when it has none. */
int evalrec_existing(eval_recorder *r, const char *name, const build_result *br, kwb_error *err);
/* For --resume: makes the newest interrupted eval run of the session the one this evaluation
 * records; *options gets the options it recorded (malloc'd; NULL for a run from before they
 * were recorded). -1 when there is none. */
int evalrec_resume_find(eval_recorder *r, char **options, kwb_error *err);
/* For --resume: the run of evalrec_resume_find (found now when not yet), its candidate's files
 * checked out into a new folder *dir (the caller removes it), and the uuids it already has.
 * The run and its round are running again. */
int evalrec_resume(eval_recorder *r, char **dir, char ***done, int *ndone, kwb_error *err);
/* Finishes the eval run (complete when every planned workload is recorded) and ends the
 * round with an outcome from RES[0..n) (N 0: a resume that found nothing left to run).
 * Returns -1 when rows could not be recorded. */
int evalrec_finish(eval_recorder *r, const wl_result *res, int n, kwb_error *err);
/* Releases the session and closes the workspace. */
void evalrec_close(eval_recorder *r);

#endif

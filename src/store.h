/* store.h - the session store: one SQLite file (WAL, foreign keys on, schema versioned
 * with forward migrations) holding sessions, rounds, directions and decisions, candidates,
 * builds, evaluations per workload, samples, profiles, agent calls and notes.
 *
 * Every recording function is one transaction (BEGIN IMMEDIATE ... COMMIT), so a killed
 * process loses at most the event in flight; inside store_batch_begin/commit each event is
 * a savepoint of the batch's one transaction instead (bulk loads). Values are always bound
 * to prepared statements. Ids are positive; an optional id argument takes 0 for "none".
 * Functions return 0 on success or -1 with *err set; "find" functions return 1 when found,
 * 0 when not, -1 on error. Times are Unix seconds (double). Strings in returned structs are
 * owned by the struct and freed by the matching store_*_free function. A store may be used
 * from several threads, one at a time (the caller serializes); processes share the file. */
#ifndef KWB_STORE_H
#define KWB_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "error.h"
#include "results.h"

typedef struct store store;

/* ---- lifecycle -------------------------------------------------------------------------- */

/* The schema version this code writes (PRAGMA user_version after migration). */
int store_schema_version(void);
/* Opens the store at PATH, creating it when missing unless READONLY, and migrates it forward
 * (read-only too, when the file may be written). Refuses a non-SQLite file, an SQLite file that
 * is not a kwb store, a schema newer than this code's and, read-only, one that needs migrating
 * and cannot be written. NULL on error. */
store *store_open(const char *path, int readonly, kwb_error *err);
/* Closes ST (NULL is fine); an open batch is rolled back. */
void store_close(store *st);
/* 1 when ST was opened read-only. */
int store_is_readonly(const store *st);
/* Starts a bulk load: until store_batch_commit, events go into one transaction (each one a
 * savepoint, so a failed event still leaves nothing behind). Not for live recording. */
int store_batch_begin(store *st, kwb_error *err);
/* Commits the batch. */
int store_batch_commit(store *st, kwb_error *err);
/* Rolls the batch back; nothing recorded since store_batch_begin remains. */
void store_batch_abort(store *st);

/* ---- sessions --------------------------------------------------------------------------- */

typedef struct store_session {
    int64_t id;
    char *name;
    char *definition;
    double created;
    int64_t holder_pid; /* 0 when nobody holds it */
    char *holder_host;  /* NULL when nobody holds it */
    double holder_since;
} store_session;

/* Creates session NAME (unique) for the definition DEF_NAME; *id (when not NULL) gets its id. */
int store_session_create(store *st, const char *name, const char *def_name, int64_t *id, kwb_error *err);
/* Looks session NAME up: 1 and *id set, 0 when there is none, -1 on error. */
int store_session_find(store *st, const char *name, int64_t *id, kwb_error *err);
/* Reads session ID into *out (free with store_session_free); -1 when there is none. */
int store_session_get(store *st, int64_t id, store_session *out, kwb_error *err);
/* Every session, oldest first, into *out[*n] (free with store_session_list_free). */
int store_session_list(store *st, store_session **out, int *n, kwb_error *err);
/* Frees what s owns. */
void store_session_free(store_session *s);
/* Frees an array from store_session_list. */
void store_session_list_free(store_session *s, int n);
/* Records PID of this host as the session's holder. Fails with "session 'X' is held by kwb
 * pid N on HOST since T; it stays readable (...)" when another live process of
 * this host holds it; a holder that is gone (or whose pid now names another process, or
 * recorded on another host) is stale and taken over. PID may re-acquire its own session. */
int store_session_acquire(store *st, int64_t session, pid_t pid, kwb_error *err);
/* Clears the holder when it is PID (otherwise leaves it alone). */
int store_session_release(store *st, int64_t session, pid_t pid, kwb_error *err);
/* For a resume: marks every eval run and round of SESSION still "running" as "interrupted";
 * *n_evals and *n_rounds (when not NULL) get how many. */
int store_session_mark_interrupted(store *st, int64_t session, int *n_evals, int *n_rounds, kwb_error *err);

/* ---- rounds and directions -------------------------------------------------------------- */

typedef struct store_round {
    int64_t id;
    int number; /* 1, 2, ... per session */
    char *title;
    char state[16];         /* running, done, rejected, interrupted */
    int64_t candidate;      /* 0 when none yet */
    char *outcome;          /* NULL until ended */
    double started, ended;  /* ended 0 while running */
    double best_mean_ms;    /* best candidate's mean latency after the round; 0 when none */
    int64_t best_candidate; /* 0 when none */
} store_round;

/* Starts the next round of SESSION titled TITLE; *id and *number (when not NULL) set. */
int store_round_begin(store *st, int64_t session, const char *title, int64_t *id, int *number, kwb_error *err);
/* Sets the candidate that round ROUND produced. */
int store_round_set_candidate(store *st, int64_t round, int64_t candidate, kwb_error *err);
/* Runs ROUND again after it ended "done" or was interrupted (the next step of the same candidate, such as the
 * sweep after the gate), logged with WHY; -1 when it is not a finished round. */
int store_round_reopen(store *st, int64_t round, const char *why, kwb_error *err);
/* Ends ROUND as STATE ("done", "rejected", "interrupted") with OUTCOME (may be NULL) and
 * records the session's best candidate at that moment. */
int store_round_end(store *st, int64_t round, const char *state, const char *outcome, kwb_error *err);
/* The round trajectory of SESSION in number order: the last LAST_N rounds (all when
 * LAST_N <= 0) into *out[*n]; a running round shows the current best. A round left running by a
 * kwb that is gone (nobody holds the session) shows as interrupted, its outcome "cut off: ...". */
int store_trajectory(store *st, int64_t session, int last_n, store_round **out, int *n, kwb_error *err);
/* Frees an array from store_trajectory. */
void store_round_list_free(store_round *r, int n);

typedef struct store_direction {
    int64_t id;
    int64_t round; /* 0 when proposed outside a round */
    char *skill;
    char *title;
    char *rationale; /* may be NULL */
    char state[16];  /* proposed, accepted, rejected */
    char *reason;    /* the latest decision's reason; NULL when undecided or none */
    double created;
} store_direction;

/* Records a direction proposed for SESSION (ROUND 0: none) from skill SKILL. */
int store_direction_add(store *st, int64_t session, int64_t round, const char *skill, const char *title,
                        const char *rationale, int64_t *id, kwb_error *err);
/* Decides DIRECTION: DECISION "accepted" or "rejected", with REASON (may be NULL). */
int store_direction_decide(store *st, int64_t direction, const char *decision, const char *reason, kwb_error *err);
/* Directions of SESSION (of ROUND only when ROUND > 0), oldest first, into *out[*n]. */
int store_direction_list(store *st, int64_t session, int64_t round, store_direction **out, int *n, kwb_error *err);
/* Frees an array from store_direction_list. */
void store_direction_list_free(store_direction *d, int n);

/* ---- candidates and builds -------------------------------------------------------------- */

typedef struct store_candidate {
    int64_t id;
    int64_t session;
    int64_t parent;  /* 0 when none */
    char origin[16]; /* who wrote it: baseline (the start), human, tuner, llm, command */
    char state[16];  /* new, evaluated, promoted, rejected */
    char *name;
    char *solution_dir; /* may be NULL */
    char *commit;       /* hex object id; may be NULL */
    double created;
} store_candidate;

/* Adds candidate NAME (unique in SESSION) with PARENT (0: none), ORIGIN (who wrote it:
 * "baseline", "human", "tuner", "llm", "command"), its solution folder DIR and git COMMIT
 * (either may be NULL). */
int store_candidate_add(store *st, int64_t session, int64_t parent, const char *origin, const char *name,
                        const char *dir, const char *commit, int64_t *id, kwb_error *err);
/* 1 when ORIGIN names who may write a candidate besides the start: "human", "tuner", "llm",
 * "command" (kwb eval --origin, kwb judge --origin); else 0. */
int store_writer_known(const char *origin);
/* Sets candidate ID's state: "new", "evaluated", "promoted" or "rejected". */
int store_candidate_set_state(store *st, int64_t id, const char *state, kwb_error *err);
/* Decides candidate ID: DECISION "promoted" or "rejected" (sets its state too), with REASON
 * (may be NULL), recorded with the time in the decisions table; a new decision drops the
 * session's redo stack (store_redo_drop) in the same transaction. */
int store_candidate_decide(store *st, int64_t id, const char *decision, const char *reason, kwb_error *err);
/* The same, made again by a redo: the redo stack stays (the redo drops the group it made). */
int store_candidate_redecide(store *st, int64_t id, const char *decision, const char *reason, kwb_error *err);
/* Reads candidate ID into *out (free with store_candidate_free); -1 when there is none. */
int store_candidate_get(store *st, int64_t id, store_candidate *out, kwb_error *err);
/* Finds REF in SESSION: a candidate name, else a commit prefix of at least 4 hex digits.
 * 1 and *out set, 0 when nothing matches, -1 when the prefix is ambiguous or on error. */
int store_candidate_find(store *st, int64_t session, const char *ref, store_candidate *out, kwb_error *err);
/* The best candidate of SESSION: the candidate promoted last (decisions taken back do not count),
 * with its evidence's mean (store_candidate_evidence; NaN when none), even when that evidence is
 * partial. In a session where nothing is promoted: lowest mean latency (mean of the per-workload
 * candidate medians) over an eval run complete with every workload PASSED, among runs covering the
 * most workloads; rejected candidates excluded. 1 with *id and *mean_ms (when not NULL) set, 0
 * when there is none. */
int store_candidate_best(store *st, int64_t session, int64_t *id, double *mean_ms, kwb_error *err);
/* The candidate of SESSION promoted last (the one rounds start from): 1 with *id and *mean_ms
 * (its evidence's mean, see store_candidate_evidence; NaN when none; when not NULL) set, 0 when
 * none was promoted. */
int store_candidate_promoted(store *st, int64_t session, int64_t *id, double *mean_ms, kwb_error *err);
/* The evaluation that speaks for a candidate. */
typedef struct store_evidence {
    int64_t eval_run; /* 0 when it has none with a workload recorded */
    int n_done;       /* workloads it recorded */
    int n_session;    /* the most workloads an eval run of the session planned */
    double mean_ms;   /* mean of its candidate medians; NaN unless every recorded workload PASSED */
} store_evidence;

/* CANDIDATE's eval run with the most workloads recorded (complete first, then the newest): a sweep
 * cut short still speaks for more workloads than its gate. Partial when n_done < n_session.
 * 1 with *out set, 0 when it has none (*out zero, mean NaN), -1 with *err. */
int store_candidate_evidence(store *st, int64_t candidate, store_evidence *out, kwb_error *err);
/* What CANDIDATE fails, in any of its evaluations (a replay's, a sweep's, the held-out shapes'):
 * 1 with "STATUS on workload UUID8 (N trials)" of the newest failure in WHAT (CAP bytes), 0 when
 * every recorded row PASSED, -1 with *err set. */
int store_candidate_failure(store *st, int64_t candidate, char *what, size_t cap, kwb_error *err);
/* The current candidate of SESSION: that of the latest round that has one, else the newest
 * candidate. 1 with *id set, 0 when the session has none. */
int store_candidate_current(store *st, int64_t session, int64_t *id, kwb_error *err);
/* Frees what c owns. */
void store_candidate_free(store_candidate *c);

typedef struct store_build {
    int64_t id;
    int64_t candidate;
    char *hash;
    char *command;
    char *log;
    int ok;
    double seconds;
    double created;
} store_build;

/* Records a build of CANDIDATE: cache HASH, compiler COMMAND (flags included), its LOG, OK
 * (1 built, 0 COMPILE_ERROR) and SECONDS spent. */
int store_build_add(store *st, int64_t candidate, const char *hash, const char *command, const char *log, int ok,
                    double seconds, int64_t *id, kwb_error *err);
/* The latest build of CANDIDATE: 1 and *out set (free with store_build_free), 0 when none. */
int store_build_latest(store *st, int64_t candidate, store_build *out, kwb_error *err);
/* Frees what b owns. */
void store_build_free(store_build *b);

/* ---- evaluations ------------------------------------------------------------------------ */

typedef struct store_eval_run {
    int64_t id;
    int64_t session, candidate;
    int64_t round; /* 0 when outside a round */
    char *device;
    char *runner_version;
    char state[16];         /* running, complete, interrupted */
    int n_workloads;        /* planned */
    int n_done;             /* rows recorded */
    int n_passed;           /* rows PASSED with a candidate latency */
    double mean_latency_ms; /* 0 unless complete with every workload PASSED */
    double started, ended;  /* ended 0 while running */
} store_eval_run;

/* Starts an evaluation of CANDIDATE (ROUND 0: outside a round) on DEVICE by RUNNER_VERSION
 * over N_WORKLOADS workloads; *id gets the eval run's id. */
int store_eval_begin(store *st, int64_t candidate, int64_t round, const char *device, const char *runner_version,
                     int n_workloads, int64_t *id, kwb_error *err);
/* Records one workload's result R (uuid r->wl->uuid) in running EVAL_RUN, in its own
 * transaction; a uuid already recorded in the run is refused. *row (when not NULL) gets the
 * row's id, for samples. */
int store_eval_add(store *st, int64_t eval_run, const wl_result *r, int64_t *row, kwb_error *err);
/* Finishes EVAL_RUN as STATE: "complete" (every planned workload recorded; a candidate still
 * "new" becomes "evaluated") or "interrupted". */
int store_eval_finish(store *st, int64_t eval_run, const char *state, kwb_error *err);
/* Sets an interrupted EVAL_RUN running again, to record the workloads it still lacks. */
int store_eval_resume(store *st, int64_t eval_run, kwb_error *err);
/* The workload uuids EVAL_RUN already has, in recording order, into *uuids[*n] (free with
 * store_strings_free). */
int store_eval_uuids(store *st, int64_t eval_run, char ***uuids, int *n, kwb_error *err);
/* Frees an array of N strings. */
void store_strings_free(char **s, int n);
/* Reads eval run ID into *out (free with store_eval_run_free); -1 when there is none. A run left
 * running by a kwb that is gone (nobody holds its session) shows as interrupted. */
int store_eval_run_get(store *st, int64_t id, store_eval_run *out, kwb_error *err);
/* Records OPTIONS (JSON text: the run's options and planned workloads) with EVAL_RUN. */
int store_eval_set_options(store *st, int64_t eval_run, const char *options, kwb_error *err);
/* EVAL_RUN's recorded options into *options (malloc'd; NULL when the run has none, as runs
 * recorded before schema version 3). */
int store_eval_options(store *st, int64_t eval_run, char **options, kwb_error *err);
/* The commit ids of every candidate of SESSION into *oids[*n] (free with store_strings_free). */
int store_candidate_commits(store *st, int64_t session, char ***oids, int *n, kwb_error *err);
/* Eval runs of SESSION (only those in STATE when not NULL), oldest first, into *out[*n]; runs left
 * running by a kwb that is gone show as interrupted (and are not listed as "running"). */
int store_eval_run_list(store *st, int64_t session, const char *state, store_eval_run **out, int *n, kwb_error *err);
/* Frees what r owns. */
void store_eval_run_free(store_eval_run *r);
/* Frees an array from store_eval_run_list. */
void store_eval_run_list_free(store_eval_run *r, int n);

/* One workload row of the TUI's table. */
typedef struct store_wl_row {
    int64_t id; /* the evaluation row, for samples and profiles */
    char *uuid;
    char status[24];           /* PASSED, INCORRECT_NUMERICAL, ... */
    char *message;             /* NULL when none */
    double median_ms;          /* candidate; 0 when not timed */
    double baseline_median_ms; /* 0 when not timed */
    double ref_median_ms;      /* 0 when not timed */
    double speedup;            /* over the baseline when timed, else the reference; 0: none */
    double max_abs, max_rel, matched_ratio;
    char verdict[16];                 /* paired gate; "" when none */
    double ratio, ratio_lo, ratio_hi; /* the verdict's ratio (< 1: candidate faster) and interval; 0: none */
    double roofline;                  /* share of the roofline floor, 0..1; 0 when unknown */
    double gbps;                      /* achieved bandwidth; 0 when unknown */
    char timer[24];                   /* which timer produced the latency; "" when none */
} store_wl_row;

typedef struct store_wl_table {
    int64_t candidate;
    int64_t eval_run;
    char state[16]; /* the eval run's */
    int planned;    /* the eval run's workloads, n of them recorded */
    int n;
    store_wl_row *rows; /* recording order */
} store_wl_table;

/* The per-workload table of CANDIDATE's eval run that speaks for it (store_candidate_evidence:
 * the most workloads recorded, a complete run first, the newest): 1 and *out set (free with
 * store_wl_table_free), 0 when it has none with a row yet. */
int store_wl_table_get(store *st, int64_t candidate, store_wl_table *out, kwb_error *err);
/* The table of SESSION's best candidate (store_candidate_best) from its evidence run
 * (store_candidate_evidence); 0 when there is none. */
int store_wl_table_best(store *st, int64_t session, store_wl_table *out, kwb_error *err);
/* The same for SESSION's current candidate (store_candidate_current); 0 when none. */
int store_wl_table_current(store *st, int64_t session, store_wl_table *out, kwb_error *err);
/* Frees what t owns. */
void store_wl_table_free(store_wl_table *t);

/* Stores N latency samples MS (milliseconds) of ROLE ("candidate", "baseline",
 * "reference") for evaluation row ROW, replacing earlier ones. */
int store_samples_add(store *st, int64_t row, const char *role, const double *ms, size_t n, kwb_error *err);
/* Reads them back: 1 with *ms[*n] set (the caller frees *ms), 0 when none were stored. */
int store_samples_get(store *st, int64_t row, const char *role, double **ms, size_t *n, kwb_error *err);

/* ---- profiles, agent calls, notes, the log ---------------------------------------------- */

/* Records a profile of CANDIDATE by TOOL ("ncu", "nsys", ...) on workload UUID (NULL: not
 * one workload) as JSON text. */
int store_profile_add(store *st, int64_t candidate, const char *uuid, const char *tool, const char *json, int64_t *id,
                      kwb_error *err);
/* The latest such profile: 1 with *json set (the caller frees it), 0 when none. */
int store_profile_latest(store *st, int64_t candidate, const char *uuid, const char *tool, char **json, kwb_error *err);

/* One call to an agent. There is deliberately no field for credentials. */
typedef struct store_agent_call {
    int64_t session;
    int64_t round;        /* 0 when outside a round */
    const char *provider; /* openai, anthropic, command, tuner */
    const char *model;
    int64_t tokens_in, tokens_out;
    double cost; /* in the provider's currency unit (USD) */
    double duration_s;
    const char *status; /* "ok", "error: ...", "cancelled", ... */
} store_agent_call;

typedef struct store_agent_totals {
    int calls;
    int64_t tokens_in, tokens_out;
    double cost;
    double duration_s;
} store_agent_totals;

/* Records agent call C. */
int store_agent_call_add(store *st, const store_agent_call *c, int64_t *id, kwb_error *err);
/* Sums SESSION's agent calls into *out (unknown token counts, stored as -1, count as 0). */
int store_agent_totals_get(store *st, int64_t session, store_agent_totals *out, kwb_error *err);

/* Records note TEXT on SESSION, optionally about ROUND and CANDIDATE (0: none). */
int store_note_add(store *st, int64_t session, int64_t round, int64_t candidate, const char *text, int64_t *id,
                   kwb_error *err);

/* One line of a session's log: every recorded event writes one (workload rows excepted). */
typedef struct store_log_entry {
    int64_t id;
    double time;
    char kind[16];            /* session, round, direction, candidate, decision, build, eval,
                                 profile, agent, note */
    int64_t round, candidate; /* 0 when none */
    char *text;
} store_log_entry;

/* The newest LIMIT (all when <= 0) log lines of SESSION with id > AFTER, oldest first, into
 * *out[*n] (a TUI polls with AFTER = the last id it has). */
int store_log_list(store *st, int64_t session, int64_t after, int limit, store_log_entry **out, int *n, kwb_error *err);
/* Frees an array from store_log_list. */
void store_log_list_free(store_log_entry *e, int n);

/* ---- taking decisions back (the round engine's undo) ------------------------------------- */

/* One decision as store_decision_undo took it back: a direction's or a candidate's. */
typedef struct store_decision {
    int64_t id;
    int64_t direction, candidate;    /* exactly one is nonzero */
    char decision[16];               /* accepted, rejected, promoted */
    char *reason;                    /* may be NULL */
    char *skill, *title, *rationale; /* the direction's; NULL for a candidate */
    int64_t round;                   /* the direction's round, or the candidate's; 0 when none */
} store_decision;

/* Sets the round DIRECTION belongs to (ROUND 0: none), so that its decision is undone with the
 * candidate's of that round. */
int store_direction_set_round(store *st, int64_t direction, int64_t round, kwb_error *err);
/* *round gets the round that evaluated CANDIDATE (0 when none). */
int store_candidate_round(store *st, int64_t candidate, int64_t *round, kwb_error *err);
/* The newest candidate of SESSION still undecided (new or evaluated): 1 with *id, 0 when none. */
int store_candidate_undecided(store *st, int64_t session, int64_t *id, kwb_error *err);
/* Takes back SESSION's last decision group in one transaction: the newest decision and, when it
 * belongs to a round, the older ones of the same round down to the candidate's. Each row is
 * deleted, its direction or candidate returns to its state before (proposed, new, evaluated or
 * an earlier decision) and the log says "undo: ...". *out[*n] (newest first; free with
 * store_decision_list_free) is what was taken back; *n 0 when there was nothing. */
int store_decision_undo(store *st, int64_t session, store_decision **out, int *n, kwb_error *err);

/* The redo stack of SESSION, kept in the store so that a restarted kwb can still redo: PUSH keeps
 * the N decisions one undo took back (as store_decision_undo gave them) as the newest group; TOP
 * reads the newest group into *out[*n] in the same order (*n 0: none; free with
 * store_decision_list_free); DROP removes the newest group, or (ALL) every group (a new decision
 * makes them stale). 0, or -1 with *err. */
int store_redo_push(store *st, int64_t session, const store_decision *d, int n, kwb_error *err);
int store_redo_top(store *st, int64_t session, store_decision **out, int *n, kwb_error *err);
int store_redo_drop(store *st, int64_t session, int all, kwb_error *err);

/* Records the judge's verdict on CANDIDATE (PROMOTE, the deciding STAGE, REASON), tied to its
 * newest eval run. 0, or -1 with *err. */
int store_verdict_add(store *st, int64_t session, int64_t candidate, int promote, const char *stage, const char *reason,
                      kwb_error *err);
/* The verdict recorded on CANDIDATE's newest eval run, when no eval run of it is running: 1 with
 * *promote, STAGE (STAGE_CAP bytes) and *reason (the caller frees it); 0 when the newest
 * evaluation has no verdict (it must be judged again); -1 with *err. */
int store_verdict_last(store *st, int64_t candidate, int *promote, char *stage, size_t stage_cap, char **reason,
                       kwb_error *err);
/* *reason gets the reason of CANDIDATE's latest decision (the caller frees it; NULL when none). */
int store_candidate_reason(store *st, int64_t candidate, char **reason, kwb_error *err);
/* Frees an array from store_decision_undo. */
void store_decision_list_free(store_decision *d, int n);

#endif

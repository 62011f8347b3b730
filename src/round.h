/* round.h - the round engine: the one place that holds a round's policy, for `kwb run` (headless)
 * and `kwb tui` (the workbench) alike. A round moves through steps
 *   start -> propose -> choose -> write -> review (edit) -> judge -> verdict -> decide
 * and every step that changes anything is recorded in the session's store before a front end
 * shows it: the chosen direction is a directions row, the candidate is written under a temporary
 * name and renamed when whole, the judge's evaluations are eval runs, the decision is
 * `kwb decide` plus the direction's decision and the tuner's no-cycle bar. A killed kwb therefore
 * resumes from the store (round_resume: an undecided candidate is judged again), and undo and
 * redo are store and archive operations (decision rows, promotion tags, rejected refs).
 * One numbering: the round being played is the store's next round number, and its candidate is
 * "r<N>-<direction id>". The long steps (propose, write, judge) are run by the front ends (in
 * process or as child kwb processes); the engine says what they run on and records what came. */
#ifndef KWB_ROUND_H
#define KWB_ROUND_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "judge.h"
#include "wsopen.h"

/* The steps of a round. */
typedef enum round_step {
    ROUND_IDLE,     /* nothing loaded yet */
    ROUND_STARTING, /* judging the starting solution of a new session */
    ROUND_PROPOSING,
    ROUND_CHOOSE,  /* a direction is picked or declined */
    ROUND_WRITING, /* the agent writes the candidate */
    ROUND_REVIEW,  /* the diff: accept, decline, edit */
    ROUND_JUDGING, /* gate, sweep, replay, held-out */
    ROUND_VERDICT, /* the judge's advice: the human accepts, overrules or measures again */
    ROUND_DECIDING,
    ROUND_DONE /* nothing left to propose */
} round_step;

/* The human's answer to a verdict. */
typedef enum round_answer {
    ROUND_ACCEPT,   /* decide as the verdict advises */
    ROUND_OVERRULE, /* decide the other way; a reason is required */
} round_answer;

typedef struct round_engine {
    ws_handle *h;
    int64_t session; /* 0 until the session exists */
    char session_name[128];
    char definition[160];
    const char *workspace; /* passed to child kwb processes; may be NULL */
    char folder[1024];     /* WORKSPACE/run/SESSION: candidate folders and outputs */
    round_step step;
    int number; /* the round being played (the store's numbering) */
    char best_name[160], best_dir[1024];
    /* the direction and candidate in play */
    char skill[64], direction[160], title[200];
    int64_t direction_row; /* its directions row; 0 for the start */
    char cand_name[192], cand_dir[1300], part_dir[1310];
    const char *writer; /* who writes a skill direction's candidate: "llm", "command" (the front
                         * end's agent; NULL: "human"); the tuner writes its knob changes */
    char origin[16];    /* who wrote the candidate in play (kwb eval --origin) */
    int again;          /* the candidate is already in the store: judge it again */
    /* the verdict */
    int verdict_promote;
    char verdict_stage[16];
    char verdict_reason[1024];
} round_engine;

/* Opens the engine on session SESSION_NAME of H's workspace (it may not exist yet; DEF_NAME,
 * may be NULL for an existing session, is used then), WS_DIR (may be NULL) for children. */
int round_open(round_engine *e, ws_handle *h, const char *session_name, const char *def_name, const char *ws_dir,
               kwb_error *err);
/* Frees what E holds (not H). */
void round_close(round_engine *e);
/* Re-reads the session from the store: its id, the promoted best and the next round number. */
int round_refresh(round_engine *e, kwb_error *err);
/* The candidate name for round NUMBER and direction ID: "r<N>-" and the id, other characters than
 * letters, digits, '-' and '_' as '-'. */
void round_candidate_name(int number, const char *id, char *out, size_t cap);

/* 1 when the session needs its start (no session, or nothing promoted yet). */
int round_needs_start(round_engine *e);
/* Prepares the start's judgement: the starting solution DIR as candidate "start". */
void round_begin_start(round_engine *e, const char *dir);
/* Resumes a round a killed kwb left: an undecided candidate of the session becomes the one in
 * play: at its recorded verdict (step ROUND_VERDICT) when the judge had given one on its newest
 * evaluation, else to be judged again (step ROUND_JUDGING). 1 when there was one, 0 when not,
 * -1 on error. */
int round_resume(round_engine *e, kwb_error *err);

/* The direction ID (from SKILL, "tuner" for knob changes; TITLE its line) is chosen: it is
 * recorded in the store as proposed, the candidate named and its folders set; the writer writes
 * into part_dir (removed first) and round_written moves it to cand_dir. */
int round_choose(round_engine *e, const char *skill, const char *id, const char *title, kwb_error *err);
/* The writer finished into part_dir: renamed to cand_dir (a stale folder of a killed run that
 * holds no recorded candidate is replaced). Step ROUND_REVIEW. */
int round_written(round_engine *e, kwb_error *err);
/* Declines direction ID (SKILL, TITLE; NULL ID: the one in play) with REASON: recorded as
 * rejected (no candidate decision); the one in play also ends a round of its own (state
 * rejected), so a failed write takes a round number as a judged candidate does. */
int round_decline(round_engine *e, const char *skill, const char *id, const char *title, const char *reason,
                  kwb_error *err);
/* Fills Q to judge the candidate in play against the best (the start: against nothing). */
void round_judge_request(round_engine *e, judge_request *q, const char *device, const char *filter,
                         const char *max_time);
/* The judge's verdict: PROMOTE, the STAGE that decided and REASON, recorded in the store (with the
 * candidate's newest eval run) before it is shown. Step ROUND_VERDICT. */
void round_judged(round_engine *e, int promote, const char *stage, const char *reason);
/* The prompt of the verdict step: the verdict and what each key does (KEYS names them, e.g.
 * "y/a", "o", "m"). */
void round_verdict_prompt(const round_engine *e, const char *accept_keys, const char *overrule_key,
                          const char *again_key, char *out, size_t cap);
/* Decides the candidate in play: ANSWER accepts the verdict or overrules it (WHY required then;
 * the reason names the verdict and the decision side by side, marked "override"). Runs
 * `kwb decide`, records the direction's decision in the candidate's round and, after promoting
 * a knob change, bars the value it left (no cycles). Returns 1 promoted, 0 rejected, -1 on
 * error. SAID (CAP) gets the line to show. */
int round_decide(round_engine *e, round_answer answer, const char *why, char *said, size_t cap, kwb_error *err);
/* Takes back the last decision group (store and archive) and keeps it in the store's redo stack
 * (a restarted kwb can still redo it; a new decision empties the stack); SAID says what, or
 * "nothing to undo". Returns 1 when something was undone, 0 when nothing, -1 on error. */
int round_undo(round_engine *e, char *said, size_t cap, kwb_error *err);
/* Makes the last undone group again; 1, 0 ("nothing to redo"), -1. */
int round_redo(round_engine *e, char *said, size_t cap, kwb_error *err);
/* Direction ids of the session already decided (accepted or rejected), for the tuner's
 * proposals: *out[*n], free with round_ids_free. */
int round_tried(round_engine *e, char ***out, int *n, kwb_error *err);
/* Frees an array from round_tried. */
void round_ids_free(char **ids, int n);
/* A session note TEXT (a failure to record is returned). */
int round_note(round_engine *e, const char *text, kwb_error *err);

#endif

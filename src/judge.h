/* judge.h - the harness's verdict on one candidate (DESIGN.md sections 1 and 10), in up to four
 * steps, each a child `kwb eval` (gate and sweep recorded in the session):
 *   gate   paired against the best on one representative workload per regime (roundplan.h);
 *          skipped when that is every workload anyway, or when there is no best yet;
 *   sweep  every workload, paired against the best (`kwb eval --candidate`, another eval run
 *          of the same candidate): all PASSED, none slower, at least one faster;
 *   replay the definition's kwb.replay trials on every workload (inputs of another seed,
 *          fresh each trial), all PASSED; only for definitions that ask for it; unrecorded
 *          (its outcome goes into the verdict's reason);
 *   held-out the definition's held-out shapes (DATASET/heldout/NAME.jsonl, never shown to an
 *          agent), all PASSED: a kernel that hard-codes the shapes it saw fails here; only
 *          when the dataset has them and there is a best (not for the start); unrecorded.
 * A correctness fix (judge_request.fixes: workloads where the best fails a replay) first replays
 * the best and then the candidate there: when the best fails and the candidate passes, the gate
 * and the sweep ask all PASSED and none more than JUDGE_FIX_SLOWER slower (judge_rule_fix), not
 * a gain; a candidate that fails there is rejected; a best that passes leaves the usual rule.
 * The first step that fails decides: the verdict names it and says why. Deciding (promote or
 * reject in the store) stays with the caller: a human may still say no. */
#ifndef KWB_JUDGE_H
#define KWB_JUDGE_H

#include <stdint.h>

#include "error.h"
#include "store.h"

/* An unclear paired verdict whose median ratio (candidate over best) is above this counts as slower. */
#define JUDGE_UNCLEAR_SLOWER 1.5
/* A correctness fix may be this much slower than the best on any workload (median ratio - 1). */
#define JUDGE_FIX_SLOWER 0.05
/* Replay trials of a fix's replays when the definition asks for none. */
#define JUDGE_FIX_TRIALS 200

/* What one child eval found, from its --json output. */
typedef struct eval_summary {
    int total, passed, faster, slower;
    int slower_unclear; /* unclear verdicts with a median ratio over JUDGE_UNCLEAR_SLOWER */
    double mean_ms;
    double worst_ratio; /* the largest median ratio (candidate over best) of a paired verdict; 0: none */
    char first_failure[256];
    char evidence[1024]; /* regimes and their bottleneck class, one clause each */
} eval_summary;

/* Reads the --json output of kwb eval at PATH into *s (the classify step included). */
int judge_read_summary(const char *path, eval_summary *s, kwb_error *err);
/* The promotion rule on a paired evaluation: 1 when every workload PASSED, none is slower (by
 * the paired verdict, or by the medians where that verdict is unclear) and at least one faster;
 * REASON (CAP bytes) says why either way. */
int judge_rule(const eval_summary *s, char *reason, size_t cap);
/* The rule for a correctness fix: 1 when every workload PASSED and none is more than
 * JUDGE_FIX_SLOWER slower by its median ratio; REASON (CAP bytes) says why either way. */
int judge_rule_fix(const eval_summary *s, char *reason, size_t cap);

/* Runs this kwb with ARGV (argv[0] is replaced) and stdout into OUT_PATH (NULL: inherited).
 * Returns its exit code, 128+signal, or -1 with *err set. */
int judge_run_kwb(char **argv, const char *out_path, kwb_error *err);

typedef struct judge_request {
    const char *definition;                 /* name */
    const char *dataset;                    /* NULL: the usual (paths_dataset) */
    const char *session, *workspace;        /* workspace NULL: found as usual */
    const char *device, *filter, *max_time; /* passed to every eval; filter, max_time may be NULL */
    const char *name, *dir, *direction;     /* the candidate: its name, folder, direction text */
    const char *origin;                     /* who wrote it (kwb eval --origin); NULL: a human */
    const char *best_name, *best_dir;       /* the best it must beat; NULL: none (sweep only) */
    store *st;                              /* for the best's latencies (regime weights); may be NULL */
    int64_t best_id;                        /* the best's candidate id in ST; 0: equal weights */
    const char *folder;                     /* where the children's JSON outputs go (NAME.gate.json, ...) */
    int replay_on_gate; /* 1: the replay runs on the gate's representatives only (when there is a gate) */
    int again;          /* NAME is recorded already: measure it again (`--candidate`) */
    const char *fixes;  /* workloads (a filter) where the best fails a replay: the candidate is a fix; NULL: none */
    int quiet;          /* 1: no line on stderr as each step starts */
} judge_request;

typedef struct judge_verdict {
    int promote;              /* 1: every step passed */
    char stage[8];            /* the step that decided: "fix", "gate", "sweep", "replay", "heldout" */
    int fix;                  /* the best failed the replay on q->fixes and the candidate passed it */
    char reason[1024];        /* why, with each step's figures */
    int gate_workloads;       /* the gate's representatives; 0 when the gate was skipped */
    char gate_filter[256];    /* their uuid prefixes, '|' between them */
    int replay_trials;        /* 0 when the definition asks for no replay */
    int heldout_workloads;    /* held-out shapes evaluated; 0 when none */
    eval_summary gate, sweep; /* sweep.mean_ms and sweep.evidence describe the candidate */
    char sweep_json[4096];    /* the sweep's JSON output; "" when it did not run */
} judge_verdict;

/* What a step's line on stderr starts with: "kwb judge: step STEP: NAME ..." */
#define JUDGE_STEP_PREFIX "kwb judge: step "

/* Reads the step's name from LINE (a judge's stderr line, perhaps behind a prefix of its caller)
 * into STEP. Returns 0, or -1 when LINE is not a step's line. */
int judge_step_parse(const char *line, char *step, size_t cap);

/* Judges Q's candidate as above; 0 with *v filled (promote or not), -1 with *err set when a
 * step could not run at all (an eval that did not start, an unreadable output). */
int judge_candidate(const judge_request *q, judge_verdict *v, kwb_error *err);

#endif

/* protocol.h - the runner protocol (contract, version 1): one job line from the parent,
 * one JSON line per event back, on descriptors that are not the candidate's stdout.
 *
 *   job:    {"proto":1, "type":"job", "device":"cpu", "definition":PATH, "dataset":ROOT,
 *            "workloads":[workload objects], "solutions":[{"role","name","so","symbol","dir"?}],
 *            "check":{"trials","atol","rtol","matched_ratio"},
 *            "timing":{policy}, "reference_timing":{policy}, "seed":N, "samples":bool,
 *            optional: "reference":{"name","so","symbol","helpers"?} (the definition's reference as a
 *            built solution, the runner having none; "helpers": a built solution whose kwb_check,
 *            kwb_cost_values and kwb_generate(_host) stand in for ones the reference lacks), "cache":DIR,
 *            "dump_dir":DIR, "dump_trial":N, "key":HEX (events sealed with it, see channel.h),
 *            "no_defences":bool (timed calls unchecked), "sandbox":bool (default true), "scratch":DIR,
 *            "cpu_limit_s":S, "probe_reference":bool (a reference-probe event before each workload's
 *            trials), "ref_fd":N (kwb serves the reference cache: ref-want is answered on descriptor N)}
 *           With "dump_dir" the job is a dump (kwb dump): per workload, the inputs of trial
 *           "dump_trial" (default 0) and the reference's outputs go to DIR/UUID.safetensors;
 *           no solution is loaded or timed, and workload-end carries "dump":PATH.
 *   events: hello, workload-start, reference-probe (with "probe_reference": "ms", one reference
 *           call's wall time), check (per solution and trial), timing (per role),
 *           workload-end (status), error (job-level), bye; with "ref_fd": ref-want ("trial": the
 *           reference's outputs of that trial of the workload in flight, answered "hit SHA256\n"
 *           with the file at SCRATCH/ref-in.bin, or "miss\n") and ref-out ("trial", "file": a
 *           ref-out-N.bin in SCRATCH the runner wrote, "sha256": its hash).  Every event carries "proto":1.
 */
#ifndef KWB_PROTOCOL_H
#define KWB_PROTOCOL_H

#include <jansson.h>
#include <stdint.h>

#include "check.h"
#include "error.h"
#include "stats.h"

#define KWB_PROTO 1

/* When to stop sampling: after min_samples and min_time_s of device time (the sum of the
 * samples) once the relative standard deviation is under rsd_target, or at max_time_s of
 * wall time. min_samples 0: do not time. */
typedef struct timing_policy {
    double warmup_s;
    int min_samples;
    double min_time_s;
    double max_time_s;
    double rsd_target;
    int cold;         /* flush caches before every sample */
    int graph;        /* > 0: each sample replays a CUDA graph of this many back-to-back
                       * calls and reports the time per call (warm caches); 0: off */
    double ci_target; /* > 0: also until the median's 95 % CI is within +-this share of it
                       * (order statistics over the plain samples); 0: off */
    int ci_iid;       /* 1: that CI treats the samples as independent; 0 (the default): it is also
                       * bootstrapped over the input sets the samples ran on, and the wider counts */
} timing_policy;

/* Timed calls of each kind (plain, checked, fresh) the parent needs to compare them (runclient's
 * integrity findings); the runner does not stop sampling before it has them (runner.c). */
#define PROTOCOL_MARKED_MIN 8

/* The practical threshold of the paired verdict that ends a paired timing (runner/timing.h). */
#define PROTOCOL_GATE_THRESHOLD 0.01

/* The policy P in words (for the user and the records), into BUF. */
void timing_policy_describe(const timing_policy *p, char *buf, size_t cap);

/* The most calls one graph replay may hold. */
#define TIMING_GRAPH_MAX_CALLS 1000

typedef struct job_solution {
    char *role; /* "candidate" or "baseline" */
    char *name;
    char *so_path;
    char *symbol;
    char *dir;     /* optional "dir": the solution's folder (readable under the sandbox) */
    char *helpers; /* the reference's only: the library of the definition's own reference when another
                    * (torch, --reference DIR) is chosen, for the code the definition declares it brings */
} job_solution;

typedef struct runner_job {
    char *device;
    char *definition_path;
    char *dataset_root;
    json_t *workloads; /* array of workload objects (owned) */
    job_solution solutions[2];
    int nsolutions;
    job_solution reference; /* "reference": so_path NULL when the job names none (refused) */
    int trials;
    check_policy check;
    timing_policy timing;
    timing_policy reference_timing;
    uint64_t seed;
    int want_samples;    /* timing events carry every sample */
    char *cache_dir;     /* where devices keep measured peaks; may be NULL */
    char *dump_dir;      /* a dump job: the folder for UUID.safetensors; NULL otherwise */
    int dump_trial;      /* a dump job: the trial whose inputs are dumped */
    char *channel_key;   /* "key": events are sealed with it (channel.h); NULL: unsealed */
    int no_defences;     /* "no_defences": timed calls unchecked (bench/integrity-overhead only) */
    int sandbox_off;     /* "sandbox": false: candidate code runs without the sandbox (debugging) */
    char *scratch;       /* "scratch": the folder the candidate may write in; NULL: the runner makes one */
    double cpu_limit_s;  /* "cpu_limit_s": the runner's CPU time limit; 0: none */
    int probe_reference; /* "probe_reference": time one reference call before each workload's trials */
    int ref_fd;          /* "ref_fd": > 0: kwb serves the reference cache, answering ref-want on this
                          * descriptor (refserve.h); 0: the runner uses the cache folder itself */
} runner_job;

typedef enum event_type {
    EV_HELLO,
    EV_WORKLOAD_START,
    EV_CHECK,
    EV_TIMING,
    EV_WORKLOAD_END,
    EV_ERROR,
    EV_BYE,
    EV_PROBE,
    EV_REF_WANT,
    EV_REF_OUT,
    EV_UNKNOWN
} event_type;

/* One parsed event; the strings point into json and live as long as it. */
typedef struct runner_event {
    event_type type;
    json_t *json;
    const char *uuid;
    const char *role;
    const char *status;
    const char *message;
    int trial;
    double max_abs, max_rel, matched_ratio;
    stats_summary timing;
    const char *timer; /* timing: which timer produced the figures */
    double gbps;       /* timing: bytes moved / median (0: unknown) */
    double tflops;     /* timing: FLOPs done / median (0: unmodelled) */
    double roofline;   /* timing: roofline floor / median (0: unknown) */
} runner_event;

/* Default policies: the CPU device's timing, 3 trials, FlashInfer-Bench's tolerances. */
void protocol_job_defaults(runner_job *job);
/* Encodes job as one line (no newline); the caller frees it. */
char *protocol_job_encode(const runner_job *job);
/* Decodes a job line into *job (which the caller frees with protocol_job_free). Returns 0,
 * or -1 with *err set (wrong protocol version, missing fields). */
int protocol_job_decode(const char *line, runner_job *job, kwb_error *err);
/* Frees the contents of job. */
void protocol_job_free(runner_job *job);

/* A new event object {"proto":1,"event":TYPE}; the caller owns the reference. */
json_t *protocol_event_new(const char *type);
/* Adds a timing summary (milliseconds) to EV. */
void protocol_event_set_timing(json_t *ev, const stats_summary *s);
/* Writes OBJ as one compact line to FD; returns 0 or -1. */
int protocol_write_line(int fd, json_t *obj);
/* Parses one event line. Returns 0, or -1 with *err set. Free with protocol_event_free. */
int protocol_event_parse(const char *line, runner_event *ev, kwb_error *err);
/* Frees ev's json. */
void protocol_event_free(runner_event *ev);

/* V as a JSON number, or "NaN", "Infinity", "-Infinity" (as FlashInfer-Bench writes them) when
 * it is not finite; events' numbers are read back either way. */
json_t *protocol_real(double v);

/* Parts of the integrity hooks' time in a workload-end event's cost "hooks" (seconds each):
 * poisoning outputs, making fresh inputs, the reference on them, full checks (read-back and
 * comparison), checks by digest. */
enum { COST_HOOK_POISON, COST_HOOK_INPUTS, COST_HOOK_REFERENCE, COST_HOOK_CHECK, COST_HOOK_DIGEST, COST_HOOK_PARTS };
/* Their names, in COST_HOOK_* order. */
extern const char *const protocol_hook_parts[COST_HOOK_PARTS];
/* Steps of the host's time around timed samples in the cost's "host" (seconds each): queuing
 * flushes, probes and events, the timed call's own launches, waiting for the device, collecting
 * CUPTI's records, reading events, copying probes and flags back;
 * then the device's operations wherever they were asked for (hooks, trials): making random
 * inputs, digests, uploads, downloads, synchronizations, comparisons. */
enum {
    COST_HOST_QUEUE,
    COST_HOST_CALL,
    COST_HOST_SYNC,
    COST_HOST_CUPTI,
    COST_HOST_READS,
    COST_HOST_COPIES,
    COST_HOST_OP_FILL,
    COST_HOST_OP_DIGEST,
    COST_HOST_OP_UPLOAD,
    COST_HOST_OP_DOWNLOAD,
    COST_HOST_OP_SYNC,
    COST_HOST_OP_COMPARE,
    COST_HOST_STEPS
};
/* Their names, in COST_HOST_* order. */
extern const char *const protocol_host_steps[COST_HOST_STEPS];
/* Sets COST's "hooks" from HOOK_S[COST_HOOK_PARTS] and "host" from HOST_S[COST_HOST_STEPS] and
 * the sample counts ALONE, BATCHED and BATCHES. */
void protocol_cost_parts_set(json_t *cost, const double *hook_s, const double *host_s, long alone, long batched,
                             long batches);

#endif

#define _GNU_SOURCE
#include "cmd_eval.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "check.h"
#include "dispatch.h"
#include "evalopts.h"
#include "evalrec.h"
#include "executor.h"
#include "paths.h"
#include "devlist.h"
#include "preflight.h"
#include "proc.h"
#include "refsel.h"
#include "store.h"
#include "strbuf.h"
#include "runclient.h"
#include "sweepprog.h"
#include "scan.h"
#include "solution.h"
#include "trace.h"
#include "traceset.h"
#include "wlcheck.h"
#include "xalloc.h"
#include "suggest.h"

typedef struct eval_args {
    const char *definition;
    const char *solution_dir;
    const char *baseline_dir;
    const char *dataset;
    const char *filter;
    const char *device;
    const char *devices;
    const char *executor; /* --executor local|ssh:HOSTS|slurm[:OPTIONS] (else $KWB_EXECUTOR) */
    const char *traces;
    const char *workspace;
    const char *session;
    const char *parent;
    const char *name;
    const char *direction;
    const char *origin;    /* --origin: who wrote the candidate (human, tuner, llm, command) */
    const char *candidate; /* --candidate: another eval run of this existing candidate */
    const char *reference; /* --reference DIR|torch; NULL: the definition's kwb.reference */
    int resume;
    int hot;
    int trials;
    double timeout_s;
    double max_time_s;
    double min_time_s;
    double precision; /* --precision: the median's CI half-width target (share); < 0: default */
    int graph;
    check_policy check; /* --atol, --rtol, --matched-ratio; NAN where not given */
    long long seed;
    int json;
    int quiet;
    scan_mode scan;  /* --scan warn|block|off */
    int held_out;    /* --held-out: the definition's held-out workloads instead */
    int no_defences; /* --no-defences (or KWB_NO_DEFENCES): timed calls unchecked, for benches */
    int sandbox_off; /* --sandbox off: candidate code runs without the runner's sandbox */
    int keep_going;  /* --keep-going: after a TIMEOUT or a crash, run the remaining workloads */
} eval_args;

_Static_assert(sizeof(scan_mode) == sizeof(int), "scan_mode is recorded as an int");
#define OPT(name, type, field)                                                                                         \
    {                                                                                                                  \
        name, EVALOPT_##type, offsetof(eval_args, field)                                                               \
    }
/* What an eval run records of its options, and --resume repeats. */
static const evalopts_field eval_fields[] = {
    OPT("definition", STR, definition),
    OPT("dataset", STR, dataset),
    OPT("workloads", STR, filter),
    OPT("device", STR, device),
    OPT("devices", STR, devices),
    OPT("baseline", STR, baseline_dir),
    OPT("hot", INT, hot),
    OPT("trials", INT, trials),
    OPT("timeout", DOUBLE, timeout_s),
    OPT("max-time", DOUBLE, max_time_s),
    OPT("min-time", DOUBLE, min_time_s),
    OPT("graph", INT, graph),
    OPT("seed", LLONG, seed),
    OPT("atol", DOUBLE, check.atol),
    OPT("rtol", DOUBLE, check.rtol),
    OPT("matched-ratio", DOUBLE, check.required_ratio),
    OPT("scan", INT, scan),
    OPT("held-out", INT, held_out),
    OPT("no-defences", INT, no_defences),
    OPT("sandbox-off", INT, sandbox_off),
    OPT("keep-going", INT, keep_going),
};
#define N_EVAL_FIELDS ((int)(sizeof eval_fields / sizeof *eval_fields))

static void eval_usage(FILE *f)
{
    fputs("usage: kwb eval --definition NAME --solution DIR [--baseline DIR] [--dataset DIR]\n"
          "                [--workloads FILTER] [--device cpu|cuda[:N]] [--devices all|LIST] [--hot]\n"
          "                [--executor local|ssh:HOST[/DEVICE],...|slurm[:KEY=VALUE,...]]\n"
          "                [--trials N] [--timeout S] [--min-time S] [--max-time S] [--precision P]\n"
          "                [--graph N] [--seed N]\n"
          "                [--atol X] [--rtol X] [--matched-ratio R] [--reference DIR|torch]\n"
          "                [--json] [--traces FILE] [--scan warn|block|off] [--held-out] [--no-defences]\n"
          "                [--sandbox on|off] [--keep-going]\n"
          "                [--quiet] [--workspace DIR] [--session NAME [--parent CAND] [--name NAME]\n"
          "                [--direction TEXT] [--origin human|tuner|llm|command]\n"
          "                | --session NAME --candidate NAME | --session NAME --resume]\n"
          "       (--against DIR is --baseline DIR: paired timing with a verdict per workload)\n",
          f);
}

static int parse_number(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v < lo) {
        fprintf(stderr, "kwb eval: %s: '%s' is not a number >= %g\n", opt, s, lo);
        return -1;
    }
    *out = v;
    return 0;
}

static eval_args eval_defaults(void)
{
    return (eval_args){.device = "cpu",
                       .trials = 3,
                       .timeout_s = 0, /* from the reference (runclient_timeout_for) */
                       .max_time_s = -1,
                       .min_time_s = -1,
                       .precision = -1,
                       .seed = 1,
                       .check = {NAN, NAN, NAN},
                       .scan = SCAN_WARN,
                       .no_defences = getenv("KWB_NO_DEFENCES") != NULL};
}

static int parse_eval_args(int argc, char **argv, eval_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'},
        {"solution", required_argument, NULL, 's'},
        {"baseline", required_argument, NULL, 'b'},
        {"against", required_argument, NULL, 'b'},
        {"dataset", required_argument, NULL, 'D'},
        {"devices", required_argument, NULL, 'E'},
        {"hot", no_argument, NULL, 'H'},
        {"workspace", required_argument, NULL, 'W'},
        {"session", required_argument, NULL, 'X'},
        {"parent", required_argument, NULL, 'P'},
        {"name", required_argument, NULL, 'N'},
        {"direction", required_argument, NULL, 'R'},
        {"origin", required_argument, NULL, 'I'},
        {"resume", no_argument, NULL, 'U'},
        {"candidate", required_argument, NULL, 'C'},
        {"workloads", required_argument, NULL, 'w'},
        {"device", required_argument, NULL, 'v'},
        {"trials", required_argument, NULL, 't'},
        {"timeout", required_argument, NULL, 'T'},
        {"max-time", required_argument, NULL, 'm'},
        {"seed", required_argument, NULL, 'S'},
        {"min-time", required_argument, NULL, 'M'},
        {"graph", required_argument, NULL, 'G'},
        {"json", no_argument, NULL, 'j'},
        {"traces", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"atol", required_argument, NULL, 'a'},
        {"rtol", required_argument, NULL, 'r'},
        {"matched-ratio", required_argument, NULL, 'x'},
        {"scan", required_argument, NULL, 'K'},
        {"held-out", no_argument, NULL, 'O'},
        {"no-defences", no_argument, NULL, 'Z'},
        {"reference", required_argument, NULL, 'F'},
        {"sandbox", required_argument, NULL, 'B'},
        {"keep-going", no_argument, NULL, 'k'},
        {"precision", required_argument, NULL, 'p'},
        {"executor", required_argument, NULL, 'Y'},
        {NULL, 0, NULL, 0},
    };
    *a = eval_defaults();
    double v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 's': a->solution_dir = optarg; break;
        case 'b': a->baseline_dir = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'w': a->filter = optarg; break;
        case 'v': a->device = optarg; break;
        case 'E': a->devices = optarg; break;
        case 'H': a->hot = 1; break;
        case 'W': a->workspace = optarg; break;
        case 'X': a->session = optarg; break;
        case 'P': a->parent = optarg; break;
        case 'N': a->name = optarg; break;
        case 'R': a->direction = optarg; break;
        case 'I': a->origin = optarg; break;
        case 'U': a->resume = 1; break;
        case 'C': a->candidate = optarg; break;
        case 'o': a->traces = optarg; break;
        case 'j': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        case 't':
            if (parse_number("--trials", optarg, 1, &v))
                return -1;
            a->trials = (int)v;
            break;
        case 'T':
            if (parse_number("--timeout", optarg, 0.001, &v))
                return -1;
            a->timeout_s = v;
            break;
        case 'm':
            if (parse_number("--max-time", optarg, 0, &v))
                return -1;
            a->max_time_s = v;
            break;
        case 'M':
            if (parse_number("--min-time", optarg, 0, &v))
                return -1;
            a->min_time_s = v;
            break;
        case 'p':
            if (parse_number("--precision", optarg, 0, &v))
                return -1;
            a->precision = v;
            break;
        case 'G':
            if (parse_number("--graph", optarg, 1, &v))
                return -1;
            if (v > TIMING_GRAPH_MAX_CALLS || v != (int)v) {
                fprintf(stderr, "kwb eval: --graph: '%s' is not a whole number of calls from 1 to %d\n", optarg,
                        TIMING_GRAPH_MAX_CALLS);
                return -1;
            }
            a->graph = (int)v;
            break;
        case 'S':
            if (parse_number("--seed", optarg, 0, &v))
                return -1;
            a->seed = (long long)v;
            break;
        case 'a':
            if (parse_number("--atol", optarg, 0, &a->check.atol))
                return -1;
            break;
        case 'r':
            if (parse_number("--rtol", optarg, 0, &a->check.rtol))
                return -1;
            break;
        case 'x':
            if (parse_number("--matched-ratio", optarg, 0, &v))
                return -1;
            if (v > 1) {
                fprintf(stderr, "kwb eval: --matched-ratio: '%s' is not a ratio from 0 to 1\n", optarg);
                return -1;
            }
            a->check.required_ratio = v;
            break;
        case 'K':
            if (scan_mode_parse(optarg, &a->scan) != 0) {
                fprintf(stderr, "kwb eval: --scan: '%s' is not warn, block or off\n", optarg);
                return -1;
            }
            break;
        case 'O': a->held_out = 1; break;
        case 'Z': a->no_defences = 1; break;
        case 'Y': a->executor = optarg; break;
        case 'F': a->reference = optarg; break;
        case 'B':
            if (strcmp(optarg, "on") != 0 && strcmp(optarg, "off") != 0) {
                fprintf(stderr, "kwb eval: --sandbox: '%s' is not on or off\n", optarg);
                return -1;
            }
            a->sandbox_off = strcmp(optarg, "off") == 0;
            break;
        case 'k': a->keep_going = 1; break;
        case 'h': eval_usage(stdout); exit(0);
        default:
            suggest_bad_option("eval", argv, opts);
            eval_usage(stderr);
            return -1;
        }
    }
    executor ex;
    kwb_error xerr = {{0}};
    if (executor_parse(executor_spec(a->executor), &ex, &xerr) != 0) {
        fprintf(stderr, "kwb eval: %s%s\n", a->executor ? "" : "$KWB_EXECUTOR: ", xerr.msg);
        return -1;
    }
    int batch = ex.batch;
    executor_stop(&ex);
    if (batch && !a->session) {
        fprintf(stderr, "kwb eval: --executor ...,batch=yes needs --session NAME (the batch job records there)\n");
        return -1;
    }
    if (a->origin && (!store_writer_known(a->origin) || !a->session || a->candidate || a->resume)) {
        fprintf(stderr, "kwb eval: --origin %s: %s\n", a->origin,
                !store_writer_known(a->origin) ? "who wrote the candidate is human, tuner, llm or command"
                                               : "it goes with --session NAME and a new candidate");
        return -1;
    }
    if ((a->resume || a->candidate) && !a->session) {
        fprintf(stderr, "kwb eval: --%s needs --session NAME\n", a->resume ? "resume" : "candidate");
        return -1;
    }
    if (a->candidate && (a->resume || a->name || a->parent)) {
        fprintf(stderr, "kwb eval: --candidate names an existing candidate: not with --resume, --name or --parent\n");
        return -1;
    }
    int from_store = a->resume || a->candidate; /* the session says what is not given */
    if (optind < argc || (!a->definition && !from_store) || (!a->solution_dir && !from_store)) {
        fprintf(stderr, "kwb eval: %s\n",
                optind < argc ? "unexpected argument" : "--definition and --solution are required");
        eval_usage(stderr);
        return -1;
    }
    return 0;
}

/* cmd_eval_prepare_solution without a word: 1 built, 0 COMPILE_ERROR, -1 with *err set. */
static int prepare_silently(const char *dir, const char *name, const build_options *bo, solution **sol,
                            build_result *br, kwb_error *err)
{
    *sol = solution_load(dir, err);
    if (!*sol)
        return -1;
    if (strcmp((*sol)->definition, name) != 0)
        return kwb_error_set(err, "%s:%d: solution is for '%s', not '%s'", (*sol)->json_path, (*sol)->definition_line,
                             (*sol)->definition, name);
    if (build_solution(*sol, bo, br, err) != 0)
        return -1;
    return br->ok;
}

/* Says on stderr how the build of SOL went (BR), as "kwb CMD: ...". */
static void say_build(const char *cmd, const solution *sol, const build_result *br, int quiet)
{
    if (br->ok && !quiet && br->cached)
        fprintf(stderr, "kwb %s: %s: cached build %.12s\n", cmd, sol->name, br->hash);
    else if (br->ok && !quiet)
        fprintf(stderr, "kwb %s: %s: built %.12s in %.2f s\n", cmd, sol->name, br->hash, br->seconds);
    else if (!br->ok)
        fprintf(stderr, "kwb %s: %s: COMPILE_ERROR\n%s", cmd, sol->name, br->log);
}

int cmd_eval_prepare_solution(const char *cmd, const char *dir, const char *name, const build_options *bo,
                              solution **sol, build_result *br, kwb_error *err)
{
    int rc = prepare_silently(dir, name, bo, sol, br, err);
    if (rc >= 0)
        say_build(cmd, *sol, br, bo->quiet);
    return rc;
}

/* Each final result: recorded in the session (when there is one), shown as progress; shared
 * by the runners of several devices. */
typedef struct progress_state {
    pthread_mutex_t mu;
    sweep_progress show;
    eval_recorder *rec;
    volatile int stop; /* a result could not be recorded (a full disk), or stop_at passed: the runners stop */
    double stop_at;    /* proc_now() after which no further workload starts (KWB_STOP_AFTER); 0: none */
} progress_state;

static void progress(void *ctx, int done, int total, const wl_result *r)
{
    progress_state *p = ctx;
    (void)done, (void)total;
    pthread_mutex_lock(&p->mu);
    if (p->rec) {
        evalrec_record(p->rec, r);
        p->stop = p->rec->failed > 0;
    }
    if (p->stop_at > 0 && proc_now() >= p->stop_at)
        p->stop = 1; /* a bench's time box: the workloads finished so far still count */
    sweep_progress_add(&p->show, r);
    pthread_mutex_unlock(&p->mu);
}

static char *abs_path(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : xstrdup(p);
}

/* Every workload gets COMPILE_ERROR with the compiler's output. */
static void mark_compile_error(wl_result *res, const workload_set *set, const build_result *br, const char *who)
{
    for (int i = 0; i < set->count; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].wl = &set->items[i];
        char *msg = xasprintf("%s did not compile: %.600s", who, br->log);
        for (char *p = msg; *p; p++)
            if (*p == '\n')
                *p = ' ';
        results_set_status(&res[i], ST_COMPILE_ERROR, msg);
        res[i].log = xstrdup(br->log);
        free(msg);
    }
}

static job_solution job_entry(const char *role, const solution *s, const build_result *br)
{
    job_solution j = {(char *)role, s->name, br->so_path, s->entry_symbol, s->dir, NULL};
    return j;
}

/* The check policy: FlashInfer-Bench's defaults, then the definition's "kwb.check" (the
 * contest's per-definition settings), then --atol, --rtol and --matched-ratio. */
static check_policy check_for(const eval_args *a, const definition *d)
{
    check_policy p = check_policy_default();
    const double from_def[3] = {d->check.atol, d->check.rtol, d->check.matched_ratio};
    const double from_user[3] = {a->check.atol, a->check.rtol, a->check.required_ratio};
    double *field[3] = {&p.atol, &p.rtol, &p.required_ratio};
    for (int i = 0; i < 3; i++) {
        if (!isnan(from_def[i]))
            *field[i] = from_def[i];
        if (!isnan(from_user[i]))
            *field[i] = from_user[i];
    }
    return p;
}

/* The timing policy of DEVICE: stop by precision (the median's 95 % CI within +-0.5 %, a
 * paired verdict decided) after 20 samples on a GPU with cold L2, at most 5 s; a lighter one
 * on the CPU (protocol_job_defaults); options override. The check policy: check_for(). */
static void set_policy(const eval_args *a, const definition *d, const char *device, runner_job *job)
{
    job->check = check_for(a, d);
    if (strncmp(device, "cuda", 4) == 0) {
        job->timing = (timing_policy){0.02, 20, 0.0, 5.0, 0, 1, 0, 0.005, 0};
        job->reference_timing = (timing_policy){0.0, 5, 0.0, 0.5, 0, 1, 0, 0.02, 0};
    }
    /* The torch reference runs in another process: a GPU timer here would see only its copies
     * (and its stream synchronization would wait out the timer's hold), so it is not timed. */
    if (strncmp(device, "cuda", 4) == 0 && a->reference && strcmp(a->reference, "torch") == 0)
        job->reference_timing.min_samples = 0;
    if (a->max_time_s >= 0)
        job->timing.max_time_s = a->max_time_s;
    if (a->min_time_s >= 0)
        job->timing.min_time_s = a->min_time_s;
    if (a->precision >= 0)
        job->timing.ci_target = a->precision;
    job->timing.ci_iid = getenv("KWB_CI_IID") != NULL; /* for benchmarks that compare the two rules */
    if (a->hot || a->graph > 0)                        /* a replay's calls after the first find warm caches anyway */
        job->timing.cold = job->reference_timing.cold = 0;
    job->timing.graph = a->graph;
    job->trials = a->trials;
    job->seed = (uint64_t)a->seed;
    job->no_defences = a->no_defences;
    job->sandbox_off = a->sandbox_off;
}

/* Says once how long a workload may take, and when the sandbox is off. */
static void print_limits(const eval_args *a, const runner_job *job)
{
    if (a->sandbox_off)
        fprintf(stderr, "kwb eval: sandbox off (--sandbox off): candidate code runs with all of this user's rights\n");
    if (a->quiet)
        return;
    if (a->timeout_s > 0)
        fprintf(stderr, "kwb eval: timeout per workload: %.3g s (--timeout)\n", a->timeout_s);
    else
        fprintf(stderr,
                "kwb eval: timeout per workload: the larger of 10 s and 50x the reference's time for its calls "
                "(one reference call timed before each workload), plus %.3g s of timing; e.g. %.3g s for a "
                "1 ms reference (--timeout S fixes it)\n",
                runclient_timeout_for(job, 0) - 10, runclient_timeout_for(job, 1.0));
}

/* Says the timing policy in force (unless quiet) and records it with the eval run (WORDS
 * holds it while REC lives). */
static void announce_policy(const eval_args *a, const definition *d, eval_recorder *rec, char *words, size_t cap)
{
    runner_job job;
    protocol_job_defaults(&job);
    const char *dev = a->devices ? (strcmp(a->devices, "all") == 0 ? "cuda" : a->devices) : a->device;
    set_policy(a, d, dev, &job);
    timing_policy_describe(&job.timing, words, cap);
    if (!a->quiet)
        fprintf(stderr, "kwb eval: timing: %s\n", words);
    if (rec)
        rec->policy = words;
}

/* The devices to spread over: --devices all (every GPU the runner sees), a comma list,
 * or the single --device, each checked against what the runner sees when it is a GPU.
 * Returns the count; names are malloc'd into *out. */
static int resolve_devices(const eval_args *a, const char *runner, char ***out, kwb_error *err)
{
    char **names = NULL, **seen = NULL;
    int n = 0, nseen = 0;
    const char *list = a->devices ? a->devices : a->device;
    if (strstr(list, "cuda") || strcmp(list, "all") == 0) {
        nseen = devlist_runner(runner, &seen, err);
        if (nseen < 0)
            return -1;
    }
    if (strcmp(list, "all") == 0) {
        for (int k = 0; k < nseen; k++)
            if (strncmp(seen[k], "cuda:", 5) == 0) {
                names = xrealloc(names, sizeof *names * (size_t)(n + 1));
                names[n++] = xstrdup(seen[k]);
            }
        if (n == 0)
            kwb_error_set(err, "--devices all: the runner sees no GPU");
    } else {
        char *copy = xstrdup(list), *save = NULL;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            names = xrealloc(names, sizeof *names * (size_t)(n + 1));
            names[n++] = xstrdup(tok);
        }
        free(copy);
    }
    int rc = n > 0 && devlist_usable(names, n, seen, nseen, err) == 0 ? n : -1;
    for (int k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    if (rc < 0) {
        for (int k = 0; k < n; k++)
            free(names[k]);
        free(names);
        return -1;
    }
    *out = names;
    return n;
}

typedef struct eval_outcome {
    json_t *environment;     /* the traces' environment, from the first runner's hello */
    char *solution_name;     /* the candidate's name, as traces name it */
    char policy[512];        /* the timing policy in words */
    const char *input_check; /* how inputs are seen unchanged after a call, from the first hello */
} eval_outcome;

/* Says once when the runner could not apply all of its sandbox or supervision here. */
static void note_degraded(json_t *hello, int quiet)
{
    const char *sandbox = json_string_value(json_object_get(hello, "sandbox"));
    const char *lifetime = json_string_value(json_object_get(hello, "lifetime"));
    if (sandbox && strstr(sandbox, "left out"))
        fprintf(stderr, "kwb eval: sandbox: %s\n", sandbox);
    if (!quiet && lifetime && strstr(lifetime, "no PID namespace"))
        fprintf(stderr, "kwb eval: runner supervision: %s\n", lifetime);
}

/* How the runner of HELLO sees inputs unchanged after a call: by the GPU's digest kernel (it
 * agreed with the host's formula when the device opened), by reading them back (it did not),
 * or by the digest computed in host memory (the cpu device). */
static const char *input_check_name(const json_t *hello)
{
    const json_t *g = json_object_get(hello, "input_digest");
    if (!g)
        return "host-digest";
    return json_is_true(g) ? "gpu-digest" : "read-back";
}

static void note_hello(eval_outcome *o, json_t *hello, const char *device)
{
    if (!o->environment)
        o->environment = trace_environment(hello, device);
    if (!o->input_check && hello)
        o->input_check = input_check_name(hello);
}

/* Where the workers run: DEVICES on this host (local), or the executor's workers, each
 * with its device. Returns the count; names, labels and transports into the arrays. */
static int resolve_workers(const eval_args *a, executor *ex, const char *runner, char ***names,
                           executor_worker **workers, kwb_error *err)
{
    if (ex->kind == EXECUTOR_LOCAL)
        return resolve_devices(a, runner, names, err);
    if (executor_start(ex, err) != 0)
        return -1;
    int n;
    *workers = executor_workers(ex, runner, a->device, &n);
    *names = xcalloc((size_t)n + 1, sizeof **names);
    for (int k = 0; k < n; k++) {
        (*names)[k] = xstrdup((*workers)[k].device);
        fprintf(stderr, "kwb: worker %d: %s on %s\n", k + 1, (*workers)[k].device, (*workers)[k].where);
    }
    return n;
}

static int run_devices(const eval_args *a, const definition *d, workload_set *set, wl_result *res, job_solution *sols,
                       int nsols, job_solution reference, eval_recorder *rec, eval_outcome *out, kwb_error *err)
{
    executor ex;
    if (executor_parse(executor_spec(a->executor), &ex, err) != 0)
        return -1;
    char *runner = paths_runner(), **names = NULL;
    executor_worker *workers = NULL;
    int ndev = resolve_workers(a, &ex, runner, &names, &workers, err);
    if (ndev < 0) {
        executor_stop(&ex);
        free(runner);
        return -1;
    }
    if (ndev > set->count && !workers)
        ndev = set->count;
    runner_job *jobs = xcalloc((size_t)ndev, sizeof *jobs);
    runclient *clients = xcalloc((size_t)ndev, sizeof *clients), **cp = xcalloc((size_t)ndev, sizeof *cp);
    char **where = xcalloc((size_t)ndev + 1, sizeof *where);
    progress_state prog = {PTHREAD_MUTEX_INITIALIZER, {0}, rec, 0, 0};
    const char *stop_after = getenv("KWB_STOP_AFTER");
    if (stop_after && atof(stop_after) > 0)
        prog.stop_at = proc_now() + atof(stop_after);
    char *def_path = abs_path(d->path), *root = abs_path(a->dataset), *cache = paths_cache_dir();
    sweep_progress_start(&prog.show, stderr, a->quiet, d, set->count);
    for (int k = 0; k < ndev; k++) {
        runner_job *job = &jobs[k];
        protocol_job_defaults(job);
        job->device = names[k];
        job->definition_path = def_path;
        job->dataset_root = root;
        job->cache_dir = cache;
        for (int s = 0; s < nsols; s++)
            job->solutions[job->nsolutions++] = sols[s];
        job->reference = reference;
        set_policy(a, d, names[k], job);
        clients[k] =
            (runclient){.runner_path = runner, .timeout_s = a->timeout_s, .job = job, .keep_going = a->keep_going};
        if (k == 0)
            print_limits(a, job);
        clients[k].progress = progress;
        clients[k].progress_ctx = &prog;
        clients[k].stop = &prog.stop;
        clients[k].remote = workers ? &workers[k].remote : NULL;
        where[k] = workers ? workers[k].where : names[k];
        cp[k] = &clients[k];
    }
    int rc = dispatch_run(cp, where, ndev, set, res, err);
    sweep_progress_end(&prog.show);
    if (prog.stop && prog.stop_at > 0 && !(rec && rec->failed))
        fprintf(stderr, "kwb eval: stopped after KWB_STOP_AFTER=%s s: the workloads not finished are \"not run\"\n",
                stop_after);
    for (int k = 0; k < ndev; k++) {
        if (k == 0)
            note_degraded(clients[k].hello, a->quiet);
        if (!clients[k].remote || !clients[k].remote->lost)
            note_hello(out, clients[k].hello, names[k]);
        runclient_free(&clients[k]);
    }
    for (int k = 0; k < ndev; k++)
        free(names[k]);
    executor_workers_free(workers, ndev);
    executor_stop(&ex);
    free(names);
    free(jobs);
    free(clients);
    free(cp);
    free(where);
    free(def_path);
    free(root);
    free(cache);
    free(runner);
    return rc;
}

/* The static scan of SOL's sources: each finding on stderr as FILE:LINE; returns the count and,
 * when there is one, the first as *first (the caller frees it). */
static int scan_solution(const solution *sol, int quiet, char **first)
{
    scan_report rep = {0};
    for (int i = 0; i < sol->nsources; i++) {
        char *name = xasprintf("%s/%s", sol->dir, sol->sources[i].path);
        scan_text(name, sol->sources[i].content ? sol->sources[i].content : "", &rep);
        free(name);
    }
    for (int i = 0; i < rep.n && !quiet; i++)
        fprintf(stderr, "kwb eval: scan: %s:%d: %s: %s\n", rep.items[i].file, rep.items[i].line, rep.items[i].rule,
                rep.items[i].text);
    *first = rep.n ? xasprintf("%s:%d: %s: %s%s", rep.items[0].file, rep.items[0].line, rep.items[0].rule,
                               rep.items[0].text, rep.n > 1 ? " (and more: see the scan's findings)" : "")
                   : NULL;
    int n = rep.n;
    scan_report_free(&rep);
    return n;
}

/* Every workload gets REJECTED_INTEGRITY: the scan blocked the candidate (--scan block). */
static void mark_scan_blocked(wl_result *res, const workload_set *set, const char *finding)
{
    char *msg = xasprintf("static scan (--scan block): %s", finding);
    for (int i = 0; i < set->count; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].wl = &set->items[i];
        results_set_status(&res[i], ST_REJECTED_INTEGRITY, msg);
    }
    free(msg);
}

/* The options of A and the planned workloads of SET as JSON text (paths absolute), for --resume. */
static char *options_text(const eval_args *a, const workload_set *set)
{
    eval_args abs = *a;
    char *dataset = abs_path(a->dataset), *baseline = a->baseline_dir ? abs_path(a->baseline_dir) : NULL;
    abs.dataset = dataset;
    abs.baseline_dir = baseline;
    json_t *o = evalopts_encode(&abs, eval_fields, N_EVAL_FIELDS), *planned = json_array();
    for (int i = 0; i < set->count; i++)
        json_array_append_new(planned, json_string(set->items[i].uuid));
    json_object_set_new(o, "planned", planned);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    free(dataset);
    free(baseline);
    return text;
}

/* Records the candidate (archive, round, build) and starts its eval run. */
static int record_start(const eval_args *a, eval_recorder *rec, const solution *sol, const build_result *br,
                        const workload_set *set, int n, kwb_error *err)
{
    if (!rec)
        return 0;
    if (a->candidate
            ? evalrec_existing(rec, a->candidate, br, err) != 0
            : !a->resume && evalrec_candidate(rec, sol, a->parent, a->name, a->origin, a->direction, br, err) != 0)
        return -1;
    if (a->resume)
        return 0;
    char *options = options_text(a, set);
    int rc = evalrec_begin(rec, a->device, n, options, err);
    free(options);
    return rc;
}

/* With KWB_PHASE_TIMES set: "kwb eval: phase WHAT EDGE T" on stderr, T in seconds since the
 * first note, so that a test can see which steps overlap. */
static void phase_note(const char *what, const char *edge)
{
    static double t0;
    if (!getenv("KWB_PHASE_TIMES"))
        return;
    double now = proc_now();
    if (t0 == 0)
        t0 = now;
    fprintf(stderr, "kwb eval: phase %s %s %.3f\n", what, edge, now - t0);
}

/* A solution built in a thread of its own, started before the reference's preflight, so that
 * compiling overlaps that run (and the candidate's build the baseline's); run_eval takes the
 * result and only then says how it went, so that a dataset the checks refuse shows no build. */
typedef struct bg_build {
    pthread_t thread;
    int started;
    const char *what; /* "candidate" or "baseline", for phase_note */
    const char *dir, *def_name;
    const definition *def; /* for the include folders its solutions may use */
    int quiet;
    solution *sol;
    build_result br;
    kwb_error err;
    int rc;
} bg_build;

static void *bg_build_main(void *p)
{
    bg_build *b = p;
    build_options bo;
    build_options_default(&bo);
    bo.quiet = b->quiet;
    if (b->def)
        refsel_includes(b->def, &bo); /* the headers the definition's solutions may include */
    char what[32];
    snprintf(what, sizeof what, "%s-build", b->what);
    phase_note(what, "start");
    b->rc = prepare_silently(b->dir, b->def_name, &bo, &b->sol, &b->br, &b->err); /* said when taken */
    phase_note(what, "end");
    refsel_includes_free(&bo);
    build_options_free(&bo);
    return NULL;
}

static void bg_build_start(bg_build *b, const char *what, const char *dir, const definition *d, int quiet)
{
    memset(b, 0, sizeof *b);
    if (!dir)
        return;
    b->what = what, b->dir = dir, b->def_name = d->name, b->def = d, b->quiet = quiet;
    b->started = pthread_create(&b->thread, NULL, bg_build_main, b) == 0;
}

/* Waits for B's build (or builds it here when its thread could not start); its solution and result
 * move to *SOL and *BR (the caller frees them). Returns what cmd_eval_prepare_solution returned (1
 * built, 0 COMPILE_ERROR, -1 with *err set). */
static int bg_build_join(bg_build *b, solution **sol, build_result *br, kwb_error *err)
{
    if (b->started)
        pthread_join(b->thread, NULL);
    else
        bg_build_main(b); /* no thread could be made: built here */
    b->started = 0;
    b->dir = NULL;
    *sol = b->sol;
    *br = b->br;
    if (b->rc < 0)
        *err = b->err;
    return b->rc;
}

/* Waits for B's build, if one runs, and drops it (the evaluation stopped before it ran). */
static void bg_build_drop(bg_build *b)
{
    if (!b->started)
        return;
    solution *sol;
    build_result br;
    kwb_error err;
    bg_build_join(b, &sol, &br, &err);
    solution_free(sol);
    build_result_free(&br);
}

/* The candidate's and the baseline's builds, started by bg_build_start (their threads joined here). */
static int run_eval(const eval_args *a, bg_build *cand, bg_build *baseline, const definition *d, workload_set *set,
                    const refsel *ref, wl_result *res, eval_recorder *rec, eval_outcome *out, kwb_error *err)
{
    solution *sol = NULL, *base = NULL;
    build_result br = {0}, bbr = {0};
    int rc = bg_build_join(cand, &sol, &br, err);
    if (rc >= 0)
        say_build("eval", sol, &br, a->quiet);
    if (sol && !out->solution_name)
        out->solution_name = xstrdup(sol->name);
    if (rc == 1 && baseline->dir) {
        int brc = bg_build_join(baseline, &base, &bbr, err);
        if (brc >= 0)
            say_build("eval", base, &bbr, a->quiet);
        rc = brc == 1 ? 1 : -1;
    }
    bg_build_drop(baseline);
    announce_policy(a, d, rec, out->policy, sizeof out->policy);
    if (rc >= 0 && record_start(a, rec, sol, &br, set, set->count, err) != 0)
        rc = -1;
    char *finding = NULL;
    int findings = rc >= 0 && a->scan != SCAN_OFF ? scan_solution(sol, a->quiet, &finding) : 0;
    if (findings && !a->quiet)
        fprintf(stderr, "kwb eval: scan: %d finding(s) in %s%s\n", findings, sol->name,
                a->scan == SCAN_BLOCK ? ": blocked (--scan block)" : " (--scan block would reject it)");
    if (rc == 1 && findings && a->scan == SCAN_BLOCK) {
        mark_scan_blocked(res, set, finding);
        for (int i = 0; rec && i < set->count; i++)
            evalrec_record(rec, &res[i]);
        rc = 2;
    }
    free(finding);
    if (rc == 0) {
        mark_compile_error(res, set, &br, sol->name);
        for (int i = 0; rec && i < set->count; i++)
            evalrec_record(rec, &res[i]);
    } else if (rc == 1) {
        job_solution sols[2] = {job_entry("candidate", sol, &br)};
        if (base)
            sols[1] = job_entry("baseline", base, &bbr);
        phase_note("sweep", "start");
        rc = run_devices(a, d, set, res, sols, base ? 2 : 1, refsel_job_entry(ref), rec, out, err) == 0 ? 1 : -1;
        phase_note("sweep", "end");
    }
    if (rc == 1 && base && !bbr.ok)
        rc = -1;
    if (rc == 2)
        rc = 1;
    solution_free(sol);
    solution_free(base);
    build_result_free(&br);
    build_result_free(&bbr);
    return rc < 0 ? -1 : 0;
}

/* For --resume: opens the session and finds its newest interrupted eval run, whose recorded
 * options replace A's (*recorded holds their strings; the caller frees it). */
/* evalrec_open, and says what it removed from the archive. */
static int open_recorder(eval_recorder *rec, const char *ws, const char *session, const char *def, kwb_error *err)
{
    if (evalrec_open(rec, ws, session, def, err) != 0)
        return -1;
    if (rec->pruned)
        fprintf(stderr,
                "kwb eval: session %s: %d archived candidate(s) the store never recorded removed from the "
                "archive\n",
                session, rec->pruned);
    return 0;
}

static int resume_options(eval_args *a, eval_recorder *rec, json_t **recorded, kwb_error *err)
{
    char *text = NULL;
    *recorded = NULL;
    if (open_recorder(rec, a->workspace, a->session, a->definition, err) != 0)
        return -1;
    if (evalrec_resume_find(rec, &text, err) != 0) {
        evalrec_close(rec);
        return -1;
    }
    if (!a->definition)
        a->definition = rec->definition;
    if (!text) /* recorded before schema version 3: the command line's options */
        return 0;
    json_error_t je;
    eval_args given = *a, defaults = eval_defaults();
    *recorded = json_loads(text, 0, &je);
    free(text);
    int rc = *recorded ? evalopts_apply(a, eval_fields, N_EVAL_FIELDS, *recorded, err)
                       : kwb_error_set(err, "the interrupted run's recorded options: %s", je.text);
    if (rc == 0)
        evalopts_note_overridden("kwb eval: --resume:", &given, &defaults, a, eval_fields, N_EVAL_FIELDS);
    else
        evalrec_close(rec);
    return rc;
}

/* For --candidate without --definition or --solution: the session's definition and the
 * candidate's folder (*dir: its archived commit checked out when the folder is gone); REC is
 * then open. Returns 0, or -1 with *err set and nothing open. */
static int candidate_defaults(eval_args *a, eval_recorder *rec, char **dir, kwb_error *err)
{
    if (open_recorder(rec, a->workspace, a->session, a->definition, err) != 0)
        return -1;
    if (!a->definition)
        a->definition = rec->definition;
    store_candidate c = {0};
    if (!a->solution_dir && (wsopen_candidate(&rec->h, rec->session, a->candidate, &c, err) != 0 ||
                             !(*dir = wsopen_candidate_folder(&rec->h, rec->session_name, &c, err)))) {
        store_candidate_free(&c);
        evalrec_close(rec);
        return -1;
    }
    store_candidate_free(&c);
    if (!a->solution_dir)
        a->solution_dir = *dir;
    return 0;
}

/* Whether UUID is in the JSON array of strings LIST. */
static int listed(json_t *list, const char *uuid)
{
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v) if (json_is_string(v) && strcmp(json_string_value(v), uuid) == 0) return 1;
    return 0;
}

/* For --resume: the interrupted run's candidate in *dir, and SET cut to what it planned (the
 * RECORDED options' "planned" workloads, else the filter) and does not have yet. */
static int resume_only_missing(eval_recorder *rec, const eval_args *a, const definition *d, json_t *recorded,
                               workload_set *set, char **dir, kwb_error *err)
{
    char **done = NULL;
    int ndone = 0;
    if (evalrec_resume(rec, dir, &done, &ndone, err) != 0)
        return -1;
    json_t *planned = json_object_get(recorded, "planned");
    if (!json_is_array(planned) && a->filter)
        workload_set_filter(set, d, a->filter);
    int kept = 0;
    for (int i = 0; i < set->count; i++) {
        int skip = json_is_array(planned) && !listed(planned, set->items[i].uuid);
        for (int k = 0; k < ndone && !skip; k++)
            skip = strcmp(done[k], set->items[i].uuid) == 0;
        if (skip)
            workload_free(&set->items[i]);
        else
            set->items[kept++] = set->items[i];
    }
    set->count = kept;
    if (!a->quiet)
        fprintf(stderr, "kwb eval: resuming: %d workload(s) recorded before, %d to go\n", ndone, kept);
    store_strings_free(done, ndone);
    return 0;
}

/* The definition's held-out workloads, DATASET/heldout/NAME.jsonl, in place of its others:
 * shapes no candidate was shown, evaluated at promotion so that a kernel tuned to the
 * workloads it saw (hard-coded shapes) is caught. */
static int load_held_out(const char *dataset, const definition *d, workload_set *set, kwb_error *err)
{
    workload_set_free(set);
    char *path = traceset_held_out_path(dataset, d->name);
    int rc = access(path, R_OK) == 0 ? workload_load_file(path, d, set, err)
                                     : kwb_error_set(err, "%s: no held-out workloads for %s", path, d->name);
    free(path);
    return rc;
}

/* With --executor slurm:...,batch=yes outside an allocation: the whole eval is submitted with
 * sbatch (the job runs this same command inside its allocation). Returns 1 when submitted; on a
 * failure prints why and exits 2. */
static int submitted_to_sbatch(const eval_args *a, int argc, char **argv)
{
    executor ex;
    kwb_error err = {{0}};
    if (executor_parse(executor_spec(a->executor), &ex, &err) != 0 || !executor_batch(&ex)) {
        executor_stop(&ex);
        return 0;
    }
    int rc = executor_submit(&ex, argc, argv, &err);
    executor_stop(&ex);
    if (rc != 0) {
        fprintf(stderr, "kwb eval: %s\n", err.msg);
        exit(2);
    }
    return 1;
}

/* Every workload of SET checked against D, and D's reference run alone on the smallest, before
 * any candidate is built or run (wlcheck.h, preflight.h). */
/* Nonzero when the workers run elsewhere (--executor ssh or slurm): their devices are theirs, the
 * ones this host sees are not checked, and the reference's preflight (a run here) is skipped. */
static int remote_workers(const eval_args *a)
{
    executor ex;
    kwb_error e = {{0}};
    int remote = executor_parse(executor_spec(a->executor), &ex, &e) == 0 && ex.kind != EXECUTOR_LOCAL;
    executor_stop(&ex);
    return remote;
}

/* The GPUs named by --device or --devices, checked against what the runner sees (devlist.h)
 * before anything runs. */
static int check_devices(const eval_args *a, kwb_error *err)
{
    if (remote_workers(a))
        return 0;
    char *runner = paths_runner(), **names = NULL;
    int n = resolve_devices(a, runner, &names, err);
    for (int k = 0; k < n; k++)
        free(names[k]);
    free(names);
    free(runner);
    return n < 0 ? -1 : 0;
}

/* The reference the evaluation checks against (refsel.h), chosen and built into *REF; then
 * the workloads checked (wlcheck.h) and that reference run alone on the smallest (preflight.h). */
static int check_workloads(const eval_args *a, const definition *d, const workload_set *set, refsel *ref,
                           kwb_error *err)
{
    build_options bo;
    build_options_default(&bo);
    bo.quiet = a->quiet;
    /* --devices cpu,cpu deals to cpu runners: the cpu reference; all or cuda:N, the CUDA one */
    const char *kind = !a->devices ? a->device : strncmp(a->devices, "cpu", 3) == 0 ? "cpu" : "cuda";
    int rc = refsel_prepare(a->reference, d, kind, &bo, ref, err);
    build_options_free(&bo);
    if (rc != 0)
        return -1;
    char *label =
        a->held_out ? traceset_held_out_path(a->dataset, d->name) : traceset_workloads_path(a->dataset, d->name, err);
    rc = label ? wlcheck_set(d, set, a->dataset, label, wlcheck_memory_limit(), err) : -1;
    job_solution entry = refsel_job_entry(ref);
    if (rc == 0 && !remote_workers(a))
        rc = preflight_reference(d, set, a->dataset, label, a->device, &entry, a->timeout_s, err);
    free(label);
    return rc;
}

/* Starts the candidate's build from DIR and the baseline's (when there is one), each in a thread,
 * before the dataset's checks and the reference's preflight run (those stay first in what is said:
 * a build's failure is reported when run_eval takes it). */
static void start_builds(const eval_args *a, const char *dir, const definition *d, bg_build *cand, bg_build *baseline)
{
    bg_build_start(cand, "candidate", dir, d, a->quiet);
    bg_build_start(baseline, "baseline", a->baseline_dir, d, a->quiet);
}

int cmd_eval(int argc, char **argv)
{
    eval_args a;
    if (parse_eval_args(argc, argv, &a) != 0)
        return 2;
    if (a.session && submitted_to_sbatch(&a, argc, argv))
        return 0;
    kwb_error err = {{0}};
    eval_recorder rec_store, *rec = NULL;
    json_t *recorded = NULL;
    if (a.resume && resume_options(&a, &rec_store, &recorded, &err) != 0) {
        fprintf(stderr, "kwb eval: %s\n", err.msg);
        return 2;
    }
    char *candidate_dir = NULL;
    int defaulted = a.candidate && (!a.definition || !a.solution_dir);
    if (defaulted && candidate_defaults(&a, &rec_store, &candidate_dir, &err) != 0) {
        fprintf(stderr, "kwb eval: %s\n", err.msg);
        return 2;
    }
    if (a.resume || defaulted)
        rec = &rec_store;
    char *dataset = a.dataset ? xstrdup(a.dataset) : paths_dataset();
    a.dataset = dataset;
    definition *d = NULL;
    workload_set set = {0};
    if (traceset_load(dataset, a.definition, &d, &set, &err) != 0 ||
        (a.held_out && load_held_out(dataset, d, &set, &err) != 0)) {
        fprintf(stderr, "kwb eval: %s\n", err.msg);
        workload_set_free(&set);
        free(dataset);
        free(candidate_dir);
        if (rec)
            evalrec_close(rec);
        json_decref(recorded);
        return 2;
    }
    int code = 2;
    char *resume_dir = NULL;
    refsel ref = {0};
    bg_build cand = {0}, baseline = {0};
    if (a.session && !rec && open_recorder(&rec_store, a.workspace, a.session, d->name, &err) == 0)
        rec = &rec_store;
    if (rec)
        rec->sandbox_off = a.sandbox_off;
    if (a.session && !rec)
        fprintf(stderr, "kwb eval: %s\n", err.msg);
    else if (a.resume && resume_only_missing(rec, &a, d, recorded, &set, &resume_dir, &err) != 0)
        fprintf(stderr, "kwb eval: %s\n", err.msg);
    else if (a.resume && set.count == 0) {
        /* Killed after its last result but before it closed the run: close it now. */
        code = evalrec_finish(rec, NULL, 0, &err) == 0 ? 0 : 2;
        if (code)
            fprintf(stderr, "kwb eval: %s\n", err.msg);
        else
            fprintf(stderr, "kwb eval: nothing left to run: the evaluation is complete (kwb show lists it)\n");
    } else if (a.filter && workload_set_filter(&set, d, a.filter) == 0)
        fprintf(stderr, "kwb eval: no workload of %s matches '%s'\n", d->name, a.filter);
    else if (set.count == 0)
        fprintf(stderr, "kwb eval: %s has no workloads left to evaluate in %s\n", d->name, dataset);
    else if (check_devices(&a, &err) != 0)
        fprintf(stderr, "kwb eval: %s\n", err.msg);
    else if (start_builds(&a, resume_dir ? resume_dir : a.solution_dir, d, &cand, &baseline),
             phase_note("preflight", "start"), check_workloads(&a, d, &set, &ref, &err) != 0) {
        phase_note("preflight", "end");
        fprintf(stderr, "kwb eval: %s\n", err.msg);
    } else {
        phase_note("preflight", "end");
        wl_result *res = xcalloc((size_t)set.count, sizeof *res);
        eval_outcome out = {0};
        int rc = run_eval(&a, &cand, &baseline, d, &set, &ref, res, rec, &out, &err);
        kwb_error rerr = {{0}}; /* a result not recorded (a full disk): the table still shows what ran */
        int unrecorded = rc == 0 && rec && evalrec_finish(rec, res, set.count, &rerr) != 0;
        if (rc != 0)
            fprintf(stderr, "kwb eval: %s\n", err.msg);
        else {
            if (!out.environment)
                out.environment = trace_environment(NULL, a.device);
            if (a.json)
                results_print_json(stdout, d, res, set.count, out.policy, out.input_check);
            else
                results_print_table(stdout, d, res, set.count);
            results_summary s = results_summarize(res, set.count);
            code = s.by_status[ST_PASSED] == s.total ? 0 : 1;
            if (a.sandbox_off && out.environment) {
                const char *hw = json_string_value(json_object_get(out.environment, "hardware"));
                json_object_set_new(out.environment, "hardware",
                                    json_sprintf("%s (kwb sandbox off)", hw ? hw : a.device));
            }
            if (a.traces && trace_write_file(a.traces, d, out.solution_name ? out.solution_name : a.solution_dir,
                                             out.environment, res, set.count, &err) != 0) {
                fprintf(stderr, "kwb eval: %s\n", err.msg);
                code = 2;
            }
            if (unrecorded) {
                fprintf(stderr, "kwb eval: stopped early: %s\n", rerr.msg);
                code = 2;
            }
        }
        for (int i = 0; i < set.count; i++)
            results_free(&res[i]);
        free(res);
        json_decref(out.environment);
        free(out.solution_name);
    }
    bg_build_drop(&cand); /* joined by run_eval, unless the preflight stopped the evaluation */
    bg_build_drop(&baseline);
    if (rec)
        evalrec_close(rec);
    if (resume_dir)
        paths_remove_tree(resume_dir);
    free(resume_dir);
    free(candidate_dir);
    refsel_free(&ref);
    workload_set_free(&set);
    definition_free(d);
    free(dataset);
    json_decref(recorded);
    return code;
}

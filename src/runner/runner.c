#define _GNU_SOURCE
#include "runner/runner.h"

#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "channel.h"
#include "check.h"
#include "definition.h"
#include "dtype.h"
#include "proc.h"
#include "protocol.h"
#include "rng.h"
#include "roofline.h"
#include "safetensors.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "runner/integrity.h"
#include "runner/relay.h"
#include "owntmp.h"
#include "paths.h"
#include "runner/refcache.h"
#include "runner/lifetime.h"
#include "runner/sandbox.h"
#include "runner/setsize.h"
#include "runner/timing.h"
#include "status.h"
#include "strbuf.h"
#include "verdict.h"
#include "workload.h"
#include "xalloc.h"

typedef int (*entry_fn)(const kwb_arg *args, int nargs, kwb_stream stream);
/* A reference solution's optional exports (kwb/reference.h): its output check, chosen by the
 * definition's "kwb": {"check": {"method": "reference"}}, and its cost values. */
typedef int (*output_check_fn)(const kwb_arg *args, int nargs, const kwb_arg *want, const check_policy *p,
                               check_stats *st, char *msg, size_t cap);
typedef int (*cost_values_fn)(const kwb_arg *inputs, int ninputs, const char *const *names, int n, int64_t *values);

/* Something the runner calls: the reference or a loaded solution. */
typedef struct callee {
    const char *role; /* "reference", "candidate", "baseline" */
    entry_fn fn;
    output_set out;
    eval_status status; /* over the trials of the current workload */
    char message[1024];
    check_stats stats;
    eval_status trial_before; /* status before the trial in flight */
    int called;               /* the trial's call went through: its outputs await the check */
    int on_host;              /* its outputs' host copies are those of its last call */
    uint64_t guard_key;       /* the key of its last call's guard zones */
    int inputs_clean;         /* the trial's call was seen to leave the inputs as they were */
    char interposed[640];     /* why its library is rejected at load (integrity), or "" */
} callee;

typedef struct runner_ctx {
    runner_job job;
    verdict gate; /* paired verdict of the workload in flight */
    int has_gate;
    definition *def;
    device *dev;
    int event_fd;
    void *handles[2];
    void *ref_handle;               /* the job's reference solution, when it names one */
    void *helpers_handle;           /* its helpers (protocol.h), when the job names them */
    const char *(*ref_error)(void); /* its optional kwb_reference_error(): why its last call failed */
    output_check_fn ref_check;      /* its optional kwb_check (kwb/reference.h) */
    cost_values_fn ref_cost;        /* its optional kwb_cost_values */
    callee ref;
    callee sols[2];
    int nsols;
    const workload *wl;
    roofline_peaks peaks; /* measured by the device (none on the cpu) */
    trial_inputs in;
    kwb_arg *args; /* inputs then outputs of the call being made */
    int nargs;
    pid_t pid;                      /* the runner's own (a candidate's fork is not the runner) */
    unsigned long seq;              /* events sent so far (the sealed channel's sequence) */
    int threads0;                   /* the runner's threads once set up: no call may leave more */
    int restart;                    /* the harness failed: stop here, a fresh runner takes the rest */
    int served;                     /* workloads this runner has finished */
    int deferred;                   /* the workload in flight is left to a fresh runner (defer_to_fresh) */
    refcache refs;                  /* the reference's outputs on disk */
    int ref_runs, ref_cached;       /* the workload in flight's trials: reference calls, cache hits */
    int ref_fresh;                  /* reference calls on the timed calls' fresh inputs */
    int input_places;               /* places the timed calls' input sets took (the most of any timing) */
    int audits, quick_audits;       /* checked timed calls, and those passed by their outputs' digests */
    int own_checks, own_spared;     /* calls of the definition's own check, and checks spared by equality */
    int ref_on_device;              /* the reference's device outputs are those of its last answer */
    int device_compares;            /* checks made on the device, the outputs never read back */
    double hook_s[COST_HOOK_PARTS]; /* the workload in flight's integrity hooks: seconds per part (COST_HOOK_*) */
    device_host_profile prof0;      /* the device's host profile when the workload started */
    char sandbox[768];              /* the sandbox in force, in words (the hello's "sandbox") */
    char *own_scratch;              /* the scratch folder this runner made (no "scratch" in the job) */
    int ref_out_seq;                /* ref-out files written so far (each gets a name of its own) */
} runner_ctx;

/* The supervision set up by lifetime_split (the hello's "lifetime"). */
static char lifetime_mode[256] = "no supervisor (kwb-runner run by hand)";

/* Writes all of LINE and a newline to FD; returns 0 or -1. */
static int write_sealed(int fd, char *line)
{
    size_t len = strlen(line);
    line[len++] = '\n';
    for (size_t off = 0; off < len;) {
        ssize_t w = write(fd, line + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

static void emit(runner_ctx *r, json_t *ev)
{
    int rc;
    if (r->job.channel_key) { /* sealed: sequence number and tag (channel.h) */
        char *line = channel_seal(r->job.channel_key, r->seq++, ev);
        if (line)
            line = xrealloc(line, strlen(line) + 2);
        rc = line ? write_sealed(r->event_fd, line) : -1;
        free(line);
    } else
        rc = protocol_write_line(r->event_fd, ev);
    if (rc != 0) {
        /* The parent is gone: nobody is left to report to. */
        json_decref(ev);
        _exit(3);
    }
    json_decref(ev);
}

static void emit_error(runner_ctx *r, const char *message)
{
    json_t *ev = protocol_event_new("error");
    json_object_set_new(ev, "message", json_string(message));
    emit(r, ev);
}

/* Binds the arguments for C and calls it on the device's stream; returns its code, or
 * -1 with *err set when the device failed. */
static int invoke(runner_ctx *r, callee *c, kwb_error *err)
{
    outputs_bind(&c->out, &r->in, r->def, r->wl, r->args);
    sandbox_watch(c != &r->ref);
    int rc = c->fn(r->args, r->nargs, r->dev->ops->stream(r->dev));
    sandbox_watch(0);
    if (r->dev->ops->sync(r->dev, err) != 0)
        return -1;
    if (rc != 0)
        kwb_error_set(err, "%s returned %d", c->role, rc);
    return rc;
}

__attribute__((format(printf, 3, 4))) static void fail(callee *c, eval_status st, const char *fmt, ...)
{
    if (c->status != ST_PASSED)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->message, sizeof c->message, fmt, ap);
    va_end(ap);
    /* A device error that is an integrity finding keeps its words and takes its status. */
    c->status = strstr(c->message, DEVICE_INTEGRITY) ? ST_REJECTED_INTEGRITY : st;
}

static void describe_mismatch(runner_ctx *r, const callee *c, int o, const check_stats *st, char *buf, size_t cap)
{
    const def_tensor *t = &r->def->outputs[o];
    double got = dtype_load(c->out.bufs[o].host, t->dtype, st->first_fail);
    double want = dtype_load(r->ref.out.bufs[o].host, t->dtype, st->first_fail);
    snprintf(buf, cap,
             "output '%s': %zu of %zu elements outside atol %g / rtol %g (first at index %zu: got %.6g, "
             "expected %.6g); matched ratio %.6f < %g%s",
             t->name, st->fails, st->numel, r->job.check.atol, r->job.check.rtol, st->first_fail, got, want,
             st->matched_ratio, r->job.check.required_ratio, st->nonfinite ? "; NaN or a stray infinity" : "");
}

/* The call's arguments with host data: this trial's inputs (the pristine copies, read back
 * now where they were not; only those ONLY marks, the others with NULL data, when ONLY is not
 * NULL), then C's fetched outputs. The caller frees the array; NULL with *err set when the
 * inputs could not be read back. */
static kwb_arg *host_args(runner_ctx *r, const callee *c, const unsigned char *only, kwb_error *err)
{
    if (inputs_host_some(&r->in, r->dev, only, err) != 0)
        return NULL;
    kwb_arg *a = xcalloc((size_t)r->nargs, sizeof *a);
    outputs_bind(&c->out, &r->in, r->def, r->wl, a);
    for (int i = 0; i < r->nargs; i++)
        if (a[i].rank >= 0)
            a[i].data = i >= r->in.n ? c->out.bufs[i - r->in.n].host : !only || only[i] ? r->in.bufs[i].host : NULL;
    return a;
}

/* The length of output T's rows ("order": "any" compares them as multisets): its last
 * dimension in this workload, or all its N elements when it is a scalar. */
static size_t row_length(const runner_ctx *r, const def_tensor *t, size_t n)
{
    int64_t shape[KWB_MAX_RANK];
    workload_shape(r->wl, t, shape);
    return t->rank > 0 ? (size_t)shape[t->rank - 1] : n;
}

/* The tolerance rule under P over output O of C against the reference's, both host copies
 * ("order": "any": rows of the last dimension as multisets). */
static void host_tolerance(runner_ctx *r, callee *c, int o, const check_policy *p, check_stats *st)
{
    const def_tensor *t = &r->def->outputs[o];
    size_t n = c->out.bufs[o].nbytes / dtype_size(t->dtype);
    if (r->def->check.any_order)
        check_tolerance_rows_any_order(c->out.bufs[o].host, r->ref.out.bufs[o].host, t->dtype, n, row_length(r, t, n),
                                       p, st);
    else
        check_tolerance(c->out.bufs[o].host, r->ref.out.bufs[o].host, t->dtype, n, p, st);
}

/* 1 when every fetched output of C is the reference's, bit for bit (row by row as multisets
 * under "order": "any"); STATS then says so. A definition's own check must accept the
 * reference's outputs (in any row order under "any"): such outputs need no inputs read back. */
static int outputs_are_reference(runner_ctx *r, callee *c, check_stats *stats)
{
    check_policy exact = check_policy_exact();
    memset(stats, 0, sizeof *stats);
    for (int o = 0; o < r->def->noutputs; o++) {
        check_stats st;
        host_tolerance(r, c, o, &exact, &st);
        if (st.fails || st.nonfinite)
            return 0;
        check_stats_merge(stats, &st);
    }
    return 1;
}

/* Compares C's fetched outputs with the reference's by the definition's own CHECK (the top-k
 * score equivalence); records a mismatch. Outputs equal to the reference's pass unchecked. */
static void compare_own(runner_ctx *r, callee *c, output_check_fn check, check_stats *trial_stats)
{
    if (outputs_are_reference(r, c, trial_stats)) {
        r->own_spared++;
        check_stats_merge(&c->stats, trial_stats);
        return;
    }
    kwb_error err = {{0}};
    r->own_checks++;
    kwb_arg *got = host_args(r, c, NULL, &err), *want = got ? host_args(r, &r->ref, NULL, &err) : NULL;
    char msg[1024] = "";
    memset(trial_stats, 0, sizeof *trial_stats);
    if (!want)
        fail(c, ST_RUNTIME_ERROR, "harness: the inputs could not be read back for the check: %s", err.msg);
    else if (check(got, r->nargs, want + r->in.n, &r->job.check, trial_stats, msg, sizeof msg) != 0)
        fail(c, ST_INCORRECT_NUMERICAL, "%s", msg[0] ? msg : "the definition's own check failed");
    check_stats_merge(&c->stats, trial_stats);
    free(got);
    free(want);
}

/* Where C's outputs are first compared with the reference's: element by element on the device
 * (it has a comparison and the definition uses the tolerance rule alone), row multisets on the
 * device ("order": "any": equal to the reference's bit for bit and finite, or left to the host's
 * check), or read back and on the host. */
typedef enum compare_site { COMPARE_HOST, COMPARE_DEVICE, COMPARE_DEVICE_ROWS } compare_site;

static compare_site compare_site_of(const runner_ctx *r)
{
    if (r->def->check.any_order)
        return r->dev->ops->rows_equal ? COMPARE_DEVICE_ROWS : COMPARE_HOST;
    return r->dev->ops->compare && !r->def->check.by_reference ? COMPARE_DEVICE : COMPARE_HOST;
}

/* The reference's answer (its host copies) into its device outputs, unless they hold it. */
static int reference_to_device(runner_ctx *r, kwb_error *err)
{
    for (int o = 0; !r->ref_on_device && o < r->ref.out.n; o++) {
        tensor_buf *b = &r->ref.out.bufs[o];
        if (b->nbytes && r->dev->ops->upload(r->dev, b->dev + INPUTS_GUARD, b->host, b->nbytes, err) != 0)
            return -1;
    }
    r->ref_on_device = 1;
    return 0;
}

/* C's outputs against the reference's, both on the device (compare_site_of says how): 0 when
 * every output passes (*TRIAL_STATS its account, merged into C's), 1 when one does not or cannot
 * be compared there (the host's check then says what and where), -1 with *err set. Rows equal to
 * the reference's pass with the account of an exact match, as on the host (outputs_are_reference). */
static int compare_on_device(runner_ctx *r, callee *c, compare_site site, check_stats *trial_stats, kwb_error *err)
{
    memset(trial_stats, 0, sizeof *trial_stats);
    if (reference_to_device(r, err) != 0)
        return -1;
    for (int o = 0; o < r->def->noutputs; o++) {
        const def_tensor *t = &r->def->outputs[o];
        const tensor_buf *b = &c->out.bufs[o];
        const void *out = b->dev + INPUTS_GUARD, *ref = r->ref.out.bufs[o].dev + INPUTS_GUARD;
        size_t n = b->nbytes / dtype_size(t->dtype);
        check_stats st = {.numel = n, .matched_ratio = 1.0};
        int rc;
        if (site == COMPARE_DEVICE_ROWS)
            rc = r->dev->ops->rows_equal(r->dev, out, ref, t->dtype, n, row_length(r, t, n), err);
        else
            rc = r->dev->ops->compare(r->dev, out, ref, t->dtype, n, &r->job.check, &st, err);
        if (rc != 0)
            return rc;
        check_stats_merge(trial_stats, &st);
    }
    check_stats_merge(&c->stats, trial_stats);
    r->device_compares++;
    if (site == COMPARE_DEVICE_ROWS && r->def->check.by_reference)
        r->own_spared++;
    return 0;
}

/* Compares C's fetched outputs with the reference's; records a mismatch. */
static void compare_outputs(runner_ctx *r, callee *c, check_stats *trial_stats)
{
    memset(trial_stats, 0, sizeof *trial_stats);
    if (r->def->check.by_reference) {
        compare_own(r, c, r->ref_check, trial_stats);
        return;
    }
    for (int o = 0; o < r->def->noutputs; o++) {
        check_stats st;
        host_tolerance(r, c, o, &r->job.check, &st);
        check_stats_merge(trial_stats, &st);
        if (!check_passed(&st, &r->job.check) && c->status == ST_PASSED) {
            char msg[1024];
            describe_mismatch(r, c, o, &st, msg, sizeof msg);
            fail(c, ST_INCORRECT_NUMERICAL, "%s", msg);
        }
    }
    check_stats_merge(&c->stats, trial_stats);
}

/* Checks C's guard zones under KEY after a call; its outputs are read back too when NEED_HOST or
 * when they will not be compared on the device. Returns as outputs_fetch. */
static int check_guards(runner_ctx *r, callee *c, uint64_t key, int need_host, int *which, long long *off,
                        kwb_error *err)
{
    c->guard_key = key;
    c->on_host = need_host || compare_site_of(r) == COMPARE_HOST;
    return outputs_check_guards(&c->out, r->dev, key, c->on_host, which, off, err);
}

/* Reads C's outputs back when their host copies are not those of its last call (guards checked
 * again under its key; a change there since is REJECTED_INTEGRITY). Returns 0, or -1 with *err. */
static int outputs_to_host(runner_ctx *r, callee *c, kwb_error *err)
{
    if (c->on_host)
        return 0;
    int which = 0;
    long long off = 0;
    int g = outputs_fetch(&c->out, r->dev, c->guard_key, &which, &off, err);
    if (g > 0)
        fail(c, ST_REJECTED_INTEGRITY, "output '%s' changed outside its bytes (byte %lld) after the call returned",
             r->def->outputs[which].name, off);
    c->on_host = g == 0;
    return g < 0 ? -1 : 0;
}

/* Checks C's outputs against the reference's: on the device where compare_site_of says; else, or
 * when the device finds a mismatch (to say what and where), read back and on the host. Returns 0,
 * or -1 with *err set. */
static int check_outputs(runner_ctx *r, callee *c, check_stats *st, kwb_error *err)
{
    compare_site site = compare_site_of(r);
    int rc = site != COMPARE_HOST ? compare_on_device(r, c, site, st, err) : 1;
    if (rc > 0 && (outputs_to_host(r, c, err) != 0 || outputs_to_host(r, &r->ref, err) != 0))
        rc = -1;
    if (rc < 0)
        return -1;
    if (rc > 0)
        compare_outputs(r, c, st);
    return 0;
}

static uint64_t poison_key(runner_ctx *r, int trial, int who)
{
    return rng_key(r->job.seed ^ 0x706f69736f6eULL, r->wl->uuid, trial, 100 + who);
}

/* Calls solution C on this trial's inputs and checks what the call did: its return, what it
 * left running, its guard zones, its inputs. Its outputs are compared later
 * (finish_check), once the reference has run on the pristine inputs: the answer does not
 * exist while the candidate runs. */
static void call_solution(runner_ctx *r, callee *c, int who, int trial)
{
    kwb_error err = {{0}};
    uint64_t key = poison_key(r, trial, who);
    int which = 0;
    long long off = 0;
    const char *changed = NULL;
    char why[512];
    c->trial_before = c->status;
    c->called = c->inputs_clean = 0;
    int threads = r->job.no_defences ? -1 : r->threads0;
    int rc = outputs_poison(&c->out, r->dev, key, &err) == 0 ? invoke(r, c, &err) : -1;
    if (sandbox_refused(why, sizeof why))
        fail(c, ST_REJECTED_INTEGRITY, "%s", why);
    if (rc != 0)
        fail(c, ST_RUNTIME_ERROR, "%s", err.msg);
    else if (integrity_after_call(threads, r->pid, why, sizeof why)) {
        fail(c, ST_REJECTED_INTEGRITY, "%s", why);
        lifetime_kill_strays();
    } else {
        int g = check_guards(r, c, key, 0, &which, &off, &err);
        if (g < 0)
            fail(c, ST_RUNTIME_ERROR, "%s", err.msg);
        else if (g > 0)
            fail(c, ST_INCORRECT_SHAPE,
                 "output '%s': wrote at byte %lld, outside its %zu bytes: the kernel assumes another shape",
                 r->def->outputs[which].name, off, c->out.bufs[which].nbytes);
        else if (inputs_changed(&r->in, r->dev, &changed, &err) > 0)
            fail(c, ST_REJECTED_INTEGRITY, "modified input '%s' (inputs are read-only)", changed);
        else
            c->called = c->inputs_clean = 1;
    }
}

/* Compares C's outputs of this trial with the reference's and reports the trial. */
static void finish_check(runner_ctx *r, callee *c, int trial)
{
    check_stats st = {0};
    eval_status before = c->trial_before;
    kwb_error err = {{0}};
    if (c->called && check_outputs(r, c, &st, &err) != 0)
        fail(c, ST_RUNTIME_ERROR, "harness: the outputs could not be checked: %s", err.msg);
    c->called = 0;
    json_t *ev = protocol_event_new("check");
    json_object_set_new(ev, "uuid", json_string(r->wl->uuid));
    json_object_set_new(ev, "role", json_string(c->role));
    json_object_set_new(ev, "trial", json_integer(trial));
    json_object_set_new(ev, "status", json_string(status_name(before != ST_PASSED ? before : c->status)));
    json_object_set_new(ev, "max_abs", protocol_real(st.max_abs));
    json_object_set_new(ev, "max_rel", protocol_real(st.max_rel));
    json_object_set_new(ev, "matched_ratio", json_real(st.numel ? st.matched_ratio : 0.0));
    if (c->status != ST_PASSED)
        json_object_set_new(ev, "message", json_string(c->message));
    emit(r, ev);
}

/* How long the runner waits for kwb's answer to a ref-want (kwb answers at once; a kwb that does
 * not is treated as a miss, and no more is asked). */
#define REF_REPLY_WAIT_MS 60000

/* One line of kwb's answer on the job's ref_fd into LINE (no newline). Returns 0, or -1. */
static int read_reply(int fd, char *line, size_t cap)
{
    size_t n = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int pr = poll(&p, 1, REF_REPLY_WAIT_MS);
        if (pr < 0 && errno == EINTR)
            continue;
        char c;
        ssize_t got = pr > 0 ? read(fd, &c, 1) : -1;
        if (got < 0 && errno == EINTR)
            continue;
        if (got != 1 || n + 1 >= cap)
            return -1;
        if (c == '\n')
            break;
        line[n++] = c;
    }
    line[n] = '\0';
    return 0;
}

static const char *scratch_dir(const runner_ctx *r)
{
    return r->job.scratch ? r->job.scratch : r->own_scratch;
}

/* The reference's outputs of TRIAL from the cache kwb serves (the job's ref_fd; the runner
 * itself cannot reach the cache under the sandbox): asked for after the candidate's call, like
 * computing them; kwb copies the file into the scratch folder and answers with its SHA-256,
 * checked here before the file is read (whatever else writes there cannot slip an answer in).
 * Returns 1 when the outputs were filled. */
static int served_load(runner_ctx *r, int trial)
{
    json_t *ev = protocol_event_new("ref-want");
    json_object_set_new(ev, "trial", json_integer(trial));
    emit(r, ev);
    char line[128], hex[65];
    if (read_reply(r->job.ref_fd, line, sizeof line) != 0) {
        r->job.ref_fd = 0; /* no answer: compute from now on */
        return 0;
    }
    if (strncmp(line, "hit ", 4) != 0)
        return 0;
    char *path = xasprintf("%s/ref-in.bin", scratch_dir(r));
    int ok = refcache_file_sha256(path, hex) == 0 && strcmp(hex, line + 4) == 0 && refcache_read(path, &r->ref.out);
    unlink(path);
    free(path);
    return ok;
}

/* Hands kwb the reference's outputs of TRIAL, computed in COMPUTE_S seconds, to keep when they
 * are worth it: a file in the scratch folder and a ref-out event with its SHA-256. */
static void served_store(runner_ctx *r, int trial, double compute_s)
{
    if (!refcache_worth(&r->refs, &r->ref.out, compute_s))
        return;
    char *name = xasprintf("ref-out-%d.bin", ++r->ref_out_seq), *path = xasprintf("%s/%s", scratch_dir(r), name);
    char hex[65];
    if (refcache_write(path, &r->ref.out, hex) == 0) {
        json_t *ev = protocol_event_new("ref-out");
        json_object_set_new(ev, "trial", json_integer(trial));
        json_object_set_new(ev, "file", json_string(name));
        json_object_set_new(ev, "sha256", json_string(hex));
        emit(r, ev);
    }
    free(name);
    free(path);
}

/* Trials from here on (the timed calls' fresh inputs) are many and seen once: their reference
 * outputs are not cached. */
enum { FIRST_UNCACHED_TRIAL = 1000 };

/* The reference's outputs of this trial's inputs in its outputs' host copies: from the cache
 * when it has them (served by kwb, or the runner's own cache folder when nobody serves it), else
 * computed on the device (and cached when worth it). */
static int run_reference(runner_ctx *r, int trial, kwb_error *err)
{
    int served = trial < FIRST_UNCACHED_TRIAL && r->job.ref_fd > 0 && scratch_dir(r);
    char *path = trial < FIRST_UNCACHED_TRIAL && !served
                     ? refcache_path(&r->refs, r->def->name, r->wl, r->job.seed, trial)
                     : NULL;
    r->ref_on_device = 0;
    if (served ? served_load(r, trial) : path && refcache_load(&r->refs, path, &r->ref.out)) {
        r->ref.on_host = 1;
        r->ref_cached++;
        free(path);
        return 0;
    }
    uint64_t key = poison_key(r, trial, 0);
    int which;
    long long off;
    double t0 = proc_now();
    if (trial < FIRST_UNCACHED_TRIAL)
        r->ref_runs++;
    else
        r->ref_fresh++;
    if (outputs_poison(&r->ref.out, r->dev, key, err) != 0) {
        free(path);
        return -1;
    }
    if (invoke(r, &r->ref, err) != 0) {
        const char *why = r->ref_error ? r->ref_error() : NULL;
        if (why && *why)
            kwb_error_set(err, "%s", why);
        free(path);
        return -1;
    }
    /* a fresh answer compared on the device is read back only when a check on the host needs it */
    int g = check_guards(r, &r->ref, key, trial < FIRST_UNCACHED_TRIAL, &which, &off, err);
    r->ref_on_device = g == 0;
    if (g == 0 && served)
        served_store(r, trial, proc_now() - t0);
    else if (g == 0)
        refcache_store(&r->refs, path, &r->ref.out, proc_now() - t0);
    free(path);
    if (g > 0)
        return kwb_error_set(err, "the reference wrote outside output '%s'", r->def->outputs[which].name);
    return g;
}

/* Makes the inputs of TRIAL and runs the reference on them. */
static int inputs_and_reference(runner_ctx *r, int trial, kwb_error *err)
{
    if (inputs_make(&r->in, r->dev, r->def, r->wl, r->job.dataset_root, r->job.seed, trial, err) != 0)
        return -1;
    if (run_reference(r, trial, err) != 0) {
        kwb_error_prefix(err, "reference");
        return -1;
    }
    return 0;
}

/* Puts the pristine copies of the inputs back when a call changed them. */
static void restore_inputs(runner_ctx *r, kwb_error *err)
{
    const char *changed;
    if (inputs_changed(&r->in, r->dev, &changed, err) != 0)
        inputs_restore(&r->in, r->dev, err);
}

/* The trial whose float inputs the definition scales ("kwb": {"magnitude"}): adversarial
 * magnitudes, where arithmetic narrower than the definition allows shows. */
enum { MAGNITUDE_TRIAL = 999 };

/* Scales the inputs the definition names by their factors, host copy and device alike. */
static int scale_inputs(runner_ctx *r, kwb_error *err)
{
    if (inputs_host(&r->in, r->dev, err) != 0)
        return -1;
    for (int i = 0; i < r->in.n; i++) {
        tensor_buf *b = &r->in.bufs[i];
        double f = r->def->input_scale[i];
        kwb_dtype t = r->def->inputs[i].dtype;
        if (!(f > 0) || !b->nbytes)
            continue;
        for (size_t k = 0, n = b->nbytes / dtype_size(t); k < n; k++)
            dtype_store(b->host, t, k, dtype_load(b->host, t, k) * f);
        if (r->dev->ops->upload(r->dev, b->dev, b->host, b->nbytes, err) != 0)
            return -1;
    }
    return inputs_seal(&r->in, r->dev, err); /* the scaled values are this trial's pristine ones */
}

/* One trial: fresh inputs; each solution's call; then the reference on the pristine inputs
 * (so that no answer is in memory while a solution runs); then the checks. */
static int trial_run(runner_ctx *r, int trial, kwb_error *err)
{
    /* the last trial's buffers take this one's values: no allocation per trial */
    if (r->in.n ? inputs_refill(&r->in, r->dev, r->def, r->wl, r->job.seed, trial, err)
                : inputs_make(&r->in, r->dev, r->def, r->wl, r->job.dataset_root, r->job.seed, trial, err))
        return -1;
    if (trial == MAGNITUDE_TRIAL && scale_inputs(r, err) != 0)
        return -1;
    int ran[2] = {0, 0};
    for (int s = 0; s < r->nsols; s++) {
        if (r->sols[s].status != ST_PASSED)
            continue;
        ran[s] = 1;
        call_solution(r, &r->sols[s], s + 1, trial);
        if (!r->sols[s].inputs_clean) /* not looked at, or changed: put the pristine copies back */
            restore_inputs(r, err);
    }
    if (run_reference(r, trial, err) != 0) {
        kwb_error_prefix(err, "reference");
        return -1;
    }
    for (int s = 0; s < r->nsols; s++)
        if (ran[s])
            finish_check(r, &r->sols[s], trial);
    return 0;
}

/* Timed calls are indistinguishable from checked ones: a random share of them (and their
 * number, and the warm-up's) is checked as a trial's call is, with outputs poisoned with a
 * fresh pattern before and everything checked after; now and then the inputs are made afresh
 * (new values at new addresses, their reference computed only after the next call), and that
 * call is checked and marked fresh. Each sample carries its timing_mark, so that the parent
 * can compare plain calls with checked and fresh ones. Draws come from the clock, not the
 * seed: a candidate cannot learn the schedule from one run for the next. The evidence asked for
 * (EVIDENCE_MIN fresh calls per callee) takes about EVIDENCE_MIN * REFRESH_GAP_MAX / 2 calls: a gap
 * of at most 16 lets a sweep stop after some 140 calls where 48 kept it sampling for 400. Once the
 * evidence is in, a noisy kernel that needs more samples for its median's precision gets fresh
 * inputs every 1-REFRESH_GAP_LATE calls (each refresh costs new inputs, a reference and a check),
 * unless the timing loop finds the median bound by the input sets (their medians differ): more
 * sets narrow it then, so refreshes stay every 1-REFRESH_GAP_MAX calls. */
enum { TIMED_TRIAL_BASE = 1000, CHECK_ONE_IN = 8, REFRESH_GAP_MAX = 16, REFRESH_GAP_LATE = 48, EXTRA_WARMUP_MAX = 8 };

/* Once the evidence is in (timed_enough), checks thin out: a callee's call is checked with chance
 * 1/CHECK_ONE_IN_LATE, and the first call on a fresh set with chance 1/FRESH_CHECK_ONE_IN (the
 * others are plain calls that start a set, MARK_SET). A check costs a reference on the set and a
 * comparison: on the H100 the DSA top-k's sets-bound workloads checked 56 % of their calls and
 * kept 14 % as plain samples. A cheat that caches or skips is caught before the evidence is in
 * (every fresh set checked until EVIDENCE_MIN), and one that starts later by the checks that go on. */
enum { CHECK_ONE_IN_LATE = 32, FRESH_CHECK_ONE_IN = 4 };

/* Input sets live at up to PLACEMENTS_MAX places, together at most PLACEMENT_BYTES (at least two
 * places): where a kernel's inputs lie moves its median (on the H100, the DSA top-k's medians on
 * two placements of one run differed by up to 1.2 %, and whole runs by 1.4 % while each claimed
 * +-0.4 %), so a run that draws each fresh set's place from many spreads that effect over its
 * input sets, where the CI over sets sees it, instead of fixing it for the whole run. */
enum { PLACEMENTS_MAX = 16 };
#define PLACEMENT_BYTES_CUDA (2048.0 * 1024 * 1024)
#define PLACEMENT_BYTES_CPU (256.0 * 1024 * 1024)

typedef struct timed_ctx {
    runner_ctx *r;
    callee *who[2];
    int n;
    uint64_t draws;        /* the schedule's random state */
    uint64_t poison[2];    /* the pattern a checked call's outputs hold before it */
    int check_next[2];     /* this callee's next call is checked (its outputs are poisoned) */
    int fresh_next[2];     /* ... and is the first on fresh inputs */
    int set_next[2];       /* its next call is the first on fresh inputs, not checked (MARK_SET) */
    int after_check[2];    /* its last call was checked */
    int warm;              /* caches are not flushed before each call: a check disturbs the next */
    int calls;             /* after-hooks so far */
    int gap[2];            /* this callee's calls left until its next one is checked */
    int verified_set[2];   /* the input set (refresh count) of this callee's verified outputs; -1: none */
    uint64_t *verified[2]; /* their digests under out_key, per output */
    uint64_t out_key;      /* the key of those digests (from the clock) */
    int next_refresh;      /* the call after which the inputs are made afresh */
    int refreshes;
    int ref_stale;                       /* the reference's outputs are not yet those of the current inputs */
    int threads;                         /* threads of the runner before timing */
    int audits;                          /* checked calls so far */
    int seen[2][2];                      /* per callee, timed calls marked checked [0] and fresh [1] */
    int plain[2];                        /* per callee, timed calls marked plain */
    int sets_bound[2];                   /* per callee, its CI is bound by the input sets (timing_hooks.sets_bound) */
    double within_between[2];            /* per callee, its samples' within- over between-set variance (the same) */
    double set_calls;                    /* KWB_SET_CALLS: the mean calls per set while bound (0: from the costs) */
    double loop0;                        /* when timing began */
    double hook0[COST_HOOK_PARTS];       /* the workload's hook seconds then */
    trial_inputs placed[PLACEMENTS_MAX]; /* input sets at their places; slot AT's is in r->in */
    int places;                          /* slots in use (2 to PLACEMENTS_MAX) */
    int at;                              /* the place the current set (r->in) lies at */
    int no_new_places;                   /* a new place could not be allocated: only those made are drawn */
} timed_ctx;

static uint64_t draw(timed_ctx *t)
{
    t->draws = t->draws * 6364136223846793005ULL + 1442695040888963407ULL;
    return t->draws >> 17;
}

static int timed_enough(void *ctx);

/* Calls until a callee's next checked call: each call is followed by a checked one with
 * chance 1/CHECK_ONE_IN, 1/CHECK_ONE_IN_LATE once the evidence is in (drawn ahead, so that
 * plain calls can run back to back). */
static int draw_gap(timed_ctx *t)
{
    int gap = 1, one_in = timed_enough(t) ? CHECK_ONE_IN_LATE : CHECK_ONE_IN;
    while (draw(t) % (uint64_t)one_in != 0 && gap < 8 * one_in)
        gap++;
    return gap;
}

/* A timed call: no synchronization inside, since the device may be holding the stream
 * until the call has queued its work (the device's sample() synchronizes after release). */
static int timed_call(void *ctx, int which, kwb_error *err)
{
    timed_ctx *t = ctx;
    runner_ctx *r = t->r;
    callee *c = t->who[which];
    outputs_bind(&c->out, &r->in, r->def, r->wl, r->args);
    sandbox_watch(1);
    int rc = c->fn(r->args, r->nargs, r->dev->ops->stream(r->dev));
    sandbox_watch(0);
    if (rc != 0)
        kwb_error_set(err, "%s returned %d while being timed", c->role, rc);
    return rc;
}

/* Keeps the digests of callee WHICH's outputs, just compared and found right, as those of the
 * current input set (nothing kept when the device has no digest). */
static void remember_verified(timed_ctx *t, int which, kwb_error *err)
{
    runner_ctx *r = t->r;
    int o;
    long long off;
    if (!t->verified[which])
        t->verified[which] = xcalloc((size_t)r->def->noutputs + 1, sizeof *t->verified[which]);
    t->verified_set[which] = -1;
    if (outputs_digests(&t->who[which]->out, r->dev, t->poison[which], t->out_key, t->verified[which], &o, &off, err) ==
        0)
        t->verified_set[which] = t->refreshes;
}

/* A checked call on inputs whose outputs this callee has already had verified: when the call's
 * outputs are bit for bit those (their digests agree; the guards and inputs are intact), the
 * call is right without reading the outputs back and comparing them. Returns 1 when so, 0 when
 * the full check must be made, -1 with *err set. */
static int audit_by_digest(timed_ctx *t, int which, kwb_error *err)
{
    runner_ctx *r = t->r;
    int n = r->def->noutputs, o = 0;
    if (t->fresh_next[which] || t->verified_set[which] != t->refreshes || n <= 0)
        return 0;
    uint64_t *now = xcalloc((size_t)n, sizeof *now);
    long long off = 0;
    int g = outputs_digests(&t->who[which]->out, r->dev, t->poison[which], t->out_key, now, &o, &off, err);
    int same = g == 0 && memcmp(now, t->verified[which], sizeof *now * (size_t)n) == 0;
    free(now);
    if (g < 0)
        return -1;
    if (!same) /* a guard changed, or other bits: the full check says which and where */
        return 0;
    const char *changed = NULL;
    int c = inputs_changed(&r->in, r->dev, &changed, err);
    if (c < 0)
        return -1;
    if (c > 0)
        return 0;
    t->r->quick_audits++;
    return 1;
}

/* Adds the seconds since *T to hook part PART of the workload's account; *T becomes now. */
static void hook_lap(runner_ctx *r, int part, double *t)
{
    double now = proc_now();
    r->hook_s[part] += now - *t;
    *t = now;
}

/* Checks the timed call callee WHICH just made as a trial's call is checked; a failure here,
 * after the trials passed, is REJECTED_INTEGRITY: the candidate behaves differently when timed. */
static int audit_timed_call(timed_ctx *t, int which, kwb_error *err)
{
    runner_ctx *r = t->r;
    callee *c = t->who[which];
    char why[512];
    int o = 0;
    long long off = 0;
    const char *changed = NULL;
    r->audits++;
    if (t->audits++ == 0 && strcmp(r->dev->ops->kind, "cpu") != 0) {
        /* A GPU's runtime and CUPTI may start threads at the first timed sample: the count after
         * it is the baseline (a candidate's own threads were looked for in its trials). */
        int now = integrity_threads();
        t->threads = now > t->threads ? now : t->threads;
    }
    if (integrity_after_call(t->threads, r->pid, why, sizeof why)) {
        fail(c, ST_REJECTED_INTEGRITY, "timed call %d: %s", t->calls, why);
        lifetime_kill_strays();
        return 0;
    }
    double t0 = proc_now();
    int quick = audit_by_digest(t, which, err);
    hook_lap(r, COST_HOOK_DIGEST, &t0);
    if (quick != 0)
        return quick < 0 ? -1 : 0;
    int g = check_guards(r, c, t->poison[which], 0, &o, &off, err);
    if (g < 0)
        return -1;
    if (g > 0) {
        fail(c, ST_REJECTED_INTEGRITY, "timed call %d wrote outside output '%s' (byte %lld), unlike its checked calls",
             t->calls, r->def->outputs[o].name, off);
        return 0;
    }
    if (inputs_changed(&r->in, r->dev, &changed, err) > 0) {
        fail(c, ST_REJECTED_INTEGRITY, "timed call %d modified input '%s' (inputs are read-only)", t->calls, changed);
        restore_inputs(r, err);
        return 0;
    }
    hook_lap(r, COST_HOOK_CHECK, &t0);
    if (t->ref_stale) { /* the answer is computed only now, from the pristine inputs */
        if (run_reference(r, TIMED_TRIAL_BASE + t->refreshes, err) != 0)
            return -1;
        t->ref_stale = 0;
    }
    hook_lap(r, COST_HOOK_REFERENCE, &t0);
    check_stats st;
    eval_status before = c->status;
    if (check_outputs(r, c, &st, err) != 0)
        return -1;
    hook_lap(r, COST_HOOK_CHECK, &t0);
    if (before == ST_PASSED && c->status != ST_PASSED) {
        char msg[sizeof c->message];
        snprintf(msg, sizeof msg,
                 "timed call %d%s differs from the reference though the checked calls passed "
                 "(it reuses an earlier result or behaves differently when timed): %.600s",
                 t->calls, t->fresh_next[which] ? " (on fresh inputs)" : "", c->message);
        c->status = ST_REJECTED_INTEGRITY;
        snprintf(c->message, sizeof c->message, "%s", msg);
    }
    if (c->status == ST_PASSED)
        remember_verified(t, which, err);
    hook_lap(r, COST_HOOK_DIGEST, &t0);
    return 0;
}

/* Poisons callee WHICH's outputs for its next call, which is then checked. */
static int check_next_call(timed_ctx *t, int which, kwb_error *err)
{
    double t0 = proc_now();
    t->check_next[which] = 1;
    t->poison[which] = draw(t);
    int rc = outputs_poison(&t->who[which]->out, t->r->dev, t->poison[which], err);
    hook_lap(t->r, COST_HOOK_POISON, &t0);
    return rc;
}

/* The place the next fresh set goes to: any other than the current one, drawn at random; once a
 * new place could not be had (memory was short), one of those already made, or the current one
 * when there is no other (its values are still new, and the call on them checked). */
static int next_place(timed_ctx *t)
{
    int to = (t->at + 1 + (int)(draw(t) % (uint64_t)(t->places - 1))) % t->places;
    if (!t->no_new_places)
        return to;
    for (int k = 0; k < t->places; k++, to = (to + 1) % t->places)
        if (to != t->at && t->placed[to].n)
            return to;
    return t->at;
}

/* Makes TRIAL's inputs at place TO (allocated there at its first use, else refilled in place)
 * and makes them the current set; on failure the current set stays. */
static int move_to_place(timed_ctx *t, int to, int trial, kwb_error *err)
{
    runner_ctx *r = t->r;
    int from = t->at;
    t->placed[from] = r->in;
    r->in = t->placed[to];
    int rc = r->in.n == 0 ? inputs_make(&r->in, r->dev, r->def, r->wl, r->job.dataset_root, r->job.seed, trial, err)
                          : inputs_refill(&r->in, r->dev, r->def, r->wl, r->job.seed, trial, err);
    if (rc != 0) { /* back to the set that was in use */
        t->placed[to] = r->in;
        r->in = t->placed[from];
        memset(&t->placed[from], 0, sizeof t->placed[from]);
        return -1;
    }
    memset(&t->placed[to], 0, sizeof t->placed[to]);
    t->at = to;
    return 0;
}

/* New inputs for the calls that follow: fresh values at another of the run's places (see
 * next_place; no allocation churn once they are made, to disturb the timing); a new place that
 * cannot be allocated ends the drawing of new ones, not the run. Each callee's next call is
 * checked. */
static int refresh_inputs(timed_ctx *t, kwb_error *err)
{
    runner_ctx *r = t->r;
    double t0 = proc_now();
    int trial = TIMED_TRIAL_BASE + ++t->refreshes, to = next_place(t), fresh = t->placed[to].n == 0;
    if (move_to_place(t, to, trial, err) != 0) {
        if (!fresh)
            return -1;
        t->no_new_places = 1;
        /* memory is short: this workload goes on at the places made, and a fresh runner (with
         * all its memory, should a candidate be hoarding it) takes the next */
        t->r->restart = 1;
        if (move_to_place(t, next_place(t), trial, err) != 0)
            return -1;
    }
    t->ref_stale = 1;
    hook_lap(r, COST_HOOK_INPUTS, &t0);
    int check = !timed_enough(t) || draw(t) % FRESH_CHECK_ONE_IN == 0;
    for (int i = 0; i < t->n; i++) {
        if (t->check_next[i] || check) {
            t->fresh_next[i] = 1;
            if (!t->check_next[i] && check_next_call(t, i, err) != 0)
                return -1;
        } else
            t->set_next[i] = 1;
    }
    return 0;
}

/* The mean calls per input set that narrow a sets-bound interval most for what sets and calls have
 * cost this run so far (setsize.h; a set serves every callee); REFRESH_GAP_MAX's mean until the
 * costs are known. */
static double set_calls_for_costs(timed_ctx *t)
{
    double most = (REFRESH_GAP_MAX + 1) / 2.0;
    if (t->set_calls > 0)
        return t->set_calls;
    if (t->refreshes == 0 || t->audits == 0 || t->calls == 0)
        return most;
    const double *h = t->r->hook_s, *h0 = t->hook0;
    double hooks = 0;
    for (int k = 0; k < COST_HOOK_PARTS; k++)
        hooks += h[k] - h0[k];
    double call = (proc_now() - t->loop0 - hooks) / t->calls;
    /* a set: its inputs and reference, the check of its first call when that is drawn, a call */
    double audit = (h[COST_HOOK_POISON] - h0[COST_HOOK_POISON] + h[COST_HOOK_CHECK] - h0[COST_HOOK_CHECK] +
                    h[COST_HOOK_DIGEST] - h0[COST_HOOK_DIGEST]) /
                   t->audits;
    double set =
        (h[COST_HOOK_INPUTS] - h0[COST_HOOK_INPUTS] + h[COST_HOOK_REFERENCE] - h0[COST_HOOK_REFERENCE]) / t->refreshes +
        audit * (timed_enough(t) ? 1.0 / FRESH_CHECK_ONE_IN : 1.0) + call;
    double calls = most;
    for (int i = 0; i < t->n; i++)
        if (t->sets_bound[i]) {
            double c = t->n * setsize_mean_calls(t->within_between[i], set, call, most);
            calls = c < calls ? c : calls;
        }
    return calls;
}

/* The calls from one refresh of the inputs to the next are drawn from 1..the span returned: every
 * 1-REFRESH_GAP_MAX calls, every 1-REFRESH_GAP_LATE once the evidence is in and more calls on a
 * set narrow the interval as well as more sets, and around set_calls_for_costs's mean while a
 * callee's interval is bound by its sets. */
static int refresh_span(timed_ctx *t)
{
    if (!t->sets_bound[0] && !t->sets_bound[1])
        return timed_enough(t) ? REFRESH_GAP_LATE : REFRESH_GAP_MAX;
    int span = (int)lround(2 * set_calls_for_costs(t) - 1);
    return span < 1 ? 1 : span > REFRESH_GAP_MAX ? REFRESH_GAP_MAX : span;
}

static int timed_after(void *ctx, int which, int *mark, kwb_error *err)
{
    timed_ctx *t = ctx;
    callee *c = t->who[which];
    t->calls++;
    char why[512];
    if (sandbox_refused(why, sizeof why))
        fail(c, ST_REJECTED_INTEGRITY, "timed call %d: %s", t->calls, why);
    int checked = t->check_next[which];
    *mark = checked                            ? (t->fresh_next[which] ? MARK_FRESH : MARK_CHECKED)
            : t->after_check[which] && t->warm ? MARK_AFTER
            : t->set_next[which]               ? MARK_SET
                                               : MARK_PLAIN;
    if (checked && audit_timed_call(t, which, err) != 0)
        return -1;
    if (checked)
        t->seen[which][*mark == MARK_FRESH]++;
    t->plain[which] += timing_mark_plain(*mark);
    if (c->status != ST_PASSED)
        return kwb_error_set(err, "%s", c->message);
    t->after_check[which] = checked;
    t->check_next[which] = t->fresh_next[which] = t->set_next[which] = 0;
    if (--t->gap[which] <= 0) {
        t->gap[which] = draw_gap(t);
        if (check_next_call(t, which, err) != 0)
            return -1;
    }
    int busy = checked;
    if (t->calls >= t->next_refresh) {
        t->next_refresh = t->calls + 1 + (int)(draw(t) % (uint64_t)refresh_span(t));
        if (refresh_inputs(t, err) != 0)
            return -1;
        busy = 1;
    }
    if (busy && strcmp(t->r->dev->ops->kind, "cpu") == 0) {
        /* A long hook has used up the runner's time slice: on a loaded machine the next call
         * would be preempted more often than a plain one. A short sleep renews it. */
        struct timespec nap = {0, 1000};
        nanosleep(&nap, NULL);
    }
    return 0;
}

/* How many of the next K calls (callees WHICH) may run back to back before their hooks: none
 * while a checked call is due, and none past the call whose hook poisons its callee's outputs
 * or makes fresh inputs (that one may end the run). */
static int timed_free_run(void *ctx, const int *which, int k)
{
    timed_ctx *t = ctx;
    for (int i = 0; i < t->n; i++)
        if (t->check_next[i])
            return 0;
    int room = t->next_refresh - t->calls, used[2] = {0, 0}, m = 0;
    while (m < k && m < room && used[which[m]] < t->gap[which[m]])
        used[which[m++]]++;
    return m;
}

/* The place the next call's inputs lie at. */
static int timed_place(void *ctx)
{
    return ((timed_ctx *)ctx)->at;
}

/* The timing loop says whether a callee's median is bound by the input sets: fresh inputs stay
 * frequent then (refresh_span). */
static void timed_sets_bound(void *ctx, int which, int bound, double within_between)
{
    timed_ctx *t = ctx;
    t->sets_bound[which] = bound;
    t->within_between[which] = within_between;
}

/* Checked calls of each kind (on repeated inputs, on fresh ones) per callee before sampling may
 * stop for precision: twice what the parent's comparisons need at the least (runclient's
 * PROTOCOL_MARKED_MIN), since with that few an honest small kernel's first calls on fresh inputs (cold
 * caches) were taken for a cache's misses. */
enum { EVIDENCE_MIN = 2 * PROTOCOL_MARKED_MIN };

/* Plain calls per callee before sampling may stop: what the parent needs to compare them with
 * checked ones; a schedule checking one call in three (tried on the H200) stopped the MoE after 6
 * plain calls, and the comparison was not made. */
enum { EVIDENCE_PLAIN_MIN = PROTOCOL_MARKED_MIN };

/* Whether every callee has made EVIDENCE_MIN checked calls of each kind and EVIDENCE_PLAIN_MIN
 * plain ones: until then sampling does not stop for precision alone. */
static int timed_enough(void *ctx)
{
    timed_ctx *t = ctx;
    for (int i = 0; i < t->n; i++)
        if (t->seen[i][0] < EVIDENCE_MIN || t->seen[i][1] < EVIDENCE_MIN || t->plain[i] < EVIDENCE_PLAIN_MIN)
            return 0;
    return 1;
}

/* How many places the timed calls' input sets take: as many as fit in the device's
 * PLACEMENT_BYTES, 2 to PLACEMENTS_MAX; KWB_INPUT_PLACES=N sets it (benchmarks). */
static int input_places(const runner_ctx *r)
{
    const char *env = getenv("KWB_INPUT_PLACES");
    if (env && *env) {
        long n = strtol(env, NULL, 10);
        return n < 2 ? 2 : n > PLACEMENTS_MAX ? PLACEMENTS_MAX : (int)n;
    }
    double set = 0, budget = strcmp(r->dev->ops->kind, "cpu") == 0 ? PLACEMENT_BYTES_CPU : PLACEMENT_BYTES_CUDA;
    for (int i = 0; i < r->in.n; i++)
        set += (double)r->in.bufs[i].nbytes;
    double fit = set > 0 ? budget / set : PLACEMENTS_MAX;
    return fit >= PLACEMENTS_MAX ? PLACEMENTS_MAX : fit > 2 ? (int)fit : 2;
}

/* The timed calls' schedule; the first call of each callee is checked. */
static int timed_start(timed_ctx *t, kwb_error *err)
{
    t->draws = (uint64_t)(proc_now() * 1e9) ^ ((uint64_t)getpid() << 32);
    t->places = input_places(t->r);
    const char *env = getenv("KWB_SET_CALLS");
    t->set_calls = env && *env ? strtod(env, NULL) : 0;
    t->loop0 = proc_now();
    memcpy(t->hook0, t->r->hook_s, sizeof t->hook0);
    t->next_refresh = 1 + (int)(draw(t) % 4);
    t->threads = t->r->threads0;
    t->out_key = draw(t) << 17 | draw(t) | 1;
    for (int i = 0; i < t->n; i++) {
        t->verified_set[i] = -1;
        t->gap[i] = draw_gap(t);
        if (check_next_call(t, i, err) != 0)
            return -1;
    }
    return 0;
}

/* Bytes a call must move at the least: every input read once, every output written once. */
static double min_bytes(const runner_ctx *r)
{
    double bytes = 0;
    for (int i = 0; i < r->in.n; i++)
        bytes += (double)r->in.bufs[i].nbytes;
    for (int o = 0; o < r->ref.out.n; o++)
        bytes += (double)r->ref.out.bufs[o].nbytes;
    return bytes;
}

/* What the cost model reads for the workload in flight: its axis values, then the values the
 * definition names in cost.from_inputs, computed from this trial's inputs (host copies) by the
 * definition's cost-values function; NULL when there is none or it fails. The caller frees it. */
static int64_t *cost_values(runner_ctx *r)
{
    const definition *d = r->def;
    int64_t *v = xcalloc((size_t)(d->naxes + d->cost.nfrom_inputs) + 1, sizeof *v);
    memcpy(v, r->wl->axis_value, sizeof *v * (size_t)d->naxes);
    if (d->cost.nfrom_inputs == 0)
        return v;
    cost_values_fn fn = r->ref_cost;
    kwb_error err = {{0}};
    /* the inputs come first; only those the cost "reads" (all when it does not say) come back */
    kwb_arg *host = fn ? host_args(r, &r->ref, d->cost.reads, &err) : NULL;
    int rc = fn && host
                 ? fn(host, r->in.n, (const char *const *)d->cost.from_inputs, d->cost.nfrom_inputs, v + d->naxes)
                 : -1;
    free(host);
    if (rc != 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* Adds the roofline figures of a call that took MEDIAN_MS to EV (COLD: caches flushed before
 * each sample, so the peak is the memory's; else, on the cpu, the peak of its working set). */
static void set_roofline(runner_ctx *r, json_t *ev, double median_ms, int cold)
{
    int64_t *values = cost_values(r);
    roofline_point pt = roofline_of(r->def, values, min_bytes(r), median_ms, &r->peaks);
    /* Warm on the cpu: the caches' peak for this working set, measured again while the call
     * beats it (the machine was busier when it was measured), at most three times. */
    for (int again = 0; strcmp(r->dev->ops->kind, "cpu") == 0 && !cold && again < 3 && (again == 0 || pt.share > 1);
         again++) {
        roofline_peaks warm = r->peaks;
        warm.copy_gbps = device_cpu_copy_peak(r->dev, pt.bytes, again);
        pt = roofline_of(r->def, values, min_bytes(r), median_ms, &warm);
    }
    free(values);
    json_object_set_new(ev, "bytes", json_real(pt.bytes));
    if (pt.flops > 0)
        json_object_set_new(ev, "flops", json_real(pt.flops));
    if (pt.gbps > 0)
        json_object_set_new(ev, "gbps", json_real(pt.gbps));
    if (pt.tflops > 0)
        json_object_set_new(ev, "tflops", json_real(pt.tflops));
    if (pt.share > 0)
        json_object_set_new(ev, "roofline", json_real(pt.share));
}

/* LOOP: the event carries the sampling loop's wall times (one series of each measure does). */
static void emit_timing(runner_ctx *r, const char *role, const timing_series *s, const timing_policy *p, int loop)
{
    json_t *ev = protocol_event_new("timing");
    json_object_set_new(ev, "uuid", json_string(r->wl->uuid));
    json_object_set_new(ev, "role", json_string(role));
    if (p->graph > 0)
        json_object_set_new(ev, "timer", json_sprintf("%s/graph%d", r->dev->ops->timer(r->dev), p->graph));
    else
        json_object_set_new(ev, "timer", json_string(r->dev->ops->timer(r->dev)));
    protocol_event_set_timing(ev, &s->summary);
    if (s->ci_rel > 0 && s->ci_rel < 1e9)
        json_object_set_new(ev, "ci_rel", json_real(s->ci_rel));
    if (s->ci_sets > 0)
        json_object_set_new(ev, "ci_sets", json_integer((json_int_t)s->ci_sets));
    if (s->ci_places > 0)
        json_object_set_new(ev, "ci_places", json_integer((json_int_t)s->ci_places));
    if (s->ci_stalled)
        json_object_set_new(ev, "ci_stalled", json_true());
    json_object_set_new(ev, "device_s", json_real(s->device_s));
    json_object_set_new(ev, "flush_s", json_real(s->flush_s));
    if (loop)
        json_object_set_new(
            ev, "loop",
            json_pack("{s:f, s:f, s:f}", "warmup_s", s->warmup_s, "sampling_s", s->loop_s, "hooks_s", s->hooks_s));
    set_roofline(r, ev, s->summary.median, p->cold && p->graph == 0);
    if (s->event_summary.n > 0) {
        json_object_set_new(ev, "events_median_ms", json_real(s->event_summary.median));
        json_object_set_new(ev, "events_min_ms", json_real(s->event_summary.min));
    }
    if (s->clock_mhz > 0)
        json_object_set_new(ev, "clock_mhz", json_real(s->clock_mhz));
    json_object_set_new(ev, "dropped", json_integer((json_int_t)s->dropped));
    /* Raw samples always, with their marks: the parent computes the statistics from them. */
    json_t *arr = json_array();
    char *marks = xmalloc(s->n + 1);
    for (size_t i = 0; i < s->n; i++) {
        json_array_append_new(arr, json_real(s->ms[i]));
        marks[i] = (char)('0' + (s->mark ? s->mark[i] : MARK_PLAIN));
    }
    marks[s->n] = '\0';
    json_object_set_new(ev, "samples_ms", arr);
    json_object_set_new(ev, "marks", json_string(marks));
    free(marks);
    emit(r, ev);
}

/* Times the callees in WHO (paired when two) and reports each. */
static int time_callees(runner_ctx *r, callee **who, int n, const timing_policy *p, kwb_error *err)
{
    timed_ctx t = {.r = r, .who = {who[0], n > 1 ? who[1] : NULL}, .n = n, .warm = !p->cold || p->graph > 0};
    timing_series series[2];
    int rc;
    if (r->job.no_defences || who[0] == &r->ref) /* the reference is trusted */
        rc = timing_measure(r->dev, p, n, timed_call, &t, series, n == 2 ? &r->gate : NULL, err);
    else {
        timing_hooks hooks = {timed_after, 0, timed_enough, timed_free_run, timed_sets_bound, timed_place};
        rc = timed_start(&t, err);
        hooks.extra_warmup = (int)(draw(&t) % EXTRA_WARMUP_MAX);
        if (rc == 0)
            rc = timing_measure_hooked(r->dev, p, n, timed_call, &t, &hooks, series, n == 2 ? &r->gate : NULL, err);
        else
            memset(series, 0, sizeof series);
        int used = 1; /* r->in's */
        for (int k = 0; k < PLACEMENTS_MAX; k++)
            if (t.placed[k].n) {
                inputs_free(&t.placed[k], r->dev);
                used++;
            }
        r->input_places = used > r->input_places ? used : r->input_places;
    }
    free(t.verified[0]);
    free(t.verified[1]);
    if (n == 2)
        r->has_gate = rc == 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0)
            emit_timing(r, who[i]->role, &series[i], p, i == 0);
        timing_series_free(&series[i]);
    }
    return rc;
}

/* Whether a harness failure leaves the workload in flight to a fresh runner rather than recording
 * it: the harness's own device memory ran short (device.memory_short) in a runner that has served
 * earlier workloads, where a candidate may still hold what it took (the adversarial corpus's 12c
 * takes all of it and keeps it). Sets r->deferred and r->restart then: no workload-end is sent,
 * and the parent starts the next runner at this workload; a fresh runner's own shortage is
 * recorded. */
static int defer_to_fresh(runner_ctx *r)
{
    if (r->served == 0 || !r->dev->memory_short)
        return 0;
    r->deferred = r->restart = 1;
    return 1;
}

/* Times the solutions, then the reference; PHASES gets the seconds each took (nothing when the
 * workload is left to a fresh runner: r->deferred). */
static void time_workload(runner_ctx *r, double phases[2])
{
    double t0 = proc_now();
    kwb_error err = {{0}};
    callee *who[2];
    int n = 0;
    for (int s = 0; s < r->nsols; s++)
        if (r->sols[s].status == ST_PASSED)
            who[n++] = &r->sols[s];
    int rc = n > 0 ? time_callees(r, who, n, &r->job.timing, &err) : 0;
    if (rc != 0 && n == 2 && r->sols[0].status == ST_PASSED && r->sols[1].status != ST_PASSED) {
        /* the baseline was caught while timed: the candidate is timed alone */
        memset(&err, 0, sizeof err);
        rc = time_callees(r, who, 1, &r->job.timing, &err);
    }
    char why[512];
    if (sandbox_refused(why, sizeof why))
        fail(&r->sols[0], ST_REJECTED_INTEGRITY, "while timing: %s", why);
    if (rc != 0 && defer_to_fresh(r))
        return;
    if (rc != 0)
        fail(&r->sols[0], ST_RUNTIME_ERROR, "while timing: %s", err.msg);
    phases[0] = proc_now() - t0;
    callee *ref = &r->ref;
    if (r->job.reference_timing.min_samples > 0 && time_callees(r, &ref, 1, &r->job.reference_timing, &err) != 0)
        emit_error(r, err.msg);
    phases[1] = proc_now() - t0 - phases[0];
}

/* Adds to COST where the workload's hooks and the host's side of its samples spent their time. */
static void add_cost_parts(runner_ctx *r, json_t *cost)
{
    const device_host_profile *now = &r->dev->prof, *then = &r->prof0;
    double host_s[COST_HOST_STEPS];
    for (int i = 0; i < COST_HOST_STEPS; i++)
        host_s[i] = now->step_s[i] - then->step_s[i];
    protocol_cost_parts_set(cost, r->hook_s, host_s, now->alone - then->alone, now->batched - then->batched,
                            now->batches - then->batches);
}

static void emit_workload_end(runner_ctx *r, const double phases[3])
{
    callee *c = &r->sols[0];
    json_t *ev = protocol_event_new("workload-end");
    json_object_set_new(ev, "cost",
                        json_pack("{s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "trials_s", phases[0],
                                  "timing_s", phases[1], "reference_timing_s", phases[2], "reference_runs", r->ref_runs,
                                  "reference_cached", r->ref_cached, "reference_fresh", r->ref_fresh, "audits",
                                  r->audits, "quick_audits", r->quick_audits, "own_checks", r->own_checks,
                                  "own_checks_spared", r->own_spared, "device_compares", r->device_compares,
                                  "input_places", r->input_places));
    add_cost_parts(r, json_object_get(ev, "cost"));
    json_object_set_new(ev, "uuid", json_string(r->wl->uuid));
    json_object_set_new(ev, "status", json_string(status_name(c->status)));
    json_object_set_new(ev, "max_abs", protocol_real(c->stats.max_abs));
    json_object_set_new(ev, "max_rel", protocol_real(c->stats.max_rel));
    json_object_set_new(ev, "matched_ratio", json_real(c->stats.numel ? c->stats.matched_ratio : 0.0));
    if (c->status != ST_PASSED)
        json_object_set_new(ev, "message", json_string(c->message));
    if (r->has_gate) {
        json_object_set_new(ev, "verdict", json_string(verdict_name(r->gate.kind)));
        json_object_set_new(ev, "ratio", json_real(r->gate.ratio));
        json_object_set_new(ev, "ratio_lo", json_real(r->gate.lo));
        json_object_set_new(ev, "ratio_hi", json_real(r->gate.hi));
    }
    if (r->nsols > 1) {
        json_object_set_new(ev, "baseline_status", json_string(status_name(r->sols[1].status)));
        if (r->sols[1].status != ST_PASSED)
            json_object_set_new(ev, "baseline_message", json_string(r->sols[1].message));
    }
    emit(r, ev);
}

static void reset_callee(callee *c)
{
    c->status = ST_PASSED;
    c->message[0] = '\0';
    memset(&c->stats, 0, sizeof c->stats);
}

static int alloc_all_outputs(runner_ctx *r, kwb_error *err)
{
    if (outputs_alloc(&r->ref.out, r->dev, r->def, r->wl, err) != 0)
        return -1;
    for (int s = 0; s < r->nsols; s++)
        if (outputs_alloc(&r->sols[s].out, r->dev, r->def, r->wl, err) != 0)
            return -1;
    return 0;
}

static void free_all_outputs(runner_ctx *r)
{
    outputs_free(&r->ref.out, r->dev);
    for (int s = 0; s < r->nsols; s++)
        outputs_free(&r->sols[s].out, r->dev);
}

/* ---- dump jobs (kwb dump): one trial's inputs and the reference's outputs to a file ---- */

/* DUMP_DIR/UUID.safetensors, or NULL with *err set when the uuid cannot name a file. */
static char *dump_path(const runner_ctx *r, kwb_error *err)
{
    const char *u = r->wl->uuid;
    if (u[0] == '\0' || u[0] == '.' || strchr(u, '/')) {
        kwb_error_set(err, "workload uuid '%s' cannot name a file", u);
        return NULL;
    }
    return xasprintf("%s/%s.safetensors", r->job.dump_dir, u);
}

/* Scalar argument A as the bytes of one element of its dtype (BUF holds 8). */
static void scalar_bytes(const kwb_arg *a, unsigned char *buf)
{
    memset(buf, 0, 8);
    if (dtype_is_float(a->dtype))
        dtype_store(buf, a->dtype, 0, a->f);
    else if (a->dtype == KWB_I64)
        memcpy(buf, &a->i, sizeof a->i); /* exact beyond 2^53 */
    else
        dtype_store(buf, a->dtype, 0, (double)a->i);
}

/* Scalar argument A's exact value as text: %.17g for a float, the integer otherwise. */
static char *scalar_text(const kwb_arg *a)
{
    if (dtype_is_float(a->dtype))
        return xasprintf("%.17g", a->f);
    return xasprintf("%lld", (long long)a->i);
}

/* The name of the device's hardware from its hello facts ("" when it gives none). */
static char *hardware_name(runner_ctx *r)
{
    json_t *facts = json_object();
    r->dev->ops->describe(r->dev, facts);
    const char *hw = json_string_value(json_object_get(facts, "device"));
    char *name = xstrdup(hw ? hw : "");
    json_decref(facts);
    return name;
}

/* What one dump file is made of. */
typedef struct dump_parts {
    st_write_tensor *tensors; /* inputs, then outputs */
    size_t ntensors;
    const char **meta; /* key, value, key, value ... */
    size_t nmeta;      /* pairs */
    char **owned;      /* strings the parts point at */
    size_t nowned;
    int64_t (*shapes)[KWB_MAX_RANK]; /* per output */
    unsigned char (*scalars)[8];     /* per input: a scalar's element */
} dump_parts;

static const char *keep(dump_parts *p, char *s)
{
    p->owned[p->nowned++] = s;
    return s;
}

/* in.NAME per input (a scalar as a 0-dim tensor of its dtype), out.NAME per reference output. */
static void dump_tensors(runner_ctx *r, dump_parts *p)
{
    const definition *d = r->def;
    for (int i = 0; i < d->ninputs; i++) {
        const kwb_arg *a = &r->in.args[i];
        if (a->rank < 0)
            scalar_bytes(a, p->scalars[i]);
        p->tensors[p->ntensors++] =
            (st_write_tensor){keep(p, xasprintf("in.%s", a->name)), a->dtype, a->rank < 0 ? 0 : a->rank, a->shape,
                              a->rank < 0 ? p->scalars[i] : r->in.bufs[i].host};
    }
    for (int o = 0; o < d->noutputs; o++) {
        const def_tensor *t = &d->outputs[o];
        workload_shape(r->wl, t, p->shapes[o]);
        p->tensors[p->ntensors++] = (st_write_tensor){keep(p, xasprintf("out.%s", t->name)), t->dtype, t->rank,
                                                      p->shapes[o], r->ref.out.bufs[o].host};
    }
}

static void meta_add(dump_parts *p, const char *key, const char *value)
{
    p->meta[2 * p->nmeta] = key;
    p->meta[2 * p->nmeta++ + 1] = value;
}

/* What the file is (definition, workload, device, seed, trial), and each scalar input's exact
 * value (scalar.NAME), which its dtype may round. */
static void dump_metadata(runner_ctx *r, dump_parts *p)
{
    meta_add(p, "format", "kwb-dump");
    meta_add(p, "definition", r->def->name);
    meta_add(p, "workload", r->wl->uuid);
    meta_add(p, "device", r->job.device);
    meta_add(p, "hardware", keep(p, hardware_name(r)));
    meta_add(p, "seed", keep(p, xasprintf("%llu", (unsigned long long)r->job.seed)));
    meta_add(p, "trial", keep(p, xasprintf("%d", r->job.dump_trial)));
    meta_add(p, "runner_version", KWB_RUNNER_VERSION);
    for (int i = 0; i < r->def->ninputs; i++)
        if (r->in.args[i].rank < 0)
            meta_add(p, keep(p, xasprintf("scalar.%s", r->in.args[i].name)), keep(p, scalar_text(&r->in.args[i])));
}

/* Writes the inputs and the reference's outputs of the trial just run to PATH. */
static int dump_write(runner_ctx *r, const char *path, kwb_error *err)
{
    if (inputs_host(&r->in, r->dev, err) != 0)
        return -1;
    size_t nin = (size_t)r->def->ninputs, n = nin + (size_t)r->def->noutputs;
    dump_parts p = {.tensors = xcalloc(n, sizeof *p.tensors),
                    .meta = xcalloc(2 * (8 + nin), sizeof *p.meta),
                    .owned = xcalloc(n + 3 + 2 * nin, sizeof *p.owned),
                    .shapes = xcalloc(n, sizeof *p.shapes),
                    .scalars = xcalloc(nin + 1, sizeof *p.scalars)};
    dump_tensors(r, &p);
    dump_metadata(r, &p);
    int rc = safetensors_write_meta(path, p.tensors, p.ntensors, p.meta, p.nmeta, err);
    for (size_t i = 0; i < p.nowned; i++)
        free(p.owned[i]);
    free(p.owned);
    free(p.tensors);
    free(p.meta);
    free(p.shapes);
    free(p.scalars);
    return rc;
}

/* The dump of the workload in flight; OK is 0 when its outputs could not be allocated
 * (*err says why). Ends with workload-end: PASSED with "dump":PATH, or RUNTIME_ERROR. */
static void dump_workload(runner_ctx *r, int ok, kwb_error *err)
{
    char *path = ok ? dump_path(r, err) : NULL;
    ok = path && inputs_and_reference(r, r->job.dump_trial, err) == 0 && dump_write(r, path, err) == 0;
    json_t *ev = protocol_event_new("workload-end");
    json_object_set_new(ev, "uuid", json_string(r->wl->uuid));
    json_object_set_new(ev, "status", json_string(status_name(ok ? ST_PASSED : ST_RUNTIME_ERROR)));
    if (ok)
        json_object_set_new(ev, "dump", json_string(path));
    else
        json_object_set_new(ev, "message", json_string(err->msg));
    emit(r, ev);
    free(path);
}

/* The trial whose inputs only time one reference call for the parent's time limit. */
enum { PROBE_TRIAL = 998 };

/* Times one reference call on inputs of its own (then freed: no answer to the candidate's
 * inputs is made) and reports it in a reference-probe event; returns 0 or -1. */
static int probe_reference(runner_ctx *r, kwb_error *err)
{
    if (inputs_make(&r->in, r->dev, r->def, r->wl, r->job.dataset_root, r->job.seed, PROBE_TRIAL, err) != 0)
        return -1;
    double t0 = proc_now();
    int rc = run_reference(r, PROBE_TRIAL, err);
    double ms = (proc_now() - t0) * 1e3;
    inputs_free(&r->in, r->dev);
    if (rc != 0)
        return -1;
    json_t *ev = protocol_event_new("reference-probe");
    json_object_set_new(ev, "uuid", json_string(r->wl->uuid));
    json_object_set_new(ev, "ms", json_real(ms));
    emit(r, ev);
    return 0;
}

/* The trials of the workload in flight, then its timing, then workload-end; OK as above. */
static void check_workload(runner_ctx *r, int ok, kwb_error *err)
{
    if (ok && r->job.probe_reference && r->sols[0].status == ST_PASSED)
        ok = probe_reference(r, err) == 0;
    /* The adversarial-magnitude trial first, so that timing runs on a regular trial's inputs. */
    int first = r->def->input_scale ? -1 : 0;
    double phases[3] = {0, 0, 0}, t0 = proc_now();
    for (int t = first; ok && t < r->job.trials && r->sols[0].status == ST_PASSED; t++) {
        if (t == 0 && first < 0) /* after the scaled trial: blobs too are made afresh */
            inputs_free(&r->in, r->dev);
        ok = trial_run(r, t < 0 ? MAGNITUDE_TRIAL : t, err) == 0;
    }
    if (!ok && defer_to_fresh(r))
        return;
    if (!ok) {
        fail(&r->sols[0], ST_RUNTIME_ERROR, "harness: %s", err->msg);
        r->restart = 1; /* the process is suspect (memory taken, state damaged): a fresh runner goes on */
    } else if (r->sols[0].status == ST_PASSED) {
        phases[0] = proc_now() - t0;
        time_workload(r, phases + 1);
        if (r->deferred)
            return;
    }
    r->served++;
    if (phases[0] == 0)
        phases[0] = proc_now() - t0;
    emit_workload_end(r, phases);
}

static void run_workload(runner_ctx *r, json_t *wobj)
{
    workload w;
    kwb_error err = {{0}};
    if (workload_parse(wobj, r->def, "job", 0, &w, &err) != 0) {
        emit_error(r, err.msg);
        return;
    }
    r->wl = &w;
    json_t *ev = protocol_event_new("workload-start");
    json_object_set_new(ev, "uuid", json_string(w.uuid));
    emit(r, ev);
    reset_callee(&r->ref);
    r->has_gate = 0;
    r->ref_runs = r->ref_cached = r->ref_fresh = r->input_places = r->audits = r->quick_audits = r->own_checks =
        r->own_spared = r->device_compares = 0;
    memset(r->hook_s, 0, sizeof r->hook_s);
    r->prof0 = r->dev->prof;
    r->dev->memory_short = 0;
    for (int s = 0; s < r->nsols; s++) {
        reset_callee(&r->sols[s]);
        if (r->sols[s].interposed[0])
            fail(&r->sols[s], ST_REJECTED_INTEGRITY, "%s", r->sols[s].interposed);
    }
    int ok = alloc_all_outputs(r, &err) == 0;
    if (r->job.dump_dir)
        dump_workload(r, ok, &err);
    else
        check_workload(r, ok, &err);
    inputs_free(&r->in, r->dev);
    free_all_outputs(r);
    r->wl = NULL;
    workload_free(&w);
}

static int load_solutions(runner_ctx *r, kwb_error *err)
{
    for (int s = 0; s < r->job.nsolutions; s++) {
        const job_solution *js = &r->job.solutions[s];
        sandbox_watch(1); /* its constructors run now */
        r->handles[s] = dlopen(js->so_path, RTLD_NOW | RTLD_LOCAL);
        sandbox_watch(0);
        if (!r->handles[s])
            return kwb_error_set(err, "%s: cannot load: %s", js->name, dlerror());
        char why[512];
        if (sandbox_refused(why, sizeof why))
            snprintf(r->sols[s].interposed, sizeof r->sols[s].interposed, "while its library was loaded: %s", why);
        r->sols[s].fn = (entry_fn)dlsym(r->handles[s], js->symbol);
        if (!r->sols[s].fn)
            return kwb_error_set(err, "%s: no symbol '%s' in %s", js->name, js->symbol, js->so_path);
        r->sols[s].role = js->role;
        const char *sym = integrity_interposed(r->handles[s], (void *)r->sols[s].fn);
        if (sym && !r->sols[s].interposed[0])
            snprintf(r->sols[s].interposed, sizeof r->sols[s].interposed,
                     "its library defines '%s', a function the harness relies on (interposing on the timer or "
                     "the result channel)",
                     sym);
        r->nsols++;
    }
    if (r->nsols == 0)
        return kwb_error_set(err, "job names no solution");
    return 0;
}

/* Export NAME of the reference, else of its helpers (the definition's own reference when the job
 * runs another), else NULL. */
static void *ref_export(runner_ctx *r, const char *name)
{
    void *p = dlsym(r->ref_handle, name);
    return p || !r->helpers_handle ? p : dlsym(r->helpers_handle, name);
}

/* The reference: the job's built reference solution (the runner has none of its own); with its
 * optional exports: the check the definition may choose, cost values, input generators. */
static int load_reference(runner_ctx *r, kwb_error *err)
{
    const job_solution *js = &r->job.reference;
    r->ref.role = "reference";
    if (!js->so_path)
        return kwb_error_set(err,
                             "the job names no reference for definition '%s' (give one as a solution folder: "
                             "--reference DIR or the definition's kwb.reference; or --reference torch)",
                             r->def->name);
    r->ref_handle = dlopen(js->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!r->ref_handle)
        return kwb_error_set(err, "reference %s: cannot load: %s", js->name, dlerror());
    r->ref.fn = (entry_fn)dlsym(r->ref_handle, js->symbol);
    r->ref_error = (const char *(*)(void))dlsym(r->ref_handle, "kwb_reference_error");
    if (js->helpers && !(r->helpers_handle = dlopen(js->helpers, RTLD_NOW | RTLD_LOCAL)))
        return kwb_error_set(err, "reference %s: its helpers cannot load: %s", js->name, dlerror());
    r->ref_check = (output_check_fn)ref_export(r, "kwb_check");
    r->ref_cost = (cost_values_fn)ref_export(r, "kwb_cost_values");
    inputs_set_reference_generators((input_gen_fn)ref_export(r, "kwb_generate"),
                                    (input_gen_fn)ref_export(r, "kwb_generate_host"));
    inputs_set_reference_row_generators((input_rows_fn)ref_export(r, "kwb_generate_rows"),
                                        (input_rows_fn)ref_export(r, "kwb_generate_rows_host"));
    if (!r->ref.fn)
        return kwb_error_set(err, "reference %s: no symbol '%s' in %s", js->name, js->symbol, js->so_path);
    if (r->def->check.by_reference && !r->ref_check)
        return kwb_error_set(err,
                             "reference %s exports no kwb_check, and definition '%s' checks by its reference's "
                             "(kwb.check.method)",
                             js->name, r->def->name);
    int (*init)(void) = (int (*)(void))dlsym(r->ref_handle, "kwb_reference_init");
    if (init && init() != 0) {
        const char *why = r->ref_error ? r->ref_error() : NULL;
        return kwb_error_set(err, "reference %s: its set-up failed%s%s", js->name, why && *why ? ": " : "",
                             why ? why : "");
    }
    return 0;
}

/* Reads one line (the job) from FD. */
static char *read_job(int fd)
{
    strbuf sb;
    strbuf_init(&sb);
    char c;
    ssize_t n;
    while ((n = read(fd, &c, 1)) == 1 && c != '\n')
        strbuf_add(&sb, &c, 1);
    if (sb.len == 0) {
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

static void emit_hello(runner_ctx *r)
{
    json_t *ev = protocol_event_new("hello");
    json_object_set_new(ev, "runner_version", json_string(KWB_RUNNER_VERSION));
    json_object_set_new(ev, "pid", json_integer(getpid()));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    json_object_set_new(ev, "host", json_string(host));
    json_object_set_new(ev, "lifetime", json_string(lifetime_mode));
    if (r->sandbox[0])
        json_object_set_new(ev, "sandbox", json_string(r->sandbox));
    if (r->dev)
        r->dev->ops->describe(r->dev, ev);
    emit(r, ev);
}

/* Adds the resolved PATH (owned) to the list of NREADS paths, unless it is NULL or there already. */
static void add_read(char ***reads, int *nreads, char *path)
{
    for (int i = 0; path && i < *nreads; i++)
        if (strcmp((*reads)[i], path) == 0) {
            free(path);
            return;
        }
    if (!path)
        return;
    *reads = xrealloc(*reads, (size_t)(*nreads + 1) * sizeof **reads);
    (*reads)[(*nreads)++] = path;
}

/* The resolved folders of every safetensors blob the job's workloads name, so that a dataset
 * whose blob/ (or any part of it) is a link elsewhere stays readable under the sandbox. */
static void add_blob_folders(const runner_job *job, char ***reads, int *nreads)
{
    size_t i;
    json_t *w;
    json_array_foreach(job->workloads, i, w)
    {
        const char *name;
        json_t *in;
        json_object_foreach(json_object_get(w, "inputs"), name, in)
        {
            const char *type = json_string_value(json_object_get(in, "type"));
            const char *rel = json_string_value(json_object_get(in, "path"));
            if (!type || strcmp(type, "safetensors") != 0 || !rel)
                continue;
            char *full = rel[0] == '/' ? xstrdup(rel) : xasprintf("%s/%s", job->dataset_root, rel);
            char *real = realpath(full, NULL), *slash = real ? strrchr(real, '/') : NULL;
            if (slash)
                *slash = '\0';
            add_read(reads, nreads, real);
            free(full);
        }
    }
}

/* The scratch folder (the job's, else one made here) becomes the working folder and TMPDIR;
 * then the sandbox closes around the runner, unless the job turned it off. */
static int enter_sandbox(runner_ctx *r, kwb_error *err)
{
    const char *scratch = r->job.scratch;
    if (!scratch) {
        r->own_scratch = owntmp_make("scratch", err);
        if (!r->own_scratch)
            return -1;
        scratch = r->own_scratch;
    }
    /* What stays readable, as full paths before the working folder changes: the definition,
     * the dataset, each solution's folder and build folder. */
    sandbox_spec spec = {.device = r->job.device, .cpu_limit_s = r->job.cpu_limit_s};
    char **reads = NULL;
    int nreads = 0;
    add_read(&reads, &nreads, realpath(r->job.definition_path, NULL));
    add_read(&reads, &nreads, realpath(r->job.dataset_root, NULL));
    for (int s = 0; s < r->job.nsolutions; s++) {
        char *so = realpath(r->job.solutions[s].so_path, NULL), *slash = so ? strrchr(so, '/') : NULL;
        if (slash)
            *slash = '\0';
        add_read(&reads, &nreads, so);
        add_read(&reads, &nreads, r->job.solutions[s].dir ? realpath(r->job.solutions[s].dir, NULL) : NULL);
    }
    add_blob_folders(&r->job, &reads, &nreads);
    spec.reads = (const char *const *)reads;
    spec.nreads = nreads;
    int rc = 0;
    if (chdir(scratch) != 0)
        rc = kwb_error_set(err, "scratch folder %s: %s", scratch, strerror(errno));
    else {
        setenv("TMPDIR", scratch, 1);
        spec.scratch = scratch;
        if (r->job.sandbox_off)
            snprintf(r->sandbox, sizeof r->sandbox, "off (the job turned it off)");
        else
            rc = sandbox_apply(&spec, r->sandbox, sizeof r->sandbox, err);
    }
    for (int i = 0; i < nreads; i++)
        free(reads[i]);
    free(reads);
    return rc;
}

static int setup(runner_ctx *r, kwb_error *err)
{
    r->def = definition_load(r->job.definition_path, err);
    if (!r->def)
        return -1;
    r->dev = device_open(r->job.device, r->job.cache_dir, err);
    if (!r->dev)
        return -1;
    json_t *facts = json_object();
    r->dev->ops->describe(r->dev, facts);
    r->peaks = roofline_peaks_from_facts(facts);
    json_decref(facts);
    if (load_reference(r, err) != 0)
        return -1;
    refcache_open(&r->refs, r->job.cache_dir, r->dev->ops->kind, r->job.reference.so_path, r->job.definition_path,
                  r->job.dataset_root, NULL);
    r->nargs = r->def->ninputs + r->def->noutputs;
    r->args = xcalloc((size_t)r->nargs, sizeof *r->args);
    if (r->job.dump_dir) { /* a dump calls the reference alone */
        struct stat sb;
        if (stat(r->job.dump_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
            return kwb_error_set(err, "dump_dir %s: not a folder", r->job.dump_dir);
        return 0;
    }
    if (enter_sandbox(r, err) != 0)
        return -1;
    return load_solutions(r, err);
}

static void teardown(runner_ctx *r)
{
    lifetime_kill_strays();
    for (int s = 0; s < 2; s++)
        if (r->handles[s])
            dlclose(r->handles[s]);
    if (r->ref_handle)
        dlclose(r->ref_handle);
    if (r->helpers_handle)
        dlclose(r->helpers_handle);
    if (r->dev)
        r->dev->ops->close(r->dev);
    definition_free(r->def);
    refcache_close(&r->refs);
    free(r->args);
    free(r->own_scratch);
    protocol_job_free(&r->job);
}

int runner_run(int job_fd, int event_fd)
{
    runner_ctx r;
    memset(&r, 0, sizeof r);
    r.event_fd = event_fd;
    r.pid = getpid();
    kwb_error err = {{0}};
    char *line = read_job(job_fd);
    if (!line || protocol_job_decode(line, &r.job, &err) != 0) {
        emit_hello(&r);
        emit_error(&r, line ? err.msg : "no job on the job descriptor");
        free(line);
        return 2;
    }
    free(line);
    int rc = setup(&r, &err);
    r.threads0 = integrity_threads();
    emit_hello(&r);
    if (rc != 0)
        emit_error(&r, err.msg);
    else
        for (size_t i = 0; i < json_array_size(r.job.workloads) && !r.dev->ops->broken(r.dev) && !r.restart; i++)
            run_workload(&r, json_array_get(r.job.workloads, i));
    json_t *bye = protocol_event_new("bye");
    if (r.dev && (r.dev->ops->broken(r.dev) || r.restart)) /* the parent starts a fresh runner for the rest */
        json_object_set_new(bye, "incomplete", json_true());
    emit(&r, bye);
    teardown(&r);
    return rc == 0 ? 0 : 1;
}

static void runner_usage(FILE *f)
{
    fputs("usage: kwb-runner [--job-fd N] [--event-fd N]\n"
          "       kwb-runner --stdio [--heartbeat S] [--ship-cache DIR]\n"
          "       kwb-runner --version | --help | --list-devices\n"
          "       kwb-runner --sandbox-info [--device cpu|cuda[:N]]\n"
          "Reads one job (a JSON line) from descriptor N (default 3) and writes protocol\n"
          "events to descriptor N (default 4); with --stdio, the job from stdin and the events\n"
          "to stdout (the candidate's output to stderr), as an SSH channel or a Slurm step\n"
          "carries them. It is started by kwb; see kwb-runner(1).\n",
          f);
}

int runner_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"job-fd", required_argument, NULL, 'j'},
        {"event-fd", required_argument, NULL, 'e'},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {"list-devices", no_argument, NULL, 'L'},
        {"stdio", no_argument, NULL, 's'},
        {"heartbeat", required_argument, NULL, 'b'},
        {"ship-cache", required_argument, NULL, 'c'},
        {"sandbox-info", no_argument, NULL, 'S'},
        {"device", required_argument, NULL, 'd'},
        {NULL, 0, NULL, 0},
    };
    int job_fd = 3, event_fd = 4, c, info = 0, stdio = 0;
    const char *device_name = "cpu";
    double heartbeat_s = 5;
    const char *ship_cache = NULL;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': job_fd = atoi(optarg); break;
        case 'e': event_fd = atoi(optarg); break;
        case 'V': printf("kwb-runner %s (protocol %d)\n", KWB_RUNNER_VERSION, KWB_PROTO); return 0;
        case 'h': runner_usage(stdout); return 0;
        case 'L': device_list(stdout); return 0;
        case 's': stdio = 1; break;
        case 'c': ship_cache = optarg; break;
        case 'b':
            heartbeat_s = atof(optarg);
            if (heartbeat_s <= 0) {
                fprintf(stderr, "kwb-runner: --heartbeat: '%s' is not a number of seconds > 0\n", optarg);
                return 2;
            }
            break;
        case 'S': info = 1; break;
        case 'd': device_name = optarg; break;
        default: runner_usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        runner_usage(stderr);
        return 2;
    }
    if (stdio) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            return 2;
        self[n] = '\0';
        char *cache = ship_cache ? xstrdup(ship_cache) : paths_cache_dir(), *dir = xasprintf("%s/ship", cache);
        int rc = relay_main(self, heartbeat_s, ship_cache ? cache : dir);
        free(cache);
        free(dir);
        return rc;
    }
    if (info) {
        sandbox_print_policy(stdout, device_name);
        lifetime_describe(lifetime_mode, sizeof lifetime_mode);
        printf("  lifetime: %s; every process of the chain dies with its parent (parent-death signal)\n",
               lifetime_mode);
        return 0;
    }
    if (lifetime_split(lifetime_mode, sizeof lifetime_mode) != 0)
        snprintf(lifetime_mode, sizeof lifetime_mode, "no supervisor (fork: %s)", strerror(errno));
    return runner_run(job_fd, event_fd);
}

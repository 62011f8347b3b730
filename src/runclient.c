#define _GNU_SOURCE
#include "runclient.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "owntmp.h"
#include "paths.h"
#include "ship.h"
#include "proc.h"
#include "refserve.h"
#include "runner/timing.h"
#include "stats.h"
#include "strbuf.h"
#include "xalloc.h"

enum { LOG_TAIL_BYTES = 2048 };

/* One runner process and what it has told us so far. */
typedef struct launch {
    pid_t pid;
    int ev_fd;
    int log_fd;
    int job_fd;       /* remote: the transport's stdin, open while the worker works */
    double last_byte; /* remote: when the transport last said anything */
    int saw_exit;     /* remote: the relay reported the runner's end */
    int exit_status;  /* remote: the runner's wait status from that report */
    int refused;      /* remote: hello_check refused the worker */
    strbuf pending;   /* bytes read but not yet a whole line */
    int current;      /* index of the workload in flight, or -1 */
    int next;         /* first workload without a final result */
    int saw_bye;
    int job_error; /* an error event outside any workload */
    double deadline;
    double spawned;    /* when this runner was started (parent's clock) */
    double timed_ms;   /* the sum of every sample it has reported */
    double sampled_ms; /* the sum and count of the samples of the last timing event */
    long samples;
    double started;                /* when the workload in flight started (parent's clock) */
    char key[CHANNEL_KEY_HEX + 1]; /* the channel's key for this runner */
    unsigned long seq;             /* the next event's sequence number */
    int forged;                    /* the channel carried a line the runner did not seal */
    char *scratch;                 /* the runner's scratch folder, removed after it */
    double limit_s;                /* the workload in flight's time limit */
    refserve refs;                 /* local: the reference cache served to it (fd -1: none) */
} launch;

/* Until the reference's probe arrives, a workload (its inputs and one reference call) has this
 * long; the reference is trusted code, so this only bounds a broken dataset. */
#define PROBE_WAIT_S 600.0
#define TIMEOUT_FLOOR_S 10.0
#define TIMEOUT_REFERENCE_FACTOR 50.0

double runclient_timeout_for(const runner_job *job, double reference_ms)
{
    double calls = job->trials + 1 + job->timing.min_samples + 2;
    double by_reference = TIMEOUT_REFERENCE_FACTOR * reference_ms * 1e-3 * calls;
    double budget = 4 * job->timing.max_time_s + job->reference_timing.max_time_s;
    return (by_reference > TIMEOUT_FLOOR_S ? by_reference : TIMEOUT_FLOOR_S) + budget;
}

/* The most a timed figure may beat the roofline floor by before it is impossible: a cold GPU
 * sample only by measurement error and a cost model's slack; warm caches (CPU caches, a graph
 * replay's L2) can feed a kernel faster than DRAM, so warm figures get a wide margin. */
#define PHYSICS_MARGIN_COLD 1.25
#define PHYSICS_MARGIN_WARM 50.0
/* Speedup over the baseline (the current best) beyond which a human should look. */
#define FLAG_SPEEDUP 10.0
/* Checked calls on repeated inputs this many times faster than checked calls on fresh ones
 * (both poisoned alike): results cached across calls. Warm, on a loaded machine, honest fresh
 * calls have run up to ~2x slower. */
#define CACHE_RATIO_COLD 2.0
#define CACHE_RATIO_WARM 4.0
/* Plain calls this many times faster than checked ones: work skipped when nobody looks. The
 * poison before a checked call disturbs warm CPU caches (honest checked copies run up to ~4x
 * slower: the copy's streaming stores meet poisoned lines), so warm figures get a wide margin. */
#define SKIP_RATIO_COLD 2.0
#define SKIP_RATIO_WARM 10.0

static char *log_tail(int fd)
{
    off_t end = lseek(fd, 0, SEEK_END);
    off_t start = end > LOG_TAIL_BYTES ? end - LOG_TAIL_BYTES : 0;
    char *buf = xcalloc(1, LOG_TAIL_BYTES + 1);
    ssize_t n = pread(fd, buf, (size_t)(end - start), start);
    buf[n > 0 ? n : 0] = '\0';
    return buf;
}

static int index_of(const workload_set *set, int from, const char *uuid)
{
    for (int i = from; uuid && i < set->count; i++)
        if (strcmp(set->items[i].uuid, uuid) == 0)
            return i;
    return -1;
}

static void finish(runclient *rc, launch *l, const workload_set *set, wl_result *results, int i)
{
    l->next = i + 1;
    l->current = -1;
    if (rc->progress && !(rc->suspect && rc->suspect[i])) /* a suspect's result is final after confirm_alone */
        rc->progress(rc->progress_ctx, i + 1, set->count, &results[i]);
}

/* The samples of a timing event (NULL when it has none); *n their count. */
static double *event_samples(const runner_event *ev, size_t *n)
{
    json_t *arr = json_object_get(ev->json, "samples_ms");
    *n = json_array_size(arr);
    if (!json_is_array(arr) || *n == 0)
        return NULL;
    double *v = xcalloc(*n, sizeof *v);
    for (size_t i = 0; i < *n; i++)
        v[i] = json_number_value(json_array_get(arr, i));
    return v;
}

/* The timing_mark of each sample from the event's "marks" (all plain when absent); the
 * caller frees it. */
static unsigned char *event_marks(const runner_event *ev, size_t n)
{
    unsigned char *mark = xcalloc(n + 1, 1);
    const char *m = json_string_value(json_object_get(ev->json, "marks"));
    for (size_t i = 0; m && i < n && m[i]; i++)
        mark[i] = (unsigned char)(m[i] >= '0' && m[i] <= '0' + MARK_SET ? m[i] - '0' : MARK_PLAIN);
    return mark;
}

/* The samples of V marked WANT or WANT2: their count, median and quartiles. */
typedef struct marked {
    size_t n;
    double median, q1, q3;
} marked;

static marked marked_of(const double *v, const unsigned char *mark, size_t n, int want, int want2)
{
    double *sel = xcalloc(n + 1, sizeof *sel);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (mark[i] == want || mark[i] == want2)
            sel[k++] = v[i];
    stats_summary st = stats_summarize(sel, k);
    free(sel);
    return (marked){k, st.median, st.q1, st.q3};
}

/* The least a pattern must gain per call on the cpu to count: on a loaded machine an honest
 * 0.1 us copy ran its fresh calls 4x slower (0.4 us more) again and again, even re-measured
 * alone, and an honest 1 us segment top-k (tests/e2e/declared_inputs.sh, distcheck on two busy
 * cores) 4.0x slower, 3 us more; a cache worth having saves far more (the corpus's: 10 ms).
 * CUPTI spans need no floor. */
#define PATTERN_MIN_GAP_CPU_MS 0.01

/* Calls of each kind a finding needs: a run of a few dozen calls holds 3 or 4 fresh ones, the
 * first of them on a newly made input set, too few to tell a cache from a slow start (honest
 * resumed runs in tests/e2e/session_kill.sh were flagged on 4); a normal run holds over 100. */
#define MARKED_MIN PROTOCOL_MARKED_MIN

/* Nonzero when FAST, RATIO times over, beats SLOW and the two barely overlap (FAST's upper
 * quartile under SLOW's lower one): a cheat separates its two kinds of call on nearly every call,
 * while a loaded machine slows calls of either kind at random (honest kernels were flagged by the
 * medians alone under make -j2 on two cores). */
static int separated(const marked *fast, const marked *slow, double ratio, double min_gap_ms)
{
    return fast->n >= MARKED_MIN && slow->n >= MARKED_MIN && fast->median * ratio < slow->median &&
           fast->q3 < slow->q1 && slow->median - fast->median >= min_gap_ms;
}

/* KWB_DEBUG_TIMING: the counts and medians of plain, checked and fresh calls on stderr; with
 * SAMPLES, then every sample in order as MS:MARK (timing_mark), for offline study. */
static void debug_timing(const runner_event *ev, const double *v, const unsigned char *mark, size_t n, int samples,
                         const marked *mp, const marked *mc, const marked *mf)
{
    fprintf(stderr, "kwb: timing %s: %zu samples; plain %zu (median %.4g ms), checked %zu (%.4g), fresh %zu (%.4g)\n",
            ev->role, n, mp->n, mp->median, mc->n, mc->median, mf->n, mf->median);
    if (!samples)
        return;
    const char *uuid = json_string_value(json_object_get(ev->json, "uuid"));
    fprintf(stderr, "kwb: samples %s %s:", ev->role, uuid ? uuid : "?");
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, " %.6g:%d", v[i], mark ? mark[i] : MARK_PLAIN);
    fputc('\n', stderr);
}

/* The statistics of a timing event, computed here from its raw samples (the runner's summary
 * is only checked against them), and what they say about the candidate's honesty: figures
 * that disagree with the samples, samples that add up to more time than the workload took,
 * calls on repeated inputs much faster than calls on fresh ones (a cache), a time under the
 * roofline floor. Returns a reason for REJECTED_INTEGRITY, or NULL. */
static char *check_timing(const runclient *rc, launch *l, const runner_event *ev, stats_summary *out, int *pattern,
                          int *enough)
{
    size_t n;
    double *v = event_samples(ev, &n);
    if (!v)
        return NULL; /* a runner that does not send them (the reference with no samples) */
    unsigned char *mark = event_marks(ev, n);
    *out = timing_summary_plain(v, mark, n);
    char *why = NULL;
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    l->timed_ms += sum;
    l->sampled_ms = sum;
    l->samples = (long)n;
    marked mp = marked_of(v, mark, n, MARK_PLAIN, MARK_SET), mf = marked_of(v, mark, n, MARK_FRESH, MARK_FRESH);
    marked mr = marked_of(v, mark, n, MARK_CHECKED, MARK_CHECKED), mc = marked_of(v, mark, n, MARK_CHECKED, MARK_FRESH);
    size_t np = mp.n, nf = mf.n, nr = mr.n, nc = mc.n;
    *enough = nf >= MARKED_MIN && nr >= MARKED_MIN && np >= MARKED_MIN && nc >= MARKED_MIN;
    double plain = mp.median, fresh = mf.median, repeated = mr.median, checked = mc.median;
    const char *debug = getenv("KWB_DEBUG_TIMING");
    if (debug)
        debug_timing(ev, v, mark, n, strcmp(debug, "samples") == 0, &mp, &mc, &mf);
    free(mark);
    int graph = ev->timer && strstr(ev->timer, "/graph") != NULL;
    double share = ev->roofline > 0 && out->median > 0 ? ev->roofline * ev->timing.median / out->median : 0;
    int cold = rc->job->timing.cold && !graph;
    double gap = strncmp(rc->job->device, "cuda", 4) == 0 ? 0 : PATTERN_MIN_GAP_CPU_MS;
    double margin = cold && strncmp(rc->job->device, "cuda", 4) == 0 ? PHYSICS_MARGIN_COLD
                    : cold                                           ? 2 * PHYSICS_MARGIN_COLD
                                                                     : PHYSICS_MARGIN_WARM;
    if (fabs(out->median - ev->timing.median) > 1e-9 * fabs(out->median) + 1e-12)
        why = xasprintf("the runner's median %.6g ms disagrees with its own samples' %.6g ms (the result channel "
                        "was tampered with)",
                        ev->timing.median, out->median);
    else if (!graph && l->timed_ms * 1e-3 > (proc_now() - l->spawned) * 1.05 + 0.05)
        why = xasprintf("the runner's samples add up to %.3f s, more than the %.3f s it has lived (the timer was "
                        "tampered with)",
                        l->timed_ms * 1e-3, proc_now() - l->spawned);
    else if ((*pattern = separated(&mr, &mf, cold ? CACHE_RATIO_COLD : CACHE_RATIO_WARM, gap)))
        why = xasprintf("calls on repeated inputs ran %.1fx faster than calls on fresh inputs (median %.4g ms vs "
                        "%.4g ms over %zu and %zu checked calls): results are cached across calls",
                        fresh / repeated, repeated, fresh, nr, nf);
    else if ((*pattern = separated(&mp, &mc, cold ? SKIP_RATIO_COLD : SKIP_RATIO_WARM, gap)))
        why = xasprintf("unchecked calls ran %.1fx faster than calls whose outputs were poisoned and checked "
                        "(median %.4g ms vs %.4g ms over %zu and %zu calls): it skips work when it thinks "
                        "nobody looks",
                        checked / plain, plain, checked, np, nc);
    else if (share > margin)
        why = xasprintf("faster than physics: %.4g ms is %.1fx under the roofline floor (%.4g ms at the "
                        "device's peaks)",
                        out->median, share, share * out->median);
    free(v);
    return why;
}

static void on_timing(runclient *rc, launch *l, wl_result *r, int i, runner_event *ev)
{
    if (!ev->role)
        return;
    stats_summary mine = ev->timing;
    int pattern = 0, enough = 1;
    l->sampled_ms = 0, l->samples = 0;
    char *why = check_timing(rc, l, ev, &mine, &pattern, &enough);
    ev->timing = mine;
    r->cost.sampled_ms += l->sampled_ms;
    r->cost.samples += l->samples;
    r->cost.flush_ms += 1e3 * json_number_value(json_object_get(ev->json, "flush_s"));
    json_t *loop = json_object_get(ev->json, "loop");
    r->cost.warmup_s += json_number_value(json_object_get(loop, "warmup_s"));
    r->cost.sampling_s += json_number_value(json_object_get(loop, "sampling_s"));
    r->cost.hooks_s += json_number_value(json_object_get(loop, "hooks_s"));
    if (rc->confirming && !enough && strcmp(ev->role, "reference") != 0)
        rc->conclusive = 0;
    if (why && pattern && rc->suspect && strcmp(ev->role, "reference") != 0) {
        /* load can fake it: judged after a re-measurement alone (confirm_alone) */
        if (!rc->suspect[i])
            rc->suspect[i] = xasprintf("%s timing: %s", ev->role, why);
    } else if (why && strcmp(ev->role, "reference") != 0) {
        char *m = xasprintf("%s timing: %s", ev->role, why);
        results_set_status(r, ST_REJECTED_INTEGRITY, m);
        free(m);
    }
    free(why);
    if (strcmp(ev->role, "candidate") == 0) {
        r->candidate = ev->timing;
        r->has_candidate = 1;
        r->gbps = ev->gbps;
        r->tflops = ev->tflops;
        r->roofline = ev->roofline;
        r->ci_rel = json_number_value(json_object_get(ev->json, "ci_rel"));
        r->ci_sets = (int)json_integer_value(json_object_get(ev->json, "ci_sets"));
        r->ci_places = (int)json_integer_value(json_object_get(ev->json, "ci_places"));
        r->ci_stalled = json_is_true(json_object_get(ev->json, "ci_stalled"));
        snprintf(r->timer, sizeof r->timer, "%s", ev->timer ? ev->timer : "");
    } else if (strcmp(ev->role, "baseline") == 0) {
        r->baseline = ev->timing;
        r->has_baseline = 1;
    } else if (strcmp(ev->role, "reference") == 0) {
        r->reference = ev->timing;
        r->has_reference = 1;
    }
}

/* The cost account's parts (protocol.h): the hooks' seconds, the host's steps, the counts. */
static void read_cost_parts(wl_cost *c, json_t *cost)
{
    json_t *hooks = json_object_get(cost, "hooks"), *host = json_object_get(cost, "host");
    for (int i = 0; i < COST_HOOK_PARTS; i++)
        c->hook_s[i] = json_number_value(json_object_get(hooks, protocol_hook_parts[i]));
    for (int i = 0; i < COST_HOST_STEPS; i++)
        c->host_s[i] = json_number_value(json_object_get(host, protocol_host_steps[i]));
    c->alone = (long)json_integer_value(json_object_get(host, "alone"));
    c->batched = (long)json_integer_value(json_object_get(host, "batched"));
    c->batches = (long)json_integer_value(json_object_get(host, "batches"));
}

static void on_workload_end(wl_result *r, const runner_event *ev)
{
    eval_status st = ST_RUNTIME_ERROR;
    if (!ev->status || status_from_name(ev->status, &st) != 0)
        st = ST_RUNTIME_ERROR;
    results_set_status(r, st, ev->message);
    r->max_abs = ev->max_abs;
    r->max_rel = ev->max_rel;
    r->matched_ratio = ev->matched_ratio;
    const char *v = json_string_value(json_object_get(ev->json, "verdict"));
    if (v) {
        snprintf(r->verdict, sizeof r->verdict, "%s", v);
        r->ratio = json_number_value(json_object_get(ev->json, "ratio"));
        r->ratio_lo = json_number_value(json_object_get(ev->json, "ratio_lo"));
        r->ratio_hi = json_number_value(json_object_get(ev->json, "ratio_hi"));
    }
    json_t *cost = json_object_get(ev->json, "cost");
    r->cost.trials_s = json_number_value(json_object_get(cost, "trials_s"));
    r->cost.timing_s = json_number_value(json_object_get(cost, "timing_s"));
    r->cost.reference_timing_s = json_number_value(json_object_get(cost, "reference_timing_s"));
    r->cost.reference_runs = (int)json_integer_value(json_object_get(cost, "reference_runs"));
    r->cost.reference_cached = (int)json_integer_value(json_object_get(cost, "reference_cached"));
    r->cost.reference_fresh = (int)json_integer_value(json_object_get(cost, "reference_fresh"));
    r->cost.input_places = (int)json_integer_value(json_object_get(cost, "input_places"));
    r->cost.audits = (int)json_integer_value(json_object_get(cost, "audits"));
    r->cost.quick_audits = (int)json_integer_value(json_object_get(cost, "quick_audits"));
    r->cost.own_checks = (int)json_integer_value(json_object_get(cost, "own_checks"));
    r->cost.own_checks_spared = (int)json_integer_value(json_object_get(cost, "own_checks_spared"));
    r->cost.device_compares = (int)json_integer_value(json_object_get(cost, "device_compares"));
    read_cost_parts(&r->cost, cost);
    const char *bs = json_string_value(json_object_get(ev->json, "baseline_status"));
    if (bs && status_from_name(bs, &r->baseline_status) == 0)
        r->has_baseline_status = 1;
}

/* A speedup over the baseline (the current best) too large to believe without a look: the
 * status stays PASSED, the message says why a human should look. */
static void flag_for_human(wl_result *r)
{
    double s = r->has_baseline && r->status == ST_PASSED ? results_speedup(r) : 0;
    if (s > FLAG_SPEEDUP && !r->message)
        r->message = xasprintf("FLAGGED for a human: %.1fx faster than the baseline (over %.0fx is rarely real)", s,
                               FLAG_SPEEDUP);
}

/* Applies one event; returns 0, or -1 when the runner broke the protocol. */
static int on_event(runclient *rc, launch *l, const workload_set *set, wl_result *results, runner_event *ev)
{
    int i = l->current;
    switch (ev->type) {
    case EV_HELLO:
        json_decref(rc->hello);
        rc->hello = json_incref(ev->json);
        if (rc->remote && rc->remote->hello_check &&
            rc->remote->hello_check(rc->remote->hello_ctx, ev->json, rc->remote->why, sizeof rc->remote->why))
            l->refused = 1;
        break;
    case EV_WORKLOAD_START:
        l->current = index_of(set, l->next, ev->uuid);
        if (l->current < 0)
            return -1;
        l->limit_s = rc->timeout_s > 0 ? rc->timeout_s : PROBE_WAIT_S;
        l->deadline = proc_now() + l->limit_s;
        if (l->started == 0) /* the runner's first workload: what its start-up cost */
            results[l->current].cost.runner_start_s = proc_now() - l->spawned;
        l->started = proc_now();
        break;
    case EV_PROBE:
        if (i >= 0 && rc->timeout_s <= 0) {
            l->limit_s = runclient_timeout_for(rc->job, json_number_value(json_object_get(ev->json, "ms")));
            l->deadline = proc_now() + l->limit_s;
        }
        break;
    case EV_TIMING:
        if (i >= 0)
            on_timing(rc, l, &results[i], i, ev);
        break;
    case EV_WORKLOAD_END:
        if (i < 0)
            return -1;
        on_workload_end(&results[i], ev);
        results[i].cost.wall_s = proc_now() - l->started;
        flag_for_human(&results[i]);
        finish(rc, l, set, results, i);
        break;
    case EV_ERROR:
        if (i >= 0)
            results_set_status(&results[i], ST_RUNTIME_ERROR, ev->message);
        else {
            l->job_error = 1;
            for (int k = l->next; k < set->count; k++)
                results_set_status(&results[k], ST_RUNTIME_ERROR, ev->message);
        }
        break;
    case EV_REF_WANT: refserve_want(&l->refs, i >= 0 ? &set->items[i] : NULL, ev->trial); break;
    case EV_REF_OUT:
        if (i >= 0)
            refserve_got(&l->refs, &set->items[i], ev->trial, json_string_value(json_object_get(ev->json, "file")),
                         json_string_value(json_object_get(ev->json, "sha256")));
        break;
    case EV_BYE: l->saw_bye = 1; break;
    default:
        if (rc->remote && strcmp(json_string_value(json_object_get(ev->json, "event")), "exit") == 0) {
            l->saw_exit = 1;
            l->exit_status = (int)json_integer_value(json_object_get(ev->json, "status"));
        }
        break;
    }
    return 0;
}

/* Splits pending bytes into lines and applies them. */
static int drain_lines(runclient *rc, launch *l, const workload_set *set, wl_result *results, kwb_error *err)
{
    char *start = l->pending.s, *nl;
    while ((nl = memchr(start, '\n', l->pending.len - (size_t)(start - l->pending.s))) != NULL) {
        *nl = '\0';
        if (rc->remote && nl == start) { /* the relay's heartbeat */
            start = nl + 1;
            continue;
        }
        const char *why;
        if (channel_open(l->key, l->seq, start, &why) != 0) {
            /* Before the sealed hello it may be a runner that does not seal at all */
            l->forged = l->seq > 0 || strstr(start, "\"tag\"") != NULL;
            return kwb_error_set(err, "the result channel carried %s%s: %.200s", why,
                                 l->forged ? "" : " (a kwb-runner too old to seal its events?)", start);
        }
        l->seq++;
        runner_event ev;
        int bad = protocol_event_parse(start, &ev, err) != 0;
        if (!bad) {
            bad = on_event(rc, l, set, results, &ev) != 0;
            if (bad)
                kwb_error_set(err, "runner sent an event out of order: %s", start);
            protocol_event_free(&ev);
        }
        if (bad)
            return -1;
        start = nl + 1;
    }
    size_t rest = l->pending.len - (size_t)(start - l->pending.s);
    memmove(l->pending.s, start, rest);
    l->pending.len = rest;
    l->pending.s[rest] = '\0';
    return 0;
}

/* files=ship: the job's files through the transport before the job (ship.h). Returns 0, or -1
 * (said on stderr) when they could not go: the job is then not sent, the relay ends and the worker
 * is lost, its log saying why. */
static int ship_files(runclient *rc, launch *l, const workload_set *set, int job_fd)
{
    ship_manifest m;
    kwb_error err = {{0}};
    int sent = 0, rc_ = 0;
    long long bytes = 0;
    const char *where = rc->remote->where ? rc->remote->where : "?";
    if (ship_manifest_make(rc->job, set, l->next, &m, &err) != 0)
        rc_ = -1;
    else if (ship_send(job_fd, l->ev_fd, &m, rc->remote->silence_s, &sent, &bytes, &err) != 0)
        rc_ = -1;
    else
        fprintf(stderr, "kwb: worker %s: files=ship: %d of %d file(s) sent (%lld bytes), the rest cached there\n",
                where, sent, m.n, bytes);
    if (rc_ != 0)
        fprintf(stderr, "kwb: worker %s: %s\n", where, err.msg);
    ship_manifest_free(&m);
    return rc_;
}

static int start_runner(runclient *rc, launch *l, const workload_set *set, kwb_error *err)
{
    int jp[2], ep[2], rp[2] = {-1, -1};
    char log_name[] = "/tmp/kwb-runner-log-XXXXXX";
    l->log_fd = mkostemp(log_name, O_CLOEXEC);
    if (l->log_fd < 0)
        return kwb_error_set(err, "cannot create a log file: %s", strerror(errno));
    unlink(log_name);
    l->scratch = owntmp_make("scratch", err);
    if (!l->scratch)
        return -1;
    if (pipe2(jp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0 || (!rc->remote && pipe2(rp, O_CLOEXEC) != 0))
        return kwb_error_set(err, "pipe: %s", strerror(errno));
    char *argv[] = {(char *)rc->runner_path, "--job-fd", "3", "--event-fd", "4", NULL};
    proc_io io = proc_io_default();
    io.stdout_fd = io.stderr_fd = l->log_fd;
    io.extra_fd[0] = jp[0];
    io.extra_fd[1] = ep[1];
    io.extra_fd[2] = rp[0]; /* descriptor 5: kwb's answers to ref-want (refserve.h) */
    io.nextra = 3;
    if (rc->remote) { /* one stream each way: the transport's stdin and stdout */
        io.stdin_fd = jp[0];
        io.stdout_fd = ep[1];
        io.nextra = 0;
    }
    l->spawned = l->last_byte = proc_now();
    l->pid = proc_spawn(rc->remote ? rc->remote->argv : argv, &io, err);
    close(jp[0]);
    close(ep[1]);
    if (rp[0] >= 0)
        close(rp[0]);
    l->ev_fd = ep[0];
    if (l->pid < 0) {
        close(jp[1]);
        if (rp[1] >= 0)
            close(rp[1]);
        return -1;
    }
    if (rp[1] >= 0 && refserve_open(&l->refs, rc->job, rc->runner_path, l->scratch, rp[1]))
        rc->job->ref_fd = 5;
    rc->runners_started++;
    json_t *saved = rc->job->workloads, *arr = json_array();
    for (int i = l->next; i < set->count; i++)
        json_array_append(arr, set->items[i].json);
    rc->job->workloads = arr;
    if (rc->remote && rc->remote->ship && ship_files(rc, l, set, jp[1]) != 0) {
        rc->job->workloads = saved;
        json_decref(arr);
        close(jp[1]);
        return 0;
    }
    if (channel_new_key(l->key) != 0)
        return kwb_error_set(err, "cannot draw a key for the result channel");
    rc->job->channel_key = l->key;
    rc->job->scratch = l->scratch;
    rc->job->probe_reference = rc->timeout_s <= 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    rc->job->cpu_limit_s = ((double)(set->count - l->next) * (rc->timeout_s > 0 ? rc->timeout_s : PROBE_WAIT_S) + 60) *
                           (double)(cpus > 0 ? cpus : 1);
    char *line = protocol_job_encode(rc->job);
    rc->job->channel_key = NULL;
    rc->job->scratch = NULL;
    rc->job->ref_fd = 0;
    rc->job->workloads = saved;
    json_decref(arr);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s\n", line);
    free(line);
    for (size_t off = 0; off < sb.len;) {
        ssize_t w = write(jp[1], sb.s + off, sb.len - off);
        if (w <= 0 && errno != EINTR)
            break; /* the runner died early: reported below from its exit status */
        off += w > 0 ? (size_t)w : 0;
    }
    strbuf_free(&sb);
    if (rc->remote)
        l->job_fd = jp[1]; /* closed when the launch ends: the relay's sign to stop */
    else
        close(jp[1]);
    return 0;
}

/* Records why the runner went away without finishing the workload in flight. */
static void runner_lost(launch *l, wl_result *r, int timed_out, double timeout_s, int status)
{
    char msg[512], how[256];
    int sigsys = !timed_out && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS;
    if (timed_out)
        snprintf(msg, sizeof msg, "no result within %.3g s: the runner was killed", timeout_s);
    else if (sigsys) /* a refused call with SIGSYS blocked, or a foreign architecture's call */
        snprintf(msg, sizeof msg, "the sandbox killed the runner: a refused system call (%s)",
                 proc_describe_status(status, how, sizeof how));
    else
        snprintf(msg, sizeof msg, "the runner died: %s", proc_describe_status(status, how, sizeof how));
    results_set_status(r, timed_out ? ST_TIMEOUT : sigsys ? ST_REJECTED_INTEGRITY : ST_RUNTIME_ERROR, msg);
    free(r->log);
    r->log = log_tail(l->log_fd);
    if (r->log[0] && !timed_out) {
        char *m = xasprintf("%s; its last output: %.300s", r->message, r->log);
        free(r->message);
        r->message = m;
        for (char *p = r->message; *p; p++)
            if (*p == '\n')
                *p = ' ';
    }
}

/* Reads events until bye, end of stream or timeout. Returns 1 on timeout, 2 when a remote worker
 * fell silent or was refused. */
static int pump(runclient *rc, launch *l, const workload_set *set, wl_result *results, kwb_error *err)
{
    char buf[65536];
    for (;;) {
        if (rc->stop && *rc->stop)
            return 2;
        double left = l->deadline - proc_now();
        if (left <= 0 && rc->remote && proc_now() - l->last_byte > rc->remote->silence_s / 2) {
            /* no heartbeat either (three missed): the worker is gone, not the candidate hung */
            snprintf(rc->remote->why, sizeof rc->remote->why, "no word from the worker for %.0f s",
                     proc_now() - l->last_byte);
            return 3;
        }
        if (left <= 0)
            return 1;
        if (rc->remote && l->refused)
            return 3;
        if (rc->remote && l->last_byte + rc->remote->silence_s - proc_now() <= 0) {
            snprintf(rc->remote->why, sizeof rc->remote->why, "no word from the worker for %.0f s",
                     rc->remote->silence_s);
            return 3;
        }
        if (rc->remote && l->last_byte + rc->remote->silence_s - proc_now() < left)
            left = l->last_byte + rc->remote->silence_s - proc_now();
        struct pollfd pfd = {l->ev_fd, POLLIN, 0};
        int pr = poll(&pfd, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t n = read(l->ev_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        l->last_byte = proc_now();
        strbuf_add(&l->pending, buf, (size_t)n);
        if (drain_lines(rc, l, set, results, err) != 0)
            return -1;
        if (l->saw_bye) /* a candidate's child may hold the channel open: do not wait for it */
            return 0;
    }
}

/* Kills a runner: a local one's group at once; a remote one's transport first with SIGTERM, which
 * srun forwards to its step and on which ssh closes the channel (either way the relay then kills
 * the runner there), and with SIGKILL when it has not gone after a few seconds. */
static void stop_runner(const runclient *rc, pid_t pid, int *status)
{
    if (rc->remote) {
        kill(-pid, SIGTERM);
        if (proc_wait(pid, 5.0, status) == 0)
            return;
    }
    proc_kill_group(pid);
}

/* The link to a remote worker broke (or it fell silent, or was refused): no result from
 * l->next on is final; they are cleared for another worker to take. STATUS: the transport's
 * wait status, or NULL when it was killed for silence or a refusal. */
static void worker_lost(runclient *rc, launch *l, const workload_set *set, wl_result *results, const int *status)
{
    runclient_remote *r = rc->remote;
    r->lost = 1;
    r->lost_from = l->next;
    if (status) {
        char how[256], *tail = log_tail(l->log_fd);
        for (char *p = tail; *p; p++)
            if (*p == '\n')
                *p = ' ';
        snprintf(r->why, sizeof r->why, "the link to the worker broke (%s)%s%.300s",
                 proc_describe_status(*status, how, sizeof how), tail[0] ? ": " : "", tail);
        free(tail);
    }
    for (int i = l->next; i < set->count; i++) {
        results_free(&results[i]);
        memset(&results[i], 0, sizeof results[i]);
        results[i].wl = &set->items[i];
    }
}

/* Workloads FROM.. of SET get "not run" (the evaluation was stopped). */
static void mark_not_run(const workload_set *set, wl_result *results, int from)
{
    for (int i = from; i < set->count; i++)
        results_set_status(&results[i], ST_RUNTIME_ERROR, "not run: the evaluation stopped early");
}

/* One runner over the workloads from *NEXT; *LOST is the workload it timed out or crashed on,
 * or -1. */
static int one_launch(runclient *rc, const workload_set *set, wl_result *results, int *next, int *lost, kwb_error *err)
{
    launch l = {0};
    l.current = -1;
    l.job_fd = -1;
    l.refs.fd = -1;
    l.next = *next;
    l.limit_s = rc->timeout_s > 0 ? rc->timeout_s : PROBE_WAIT_S; /* start-up and setup */
    l.deadline = proc_now() + l.limit_s;
    strbuf_init(&l.pending);
    *lost = -1;
    if (start_runner(rc, &l, set, err) != 0) {
        refserve_close(&l.refs);
        strbuf_free(&l.pending);
        if (l.log_fd >= 0)
            close(l.log_fd);
        if (l.scratch)
            paths_remove_tree(l.scratch);
        free(l.scratch);
        return -1;
    }
    kwb_error perr = {{0}};
    int pr = pump(rc, &l, set, results, &perr);
    int status = 0, timed_out = pr == 1;
    if (l.job_fd >= 0)
        close(l.job_fd);
    if (timed_out || pr < 0 || pr >= 2 || proc_wait(l.pid, 5.0, &status) == 1)
        stop_runner(rc, l.pid, &status);
    refserve_close(&l.refs);
    paths_remove_tree(l.scratch);
    free(l.scratch);
    if (rc->remote && !timed_out && pr >= 0 && pr != 2 && !l.saw_bye && !l.saw_exit) {
        worker_lost(rc, &l, set, results, pr == 3 ? NULL : &status);
        *next = set->count;
        return 0;
    }
    if (rc->remote && l.saw_exit)
        status = l.exit_status;
    if (pr == 2) { /* stopped: what was not final is not run */
        mark_not_run(set, results, l.current >= 0 ? l.current : l.next);
        l.next = set->count;
        l.current = -1;
    }
    int victim = l.current >= 0 ? l.current : l.next;
    if (pr < 0 && victim < set->count)
        results_set_status(&results[victim], l.forged ? ST_REJECTED_INTEGRITY : ST_RUNTIME_ERROR, perr.msg);
    else if (!l.saw_bye && !l.job_error && victim < set->count) {
        runner_lost(&l, &results[victim], timed_out, l.limit_s > 0 ? l.limit_s : rc->timeout_s, status);
        *lost = victim;
    }
    if (l.job_error)
        l.next = set->count;
    else if (!l.saw_bye && victim < set->count && l.next <= victim)
        finish(rc, &l, set, results, victim);
    *next = l.next;
    close(l.ev_fd);
    close(l.log_fd);
    strbuf_free(&l.pending);
    return 0;
}

/* Fail fast: workloads FROM on get the status of workload LOST (a TIMEOUT or a crash), marked
 * skipped, without running. */
static void skip_rest(runclient *rc, const workload_set *set, wl_result *results, int lost, int from)
{
    for (int i = from; i < set->count; i++) {
        char *m =
            xasprintf("skipped: workload %.8s ended %s (%.200s); --keep-going runs the rest", set->items[lost].uuid,
                      status_name(results[lost].status), results[lost].message ? results[lost].message : "");
        results_set_status(&results[i], results[lost].status, m);
        results[i].skipped = 1;
        free(m);
        finish(rc, &(launch){.next = i}, set, results, i);
    }
}

/* Re-measurements of a suspect workload before it is judged on its first finding alone. */
#define CONFIRM_ATTEMPTS 2

/* Workload I showed the timing pattern rc->suspect[I]: a fresh runner measures it again, alone.
 * Seen again: REJECTED_INTEGRITY with both findings; not seen: the second measurement is the
 * result, its message saying what the first one saw. */
static void confirm_alone(runclient *rc, const workload_set *set, wl_result *results, int i)
{
    if (results[i].status != ST_PASSED) { /* failed for another reason: that stands */
        free(rc->suspect[i]);
        rc->suspect[i] = NULL;
        if (rc->progress)
            rc->progress(rc->progress_ctx, i + 1, set->count, &results[i]);
        return;
    }
    /* alone, and at least as long as the first measurement (longer when too few calls came) */
    timing_policy saved = rc->job->timing;
    double base = saved.max_time_s > saved.min_time_s ? saved.max_time_s : saved.min_time_s;
    wl_result r2 = {0};
    kwb_error err = {{0}};
    int ran = 0;
    for (int attempt = 0; attempt < CONFIRM_ATTEMPTS; attempt++) {
        runclient again = *rc;
        again.progress = NULL;
        again.hello = NULL;
        again.suspect = NULL;
        again.confirming = again.conclusive = 1;
        rc->job->timing.min_time_s = base * (1 << attempt);
        rc->job->timing.max_time_s = 4 * rc->job->timing.min_time_s;
        workload one = set->items[i];
        workload_set alone = {&one, 1};
        if (attempt)
            results_free(&r2);
        ran = runclient_run(&again, &alone, &r2, &err) == 0;
        rc->runners_started += again.runners_started;
        runclient_free(&again);
        if (!ran || again.conclusive || r2.status != ST_PASSED)
            break;
        ran = 2; /* too few calls of a kind to judge: again, longer */
    }
    rc->job->timing = saved;
    char *first = rc->suspect[i], *m;
    if (ran && r2.status == ST_REJECTED_INTEGRITY && r2.message && strstr(r2.message, " timing: ")) {
        m = xasprintf("%s; seen again when re-measured alone: %s", first, strstr(r2.message, " timing: ") + 9);
        results_set_status(&results[i], ST_REJECTED_INTEGRITY, m);
        results_free(&r2);
    } else if (ran == 1) {
        m = xasprintf("not condemned: the first measurement showed %s; re-measured alone it did not%s%s", first,
                      r2.message ? "; " : "", r2.message ? r2.message : "");
        results_free(&results[i]);
        results[i] = r2;
        results[i].wl = &set->items[i];
        results_set_status(&results[i], results[i].status, m);
    } else {
        m = xasprintf("%s (re-measured alone: %s)", first,
                      ran ? "too few calls of each kind to judge, twice" : err.msg);
        results_free(&r2);
        results_set_status(&results[i], ST_REJECTED_INTEGRITY, m);
    }
    free(m);
    free(first);
    rc->suspect[i] = NULL;
    if (rc->progress)
        rc->progress(rc->progress_ctx, i + 1, set->count, &results[i]);
}

int runclient_run(runclient *rc, const workload_set *set, wl_result *results, kwb_error *err)
{
    for (int i = 0; i < set->count; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].wl = &set->items[i];
    }
    if (!rc->confirming)
        rc->suspect = xcalloc((size_t)set->count + 1, sizeof *rc->suspect);
    int next = 0, status = 0;
    while (next < set->count && status == 0 && !(rc->stop && *rc->stop)) {
        int before = next, lost = -1;
        if (one_launch(rc, set, results, &next, &lost, err) != 0)
            status = -1;
        else if (rc->remote && rc->remote->lost) /* its unfinished workloads go to another worker */
            break;
        else if (next == before) /* never loop on a runner that makes no progress */
            finish(rc, &(launch){.next = next}, set, results, next), next++;
        if (lost >= 0 && !rc->keep_going) { /* fail fast */
            skip_rest(rc, set, results, lost, next);
            next = set->count;
        }
    }
    if (next < set->count && status == 0)
        mark_not_run(set, results, next);
    for (int i = 0; rc->suspect && i < set->count; i++)
        if (rc->suspect[i] && status == 0 && !(rc->stop && *rc->stop) && !(rc->remote && rc->remote->lost))
            confirm_alone(rc, set, results, i);
    for (int i = 0; rc->suspect && i < set->count; i++)
        free(rc->suspect[i]);
    free(rc->suspect);
    rc->suspect = NULL;
    return status;
}

void runclient_free(runclient *rc)
{
    json_decref(rc->hello);
    rc->hello = NULL;
}

#define _GNU_SOURCE
#include "runclient.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "strbuf.h"
#include "xalloc.h"

enum { LOG_TAIL_BYTES = 2048 };

/* One runner process and what it has told us so far. */
typedef struct launch {
    pid_t pid;
    int ev_fd;
    int log_fd;
    strbuf pending;       /* bytes read but not yet a whole line */
    int current;          /* index of the workload in flight, or -1 */
    int next;             /* first workload without a final result */
    int saw_bye;
    int job_error;        /* an error event outside any workload */
    double deadline;
} launch;

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
    if (rc->progress)
        rc->progress(rc->progress_ctx, i + 1, set->count, &results[i]);
}

static void on_timing(wl_result *r, const runner_event *ev)
{
    if (!ev->role)
        return;
    if (strcmp(ev->role, "candidate") == 0) {
        r->candidate = ev->timing;
        r->has_candidate = 1;
        r->gbps = ev->gbps;
        r->tflops = ev->tflops;
        r->roofline = ev->roofline;
        snprintf(r->timer, sizeof r->timer, "%s", ev->timer ? ev->timer : "");
    } else if (strcmp(ev->role, "baseline") == 0) {
        r->baseline = ev->timing;
        r->has_baseline = 1;
    } else if (strcmp(ev->role, "reference") == 0) {
        r->reference = ev->timing;
        r->has_reference = 1;
    }
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
    const char *bs = json_string_value(json_object_get(ev->json, "baseline_status"));
    if (bs && status_from_name(bs, &r->baseline_status) == 0)
        r->has_baseline_status = 1;
}

/* Applies one event; returns 0, or -1 when the runner broke the protocol. */
static int on_event(runclient *rc, launch *l, const workload_set *set, wl_result *results, runner_event *ev)
{
    int i = l->current;
    switch (ev->type) {
    case EV_HELLO:
        json_decref(rc->hello);
        rc->hello = json_incref(ev->json);
        break;
    case EV_WORKLOAD_START:
        l->current = index_of(set, l->next, ev->uuid);
        if (l->current < 0)
            return -1;
        l->deadline = proc_now() + rc->timeout_s;
        break;
    case EV_TIMING:
        if (i >= 0)
            on_timing(&results[i], ev);
        break;
    case EV_WORKLOAD_END:
        if (i < 0)
            return -1;
        on_workload_end(&results[i], ev);
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
    case EV_BYE:
        l->saw_bye = 1;
        break;
    default:
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

static int start_runner(runclient *rc, launch *l, const workload_set *set, kwb_error *err)
{
    int jp[2], ep[2];
    char log_name[] = "/tmp/kwb-runner-log-XXXXXX";
    l->log_fd = mkostemp(log_name, O_CLOEXEC);
    if (l->log_fd < 0)
        return kwb_error_set(err, "cannot create a log file: %s", strerror(errno));
    unlink(log_name);
    if (pipe2(jp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0)
        return kwb_error_set(err, "pipe: %s", strerror(errno));
    char *argv[] = {(char *)rc->runner_path, "--job-fd", "3", "--event-fd", "4", NULL};
    proc_io io = proc_io_default();
    io.stdout_fd = io.stderr_fd = l->log_fd;
    io.extra_fd[0] = jp[0];
    io.extra_fd[1] = ep[1];
    io.nextra = 2;
    l->pid = proc_spawn(argv, &io, err);
    close(jp[0]);
    close(ep[1]);
    l->ev_fd = ep[0];
    if (l->pid < 0) {
        close(jp[1]);
        return -1;
    }
    rc->runners_started++;
    json_t *saved = rc->job->workloads, *arr = json_array();
    for (int i = l->next; i < set->count; i++)
        json_array_append(arr, set->items[i].json);
    rc->job->workloads = arr;
    char *line = protocol_job_encode(rc->job);
    rc->job->workloads = saved;
    json_decref(arr);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s\n", line);
    free(line);
    for (size_t off = 0; off < sb.len;) {
        ssize_t w = write(jp[1], sb.s + off, sb.len - off);
        if (w <= 0 && errno != EINTR)
            break;  /* the runner died early: reported below from its exit status */
        off += w > 0 ? (size_t)w : 0;
    }
    strbuf_free(&sb);
    close(jp[1]);
    return 0;
}

/* Records why the runner went away without finishing the workload in flight. */
static void runner_lost(launch *l, wl_result *r, int timed_out, double timeout_s, int status)
{
    char msg[512], how[256];
    if (timed_out)
        snprintf(msg, sizeof msg, "no result within %.0f s: the runner was killed", timeout_s);
    else
        snprintf(msg, sizeof msg, "the runner died: %s", proc_describe_status(status, how, sizeof how));
    results_set_status(r, timed_out ? ST_TIMEOUT : ST_RUNTIME_ERROR, msg);
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

/* Reads events until bye, end of stream or timeout. Returns 1 on timeout. */
static int pump(runclient *rc, launch *l, const workload_set *set, wl_result *results, kwb_error *err)
{
    char buf[65536];
    for (;;) {
        double left = l->deadline - proc_now();
        if (left <= 0)
            return 1;
        struct pollfd pfd = {l->ev_fd, POLLIN, 0};
        int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr == 0)
            continue;
        ssize_t n = read(l->ev_fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        strbuf_add(&l->pending, buf, (size_t)n);
        if (drain_lines(rc, l, set, results, err) != 0)
            return -1;
    }
}

static int one_launch(runclient *rc, const workload_set *set, wl_result *results, int *next, kwb_error *err)
{
    launch l = {0};
    l.current = -1;
    l.next = *next;
    l.deadline = proc_now() + rc->timeout_s;
    strbuf_init(&l.pending);
    if (start_runner(rc, &l, set, err) != 0) {
        strbuf_free(&l.pending);
        if (l.log_fd >= 0)
            close(l.log_fd);
        return -1;
    }
    kwb_error perr = {{0}};
    int pr = pump(rc, &l, set, results, &perr);
    int status = 0, timed_out = pr == 1;
    if (timed_out || pr < 0 || proc_wait(l.pid, 5.0, &status) == 1)
        proc_kill_group(l.pid);
    int victim = l.current >= 0 ? l.current : l.next;
    if (pr < 0 && victim < set->count)
        results_set_status(&results[victim], ST_RUNTIME_ERROR, perr.msg);
    else if (!l.saw_bye && !l.job_error && victim < set->count)
        runner_lost(&l, &results[victim], timed_out, rc->timeout_s, status);
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

int runclient_run(runclient *rc, const workload_set *set, wl_result *results, kwb_error *err)
{
    for (int i = 0; i < set->count; i++) {
        memset(&results[i], 0, sizeof results[i]);
        results[i].wl = &set->items[i];
    }
    int next = 0;
    while (next < set->count) {
        int before = next;
        if (one_launch(rc, set, results, &next, err) != 0)
            return -1;
        if (next == before)  /* never loop on a runner that makes no progress */
            finish(rc, &(launch){.next = next}, set, results, next), next++;
    }
    return 0;
}

void runclient_free(runclient *rc)
{
    json_decref(rc->hello);
    rc->hello = NULL;
}

/* job.c - child processes polled from the main loop (see job.h). */
#define _GNU_SOURCE
#include "tui/job.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

int job_start(job *j, int kind, const char *label, char *const argv[], int capture, kwb_error *err)
{
    int po[2], pe[2];
    if (pipe2(po, O_CLOEXEC) != 0)
        return kwb_error_set(err, "pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]), close(po[1]);
        return kwb_error_set(err, "pipe: %s", strerror(errno));
    }
    proc_io io = proc_io_default();
    io.stdout_fd = po[1];
    io.stderr_fd = pe[1];
    pid_t pid = proc_spawn(argv, &io, err);
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        close(po[0]), close(pe[0]);
        return -1;
    }
    memset(j, 0, sizeof *j);
    j->active = 1;
    j->kind = kind;
    j->pid = pid;
    j->fd[0] = po[0];
    j->fd[1] = pe[0];
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    strbuf_init(&j->part[0]);
    strbuf_init(&j->part[1]);
    strbuf_init(&j->out);
    j->capture = capture;
    snprintf(j->label, sizeof j->label, "%s", label);
    return 0;
}

int job_pollfds(job *jobs, int n, struct pollfd *pfd, int max)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2 && jobs[i].active; s++)
            if (jobs[i].fd[s] >= 0 && k < max)
                pfd[k++] = (struct pollfd){jobs[i].fd[s], POLLIN, 0};
    return k;
}

/* Hands every complete line of the buffer to LINE, keeping the rest. */
static void split_lines(job *j, int s, job_line_fn line, void *ctx, int flush)
{
    strbuf *b = &j->part[s];
    size_t start = 0;
    for (size_t i = 0; i < b->len; i++)
        if (b->s[i] == '\n') {
            b->s[i] = '\0';
            line(ctx, j, s, b->s + start);
            start = i + 1;
        }
    if (flush && start < b->len) {
        line(ctx, j, s, b->s + start);
        start = b->len;
    }
    memmove(b->s, b->s + start, b->len - start);
    b->len -= start;
    b->s[b->len] = '\0';
}

static void read_stream(job *j, int s, job_line_fn line, void *ctx)
{
    char buf[8192];
    for (;;) {
        ssize_t got = read(j->fd[s], buf, sizeof buf);
        if (got > 0) {
            strbuf_add(&j->part[s], buf, (size_t)got);
            if (s == 0 && j->capture)
                strbuf_add(&j->out, buf, (size_t)got);
            continue;
        }
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            break;
        close(j->fd[s]);
        j->fd[s] = -1;
        split_lines(j, s, line, ctx, 1);
        return;
    }
    split_lines(j, s, line, ctx, 0);
}

void job_service(job *jobs, int n, job_line_fn line, job_done_fn done, void *ctx)
{
    for (int i = 0; i < n; i++) {
        job *j = &jobs[i];
        if (!j->active)
            continue;
        for (int s = 0; s < 2; s++)
            if (j->fd[s] >= 0)
                read_stream(j, s, line, ctx);
        if (j->kill_at > 0 && proc_now() > j->kill_at) {
            kill(-j->pid, SIGKILL);
            j->kill_at = 0;
        }
        if (j->fd[0] < 0 && j->fd[1] < 0 && waitpid(j->pid, &j->status, 0) == j->pid) {
            proc_forget(j->pid);
            job fin = *j; /* DONE may start the next job in this slot */
            memset(j, 0, sizeof *j);
            j->fd[0] = j->fd[1] = -1;
            fin.active = 0;
            done(ctx, &fin);
            strbuf_free(&fin.part[0]);
            strbuf_free(&fin.part[1]);
            strbuf_free(&fin.out);
        }
    }
}

void job_cancel(job *j)
{
    if (!j->active)
        return;
    kill(-j->pid, SIGTERM);
    j->cancelled = 1;
    j->kill_at = proc_now() + 2.0;
}

int job_count(const job *jobs, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += jobs[i].active;
    return k;
}

void job_drain(job *jobs, int n, double timeout_s, job_line_fn line, job_done_fn done, void *ctx)
{
    double until = proc_now() + timeout_s;
    while (job_count(jobs, n) > 0) {
        struct pollfd pfd[2 * JOB_MAX];
        int k = job_pollfds(jobs, n, pfd, 2 * JOB_MAX);
        poll(pfd, (nfds_t)k, 100);
        job_service(jobs, n, line, done, ctx);
        if (proc_now() > until) {
            for (int i = 0; i < n; i++)
                if (jobs[i].active && !jobs[i].cancelled)
                    job_cancel(&jobs[i]);
            until = proc_now() + 5;
        }
    }
}

#define _GNU_SOURCE /* pipe2 */
/* agent_command.c - the `command` agent: an external CLI agent (`codex exec ...`,
 * `claude -p ...`) run from its configured argv (no shell) in a scratch copy of the best, the
 * prompt on stdin (the copy a git repository with the best as its one commit, as `codex exec`
 * wants), its output into OUT_DIR.agent.log, within a wall-clock limit and killed as a
 * process group on cancel. What it changed in the scratch copy, checked path by path against the
 * scope like any edit, becomes the candidate (see agent_llm.h). */
#include "agent_llm.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent_prep.h"
#include "ftree.h"
#include "paths.h"
#include "proc.h"
#include "secrets.h"
#include "xalloc.h"

/* The last LINES lines of the file PATH, into OUT as one line (" | " between them). */
static void tail_of(const char *path, int lines, strbuf *out)
{
    size_t len;
    char *text = strbuf_read_file(path, &len);
    if (!text)
        return;
    while (len && text[len - 1] == '\n')
        text[--len] = '\0';
    const char *p = text + len;
    for (int seen = 0; p > text && seen < lines;)
        seen += *--p == '\n';
    if (*p == '\n')
        p++;
    for (; *p; p++) {
        if (*p == '\n')
            strbuf_puts(out, " | ");
        else
            strbuf_add(out, p, 1);
    }
    free(text);
}

/* Moves what the child wrote to FD (a pipe) into the log LOG through S (redacted), waiting at
 * most WAIT_MS for it: 1 at the pipe's end, 0 after some output, -1 when none came. */
static int pump(int fd, int log, secrets_stream *s, int wait_ms)
{
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, wait_ms) <= 0)
        return -1;
    char buf[16384];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return -1;
    if (n <= 0)
        return 1; /* the rest held back is flushed by the caller */
    char *clean = secrets_stream_feed(s, buf, (size_t)n);
    size_t len = strlen(clean);
    ssize_t w = len ? write(log, clean, len) : 0; /* a log that cannot be written loses lines, not the run */
    (void)w;
    free(clean);
    return 0;
}

/* Waits for PID while its output (the read end OUT) goes to LOG; ends it on cancel or past the
 * limit. 0 with *status, or -1 with *err set. */
static int supervise(const agent_config *cfg, const agent_task *t, const agent_prep *p, const char *prog, pid_t pid,
                     int out, int log, int *status, kwb_error *err)
{
    secrets_stream s;
    secrets_stream_init(&s);
    double start = proc_now();
    int ended = 0, eof = 0, rc = 0;
    for (;;) {
        int r = eof ? -1 : pump(out, log, &s, 200);
        eof = eof || r == 1;
        if (!ended)
            ended = proc_wait(pid, eof ? 0.2 : 0, status) == 0;
        if (ended && (eof || r == -1)) /* done, or gone with its pipe idle (held by a grandchild) */
            break;
        if (t->cancel && *t->cancel) {
            proc_kill_group(pid);
            rc = kwb_error_set(err, "cancelled");
            break;
        }
        if (cfg->command_timeout_s > 0 && proc_now() - start > cfg->command_timeout_s) {
            proc_kill_group(pid);
            rc = kwb_error_set(err, "command agent %s: no result within %.0f s (killed); its log: %s", prog,
                               cfg->command_timeout_s, p->log);
            break;
        }
    }
    char *rest = secrets_stream_flush(&s);
    ssize_t w = *rest ? write(log, rest, strlen(rest)) : 0;
    (void)w;
    free(rest);
    return rc;
}

/* Runs the configured command in WORK with the prompt file on stdin, its output redacted into the
 * log; 0, or -1 with *err set. */
static int run_command(const agent_config *cfg, const agent_task *t, const agent_prep *p, const char *work,
                       kwb_error *err)
{
    if (cfg->command_argc < 1)
        return kwb_error_set(err, "agent '%s': no command configured (set agent.%s.command PROGRAM ARGS...)", cfg->name,
                             cfg->name);
    char *argv[AGENTCFG_MAX_ARGS + 1];
    for (int i = 0; i < cfg->command_argc; i++)
        argv[i] = (char *)cfg->command_args[i];
    argv[cfg->command_argc] = NULL;
    if (cfg->api_key_env[0] && getenv(cfg->api_key_env))
        secrets_register(getenv(cfg->api_key_env)); /* the key the command may read */
    int in = open(p->prompt_file, O_RDONLY | O_CLOEXEC);
    int log = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int pipefd[2] = {-1, -1};
    if (in < 0 || log < 0 || pipe2(pipefd, O_CLOEXEC) != 0) {
        int e = errno;
        if (in >= 0)
            close(in);
        if (log >= 0)
            close(log);
        return kwb_error_set(err, "%s: cannot open: %s", in < 0 ? p->prompt_file : p->log, strerror(e));
    }
    proc_io io = proc_io_default();
    io.stdin_fd = in;
    io.stdout_fd = pipefd[1];
    io.stderr_fd = pipefd[1];
    io.cwd = work;
    char line[1024];
    snprintf(line, sizeof line, "command: %s (in a scratch copy, limit %.0f s)", argv[0], cfg->command_timeout_s);
    agent_say(t, "status", line);
    pid_t pid = proc_spawn(argv, &io, err);
    close(in);
    close(pipefd[1]);
    int status = 0, rc = pid < 0 ? -1 : supervise(cfg, t, p, argv[0], pid, pipefd[0], log, &status, err);
    close(pipefd[0]);
    close(log);
    if (rc != 0)
        return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char how[128];
        strbuf tail;
        strbuf_init(&tail);
        tail_of(p->log, 5, &tail);
        kwb_error_set(err, "command agent %s ended with %s; last lines of %s: %s", argv[0],
                      proc_describe_status(status, how, sizeof how), p->log, tail.s);
        strbuf_free(&tail);
        return -1;
    }
    return 0;
}

/* Checks what the command changed in WORK against BEST and P's scope: every changed or new file
 * must be editable; removed files are refused. Lists the changes in CHANGED. 0 or -1. */
static int check_changes(const char *best, const char *work, const agent_prep *p, strbuf *changed, kwb_error *err)
{
    char **a, **b;
    int na, nb, rc = 0;
    if (ftree_list(best, &a, &na, err) != 0)
        return -1;
    if (ftree_list(work, &b, &nb, err) != 0) {
        ftree_list_free(a, na);
        return -1;
    }
    strbuf refused;
    strbuf_init(&refused);
    for (int i = 0, j = 0; i < na || j < nb;) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i], b[j]);
        const char *rel = c <= 0 ? a[i] : b[j];
        int differs = c != 0;
        if (c == 0) {
            char *x = xasprintf("%s/%s", best, rel), *y = xasprintf("%s/%s", work, rel);
            size_t lx = 0, ly = 0;
            char *tx = strbuf_read_file(x, &lx), *ty = strbuf_read_file(y, &ly);
            differs = !tx || !ty || lx != ly || memcmp(tx, ty, lx) != 0;
            free(tx);
            free(ty);
            free(x);
            free(y);
        }
        if (differs) {
            kwb_error perr = {{0}};
            strbuf_printf(changed, "%s%s", changed->len ? ", " : "", rel);
            if (c < 0)
                strbuf_printf(&refused, "%s'%s': removed", refused.len ? "; " : "", rel);
            else if (edits_check_path(work, rel, &p->scope, &perr) != 0)
                strbuf_printf(&refused, "%s%s", refused.len ? "; " : "", perr.msg);
        }
        i += c <= 0;
        j += c >= 0;
    }
    if (refused.len)
        rc = kwb_error_set(err, "the command agent's changes are refused: %s", refused.s);
    strbuf_free(&refused);
    ftree_list_free(a, na);
    ftree_list_free(b, nb);
    return rc;
}

int agent_command_write(const agent_config *cfg, const agent_task *t, agent_outcome *o, kwb_error *err)
{
    double t0 = proc_now();
    agent_prep p;
    char *work = xasprintf("%s.work", t->out_dir);
    paths_remove_tree(work);
    int rc = agent_prep_task(cfg, t, &p, err);
    if (rc == 0)
        rc = ftree_copy(t->best_dir, work, err);
    if (rc == 0)
        rc = ftree_git_snapshot(work, t->dir->id, err);
    if (rc == 0)
        rc = run_command(cfg, t, &p, work, err);
    strbuf changed;
    strbuf_init(&changed);
    if (rc == 0)
        rc = check_changes(t->best_dir, work, &p, &changed, err);
    if (rc == 0 && changed.len == 0)
        rc = kwb_error_set(err, "the command agent changed nothing (its log: %s)", p.log);
    if (rc == 0)
        rc = ftree_copy(work, t->out_dir, err);
    if (rc == 0)
        rc = agent_finish_diff(t, o, err);
    if (p.transcript) {
        agent_transcript(&p, rc == 0 ? "command" : "failed", "changed", changed.s, "error", rc == 0 ? "" : err->msg,
                         (char *)NULL);
        snprintf(o->transcript, sizeof o->transcript, "%s", p.log);
    }
    if (rc == 0) {
        char line[1024];
        snprintf(line, sizeof line, "command agent changed: %s", changed.s);
        agent_say(t, "status", line);
    } else {
        paths_remove_tree(t->out_dir);
    }
    o->calls = 1;
    o->seconds = proc_now() - t0;
    json_t *call = json_pack("{s:s, s:s, s:n, s:n, s:f, s:f, s:i, s:s}", "provider", "command", "model",
                             cfg->command_argc ? cfg->command_args[0] : "", "tokens_in", "tokens_out", "cost", 0.0,
                             "seconds", o->seconds, "attempts", 1, "status", rc == 0 ? "ok" : "error");
    char *line = json_dumps(call, JSON_COMPACT);
    agent_say(t, "call", line);
    free(line);
    json_decref(call);
    paths_remove_tree(work);
    strbuf_free(&changed);
    agent_prep_free(&p);
    free(work);
    return rc;
}

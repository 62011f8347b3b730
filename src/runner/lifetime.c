/* lifetime.c - the runner's supervisor, its PID namespace and its strays; see lifetime.h. */
#define _GNU_SOURCE
#include "runner/lifetime.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"

/* Set in the runner proper when it is pid 2 of its own namespace. */
static int in_namespace;
/* Set in the supervisor by SIGTERM, SIGINT or SIGHUP (kwb ending). */
static volatile sig_atomic_t ended_by;

static void on_end(int sig)
{
    ended_by = sig;
}

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Makes this process's next child the init of a new PID namespace, with a mount namespace of
 * its own for a /proc of that PID namespace: directly (root), else inside a new user namespace
 * mapping only our own ids. Returns 1 when it did, 0 (MODE says why not) otherwise. */
static int enter_pid_namespace(char *mode, size_t cap)
{
    const char *off = getenv("KWB_NO_PIDNS");
    if (off && strcmp(off, "1") == 0) {
        snprintf(mode, cap, "no PID namespace (KWB_NO_PIDNS=1): the supervisor is a child subreaper");
        return 0;
    }
    if (unshare(CLONE_NEWPID | CLONE_NEWNS) == 0) {
        snprintf(mode, cap, "own PID namespace");
        return 1;
    }
    int direct = errno;
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) == 0) {
        char map[64];
        write_text("/proc/self/setgroups", "deny");
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
        int ok = write_text("/proc/self/uid_map", map) == 0;
        snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
        ok = write_text("/proc/self/gid_map", map) == 0 && ok;
        snprintf(mode, cap, "own PID namespace (in a user namespace%s)", ok ? "" : "; ids unmapped");
        return 1;
    }
    snprintf(mode, cap, "no PID namespace (%s; user namespaces: %s): the supervisor is a child subreaper",
             strerror(direct), strerror(errno));
    return 0;
}

/* The status WAIT as this process's own end: the same exit code, or the same signal. */
static _Noreturn void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit none = {0, 0};
        setrlimit(RLIMIT_CORE, &none);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Waits for CHILD while reaping every other child (adopted orphans); returns its status, or
 * the ending signal as a wait status when one came first. */
static int wait_reaping(pid_t child)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, 0);
        if (r == child)
            return st;
        if (r < 0 && errno == ECHILD)
            return 0;
        if (r < 0 && ended_by)
            return ended_by;
    }
}

/* Closes every descriptor above stderr but KEEP (the child's proof that its parent lives). */
static void close_all_but(int keep)
{
    if (keep > 3)
        close_range(3, (unsigned)keep - 1, 0);
    close_range((unsigned)keep + 1, ~0U, 0);
}

/* Asks for SIGKILL at the parent's death; returns nonzero when the parent, whose end of
 * ALIVE (a pipe) it holds, is already gone. */
static int die_with_parent(int alive)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd p = {alive, POLLIN, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLHUP | POLLIN));
}

/* In the namespace's init: /proc shows this PID namespace (the CUDA driver reads /proc by
 * pid: a host /proc fails it with "operation not supported"). The mounts stay private to the
 * namespace. Notes a failure in MODE. */
static void mount_own_proc(char *mode, size_t cap)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
        return;
    size_t n = strlen(mode);
    snprintf(mode + n, cap - n, "; /proc not remounted: %s", strerror(errno));
}

/* The namespace's init: starts the runner proper, reaps every orphan, and when the runner
 * ends, ends with it (which ends every process left in the namespace). Returns in the runner. */
static int namespace_init(char *mode, size_t cap)
{
    mount_own_proc(mode, cap);
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) != 0)
        return 0;
    pid_t runner = fork();
    if (runner == 0) {
        close(alive[1]);
        if (die_with_parent(alive[0]))
            _exit(127);
        close(alive[0]);
        in_namespace = 1;
        return 0;
    }
    close(alive[0]);
    close_all_but(alive[1]);
    if (runner < 0)
        _exit(127);
    int st = wait_reaping(runner);
    kill(-1, SIGKILL);
    /* init cannot end by a signal sent to itself: the signal travels as 128 + N */
    _exit(WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

int lifetime_split(char *mode, size_t cap)
{
    int ns = enter_pid_namespace(mode, cap);
    if (!ns)
        prctl(PR_SET_CHILD_SUBREAPER, 1);
    int alive[2];
    if (pipe2(alive, O_CLOEXEC) != 0)
        return -1;
    pid_t child = fork();
    if (child < 0) {
        close(alive[0]);
        close(alive[1]);
        return -1;
    }
    if (child == 0) {
        close(alive[1]);
        if (die_with_parent(alive[0]))
            _exit(127);
        close(alive[0]);
        return ns ? namespace_init(mode, cap) : 0;
    }
    /* The supervisor: holds no descriptor of the job, so that the runner's end is seen. */
    close(alive[0]);
    close_all_but(alive[1]);
    signal(SIGPIPE, SIG_IGN);
    int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) { /* kwb ending: kill the tree first, then end the same way */
        struct sigaction sa = {.sa_handler = on_end};
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    int st = wait_reaping(child);
    if (ended_by)
        kill(child, SIGKILL);
    proc_kill_descendants(getpid());
    if (ns && WIFEXITED(st) && WEXITSTATUS(st) > 128 && WEXITSTATUS(st) < 128 + 65) {
        int sig = WEXITSTATUS(st) - 128;
        st = sig; /* as a wait status: killed by SIG */
    }
    end_like(st);
}

int lifetime_kill_strays(void)
{
    int n = 0;
    if (in_namespace) {
        if (kill(-1, SIGKILL) == 0)
            n = 1;
    } else
        n = proc_kill_descendants(getpid());
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    return n;
}

void lifetime_describe(char *mode, size_t cap)
{
    int out[2];
    if (pipe(out) != 0) {
        snprintf(mode, cap, "unknown (pipe: %s)", strerror(errno));
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char m[256];
        close(out[0]);
        enter_pid_namespace(m, sizeof m);
        (void)!write(out[1], m, strlen(m));
        _exit(0);
    }
    close(out[1]);
    ssize_t n = pid > 0 ? read(out[0], mode, cap - 1) : -1;
    mode[n > 0 ? n : 0] = '\0';
    close(out[0]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

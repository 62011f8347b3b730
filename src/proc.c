#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <linux/close_range.h>
#include <unistd.h>

#include "strbuf.h"

double proc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

proc_io proc_io_default(void)
{
    proc_io io = {-1, -1, -1, {-1, -1, -1}, 0, NULL};
    return io;
}

/* In the child: moves the wanted descriptors into place and closes the rest. */
static void child_setup_fds(const proc_io *io, int keep_fd)
{
    int devnull = open("/dev/null", O_RDWR);
    int src[6] = {io->stdin_fd >= 0 ? io->stdin_fd : devnull,
                  io->stdout_fd,
                  io->stderr_fd,
                  io->nextra > 0 ? io->extra_fd[0] : -1,
                  io->nextra > 1 ? io->extra_fd[1] : -1,
                  io->nextra > 2 ? io->extra_fd[2] : -1};
    int tmp[6];
    /* Duplicate above 10 first, so that placing one cannot clobber another. */
    for (int i = 0; i < 6; i++)
        tmp[i] = src[i] >= 0 ? fcntl(src[i], F_DUPFD, 10) : -1;
    for (int i = 0; i < 6; i++)
        if (tmp[i] >= 0)
            dup2(tmp[i], i);
    int first = 3 + io->nextra;
    if (keep_fd > first)
        close_range((unsigned)first, (unsigned)keep_fd - 1, 0);
    close_range((unsigned)keep_fd + 1, ~0U, 0);
}

/* The children proc_spawn started and nobody has reaped yet: what the guard kills when kwb is
 * ended by a signal. A slot holds a pid, or 0. */
enum { LIVE_MAX = 64 };
static volatile sig_atomic_t live[LIVE_MAX];

static void live_add(pid_t pid)
{
    for (int i = 0; i < LIVE_MAX; i++)
        if (__sync_bool_compare_and_swap(&live[i], 0, pid))
            return;
}

static void live_remove(pid_t pid)
{
    for (int i = 0; i < LIVE_MAX; i++)
        __sync_bool_compare_and_swap(&live[i], pid, 0);
}

void proc_forget(pid_t pid)
{
    live_remove(pid);
}

/* The parent of PID from /proc/PID/stat, or -1. Only read(2) and friends: safe in a signal
 * handler. */
static pid_t parent_of(const char *pid_text)
{
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid_text);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold anything but not after its ')' */
    pid_t ppid = -1;
    if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
        return -1;
    return ppid;
}

int proc_kill_descendants(pid_t root)
{
    int total = 0;
    for (int pass = 0; pass < 64; pass++) {
        /* Kill the children of ROOT and of every process found so far below it; killed processes'
         * children move to a subreaper (ROOT, when it is one) or to init, and are found next pass. */
        pid_t tree[1024];
        int n = 0, killed = 0;
        tree[n++] = root;
        for (int grew = 1; grew && n < 1024;) {
            grew = 0;
            DIR *d = opendir("/proc");
            if (!d)
                return total;
            struct dirent *e;
            while ((e = readdir(d)) != NULL && n < 1024) {
                if (e->d_name[0] < '1' || e->d_name[0] > '9')
                    continue;
                pid_t pid = (pid_t)atoi(e->d_name), pp = parent_of(e->d_name);
                int known = 0, under = 0;
                for (int i = 0; i < n && !known; i++)
                    known = tree[i] == pid;
                for (int i = 0; i < n && !under; i++)
                    under = tree[i] == pp;
                if (!known && under) {
                    tree[n++] = pid;
                    grew = 1;
                }
            }
            closedir(d);
        }
        for (int i = 1; i < n; i++)
            killed += kill(tree[i], SIGKILL) == 0;
        total += killed;
        if (killed == 0)
            break;
        for (int i = 1; i < n; i++) /* reap those that were ours (ROOT may be this process) */
            waitpid(tree[i], NULL, WNOHANG);
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return total;
}

/* On SIGTERM, SIGINT or SIGHUP: every child's tree is killed, then the signal does what it
 * would have done. */
static void guard_handler(int sig)
{
    /* SIGTERM first, so that a child that cleans up (a runner's supervisor kills its tree, a
     * kwb eval its runners) can; then SIGKILL to each whole group. */
    for (int i = 0; i < LIVE_MAX; i++)
        if (live[i] > 0)
            kill((pid_t)live[i], SIGTERM);
    struct timespec grace = {0, 100000000};
    nanosleep(&grace, NULL);
    for (int i = 0; i < LIVE_MAX; i++) {
        pid_t pid = live[i];
        if (pid > 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void proc_guard_signals(void)
{
    int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        struct sigaction sa = {.sa_handler = guard_handler};
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

pid_t proc_spawn(char *const argv[], const proc_io *io, kwb_error *err)
{
    int gate[2];
    pid_t parent = getpid();
    if (pipe2(gate, O_CLOEXEC) != 0)
        return kwb_error_set(err, "pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        close(gate[0]);
        close(gate[1]);
        return kwb_error_set(err, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        setpgid(0, 0);
        /* Dies with kwb, however kwb ends (kept across exec); a kwb already gone is seen here. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        int errfd = fcntl(gate[1], F_DUPFD_CLOEXEC, 20);
        child_setup_fds(io, errfd);
        if (io->cwd && chdir(io->cwd) != 0) {
            int e = errno;
            (void)!write(errfd, &e, sizeof e);
            _exit(127);
        }
        execvp(argv[0], argv);
        int e = errno;
        (void)!write(errfd, &e, sizeof e);
        _exit(127);
    }
    setpgid(pid, pid);
    live_add(pid);
    close(gate[1]);
    int child_errno = 0;
    ssize_t n = read(gate[0], &child_errno, sizeof child_errno);
    close(gate[0]);
    if (n == (ssize_t)sizeof child_errno) {
        waitpid(pid, NULL, 0);
        live_remove(pid);
        return kwb_error_set(err, "cannot run %s: %s", argv[0], strerror(child_errno));
    }
    return pid;
}

int proc_wait(pid_t pid, double timeout_s, int *status)
{
    double deadline = proc_now() + timeout_s;
    for (;;) {
        pid_t r = waitpid(pid, status, timeout_s < 0 ? 0 : WNOHANG);
        if (r == pid) {
            live_remove(pid);
            return 0;
        }
        if (r < 0 && errno != EINTR) {
            *status = 0;
            live_remove(pid);
            return 0;
        }
        if (timeout_s >= 0 && proc_now() >= deadline)
            return 1;
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
}

void proc_kill_group(pid_t pid)
{
    kill(pid, SIGSTOP); /* it stops making children while its tree is killed */
    proc_kill_descendants(pid);
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    live_remove(pid);
}

/* Waits for PID (killed after TIMEOUT_S); its exit code as proc_run_logged gives it. */
static int wait_code(pid_t pid, double timeout_s)
{
    int status = 0;
    if (proc_wait(pid, timeout_s, &status) == 1) {
        proc_kill_group(pid);
        return 124;
    }
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

int proc_run_logged(char *const argv[], const char *cwd, const char *log_path, double timeout_s, kwb_error *err)
{
    int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return kwb_error_set(err, "%s: %s", log_path, strerror(errno));
    proc_io io = proc_io_default();
    io.stdout_fd = io.stderr_fd = fd;
    io.cwd = cwd;
    pid_t pid = proc_spawn(argv, &io, err);
    close(fd);
    if (pid < 0)
        return -1;
    return wait_code(pid, timeout_s);
}

char *proc_run_captured(char *const argv[], const char *cwd, double timeout_s, int *code, kwb_error *err)
{
    *code = -1;
    int fd = memfd_create("kwb-capture", MFD_CLOEXEC);
    if (fd < 0) {
        kwb_error_set(err, "cannot make a memory file for %s's output: %s", argv[0], strerror(errno));
        return NULL;
    }
    proc_io io = proc_io_default();
    io.stdout_fd = io.stderr_fd = fd;
    io.cwd = cwd;
    pid_t pid = proc_spawn(argv, &io, err);
    if (pid < 0) {
        close(fd);
        return NULL;
    }
    *code = wait_code(pid, timeout_s);
    strbuf sb;
    strbuf_init(&sb);
    char buf[65536];
    ssize_t n;
    off_t at = 0;
    while ((n = pread(fd, buf, sizeof buf, at)) > 0) {
        strbuf_add(&sb, buf, (size_t)n);
        at += n;
    }
    close(fd);
    if (n < 0) {
        kwb_error_set(err, "cannot read %s's output: %s", argv[0], strerror(errno));
        strbuf_free(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

const char *proc_describe_status(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
                 WCOREDUMP(status) ? ", core dumped" : "");
    else if (WIFEXITED(status))
        snprintf(buf, cap, "exit code %d", WEXITSTATUS(status));
    else
        snprintf(buf, cap, "wait status %d", status);
    return buf;
}

/* proc.h - child processes: spawn without a shell in their own process group, wait
 * with a time limit, kill the whole group. */
#ifndef KWB_PROC_H
#define KWB_PROC_H

#include <sys/types.h>

#include "error.h"

/* Where the child's descriptors come from; -1 means /dev/null (for stdin) or inherit
 * (for stdout and stderr). extra_fd[i] is made descriptor 3 + i in the child. */
typedef struct proc_io {
    int stdin_fd;
    int stdout_fd;
    int stderr_fd;
    int extra_fd[3];
    int nextra;
    const char *cwd; /* NULL: the parent's */
} proc_io;

/* An io with nothing redirected. */
proc_io proc_io_default(void);

/* Starts ARGV[0] (looked up on PATH) with ARGV, as the leader of a new process group,
 * every other descriptor closed, killed by the kernel when this process ends (parent-death
 * signal). Returns the pid, or -1 and sets *err. */
pid_t proc_spawn(char *const argv[], const proc_io *io, kwb_error *err);

/* Waits for PID up to TIMEOUT_S seconds (< 0: forever). Returns 0 when it ended (its
 * wait status in *status), 1 when the time ran out (the child is still running). */
int proc_wait(pid_t pid, double timeout_s, int *status);

/* Kills PID's descendants (those that left its group too), its process group with SIGKILL,
 * and reaps PID. */
void proc_kill_group(pid_t pid);

/* Tells proc that PID, which proc_spawn started, was reaped by the caller's own waitpid. */
void proc_forget(pid_t pid);

/* Kills with SIGKILL every descendant of ROOT (not ROOT), found through /proc by parent,
 * until none is left; reaps those that were this process's children. Returns how many. */
int proc_kill_descendants(pid_t root);

/* Installs handlers for SIGTERM, SIGINT and SIGHUP that kill the process group of every
 * child proc_spawn started and not yet reaped, then end this process by the same signal. */
void proc_guard_signals(void);

/* Runs ARGV to completion with stdout and stderr into the file LOG_PATH, killing it after
 * TIMEOUT_S. Returns the exit code (128+signal when killed by a signal, 124 on timeout),
 * or -1 and sets *err when it could not start. */
int proc_run_logged(char *const argv[], const char *cwd, const char *log_path, double timeout_s, kwb_error *err);

/* Runs ARGV like proc_run_logged, its output kept in an anonymous memory file (nothing is left
 * in any folder, even when kwb is killed). Returns the output (the caller frees it) with the exit
 * code in *CODE, or NULL with *err set when it could not start or its output cannot be read. */
char *proc_run_captured(char *const argv[], const char *cwd, double timeout_s, int *code, kwb_error *err);

/* Describes a wait status: "exit code 3", "killed by signal 11 (Segmentation fault)".
 * Writes into buf and returns it. */
const char *proc_describe_status(int status, char *buf, size_t cap);

/* Monotonic seconds. */
double proc_now(void);

#endif

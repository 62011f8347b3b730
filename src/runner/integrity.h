/* integrity.h - the runner's cheap checks on what a candidate's call left behind in the
 * process (threads, child processes, a forked copy of the runner) and on the symbols its
 * library defines (a candidate that defines the timer's symbols to interpose on them). */
#ifndef KWB_INTEGRITY_H
#define KWB_INTEGRITY_H

#include <stddef.h>
#include <sys/types.h>

/* Threads of this process now (entries of /proc/self/task); -1 when unknown. */
int integrity_threads(void);
/* Writes into WHY (CAP bytes) what the call just made left behind, comparing with THREADS
 * (integrity_threads() before it) and with RUNNER_PID (the runner's own pid), and returns
 * 1; returns 0 when nothing. A forked copy of the runner that returns here exits at once
 * (quietly: the runner itself reports the fork). */
int integrity_after_call(int threads, pid_t runner_pid, char *why, size_t cap);
/* The first harness symbol (the timers' and the result channel's functions) that the
 * library HANDLE defines itself, with ENTRY one of its functions; NULL when none. */
const char *integrity_interposed(void *handle, void *entry);

#endif

/* pidlive.h - whether a process still lives, as /proc tells it: its start time (to tell a
 * reused pid), and whether it is ending (a zombie, exiting, or killed and not yet run since). */
#ifndef KWB_PIDLIVE_H
#define KWB_PIDLIVE_H

#include <stddef.h>
#include <sys/types.h>

/* Field 22 of /proc/PID/stat (start time in clock ticks since boot) into BUF (CAP bytes);
 * -1 when unavailable (not Linux, no such process). */
int pidlive_start_time(pid_t pid, char *buf, size_t cap);

/* 1 when PID is ending: a zombie waiting to be reaped (state Z or X), exiting (PF_EXITING in its
 * flags), or with a SIGKILL pending (a parent-death signal is sent before the parent can be
 * waited for, so a killed judge's child may not have run since); 0 otherwise or when unknown. */
int pidlive_dying(pid_t pid);

#endif

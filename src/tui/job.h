/* job.h - long work as child processes whose stdout and stderr come back through non-blocking
 * pipes, read line by line from the one poll() loop; a job is cancelled by signalling its process
 * group (SIGTERM, then SIGKILL when it lingers). */
#ifndef KWB_TUI_JOB_H
#define KWB_TUI_JOB_H

#include <poll.h>
#include <sys/types.h>

#include "error.h"
#include "strbuf.h"

#define JOB_MAX 4

typedef struct job {
    int active; /* started and not yet reaped */
    int kind;   /* the caller's tag (which step of the round) */
    pid_t pid;
    int fd[2];      /* stdout, stderr read ends; -1 once at end of file */
    strbuf part[2]; /* an unfinished line of each */
    strbuf out;     /* all of stdout, when captured */
    int capture;
    int status;     /* wait status once reaped */
    double kill_at; /* when cancelled: the time SIGKILL follows; 0 otherwise */
    int cancelled;
    char label[64];
} job;

/* Called for each complete line: IS_ERR 1 for stderr. */
typedef void (*job_line_fn)(void *ctx, job *j, int is_err, const char *line);
/* Called once the job has ended and been reaped. */
typedef void (*job_done_fn)(void *ctx, job *j);

/* Starts ARGV in its own process group with stdin on /dev/null and both output streams piped;
 * CAPTURE keeps all of stdout in j->out as well. 0, or -1 with *err. */
int job_start(job *j, int kind, const char *label, char *const argv[], int capture, kwb_error *err);
/* Adds the descriptors of the active jobs to PFD (at most MAX); returns how many were added. */
int job_pollfds(job *jobs, int n, struct pollfd *pfd, int max);
/* Reads what is ready on every active job, calling LINE per line and DONE for each that ended. */
void job_service(job *jobs, int n, job_line_fn line, job_done_fn done, void *ctx);
/* Cancels J: SIGTERM to its process group now, SIGKILL two seconds later if it is still there. */
void job_cancel(job *j);
/* Number of active jobs. */
int job_count(const job *jobs, int n);
/* Waits (blocking, up to TIMEOUT_S) until every job has ended, servicing them. */
void job_drain(job *jobs, int n, double timeout_s, job_line_fn line, job_done_fn done, void *ctx);

#endif

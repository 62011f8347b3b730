/* runner.h - kwb-runner: reads one job, evaluates its workloads on one device, and
 * writes protocol events (protocol.h). A faulting candidate kills only this process. */
#ifndef KWB_RUNNER_H
#define KWB_RUNNER_H

/* The runner's version, reported in its hello event. */
#define KWB_RUNNER_VERSION "0.1.0"

/* Runs the job read from JOB_FD, writing events to EVENT_FD. Returns the process exit
 * code: 0 when the job ran (whatever the statuses), 1 on a job-level error (reported in
 * an error event), 2 when the job could not be read. */
int runner_run(int job_fd, int event_fd);

/* kwb-runner's command line: [--job-fd N] [--event-fd N] | --version | --help |
 * --list-devices | --sandbox-info. Returns the exit code. */
int runner_main(int argc, char **argv);

#endif

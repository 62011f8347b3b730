/* sandbox.h - the runner as a sandbox for candidate code, on by default: system calls through
 * libseccomp (no network sockets, no exec, no new processes, no tracing, no namespaces; each
 * refusal recorded with the call's name), the file system through Landlock (writes only in the
 * scratch folder, reads only of the system's libraries, the solutions' builds, the definition,
 * the dataset and the device nodes; each refused path recorded), and rlimits (address space on
 * the cpu device, CPU time, open files, processes, no core files). Applied after the runner's
 * own setup and before the candidate's library is loaded. */
#ifndef KWB_RUNNER_SANDBOX_H
#define KWB_RUNNER_SANDBOX_H

#include <stddef.h>
#include <stdio.h>

#include "error.h"

/* What the sandbox allows beyond the system's own files. */
typedef struct sandbox_spec {
    const char *device;       /* "cpu", "cuda", "cuda:N" */
    const char *scratch;      /* the only folder written to (the runner's working folder) */
    const char *const *reads; /* read-only: the definition, the dataset, solution and build folders */
    int nreads;
    double cpu_limit_s; /* RLIMIT_CPU in seconds; 0: none */
} sandbox_spec;

/* Applies the policy to this process and every thread it has (TSYNC). Returns 0 with a
 * one-line account of what is in force in SUMMARY (a part the kernel lacks is named there as
 * left out), or -1 with *err set when nothing could be applied safely. */
int sandbox_apply(const sandbox_spec *spec, char *summary, size_t cap, kwb_error *err);

/* Marks candidate code as running (ON 1) or not (0): refusals while it runs are its. */
void sandbox_watch(int on);

/* Takes the first refusal recorded while candidate code ran since the last call: returns 1
 * and writes "the sandbox refused system call 'socket' (network)" or "... open of PATH (write
 * outside the scratch folder)" into WHY; 0 when there is none. */
int sandbox_refused(char *why, size_t cap);

/* Prints the policy this runner applies on this kernel (kwb-runner --sandbox-info). */
void sandbox_print_policy(FILE *f, const char *device);

#endif

/* refserve.h - kwb's side of the reference cache: the runner, inside its sandbox, cannot reach
 * CACHE/references, so kwb keeps the folder and serves it. On a ref-want event (the workload in
 * flight and a trial) kwb copies the cached file into the runner's scratch folder and answers
 * "hit SHA256" on the job's ref_fd, or "miss"; on a ref-out event it keeps the file the runner
 * wrote there when its bytes hash to what the event says. The key is computed here from the job
 * (refcache.h), never taken from the runner, so a runner can neither read nor fill another
 * workload's or trial's entry. */
#ifndef KWB_REFSERVE_H
#define KWB_REFSERVE_H

#include "protocol.h"
#include "runner/refcache.h"
#include "workload.h"

typedef struct refserve {
    refcache cache;
    char *def_name;         /* the definition's name (part of the key) */
    uint64_t seed;          /* the job's seed (part of the key) */
    const char *scratch;    /* the runner's scratch folder (borrowed) */
    int fd;                 /* the write end of the runner's ref_fd; -1: not serving */
    int hits, misses, kept; /* what it did, for tests and messages */
} refserve;

/* Sets S up to serve a local runner at RUNNER_PATH (a name without '/' is looked up on PATH) of
 * JOB, whose scratch folder is SCRATCH, answering on FD (S owns it from here). Returns 1 when it
 * serves (the cache is on and the runner binary found), else 0 (FD closed, S inert). */
int refserve_open(refserve *s, const runner_job *job, const char *runner_path, const char *scratch, int fd);
/* Answers a ref-want for TRIAL of workload W. */
void refserve_want(refserve *s, const workload *w, int trial);
/* Takes a ref-out: the file NAME in the scratch folder (only "ref-out-N.bin") with SHA256, the
 * outputs of TRIAL of workload W; removes the file either way. */
void refserve_got(refserve *s, const workload *w, int trial, const char *name, const char *sha256);
/* Closes the answering descriptor and frees what S holds. */
void refserve_close(refserve *s);

#endif

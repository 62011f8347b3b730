/* executor.h - where each worker (one runner, one device) runs: `local` (a child of kwb),
 * `ssh:HOST[/DEVICE],...` (the runner over `ssh HOST kwb-runner --stdio`) or
 * `slurm[:KEY=VALUE,...]` (each worker an `srun --ntasks=1 [--gres=GRES] kwb-runner --stdio`
 * step of one allocation: the one kwb runs in, else one it asks for with `salloc` and cancels
 * at the end). Settings ride in the same comma list (an entry with '=' is a setting):
 * runner=PATH (the runner on the workers; default this kwb's, for a shared file system),
 * silence=S (a worker quiet this long is lost; default 60), ssh=WORDS (default
 * "ssh -o BatchMode=yes"), workers=N, gres=SPEC|none (default gpu:1), partition=P, time=T,
 * account=A, srun=WORDS, salloc=WORDS, batch=yes|no; files=shared (default: the files a job names,
 * libraries, definition, dataset, are at the same paths on the workers) or files=ship (they go
 * through the transport into a cache per host, ship.h; ship_cache=DIR there). */
#ifndef KWB_EXECUTOR_H
#define KWB_EXECUTOR_H

#include "error.h"
#include "runclient.h"

typedef enum executor_kind { EXECUTOR_LOCAL, EXECUTOR_SSH, EXECUTOR_SLURM } executor_kind;

typedef struct executor {
    executor_kind kind;
    char **hosts; /* ssh: HOST or HOST/DEVICE, one per worker */
    int nhosts;
    char *runner;     /* runner=: the runner's path on the workers (NULL: the local one's) */
    char *ssh;        /* ssh=: the ssh command's words */
    double silence_s; /* silence= */
    int workers;      /* slurm: workers= (0: the allocation's task count, else 1) */
    char *gres, *partition, *time, *account, *srun, *salloc;
    char jobid[32];     /* slurm: the allocation used */
    int own_allocation; /* slurm: kwb asked for it, and cancels it */
    int batch;          /* slurm: batch=yes: the whole eval goes to sbatch (outside an allocation) */
    int ship;           /* files=ship: the job's files go through the transport (ship.h) */
    char *ship_cache;   /* ship_cache=: where the workers keep shipped files (default their cache) */
} executor;

/* One worker: its label, the device it runs, and how the runner is reached. */
typedef struct executor_worker {
    char *where;  /* "HOST", "slurm job J" */
    char *device; /* the device there */
    runclient_remote remote;
} executor_worker;

/* Parses SPEC (see above) into EX. 0, or -1 with *err naming the problem. */
int executor_parse(const char *spec, executor *ex, kwb_error *err);
/* The spec in force: OPTION when given, else $KWB_EXECUTOR, else "local". */
const char *executor_spec(const char *option);
/* For kwb judge, run and tui (CMD): checks SPEC and puts it in $KWB_EXECUTOR, where the kwb
 * eval children find it. 0, or -1 after a "kwb CMD: ..." message. */
int executor_use(const char *spec, const char *cmd);
/* Nonzero when EX sends the eval to sbatch instead of running it here: slurm with batch=yes,
 * outside an allocation. */
int executor_batch(const executor *ex);
/* Submits `kwb ARGV...` (ARGV[0] the command, "eval") with sbatch for EX's workers, its output
 * to slurm-JOB.out in the current folder; prints the job's id. 0, or -1 with *err set. */
int executor_submit(const executor *ex, int argc, char **argv, kwb_error *err);
/* Slurm: takes the allocation kwb runs in ($SLURM_JOB_ID) or asks for one with salloc. Other
 * kinds: nothing. 0, or -1 with *err set. */
int executor_start(executor *ex, kwb_error *err);
/* The workers of a started remote executor, each running RUNNER (used when runner= is unset)
 * on DEVICE unless its entry names one; *n their count. Free with executor_workers_free. */
executor_worker *executor_workers(const executor *ex, const char *runner, const char *device, int *n);
/* Frees what executor_workers returned. */
void executor_workers_free(executor_worker *w, int n);
/* Cancels an allocation kwb asked for, and frees EX. */
void executor_stop(executor *ex);

#endif

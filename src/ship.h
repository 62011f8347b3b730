/* ship.h - files=ship: the files a job names (the solutions' libraries, the definition, the
 * dataset's blobs its workloads read) sent through a remote worker's transport before the job,
 * into a cache on the worker's host keyed by SHA-256 (kwb-runner --stdio --ship-cache, relay.h),
 * so that workers need no shared file system. kwb sends a manifest line
 * {"ship":[{"sha256","size","path","rel"}],"dataset":ROOT}; the relay answers {"need":[SHA...]}
 * with what its cache lacks; kwb sends those files' bytes in manifest order; then the job, whose
 * paths the relay points at its copies. */
#ifndef KWB_SHIP_H
#define KWB_SHIP_H

#include "error.h"
#include "protocol.h"
#include "workload.h"

/* The files of a job and the manifest line (no newline). */
typedef struct ship_manifest {
    char **path;
    long long *size;
    char (*sha)[65];
    int n;
    char *line;
} ship_manifest;

/* The manifest of JOB for the workloads of SET from FROM on. 0, or -1 with *err naming a file
 * that cannot be read. Free with ship_manifest_free. */
int ship_manifest_make(const runner_job *job, const workload_set *set, int from, ship_manifest *m, kwb_error *err);
/* Sends M on OUT_FD, reads the relay's answer from IN_FD (waiting at most TIMEOUT_S), sends the
 * files it needs. *SENT gets their count and *BYTES their size. 0, or -1 with *err set. */
int ship_send(int out_fd, int in_fd, const ship_manifest *m, double timeout_s, int *sent, long long *bytes,
              kwb_error *err);
/* Writes all N bytes of BUF to FD (retrying on EINTR); 0, or -1 when FD will take no more. */
int ship_write_all(int fd, const void *buf, size_t n);
/* Frees M's contents. */
void ship_manifest_free(ship_manifest *m);

#endif

/* refcache.h - the reference's outputs kept on disk per (reference, device kind, definition,
 * workload, seed, trial), so that every candidate of a session is checked against the same
 * outputs without computing them again. The reference's identity is the runner binary (device,
 * inode, size and modification time of /proc/self/exe) and, for a reference solution folder,
 * its library (path, size, modification time): a rebuilt runner or reference never reads an
 * older one's outputs. */
#ifndef KWB_REFCACHE_H
#define KWB_REFCACHE_H

#include <stdint.h>

#include "runner/inputs.h"
#include "workload.h"

/* When outputs are written to the cache. */
typedef enum refcache_mode {
    REFCACHE_OFF,    /* never read or written (KWB_REF_CACHE=off, or no cache folder) */
    REFCACHE_AUTO,   /* written when computing them took longer than reading them back would */
    REFCACHE_ALWAYS, /* always written (KWB_REF_CACHE=always) */
} refcache_mode;

typedef struct refcache {
    refcache_mode mode;
    char *dir;      /* CACHE/references */
    char ident[65]; /* the reference's identity and the device kind, hashed */
} refcache;

/* Sets C up under CACHE_DIR (NULL: off) for references run on device kind KIND by the runner
 * binary EXE (NULL: this process's own): the runner's own reference, or the library REFERENCE_SO
 * (a reference solution folder's build, NULL when none; its path names its build hash), of the
 * definition in DEFINITION_PATH (its bytes are part of the key: they say how inputs are made) and
 * the dataset at DATASET_ROOT (its blobs); the mode comes from KWB_REF_CACHE (off, auto, always;
 * default auto). Never fails: a cache that cannot be used is off. kwb opens one with the runner's
 * path to serve the runner (refserve.h), the runner one of its own when nobody serves it. */
void refcache_open(refcache *c, const char *cache_dir, const char *kind, const char *reference_so,
                   const char *definition_path, const char *dataset_root, const char *exe);
/* The file of one trial's outputs (the caller frees it), or NULL when the cache is off. */
char *refcache_path(const refcache *c, const char *def_name, const workload *w, uint64_t seed, int trial);
/* Fills OUT's host copies from PATH. Returns 1 when they were there (sizes matching), else 0. */
int refcache_load(const refcache *c, const char *path, output_set *out);
/* Writes OUT's host copies to PATH (atomically: a temporary file renamed) when the mode
 * asks for it, given that computing them took COMPUTE_S seconds. Failures are ignored:
 * the cache only saves time. */
void refcache_store(const refcache *c, const char *path, const output_set *out, double compute_s);

/* The pieces, for a cache served by kwb through the runner's scratch folder: */
/* Fills OUT's host copies from the cache file PATH whatever the mode: 1 when it holds them
 * (format and sizes matching), else 0. */
int refcache_read(const char *path, output_set *out);
/* Whether outputs OUT that took COMPUTE_S seconds to compute are worth keeping under C's mode. */
int refcache_worth(const refcache *c, const output_set *out, double compute_s);
/* Writes OUT's host copies to PATH as a cache file (a temporary file, never through a link,
 * renamed) and its SHA-256 into HEX (may be NULL). Returns 0, or -1. */
int refcache_write(const char *path, const output_set *out, char hex[65]);
/* Copies the file FROM into TO (what TO was is removed first; TO is made afresh, never through
 * a link), its SHA-256 into HEX. Returns 0, or -1 (nothing left at TO). */
int refcache_copy(const char *from, const char *to, char hex[65]);
/* The SHA-256 of the file at PATH (not through a link) into HEX. Returns 0, or -1. */
int refcache_file_sha256(const char *path, char hex[65]);
/* Keeps the cache file FILE (a runner wrote it) at PATH when the mode allows and its bytes hash to
 * SHA256 (what the runner said it wrote): a file changed since is dropped. Failures are ignored. */
void refcache_adopt(const refcache *c, const char *file, const char *sha256, const char *path);
/* Frees what C holds. */
void refcache_close(refcache *c);

#endif

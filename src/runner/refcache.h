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

/* Sets C up under CACHE_DIR (NULL: off) for references run on device kind KIND: the runner's
 * own, or the library REFERENCE_SO (a reference solution folder's build, NULL when none; its
 * path names its build hash), of the definition in DEFINITION_PATH (its bytes are part of the
 * key: they say how inputs are made) and the dataset at DATASET_ROOT (its blobs); the mode comes from KWB_REF_CACHE
 * (off, auto, always; default auto). Never fails: a cache that cannot be used is off. */
void refcache_open(refcache *c, const char *cache_dir, const char *kind, const char *reference_so,
                   const char *definition_path, const char *dataset_root);
/* The file of one trial's outputs (the caller frees it), or NULL when the cache is off. */
char *refcache_path(const refcache *c, const char *def_name, const workload *w, uint64_t seed, int trial);
/* Fills OUT's host copies from PATH. Returns 1 when they were there (sizes matching), else 0. */
int refcache_load(const refcache *c, const char *path, output_set *out);
/* Writes OUT's host copies to PATH (atomically: a temporary file renamed) when the mode
 * asks for it, given that computing them took COMPUTE_S seconds. Failures are ignored:
 * the cache only saves time. */
void refcache_store(const refcache *c, const char *path, const output_set *out, double compute_s);
/* Frees what C holds. */
void refcache_close(refcache *c);

#endif

/* refserve.c - kwb serves the reference cache to its runners: see refserve.h. */
#define _GNU_SOURCE
#include "refserve.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

/* The runner binary's path: NAME itself when it holds a '/', else the first on PATH. */
static char *find_program(const char *name)
{
    if (strchr(name, '/'))
        return xstrdup(name);
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        char *cand = xasprintf("%.*s/%s", (int)len, p, name);
        if (len > 0 && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        p = colon ? colon + 1 : p + len;
    }
    return NULL;
}

static char *definition_name(const char *path)
{
    json_t *o = json_load_file(path, 0, NULL);
    const char *n = json_string_value(json_object_get(o, "name"));
    char *name = n ? xstrdup(n) : NULL;
    json_decref(o);
    return name;
}

int refserve_open(refserve *s, const runner_job *job, const char *runner_path, const char *scratch, int fd)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    char *exe = find_program(runner_path), kind[16];
    snprintf(kind, sizeof kind, "%.*s", (int)strcspn(job->device, ":"), job->device);
    refcache_open(&s->cache, job->cache_dir, kind, job->reference.so_path, job->definition_path, job->dataset_root,
                  exe ? exe : "/nonexistent");
    free(exe);
    s->def_name = definition_name(job->definition_path);
    if (s->cache.mode == REFCACHE_OFF || !s->def_name || !scratch) {
        close(fd);
        refserve_close(s);
        return 0;
    }
    s->seed = job->seed;
    s->scratch = scratch;
    s->fd = fd;
    return 1;
}

static void answer(refserve *s, const char *line)
{
    size_t len = strlen(line);
    if (s->fd >= 0 && write(s->fd, line, len) != (ssize_t)len) { /* the runner is gone */
        close(s->fd);
        s->fd = -1;
    }
}

void refserve_want(refserve *s, const workload *w, int trial)
{
    if (s->fd < 0)
        return;
    char *path = w ? refcache_path(&s->cache, s->def_name, w, s->seed, trial) : NULL;
    char *dest = xasprintf("%s/ref-in.bin", s->scratch), hex[65];
    if (path && refcache_copy(path, dest, hex) == 0) {
        utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
        char line[80];
        snprintf(line, sizeof line, "hit %s\n", hex);
        s->hits++;
        answer(s, line);
    } else {
        s->misses++;
        answer(s, "miss\n");
    }
    free(dest);
    free(path);
}

/* Whether NAME is one the runner may hand over: ref-out-DIGITS.bin, nothing else. */
static int valid_name(const char *name)
{
    size_t n = name ? strspn(name + 8, "0123456789") : 0;
    return name && strncmp(name, "ref-out-", 8) == 0 && n > 0 && strcmp(name + 8 + n, ".bin") == 0;
}

void refserve_got(refserve *s, const workload *w, int trial, const char *name, const char *sha256)
{
    if (!valid_name(name))
        return;
    char *file = xasprintf("%s/%s", s->scratch ? s->scratch : "/nonexistent", name);
    if (s->fd >= 0 && sha256 && strlen(sha256) == 64) {
        char *path = refcache_path(&s->cache, s->def_name, w, s->seed, trial);
        struct stat before;
        int had = path && stat(path, &before) == 0;
        refcache_adopt(&s->cache, file, sha256, path);
        s->kept += !had && path && access(path, F_OK) == 0;
        free(path);
    }
    unlink(file);
    free(file);
}

void refserve_close(refserve *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    refcache_close(&s->cache);
    free(s->def_name);
    s->def_name = NULL;
}

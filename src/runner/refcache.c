/* refcache.c - reference outputs on disk: see refcache.h. A file holds a header (magic, the
 * output count, each output's size) and the outputs' bytes in definition order. */
#define _GNU_SOURCE
#include "runner/refcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "sha256.h"
#include "strbuf.h"
#include "xalloc.h"

static const char MAGIC[8] = "KWBREF1\n";

/* Bytes a second the cache is assumed to read back at (the page cache, or a local disk). */
#define REFCACHE_READ_BPS 2e9
/* The most the folder may hold (KWB_REF_CACHE_MAX_MB overrides): the least recently used files
 * go first. */
#define REFCACHE_MAX_MB 4096.0

/* Removes the least recently used files of DIR until it holds at most MAX bytes besides NEED. */
static void evict(const char *dir, double need)
{
    const char *env = getenv("KWB_REF_CACHE_MAX_MB");
    double max = (env && atof(env) > 0 ? atof(env) : REFCACHE_MAX_MB) * 1048576.0;
    for (;;) {
        DIR *d = opendir(dir);
        if (!d)
            return;
        double total = need;
        char *oldest = NULL;
        struct timespec when = {0, 0};
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            struct stat sb;
            char *path = xasprintf("%s/%s", dir, e->d_name);
            if (e->d_name[0] != '.' && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
                total += (double)sb.st_size;
                if (!oldest || sb.st_mtim.tv_sec < when.tv_sec ||
                    (sb.st_mtim.tv_sec == when.tv_sec && sb.st_mtim.tv_nsec < when.tv_nsec)) {
                    free(oldest);
                    oldest = path, path = NULL;
                    when = sb.st_mtim;
                }
            }
            free(path);
        }
        closedir(d);
        int done = total <= max || !oldest || unlink(oldest) != 0;
        free(oldest);
        if (done)
            return;
    }
}

void refcache_open(refcache *c, const char *cache_dir, const char *kind, const char *reference_so,
                   const char *definition_path, const char *dataset_root)
{
    memset(c, 0, sizeof *c);
    const char *env = getenv("KWB_REF_CACHE");
    c->mode = env && strcmp(env, "off") == 0      ? REFCACHE_OFF
              : env && strcmp(env, "always") == 0 ? REFCACHE_ALWAYS
                                                  : REFCACHE_AUTO;
    struct stat sb;
    if (!cache_dir || stat("/proc/self/exe", &sb) != 0) {
        c->mode = REFCACHE_OFF;
        return;
    }
    struct stat rb = {0};
    size_t dlen = 0;
    char *def = definition_path ? strbuf_read_file(definition_path, &dlen) : NULL, dhash[65];
    if ((reference_so && stat(reference_so, &rb) != 0) || !def) {
        free(def);
        c->mode = REFCACHE_OFF;
        return;
    }
    sha256_buffer_hex(def, dlen, dhash);
    free(def);
    char *id =
        xasprintf("%llu:%llu:%lld:%lld.%09ld:%s:%s:%lld:%lld.%09ld:%s:%s", (unsigned long long)sb.st_dev,
                  (unsigned long long)sb.st_ino, (long long)sb.st_size, (long long)sb.st_mtim.tv_sec,
                  (long)sb.st_mtim.tv_nsec, kind, reference_so ? reference_so : "", (long long)rb.st_size,
                  (long long)rb.st_mtim.tv_sec, (long)rb.st_mtim.tv_nsec, dhash, dataset_root ? dataset_root : "");
    sha256_buffer_hex(id, strlen(id), c->ident);
    free(id);
    c->dir = xasprintf("%s/references", cache_dir);
}

char *refcache_path(const refcache *c, const char *def_name, const workload *w, uint64_t seed, int trial)
{
    if (c->mode == REFCACHE_OFF)
        return NULL;
    char *wl = json_dumps(w->json, JSON_COMPACT | JSON_SORT_KEYS);
    sha256_ctx h;
    sha256_init(&h);
    char head[128];
    int n = snprintf(head, sizeof head, "%s\n%llu\n%d\n", c->ident, (unsigned long long)seed, trial);
    sha256_update(&h, head, (size_t)n);
    sha256_update(&h, def_name, strlen(def_name) + 1);
    if (wl)
        sha256_update(&h, wl, strlen(wl));
    free(wl);
    uint8_t d[32];
    char hex[65];
    sha256_final(&h, d);
    sha256_hex(d, hex);
    return xasprintf("%s/%s.bin", c->dir, hex);
}

int refcache_load(const refcache *c, const char *path, output_set *out)
{
    if (c->mode == REFCACHE_OFF || !path)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char magic[8];
    uint32_t n = 0;
    int ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, MAGIC, 8) == 0 && fread(&n, sizeof n, 1, f) == 1 &&
             n == (uint32_t)out->n;
    for (int o = 0; ok && o < out->n; o++) {
        uint64_t size = 0;
        ok = fread(&size, sizeof size, 1, f) == 1 && size == out->bufs[o].nbytes;
    }
    for (int o = 0; ok && o < out->n; o++)
        ok = out->bufs[o].nbytes == 0 || fread(out->bufs[o].host, 1, out->bufs[o].nbytes, f) == out->bufs[o].nbytes;
    ok = ok && fgetc(f) == EOF;
    fclose(f);
    if (ok)
        utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
    return ok;
}

void refcache_store(const refcache *c, const char *path, const output_set *out, double compute_s)
{
    double bytes = 0;
    for (int o = 0; o < out->n; o++)
        bytes += (double)out->bufs[o].nbytes;
    if (c->mode == REFCACHE_OFF || !path || (c->mode == REFCACHE_AUTO && compute_s < bytes / REFCACHE_READ_BPS))
        return;
    if (paths_mkdir_p(c->dir) != 0)
        return;
    evict(c->dir, bytes);
    char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
    FILE *f = fopen(tmp, "wb");
    uint32_t n = (uint32_t)out->n;
    int ok = f && fwrite(MAGIC, 1, 8, f) == 8 && fwrite(&n, sizeof n, 1, f) == 1;
    for (int o = 0; ok && o < out->n; o++) {
        uint64_t size = out->bufs[o].nbytes;
        ok = fwrite(&size, sizeof size, 1, f) == 1;
    }
    for (int o = 0; ok && o < out->n; o++)
        ok = out->bufs[o].nbytes == 0 || fwrite(out->bufs[o].host, 1, out->bufs[o].nbytes, f) == out->bufs[o].nbytes;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) != 0)
        unlink(tmp);
    free(tmp);
}

void refcache_close(refcache *c)
{
    free(c->dir);
    memset(c, 0, sizeof *c);
}

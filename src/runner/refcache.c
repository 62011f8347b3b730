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
                   const char *definition_path, const char *dataset_root, const char *exe)
{
    memset(c, 0, sizeof *c);
    const char *env = getenv("KWB_REF_CACHE");
    c->mode = env && strcmp(env, "off") == 0      ? REFCACHE_OFF
              : env && strcmp(env, "always") == 0 ? REFCACHE_ALWAYS
                                                  : REFCACHE_AUTO;
    struct stat sb;
    if (!cache_dir || stat(exe ? exe : "/proc/self/exe", &sb) != 0) {
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

int refcache_read(const char *path, output_set *out)
{
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
    return ok;
}

int refcache_load(const refcache *c, const char *path, output_set *out)
{
    if (c->mode == REFCACHE_OFF || !path || !refcache_read(path, out))
        return 0;
    utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
    return 1;
}

int refcache_worth(const refcache *c, const output_set *out, double compute_s)
{
    double bytes = 0;
    for (int o = 0; o < out->n; o++)
        bytes += (double)out->bufs[o].nbytes;
    return c->mode == REFCACHE_ALWAYS || (c->mode == REFCACHE_AUTO && compute_s >= bytes / REFCACHE_READ_BPS);
}

/* Writes N bytes at P to F, hashing them into H. */
static int put(FILE *f, sha256_ctx *h, const void *p, size_t n)
{
    sha256_update(h, p, n);
    return n == 0 || fwrite(p, 1, n, f) == n;
}

int refcache_write(const char *path, const output_set *out, char hex[65])
{
    char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    sha256_ctx h;
    sha256_init(&h);
    uint32_t n = (uint32_t)out->n;
    int ok = f && put(f, &h, MAGIC, 8) && put(f, &h, &n, sizeof n);
    for (int o = 0; ok && o < out->n; o++) {
        uint64_t size = out->bufs[o].nbytes;
        ok = put(f, &h, &size, sizeof size);
    }
    for (int o = 0; ok && o < out->n; o++)
        ok = put(f, &h, out->bufs[o].host, out->bufs[o].nbytes);
    if (f && fclose(f) != 0)
        ok = 0;
    else if (!f && fd >= 0)
        close(fd);
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        ok = 0;
    }
    free(tmp);
    if (ok && hex) {
        uint8_t d[32];
        sha256_final(&h, d);
        sha256_hex(d, hex);
    }
    return ok ? 0 : -1;
}

int refcache_copy(const char *from, const char *to, char hex[65])
{
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return -1;
    unlink(to); /* whatever is there (a link a candidate left) goes; the copy is made afresh */
    int outfd = to ? open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    sha256_ctx h;
    sha256_init(&h);
    char buf[1 << 16];
    ssize_t n = 0;
    int ok = outfd >= 0;
    while (ok && (n = read(in, buf, sizeof buf)) > 0) {
        sha256_update(&h, buf, (size_t)n);
        for (ssize_t off = 0; ok && off < n;) {
            ssize_t w = write(outfd, buf + off, (size_t)(n - off));
            ok = w > 0;
            off += w > 0 ? w : 0;
        }
    }
    ok = ok && n == 0;
    close(in);
    if (outfd >= 0 && close(outfd) != 0)
        ok = 0;
    if (!ok) {
        if (outfd >= 0)
            unlink(to);
        return -1;
    }
    uint8_t d[32];
    sha256_final(&h, d);
    sha256_hex(d, hex);
    return 0;
}

int refcache_file_sha256(const char *path, char hex[65])
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    sha256_ctx h;
    sha256_init(&h);
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        sha256_update(&h, buf, (size_t)n);
    close(fd);
    if (n < 0)
        return -1;
    uint8_t d[32];
    sha256_final(&h, d);
    sha256_hex(d, hex);
    return 0;
}

void refcache_adopt(const refcache *c, const char *file, const char *sha256, const char *path)
{
    struct stat sb;
    if (c->mode == REFCACHE_OFF || !path || lstat(file, &sb) != 0 || !S_ISREG(sb.st_mode) || paths_mkdir_p(c->dir) != 0)
        return;
    evict(c->dir, (double)sb.st_size);
    char *tmp = xasprintf("%s.%d.tmp", path, (int)getpid()), hex[65];
    if (refcache_copy(file, tmp, hex) == 0 && strcmp(hex, sha256) == 0 && rename(tmp, path) == 0) {
        free(tmp);
        return;
    }
    unlink(tmp); /* not what the runner computed: changed after it was written */
    free(tmp);
}

void refcache_store(const refcache *c, const char *path, const output_set *out, double compute_s)
{
    if (c->mode == REFCACHE_OFF || !path || !refcache_worth(c, out, compute_s) || paths_mkdir_p(c->dir) != 0)
        return;
    double bytes = 0;
    for (int o = 0; o < out->n; o++)
        bytes += (double)out->bufs[o].nbytes;
    evict(c->dir, bytes);
    refcache_write(path, out, NULL);
}

void refcache_close(refcache *c)
{
    free(c->dir);
    memset(c, 0, sizeof *c);
}

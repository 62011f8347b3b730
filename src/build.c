#include "build.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "owntmp.h"
#include "paths.h"
#include "proc.h"
#include "sha256.h"
#include "strbuf.h"
#include "xalloc.h"

void build_options_default(build_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->cache_dir = paths_cache_dir();
    opt->include_dir = paths_include_dir();
    opt->timeout_s = 600;
}

void build_options_free(build_options *opt)
{
    free((char *)opt->cache_dir);
    free((char *)opt->include_dir);
    memset(opt, 0, sizeof *opt);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The compiler command, without sources and output, as a NULL-terminated argv. */
static int compiler_argv(const solution *s, const build_options *opt, char **argv, int *argc, kwb_error *err)
{
    int n = 0;
    if (strcmp(s->language, "cuda") == 0) {
        const char *nvcc = opt->nvcc;
#ifdef KWB_NVCC
        if (!nvcc)
            nvcc = KWB_NVCC;
#endif
        if (!nvcc)
            return kwb_error_set(err,
                                 "%s:%d: a CUDA solution, but kwb was configured without CUDA "
                                 "(configure --with-cuda=PATH)",
                                 s->json_path, s->language_line);
        const char *arch = opt->cuda_arch ? opt->cuda_arch : "sm_90a";
        argv[n++] = xstrdup(nvcc);
        argv[n++] = xstrdup("-O3");
        argv[n++] = xstrdup("-shared");
        argv[n++] = xstrdup("-Xcompiler=-fPIC");
        argv[n++] = xstrdup("-cudart=shared");
        argv[n++] = xasprintf("-gencode=arch=compute_%s,code=%s", arch + 3, arch);
        argv[n++] = xstrdup("-Xptxas=-v");
    } else {
        const char *cc = opt->cc ? opt->cc : getenv("CC");
        /* $CC may carry flags ("gcc -m64"): split on blanks, as make does, without a shell. */
        char *words = xstrdup(cc && *cc ? cc : "cc"), *save = NULL;
        for (char *w = strtok_r(words, " \t", &save); w && n < 8; w = strtok_r(NULL, " \t", &save))
            argv[n++] = xstrdup(w);
        free(words);
        argv[n++] = xstrdup("-std=gnu11");
        argv[n++] = xstrdup("-O2");
        argv[n++] = xstrdup("-shared");
        argv[n++] = xstrdup("-fPIC");
        argv[n++] = xstrdup("-Wall");
    }
    argv[n++] = xasprintf("-I%s", opt->include_dir);
    for (int i = 0; i < opt->nextra_include && n < 15; i++)
        argv[n++] = xasprintf("-I%s", opt->extra_include[i]);
    *argc = n;
    return 0;
}

static void free_argv(char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        free(argv[i]);
}

static char *join_argv(char **argv, int argc)
{
    strbuf sb;
    strbuf_init(&sb);
    for (int i = 0; i < argc; i++)
        strbuf_printf(&sb, "%s%s", i ? " " : "", argv[i]);
    return strbuf_detach(&sb);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds every regular file directly in DIR (name and bytes, in name order) to CTX: the headers
 * a build may include from there. */
static void hash_folder(sha256_ctx *ctx, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char *path = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (e->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            names = xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = path;
        } else
            free(path);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        char *text = strbuf_read_file(names[i], &len);
        const char *base = strrchr(names[i], '/') + 1;
        sha256_update(ctx, base, strlen(base) + 1);
        sha256_update(ctx, text ? text : "", len);
        free(text);
        free(names[i]);
    }
    free(names);
}

/* Hash of the command, the headers a source may include (INCLUDE/kwb and the extra folders) and
 * every source path and content. */
static void build_hash(const solution *s, const char *command, const build_options *opt, char hex[65])
{
    sha256_ctx ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, "kwb-build-2\n", 12);
    sha256_update(&ctx, command, strlen(command) + 1);
    sha256_update(&ctx, s->entry_symbol, strlen(s->entry_symbol) + 1);
    char *kwb_headers = xasprintf("%s/kwb", opt->include_dir);
    hash_folder(&ctx, kwb_headers);
    free(kwb_headers);
    for (int i = 0; i < opt->nextra_include; i++)
        hash_folder(&ctx, opt->extra_include[i]);
    for (int i = 0; i < s->nsources; i++) {
        char lenbuf[32];
        snprintf(lenbuf, sizeof lenbuf, "\n%zu\n", s->sources[i].len);
        sha256_update(&ctx, s->sources[i].path, strlen(s->sources[i].path) + 1);
        sha256_update(&ctx, lenbuf, strlen(lenbuf));
        sha256_update(&ctx, s->sources[i].content, s->sources[i].len);
    }
    uint8_t digest[32];
    sha256_final(&ctx, digest);
    sha256_hex(digest, hex);
}

/* Writes the sources into WORK/src and compiles them there into WORK/lib.so. */
static int compile_in(const solution *s, char **base, int nbase, const char *work, const build_options *opt,
                      build_result *r, kwb_error *err)
{
    char *argv[64 + 2 * 32];
    int argc = 0;
    for (int i = 0; i < nbase; i++)
        argv[argc++] = base[i];
    for (int i = 0; i < s->nsources && argc < 60 + 32; i++) {
        char *p = xasprintf("%s/src/%s", work, s->sources[i].path);
        if (paths_write_file(p, s->sources[i].content, s->sources[i].len) != 0) {
            free(p);
            return kwb_error_set(err, "%s: cannot write: %s", work, strerror(errno));
        }
        free(p);
        const char *path = s->sources[i].path;
        if (ends_with(path, ".c") || ends_with(path, ".cu") || ends_with(path, ".cpp") || ends_with(path, ".cc"))
            argv[argc++] = xasprintf("src/%s", path);
    }
    argv[argc++] = "-o";
    argv[argc++] = "lib.so";
    if (strcmp(s->language, "c") == 0) {
        argv[argc++] = "-lm";
        argv[argc++] = "-lpthread";
    }
    argv[argc] = NULL;
    char *log_path = xasprintf("%s/build.log", work);
    double t0 = proc_now();
    int rc = proc_run_logged(argv, work, log_path, opt->timeout_s, err);
    r->seconds = proc_now() - t0;
    for (int i = nbase; i < argc; i++)
        if (strncmp(argv[i], "src/", 4) == 0)
            free(argv[i]);
    r->log = strbuf_read_file(log_path, NULL);
    if (!r->log)
        r->log = xstrdup("");
    if (rc == 124) {
        char *more =
            xasprintf("%s\nkwb: the compiler ran past its %.0f s limit and was killed\n", r->log, opt->timeout_s);
        free(r->log);
        r->log = more;
    }
    free(log_path);
    return rc;
}

int build_solution(const solution *s, const build_options *opt, build_result *r, kwb_error *err)
{
    memset(r, 0, sizeof *r);
    char *base[16];
    int nbase = 0;
    if (compiler_argv(s, opt, base, &nbase, err) != 0)
        return -1;
    r->command = join_argv(base, nbase);
    char hex[65];
    build_hash(s, r->command, opt, hex);
    r->hash = xstrdup(hex);
    char *dir = xasprintf("%s/builds/%s", opt->cache_dir, hex);
    r->so_path = xasprintf("%s/lib.so", dir);
    int rc = 0;
    if (access(r->so_path, R_OK) == 0) {
        r->ok = r->cached = 1;
        char *log_path = xasprintf("%s/build.log", dir);
        r->log = strbuf_read_file(log_path, NULL);
        free(log_path);
        if (!r->log)
            r->log = xstrdup("");
    } else {
        /* a work folder of its own (two threads of one kwb may build the same hash at once), named
         * for this process: one a killed kwb left is swept by a later build (owntmp) */
        char *builds = xasprintf("%s/builds", opt->cache_dir);
        char *work = NULL;
        if (paths_mkdir_p(builds) != 0)
            kwb_error_set(err, "%s: cannot create: %s", builds, strerror(errno));
        else
            work = owntmp_make_in(builds, "build", err);
        free(builds);
        if (!work)
            rc = -1;
        else {
            chmod(work, 0755); /* the entry it becomes is readable as the cache's other entries */
            int crc = compile_in(s, base, nbase, work, opt, r, err);
            char *cmd_file = xasprintf("%s/command", work);
            paths_write_file(cmd_file, r->command, strlen(r->command));
            free(cmd_file);
            if (crc < 0)
                rc = -1;
            else if (crc == 0 && (rename(work, dir) == 0 || access(r->so_path, R_OK) == 0))
                r->ok = 1;
        }
        if (work)
            paths_remove_tree(work);
        free(work);
    }
    free(dir);
    free_argv(base, nbase);
    return rc;
}

void build_result_free(build_result *r)
{
    free(r->hash);
    free(r->so_path);
    free(r->command);
    free(r->log);
    memset(r, 0, sizeof *r);
}

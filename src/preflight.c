#define _GNU_SOURCE
#include "preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "owntmp.h"
#include "paths.h"
#include "results.h"
#include "runclient.h"
#include "sha256.h"
#include "strbuf.h"
#include "xalloc.h"

/* The workload of SET whose tensors are smallest. */
static const workload *smallest(const definition *d, const workload_set *set)
{
    const workload *best = NULL;
    double best_size = 0;
    for (int i = 0; i < set->count; i++) {
        double size = 0;
        for (int k = 0; k < d->ninputs; k++)
            size += d->inputs[k].rank < 0 ? 0 : (double)workload_numel(&set->items[i], &d->inputs[k]);
        for (int k = 0; k < d->noutputs; k++)
            size += d->outputs[k].rank < 0 ? 0 : (double)workload_numel(&set->items[i], &d->outputs[k]);
        if (!best || size < best_size)
            best = &set->items[i], best_size = size;
    }
    return best;
}

/* CACHE/preflight/HASH for D, W, DEVICE, the runner binary RUNNER and the reference REF (its
 * built library's path names its build hash). */
static char *marker_path(const definition *d, const workload *w, const char *device, const char *runner,
                         const job_solution *ref)
{
    sha256_ctx c;
    sha256_init(&c);
    size_t len = 0;
    char *text = strbuf_read_file(d->path, &len), *wl = json_dumps(w->json, JSON_SORT_KEYS | JSON_COMPACT);
    struct stat st = {0};
    stat(runner, &st);
    char *extra = xasprintf("%s\n%s\n%lld %lld\n%s\n", device, runner, (long long)st.st_size, (long long)st.st_mtime,
                            ref && ref->so_path ? ref->so_path : "none");
    sha256_update(&c, text, text ? len : 0);
    sha256_update(&c, wl, wl ? strlen(wl) : 0);
    sha256_update(&c, extra, strlen(extra));
    uint8_t digest[32];
    char hex[65], *cache = paths_cache_dir();
    sha256_final(&c, digest);
    sha256_hex(digest, hex);
    char *path = xasprintf("%s/preflight/%s", cache, hex);
    free(cache);
    free(text);
    free(wl);
    free(extra);
    return path;
}

/* The dump job of W alone into OUT; the result into *res. */
static int dump_one(const definition *d, const workload *w, const char *root, const char *device,
                    const job_solution *ref, double timeout_s, const char *runner, const char *out, wl_result *res,
                    kwb_error *err)
{
    runner_job job;
    protocol_job_defaults(&job);
    char *def_path = realpath(d->path, NULL), *abs_root = realpath(root, NULL);
    job.device = (char *)device;
    job.definition_path = def_path ? def_path : d->path;
    job.dataset_root = abs_root ? abs_root : (char *)root;
    job.cache_dir = paths_cache_dir();
    job.trials = 1;
    job.seed = 1;
    job.dump_dir = (char *)out;
    job.dump_trial = 0;
    if (ref && ref->so_path)
        job.reference = *ref;
    workload one = *w;
    workload_set set = {&one, 1};
    runclient client = {.runner_path = (char *)runner, .timeout_s = timeout_s, .job = &job};
    int rc = runclient_run(&client, &set, res, err);
    runclient_free(&client);
    free(job.cache_dir);
    free(def_path);
    free(abs_root);
    return rc;
}

int preflight_reference(const definition *d, const workload_set *set, const char *root, const char *label,
                        const char *device, const job_solution *reference, double timeout_s, kwb_error *err)
{
    const workload *w = smallest(d, set);
    if (!w)
        return 0;
    char *runner = paths_runner(), *marker = marker_path(d, w, device, runner, reference);
    if (access(marker, F_OK) == 0) {
        free(marker);
        free(runner);
        return 0;
    }
    char *tmpl = owntmp_make("preflight", err);
    wl_result res = {0};
    int rc = tmpl ? dump_one(d, w, root, device, reference, timeout_s, runner, tmpl, &res, err) : -1;
    if (rc == 0 && res.status != ST_PASSED)
        rc = kwb_error_set(err,
                           "%s:%d: workload %s: the reference of %s fails on it, alone, before any candidate ran "
                           "(the definition disagrees with its reference, or the inputs are bad): %s",
                           label, w->line, w->uuid, d->path, res.message ? res.message : status_name(res.status));
    if (rc == 0) { /* remembered: the next evaluation of this workload skips the preflight */
        char *dir = xstrdup(marker);
        *strrchr(dir, '/') = '\0';
        FILE *f = paths_mkdir_p(dir) == 0 ? fopen(marker, "w") : NULL;
        if (f)
            fclose(f);
        free(dir);
    }
    results_free(&res);
    if (tmpl)
        paths_remove_tree(tmpl);
    free(tmpl);
    free(marker);
    free(runner);
    return rc;
}

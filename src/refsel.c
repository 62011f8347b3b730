#define _GNU_SOURCE
#include "refsel.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

/* Folder REL of D's kwb member: an absolute path as it is; else beside the definition when that
 * folder exists, else in kwb's kernels folder (a definition copied elsewhere still finds the
 * shipped references). */
static char *declared_folder(const definition *d, const char *rel)
{
    if (rel[0] == '/')
        return xstrdup(rel);
    char *copy = xstrdup(d->path);
    char *dir = xasprintf("%s/%s", dirname(copy), rel);
    free(copy);
    if (access(dir, F_OK) == 0)
        return dir;
    char *kernels = paths_kernels();
    char *shipped = xasprintf("%s/%s", kernels, rel);
    free(kernels);
    if (access(shipped, F_OK) == 0) {
        free(dir);
        return shipped;
    }
    free(shipped);
    return dir;
}

/* The folder of the definition's kwb.reference for DEVICE; NULL when it names none. */
static char *declared_dir(const definition *d, const char *device)
{
    const char *rel = d->reference_dir[strncmp(device, "cuda", 4) == 0 ? DEF_REF_CUDA : DEF_REF_CPU];
    return rel ? declared_folder(d, rel) : NULL;
}

/* The environment the torch bridge reads in the runner: the program, the definition, the device. */
static int torch_environment(const char *bridge, const definition *d, const char *device, kwb_error *err)
{
    char *prog = xasprintf("%s/kwb-torch-reference.py", bridge);
    char *def = realpath(d->path, NULL);
    int rc = 0;
    if (!def)
        rc = kwb_error_set(err, "%s: cannot resolve the definition's path", d->path);
    else {
        setenv("KWB_TORCH_PROGRAM", prog, 1);
        setenv("KWB_TORCH_DEFINITION", def, 1);
        setenv("KWB_TORCH_DEVICE", device, 1);
    }
    free(prog);
    free(def);
    return rc;
}

int refsel_prepare(const char *choice, const definition *d, const char *device, const build_options *bo, refsel *out,
                   kwb_error *err)
{
    memset(out, 0, sizeof *out);
    int torch = choice && strcmp(choice, "torch") == 0;
    out->dir = torch ? paths_torch_reference() : choice ? xstrdup(choice) : declared_dir(d, device);
    if (!out->dir)
        return 0;
    if (torch && !d->reference)
        return kwb_error_set(err, "--reference torch: definition '%s' has no \"reference\" source", d->name);
    if (torch && torch_environment(out->dir, d, device, err) != 0)
        return -1;
    out->sol = solution_load(out->dir, err);
    if (!out->sol)
        return kwb_error_prefix(err, "reference");
    if (!torch && strcmp(out->sol->definition, d->name) != 0)
        return kwb_error_set(err, "reference %s: solution is for '%s', not '%s'", out->sol->json_path,
                             out->sol->definition, d->name);
    build_options with = *bo; /* the definition's header folders: -I, hashed with the build */
    char **inc = xcalloc((size_t)d->nreference_include + 1, sizeof *inc);
    for (int i = 0; i < d->nreference_include; i++)
        inc[i] = declared_folder(d, d->reference_include[i]);
    with.extra_include = inc;
    with.nextra_include = d->nreference_include;
    int rc = build_solution(out->sol, &with, &out->br, err);
    for (int i = 0; i < d->nreference_include; i++)
        free(inc[i]);
    free(inc);
    if (rc != 0)
        return kwb_error_prefix(err, "reference");
    if (!out->br.ok)
        return kwb_error_set(err, "reference %s (%s) did not compile:\n%s", out->sol->name, out->dir, out->br.log);
    return 0;
}

job_solution refsel_job_entry(const refsel *r)
{
    job_solution j = {0};
    if (r->sol && r->br.ok)
        j = (job_solution){
            .role = "reference", .name = r->sol->name, .so_path = r->br.so_path, .symbol = r->sol->entry_symbol};
    return j;
}

void refsel_free(refsel *r)
{
    solution_free(r->sol);
    build_result_free(&r->br);
    free(r->dir);
    memset(r, 0, sizeof *r);
}

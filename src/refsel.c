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

void refsel_includes(const definition *d, build_options *bo)
{
    bo->extra_include = xcalloc((size_t)d->nreference_include + 1, sizeof *bo->extra_include);
    for (int i = 0; i < d->nreference_include; i++)
        bo->extra_include[i] = declared_folder(d, d->reference_include[i]);
    bo->nextra_include = d->nreference_include;
}

void refsel_includes_free(build_options *bo)
{
    for (int i = 0; i < bo->nextra_include; i++)
        free(bo->extra_include[i]);
    free(bo->extra_include);
    bo->extra_include = NULL;
    bo->nextra_include = 0;
}

/* Loads the solution in DIR for D (any definition's for the torch bridge, TORCH) into *SOL and
 * builds it with BO and the definition's include folders into *BR. 0, or -1 with *err set. */
static int load_and_build(const char *dir, int torch, const definition *d, const build_options *bo, solution **sol,
                          build_result *br, kwb_error *err)
{
    *sol = solution_load(dir, err);
    if (!*sol)
        return kwb_error_prefix(err, "reference");
    if (!torch && strcmp((*sol)->definition, d->name) != 0)
        return kwb_error_set(err, "reference %s: solution is for '%s', not '%s'", (*sol)->json_path, (*sol)->definition,
                             d->name);
    build_options with = *bo;
    refsel_includes(d, &with);
    int rc = build_solution(*sol, &with, br, err);
    refsel_includes_free(&with);
    if (rc != 0)
        return kwb_error_prefix(err, "reference");
    if (!br->ok)
        return kwb_error_set(err, "reference %s (%s) did not compile:\n%s", (*sol)->name, dir, br->log);
    return 0;
}

/* 1 when D declares code its reference brings: its check, cost values or generated inputs. */
static int declares_code(const definition *d)
{
    int gen = 0;
    for (int i = 0; d->input_gen && i < d->ninputs; i++)
        gen |= d->input_gen[i].kind == DEF_GEN_REFERENCE;
    return gen || d->check.by_reference || d->cost.nfrom_inputs > 0;
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
    if (load_and_build(out->dir, torch, d, bo, &out->sol, &out->br, err) != 0)
        return -1;
    /* another reference than the definition's own: the code the definition declares its reference
     * brings comes from the definition's own, where the chosen one lacks it (the runner decides) */
    char *own = choice && declares_code(d) ? declared_dir(d, device) : NULL;
    int rc = 0;
    if (own && strcmp(own, out->dir) != 0 && load_and_build(own, 0, d, bo, &out->helpers, &out->helpers_br, err) != 0)
        rc = kwb_error_prefix(err, "the definition's own reference, for its declared code");
    free(own);
    return rc;
}

job_solution refsel_job_entry(const refsel *r)
{
    job_solution j = {0};
    if (r->sol && r->br.ok)
        j = (job_solution){
            .role = "reference", .name = r->sol->name, .so_path = r->br.so_path, .symbol = r->sol->entry_symbol};
    if (j.so_path && r->helpers && r->helpers_br.ok)
        j.helpers = r->helpers_br.so_path;
    return j;
}

void refsel_free(refsel *r)
{
    solution_free(r->sol);
    build_result_free(&r->br);
    solution_free(r->helpers);
    build_result_free(&r->helpers_br);
    free(r->dir);
    memset(r, 0, sizeof *r);
}

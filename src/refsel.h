/* refsel.h - which reference a job runs (the runner has none of its own): a solution folder
 * (--reference DIR or the definition's "kwb": {"reference": {...}}), or the definition's PyTorch
 * source run by python3 (--reference torch, through the bridge in libexec/torch-reference). */
#ifndef KWB_REFSEL_H
#define KWB_REFSEL_H

#include "build.h"
#include "definition.h"
#include "error.h"
#include "protocol.h"
#include "solution.h"

/* A chosen and built reference; free with refsel_free. */
typedef struct refsel {
    solution *sol; /* NULL: none chosen (the runner has none of its own) */
    build_result br;
    char *dir; /* the folder it was built from */
    /* the definition's own reference for the device, built as the helpers of another one (torch,
     * --reference DIR) when the definition declares code its reference brings (a check, cost
     * values, generated inputs); NULL otherwise */
    solution *helpers;
    build_result helpers_br;
} refsel;

/* Chooses the reference of D on DEVICE ("cpu", "cuda", "cuda:N") from CHOICE (the --reference
 * value: a folder or "torch"; NULL: the definition's kwb.reference) and builds it with BO, and
 * with it the definition's own as its helpers where CHOICE replaces one that brings code. For "torch", sets
 * KWB_TORCH_PROGRAM, KWB_TORCH_DEFINITION and KWB_TORCH_DEVICE for the runners kwb starts. Returns 0, or -1 with *err
 * set (a folder that is not a solution of D, or a reference that does not compile). */
int refsel_prepare(const char *choice, const definition *d, const char *device, const build_options *bo, refsel *out,
                   kwb_error *err);
/* Adds D's include folders (kwb.reference.include, looked up as the references are) to BO: every
 * solution built for D, its references and candidates alike, may include their headers (-I), and
 * they are part of its build's hash. Undo with refsel_includes_free before build_options_free. */
void refsel_includes(const definition *d, build_options *bo);
void refsel_includes_free(build_options *bo);

/* The job's "reference" entry for R (so_path NULL when none was chosen; helpers when built). */
job_solution refsel_job_entry(const refsel *r);
/* Frees what R holds. */
void refsel_free(refsel *r);

#endif

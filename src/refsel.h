/* refsel.h - which reference a job runs: the runner's own, a solution folder (--reference DIR
 * or the definition's "kwb": {"reference": {...}}), or the definition's PyTorch source run by
 * python3 (--reference torch, through the bridge in libexec/torch-reference). */
#ifndef KWB_REFSEL_H
#define KWB_REFSEL_H

#include "build.h"
#include "definition.h"
#include "error.h"
#include "protocol.h"
#include "solution.h"

/* A chosen and built reference; free with refsel_free. */
typedef struct refsel {
    solution *sol; /* NULL: the runner's own reference */
    build_result br;
    char *dir; /* the folder it was built from */
} refsel;

/* Chooses the reference of D on DEVICE ("cpu", "cuda", "cuda:N") from CHOICE (the --reference
 * value: a folder or "torch"; NULL: the definition's kwb.reference, else the runner's own) and
 * builds it with BO. For "torch", sets KWB_TORCH_PROGRAM, KWB_TORCH_DEFINITION and
 * KWB_TORCH_DEVICE for the runners kwb starts. Returns 0, or -1 with *err set (a folder that is
 * not a solution of D, or a reference that does not compile). */
int refsel_prepare(const char *choice, const definition *d, const char *device, const build_options *bo, refsel *out,
                   kwb_error *err);
/* The job's "reference" entry for R (so_path NULL when it is the runner's own). */
job_solution refsel_job_entry(const refsel *r);
/* Frees what R holds. */
void refsel_free(refsel *r);

#endif

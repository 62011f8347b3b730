/* profile.h - the document `kwb profile` prints and stores: per kernel, Nsight Compute's
 * figures from its raw page (time, SM / memory / DRAM / L1 / L2 throughput, occupancy, waves,
 * registers, shared memory), the compiler's resource report, and the bottleneck class with
 * its evidence (bottleneck.h); or, without counters, a roofline-only profile from the plain
 * eval run, with a note saying why.
 *
 * Which kernels are the candidate's: exactly the entry functions its own compiler report
 * (`-Xptxas -v`, part of every CUDA build) names. Nsight Compute is told to profile only those
 * (profile_kernel_filter), and rows of other kernels are dropped here as well (kwb's helpers,
 * named kwb_*, and the reference's kernels never match). */
#ifndef KWB_PROFILE_H
#define KWB_PROFILE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "ncu.h"

/* The plain eval run of the candidate on the workload (kwb eval --json), the call's wall. */
typedef struct profile_call {
    const char *status;  /* PASSED, ...; NULL when unknown */
    const char *message; /* why it did not pass; NULL when it did */
    const char *timer;   /* "cupti", "events", "clock_gettime"; NULL when unknown */
    double median_ms;    /* latency of one call; 0 when unknown */
    double gbps, tflops; /* achieved rates; 0 when unknown */
    double roofline;     /* roofline share, 0..1; 0 when unknown */
    int memory_floor;    /* 1 when the roofline floor is the bytes term */
    int gpu_wall;        /* 1 when median_ms is a GPU call's span (cuda), so that the
                          * kernels' time can be set against it (launch-bound) */
} profile_call;

/* What a profile is made from. */
typedef struct profile_inputs {
    const char *definition, *workload, *device, *solution, *build; /* build: the cache hash */
    const ncu_table *ncu;                                          /* NULL: no counters */
    const char *note;                                              /* why there are no counters, or NULL */
    const ptxas_usage *ptxas;                                      /* the compiler's report, NPTXAS kernels */
    int nptxas;
    profile_call call;
} profile_inputs;

/* Nsight Compute's kernel filter (with --kernel-name-base mangled) that matches exactly the N
 * kernels K of the compiler's report: "regex:^(NAME|NAME)$", or NULL when N is 0. The caller
 * frees it. */
char *profile_kernel_filter(const ptxas_usage *k, int n);
/* The function name inside a kernel name as ptxas or ncu print it (mangled "_ZN2ns4kernIiEEvPT_",
 * demangled "void ns::kern<int>(int *)" or plain "kwb_l2_read"): "kern", written into BUF. */
const char *profile_short_name(const char *name, char *buf, size_t cap);
/* The profile document: definition, workload, device, solution, build, tool ("ncu" when IN's
 * table has rows of the candidate's kernels, else "roofline"), note, eval (IN->call), gpu_us and
 * wall_us, kernels (one object per profiled launch, with its ptxas report and class), ptxas, and
 * bottleneck: the class of the longest kernel, launch-bound when the kernels keep the GPU busy
 * for well under the call's wall, or from the roofline share without counters. */
json_t *profile_document(const profile_inputs *in);
/* Prints DOC (from profile_document) to F as a table per kernel and a paragraph per class. */
void profile_print(FILE *f, json_t *doc);

#endif

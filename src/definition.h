/* definition.h - a FlashInfer-Bench definition: axes, ordered typed inputs and outputs. */
#ifndef KWB_DEFINITION_H
#define KWB_DEFINITION_H

#include <stddef.h>
#include <stdint.h>

#include "costexpr.h"
#include "error.h"
#include "kwb/kernel.h"

/* One axis: const with a value, or var (bound by each workload). */
typedef struct def_axis {
    char *name;
    int is_const;
    int64_t value; /* meaningful when is_const */
} def_axis;

/* One input or output: a tensor whose dims name axes, or a scalar (rank -1). */
typedef struct def_tensor {
    char *name;
    kwb_dtype dtype;
    int rank;               /* -1 for a scalar (shape null) */
    int axis[KWB_MAX_RANK]; /* index into definition.axes, per dim */
} def_tensor;

/* The cost model from kwb's own "kwb": {"cost": {...}} extension of the definition:
 * bytes that must move and FLOPs that must be done, over the axes and the values named in
 * "from_inputs" (computed per call from the inputs by the reference solution's kwb_cost_values,
 * kwb/reference.h), which reads only the inputs "reads" names when it is given (the others
 * stay on the device: a MoE's 1.4 GB of weights need not come back for its routing). Absent
 * parts are NULL. */
typedef struct def_cost {
    costexpr *bytes;
    costexpr *flops;
    char *compute;      /* the peak FLOPs count against: "fp32" (default) or "bf16" */
    char **from_inputs; /* names of the values computed from the inputs */
    int nfrom_inputs;
    unsigned char *reads; /* per input, 1 when kwb_cost_values reads it ("reads"); NULL: it may read all */
} def_cost;

/* The check policy from the "kwb": {"check": {"atol", "rtol", "matched_ratio"}} extension: the
 * tolerances the definition's outputs are held to unless the user says otherwise (the
 * contest's per-definition settings); NAN where the definition does not set one. */
typedef struct def_check {
    double atol;
    double rtol;
    double matched_ratio;
    int any_order;    /* "order": "any": each row (last dimension) of an output compares as a multiset
                       * (top-k indices, sets of choices); 0: element by element */
    int by_reference; /* "method": "reference": the reference solution's own kwb_check (kwb/reference.h)
                       * decides, not the tolerance rule (the DSA top-k's score equivalence) */
} def_check;

/* A declared generator of an integer input, "kwb": {"inputs": {NAME: {...}}}: values that index
 * something (page tables, sequence offsets, routing), where the dtype's random draw would not. */
typedef enum def_gen_kind {
    DEF_GEN_NONE,
    DEF_GEN_RANGE,       /* {"range": [LO, HI]}: uniform integers in [LO, HI] */
    DEF_GEN_OFFSETS,     /* {"offsets": TOTAL}: 0, sorted random cuts, TOTAL (cu_seqlens, indptr) */
    DEF_GEN_PERMUTATION, /* {"permutation": true}: 0..numel-1 shuffled (distinct page ids) */
    DEF_GEN_REFERENCE    /* {"reference": true}: made by the reference solution's kwb_generate
                          * (kwb/reference.h), any tensor input (a quantized cache in its layout) */
} def_gen_kind;

typedef struct def_input_gen {
    def_gen_kind kind;
    costexpr *lo, *hi; /* expressions over the axes: RANGE's bounds; OFFSETS' TOTAL in hi */
    int rows_index;    /* "fresh_rows": {"index": NAME, "dims": D}: the input whose values name the rows
                        * (the first D dimensions flattened) a fresh input set renews; the other rows
                        * keep their values, which no call reads (a paged cache's pages that no page
                        * table names); -1: the whole input is renewed */
    int rows_dims;
} def_input_gen;

/* The replay before promotion from "kwb": {"replay": {"failure_rate", "confidence"}}: a
 * definition whose candidates can fail on a small share of inputs (a top-k at its boundary) is
 * replayed with the trials that catch a failure rate P with confidence C (trialbudget.h); NAN
 * where the definition asks for no replay. */
typedef struct def_replay {
    double failure_rate;
    double confidence;
} def_replay;

typedef struct definition {
    char *path; /* file it was read from, or a label */
    char *name;
    char *op_type;
    char *reference; /* the PyTorch reference source, may be NULL */
    def_axis *axes;
    int naxes;
    def_tensor *inputs;
    int ninputs;
    def_tensor *outputs;
    int noutputs;
    def_cost cost;
    def_check check;
    def_replay replay;
    double *input_scale;      /* "kwb": {"magnitude": {INPUT: SCALE}}: per input, the factor of the
                               * adversarial-magnitude trial (0: unscaled); NULL when none is given */
    def_input_gen *input_gen; /* per input, "kwb": {"inputs": {...}}; NULL when none is declared */
    char *reference_dir[2];   /* "kwb": {"reference": {"cpu": DIR, "cuda": DIR}}: the reference as a
                               * solution folder per device kind (DEF_REF_CPU, DEF_REF_CUDA), relative to
                               * the definition's folder, else to kwb's kernels folder; NULL: none given */
    char **reference_include; /* "kwb": {"reference": {"include": [DIR, ...]}}: folders of headers the
                               * reference's sources include (-I, hashed with the build), resolved so */
    int nreference_include;
} definition;

enum { DEF_REF_CPU, DEF_REF_CUDA };

/* Reads and validates the definition at PATH. Returns NULL and sets *err to
 * "PATH:LINE: problem" on failure; free with definition_free(). */
definition *definition_load(const char *path, kwb_error *err);
/* Same from TEXT (LEN bytes); LABEL stands for the path in messages. */
definition *definition_parse(const char *text, size_t len, const char *label, kwb_error *err);
/* Frees d; NULL is allowed. */
void definition_free(definition *d);
/* Index of the axis NAME, or -1. */
int definition_axis_index(const definition *d, const char *name);
/* Index of the input NAME, or -1. */
int definition_input_index(const definition *d, const char *name);
/* Number of var axes. */
int definition_var_axes(const definition *d);
/* Bytes and FLOPs of a call from the cost model, VALUES holding one value per axis (consts
 * included), then one per cost.from_inputs name; 0 for a part the definition does not model. */
double definition_cost_bytes(const definition *d, const int64_t *values);
double definition_cost_flops(const definition *d, const int64_t *values);

#endif

/*
 * kwb/reference.h - what a reference solution may export besides kwb_entry (contract).
 *
 * A definition's reference can be a solution folder (kwb eval --reference DIR, or the
 * definition's "kwb": {"reference": {...}}). Besides its entry point it may export:
 *   kwb_check            its own output check, used instead of the element-wise tolerance rule
 *                        where the definition chooses it ("kwb": {"check": {"method":
 *                        "reference"}}: a top-k whose ties may fall either way, a sampler
 *                        checked by support);
 *   kwb_cost_values      the values its definition's cost model names in "from_inputs";
 *   kwb_generate         the inputs its definition declares {"reference": true} in "kwb":
 *                        {"inputs": ...} (a quantized cache in its own layout), made where the
 *                        reference runs; kwb_generate_host the same bytes on the host (the
 *                        cpu device's generator when kwb_generate is absent, and the twin
 *                        KWB_CHECK_RNG compares a device's with);
 *   kwb_generate_rows    the same for some rows of such an input only, where the definition
 *                        declares them "fresh_rows" (a paged cache's pages that a page table
 *                        names): a fresh input set then costs what the calls read, not the
 *                        whole cache; kwb_generate_rows_host on the host;
 *   kwb_reference_error  why its last call failed, for the runner's message;
 *   kwb_reference_init   set-up run once before the runner's sandbox is applied (a reference
 *                        that starts a helper process, as the PyTorch bridge does, starts it here).
 * So a definition that needs such code brings it with its reference: kwb is not rebuilt, and
 * kwb-runner holds no code of any definition. Besides kernel.h, a reference may include
 * kwb/argspec.h, kwb/dtype_bits.h and kwb/rng_formula.h, and the headers of the folders its
 * definition names in "kwb": {"reference": {"include": [...]}}.
 */
#ifndef KWB_REFERENCE_H
#define KWB_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "kwb/kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tolerances in force (the definition's, the user's, FlashInfer-Bench's defaults). */
typedef struct kwb_check_policy {
    double atol;           /* default 1e-2 */
    double rtol;           /* default 1e-2 */
    double required_ratio; /* default 1.0: every element must match */
} kwb_check_policy;

/* What a check found over one trial's outputs. */
typedef struct kwb_check_stats {
    size_t numel;
    size_t fails;     /* elements outside tolerance, NaN, or a wrong infinity */
    size_t nonfinite; /* NaN in the output, or an infinity the reference lacks */
    double max_abs;   /* NaN or an infinity when the output has one */
    double max_rel;
    double matched_ratio; /* 1 - fails / numel (1 when numel == 0) */
    size_t first_fail;    /* index of the first failing element, when fails > 0 */
} kwb_check_stats;

/* ARGS: the trial's inputs then the solution's outputs (host memory, definition order, NARGS in
 * all); WANT: the reference's outputs. Fills *ST; returns 0 when the trial passes, else 1 with a
 * one-line reason in MSG (CAP bytes). It must pass the reference's own outputs (in any row order
 * under the definition's "order": "any"): kwb passes outputs equal to them without calling it. */
int kwb_check(const kwb_arg *args, int nargs, const kwb_arg *want, const kwb_check_policy *p, kwb_check_stats *st,
              char *msg, size_t cap);

/* VALUES[i] for NAMES[i] (i < N) from one call's INPUTS (NINPUTS, host memory, scalars by
 * value; where the definition's cost names the inputs it "reads", the others have NULL data).
 * Returns 0, or -1 when a name is not one it knows. */
int kwb_cost_values(const kwb_arg *inputs, int ninputs, const char *const *names, int n, int64_t *values);

/* Fills input ARG (its name, dtype and shape in ARG; device memory on STREAM on cuda, without
 * waiting) from KEY. Returns 0, or -1 when ARG is not an input it makes. */
int kwb_generate(const kwb_arg *arg, uint64_t key, kwb_stream stream);
/* The same bytes in host memory (STREAM is NULL). */
int kwb_generate_host(const kwb_arg *arg, uint64_t key, kwb_stream stream);
/* As kwb_generate for the NROWS rows at ROWS alone (int64 row numbers over ARG's first DIMS
 * dimensions flattened, in ARG's memory space): each gets the bytes kwb_generate(ARG, KEY) gives
 * it, the other rows are not touched. Returns 0, or -1 when ARG or DIMS is not one it makes. */
int kwb_generate_rows(const kwb_arg *arg, int dims, const int64_t *rows, int64_t nrows, uint64_t key,
                      kwb_stream stream);
/* The same in host memory (STREAM is NULL). */
int kwb_generate_rows_host(const kwb_arg *arg, int dims, const int64_t *rows, int64_t nrows, uint64_t key,
                           kwb_stream stream);

/* Set-up before the sandbox: returns 0, or non-zero with kwb_reference_error saying why. */
int kwb_reference_init(void);

/* Why the last call of kwb_entry failed ("" when it did not). */
const char *kwb_reference_error(void);

#ifdef __cplusplus
}
#endif

#endif /* KWB_REFERENCE_H */

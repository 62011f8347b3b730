/* inputs.h - the arguments of one trial: inputs made per workload descriptor, and output
 * buffers with guard zones, staged on the host and placed on the device. */
#ifndef KWB_INPUTS_H
#define KWB_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "definition.h"
#include "error.h"
#include "runner/device.h"
#include "workload.h"

/* Bytes of guard before and after every output buffer. */
#define INPUTS_GUARD 4096

/* A generator of one input (kwb/reference.h's kwb_generate): fills ARG's tensor (device memory on
 * cuda, host memory when STREAM is NULL on the host twin) from KEY; 0, or -1 when ARG is not an
 * input it makes. */
typedef int (*input_gen_fn)(const kwb_arg *arg, uint64_t key, kwb_stream stream);
/* The same generator for some rows only (kwb/reference.h's kwb_generate_rows): the NROWS rows at
 * ROWS (the first DIMS dimensions flattened; device memory where ARG's is) get the bytes a whole
 * fill from KEY gives them, the others are left as they are; 0, or -1 as input_gen_fn. */
typedef int (*input_rows_fn)(const kwb_arg *arg, int dims, const int64_t *rows, int64_t nrows, uint64_t key,
                             kwb_stream stream);

/* One tensor: a pristine host copy and its device memory. */
typedef struct tensor_buf {
    size_t nbytes;
    uint64_t digest; /* inputs: the device copy's digest when pristine (see inputs_seal) */
    int has_digest;
    void *host;         /* inputs: as generated; outputs: last downloaded (without guards) */
    unsigned char *dev; /* device allocation; outputs: INPUTS_GUARD + nbytes + INPUTS_GUARD */
    int host_stale;     /* inputs: generated on the device and not read back yet (inputs_host) */
    uint64_t key;       /* inputs: the key its values were generated from ... */
    input_gen_fn gen;   /* ... and the generator (NULL: the dtype's random draw) */
    uint64_t base_key;  /* inputs with fresh rows: the key of the whole fill, the rows then made from
                         * KEY (the values are base_key's but for those rows) */
    int64_t *rows;      /* ... those rows, sorted, on the host (NULL: none since the whole fill) */
    size_t nrows;
    int rows_dims;  /* ... counted over the first rows_dims dimensions */
    void *rows_dev; /* ... and where the generators read them (device memory, the host's on the cpu) */
} tensor_buf;

/* A set of output buffers for one callee (the reference or one solution). */
typedef struct output_set {
    tensor_buf *bufs; /* per definition output */
    int n;
} output_set;

/* The inputs of one trial. */
typedef struct trial_inputs {
    tensor_buf *bufs; /* per definition input; scalars have nbytes 0 */
    kwb_arg *args;    /* inputs only, in definition order */
    int n;
    uint64_t digest_key; /* drawn afresh for each set: a call cannot aim at a known digest */
} trial_inputs;

/* Makes the inputs of TRIAL of W (seeded by SEED), reading safetensors under ROOT, and
 * uploads them to DEV. Returns 0, or -1 with *err set (a missing blob, a shape mismatch). */
/* The reference's generators for the inputs its definition declares {"reference": true}: GEN
 * where the inputs live, HOST_GEN the same bytes on the host (KWB_CHECK_RNG; may be NULL). */
void inputs_set_reference_generators(input_gen_fn gen, input_gen_fn host_gen);
/* Their row variants (kwb_generate_rows, kwb_generate_rows_host; either may be NULL: a fresh set
 * then renews the whole input). */
void inputs_set_reference_row_generators(input_rows_fn rows, input_rows_fn host_rows);

int inputs_make(trial_inputs *in, device *dev, const definition *d, const workload *w, const char *root, uint64_t seed,
                int trial, kwb_error *err);
/* Makes the values of TRIAL anew in in's existing buffers (generated inputs only; blobs and
 * their host copies stay; an input with "fresh_rows" gets TRIAL's values in the rows its index
 * names, as inputs_make would make them, and keeps the others). Returns 0, or -1 with *err set. */
int inputs_refill(trial_inputs *in, device *dev, const definition *d, const workload *w, uint64_t seed, int trial,
                  kwb_error *err);
/* Records each input's digest on DEV as it is now, as its pristine state (inputs_make and
 * inputs_refill do; call it after changing the inputs on purpose, such as scaling them). A
 * device without digests leaves them unrecorded. Returns 0, or -1 with *err set. */
int inputs_seal(trial_inputs *in, device *dev, kwb_error *err);
/* Frees in's buffers on DEV. */
void inputs_free(trial_inputs *in, device *dev);
/* Nonzero when an input on the device differs from its pristine values (NAME set): by its
 * digest on the device where recorded (a difference confirmed by reading it back), else by
 * reading it back. */
int inputs_changed(trial_inputs *in, device *dev, const char **name, kwb_error *err);
/* Makes every input's host copy hold its pristine values: inputs generated on a device with
 * digests are read back only when asked for (a refresh of a GiB of weights costs no transfer),
 * from the device when their digest is the sealed one, else made again in scratch memory.
 * Returns 0, or -1 with *err set. */
int inputs_host(trial_inputs *in, device *dev, kwb_error *err);
/* As inputs_host for the inputs ONLY marks (ONLY[i] nonzero; NULL: every input). */
int inputs_host_some(trial_inputs *in, device *dev, const unsigned char *only, kwb_error *err);
/* Puts the pristine values back into every input's device memory (after a call changed them):
 * uploaded from the host copy, or generated again where it was not read back. Returns 0, or -1
 * with *err set. */
int inputs_restore(trial_inputs *in, device *dev, kwb_error *err);

/* Allocates output buffers for W on DEV. Returns 0 or -1 with *err set. */
int outputs_alloc(output_set *out, device *dev, const definition *d, const workload *w, kwb_error *err);
/* Frees out's buffers. */
void outputs_free(output_set *out, device *dev);
/* Fills every output and its guards with a fresh pattern drawn from KEY. */
int outputs_poison(output_set *out, device *dev, uint64_t key, kwb_error *err);
/* Downloads every output to its host copy. Returns 0, or 1 when a guard zone changed
 * (the callee wrote outside the shape; *which names the output and *offset says where),
 * or -1 with *err set. */
int outputs_fetch(output_set *out, device *dev, uint64_t key, int *which, long long *offset, kwb_error *err);
/* Reads every output's guard zones back and checks them; with DATA the outputs into their host
 * copies too (outputs_fetch), without it they stay on the device. Returns as outputs_fetch. */
int outputs_check_guards(output_set *out, device *dev, uint64_t key, int data, int *which, long long *offset,
                         kwb_error *err);
/* As outputs_fetch without the data: the guards are read back and checked, and each output's
 * digest under DKEY computed on the device into digests[0..out->n). Returns 0, 1 when a guard
 * changed (*which, *offset), 2 when the device has no digest to offer (nothing learned), or -1
 * with *err set. */
int outputs_digests(output_set *out, device *dev, uint64_t key, uint64_t dkey, uint64_t *digests, int *which,
                    long long *offset, kwb_error *err);
/* Fills ARGS (inputs then outputs, definition order) for a call on OUT. */
void outputs_bind(const output_set *out, const trial_inputs *in, const definition *d, const workload *w, kwb_arg *args);

#endif

/* workload.h - FlashInfer-Bench workloads: one concrete shape of a definition per line. */
#ifndef KWB_WORKLOAD_H
#define KWB_WORKLOAD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "definition.h"
#include "error.h"

/* How one input is made. */
typedef enum wl_input_kind {
    WL_RANDOM,     /* drawn afresh per trial from the dtype's distribution */
    WL_SCALAR,     /* a number, the same in every trial */
    WL_SAFETENSORS /* a tensor read from a file under the TraceSet root */
} wl_input_kind;

typedef struct wl_input {
    wl_input_kind kind;
    double f;   /* WL_SCALAR: value as a double ... */
    int64_t i;  /* ... and as an integer */
    char *path; /* WL_SAFETENSORS: as written, relative to the TraceSet root */
    char *key;  /* WL_SAFETENSORS: tensor_key */
} wl_input;

typedef struct workload {
    char *uuid;
    int line;            /* 1-based line in its JSONL file; 0 when not from a file */
    int64_t *axis_value; /* per definition axis, const axes filled in */
    wl_input *inputs;    /* per definition input, in definition order */
    int ninputs;
    json_t *json; /* the "workload" object as read (owned reference) */
} workload;

typedef struct workload_set {
    workload *items;
    int count;
} workload_set;

/* Parses one "workload" object OBJ for definition D; LABEL and LINE locate it in messages
 * ("LABEL:LINE: problem"). Returns 0, or -1 and sets *err; *w is untouched on failure. */
int workload_parse(json_t *obj, const definition *d, const char *label, int line, workload *w, kwb_error *err);
/* Reads every line of the JSONL file PATH whose "definition" is d->name (blank lines are
 * skipped). On any bad line nothing is loaded: returns -1 and sets *err to
 * "PATH:LINE: problem". Appends to *set on success and returns 0. */
int workload_load_file(const char *path, const definition *d, workload_set *set, kwb_error *err);
/* Shape of tensor T of definition D under workload W into shape[] (rank entries). */
void workload_shape(const workload *w, const def_tensor *t, int64_t *shape);
/* SHAPE[0..rank) as "[a, b, c]" into BUF (capacity CAP). */
void workload_shape_text(const int64_t *shape, int rank, char *buf, size_t cap);
/* Number of elements of tensor T under W (1 for a scalar). */
int64_t workload_numel(const workload *w, const def_tensor *t);
/* Writes "name=value,name=value" for the var axes of D into buf. */
void workload_axes_string(const workload *w, const definition *d, char *buf, size_t cap);
/* Keeps only the workloads whose uuid or axes string matches FILTER (a substring of the
 * uuid, or a comma-separated list of "axis=value" that must all hold; alternatives separated by
 * '|', any of which may match). Returns the count kept. */
int workload_set_filter(workload_set *set, const definition *d, const char *filter);
/* Frees the contents of w. */
void workload_free(workload *w);
/* Frees every workload of set and empties it. */
void workload_set_free(workload_set *set);

#endif

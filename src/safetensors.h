/* safetensors.h - a small reader and writer of the safetensors format (no Python). */
#ifndef KWB_SAFETENSORS_H
#define KWB_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "kwb/kernel.h"

/* One tensor of an open file. */
typedef struct st_tensor {
    char *name;
    kwb_dtype dtype;
    int rank;
    int64_t shape[KWB_MAX_RANK];
    uint64_t offset; /* of the first byte, from the start of the data section */
    uint64_t nbytes;
} st_tensor;

/* An open file: its bytes are read into memory whole. */
typedef struct safetensors {
    char *path;
    unsigned char *bytes;
    size_t size;
    size_t data_start; /* 8 + header length */
    st_tensor *tensors;
    size_t count;
} safetensors;

/* A tensor to write. */
typedef struct st_write_tensor {
    const char *name;
    kwb_dtype dtype;
    int rank;
    const int64_t *shape;
    const void *data; /* numel * dtype_size bytes */
} st_write_tensor;

/* Opens and validates PATH (header JSON, dtypes, shapes, offsets inside the file, sizes
 * equal to numel * element size). A Git LFS pointer file is reported as such.
 * Returns NULL and sets *err ("PATH: problem") on failure; free with safetensors_close(). */
safetensors *safetensors_open(const char *path, kwb_error *err);
/* The tensor named NAME, or NULL. */
const st_tensor *safetensors_find(const safetensors *st, const char *name);
/* Pointer to the first byte of t's data inside st (valid until safetensors_close). */
const void *safetensors_data(const safetensors *st, const st_tensor *t);
/* Frees st; NULL is allowed. */
void safetensors_close(safetensors *st);
/* Writes N tensors to PATH atomically (a temporary file renamed into place), data in
 * the given order. Returns 0, or -1 and sets *err; nothing is left at PATH on failure. */
int safetensors_write(const char *path, const st_write_tensor *tensors, size_t n, kwb_error *err);
/* Same, with a "__metadata__" entry (first in the header) holding NMETA string pairs:
 * META[2k] is a key, META[2k+1] its value. */
int safetensors_write_meta(const char *path, const st_write_tensor *tensors, size_t n, const char *const *meta,
                           size_t nmeta, kwb_error *err);

#endif

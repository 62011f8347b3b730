/* device.h - the runner's devices behind one table of functions (cpu now, cuda later).
 * The runner stages every tensor in host memory (generation, checks) and moves it to
 * the device with upload/download; on the cpu device those are plain copies. */
#ifndef KWB_DEVICE_H
#define KWB_DEVICE_H

#include <jansson.h>
#include <stddef.h>

#include "error.h"
#include "kwb/kernel.h"
#include "runner/references.h"

typedef struct device device;

typedef struct device_ops {
    const char *kind;                                             /* "cpu", "cuda" */
    /* Device memory of N bytes, or NULL with *err set. */
    void *(*alloc)(device *d, size_t n, kwb_error *err);
    /* Frees memory from alloc; NULL is allowed. */
    void (*release)(device *d, void *p);
    /* Copies N host bytes to device memory; returns 0 or -1 with *err set. */
    int (*upload)(device *d, void *dst, const void *src, size_t n, kwb_error *err);
    /* Copies N device bytes to host memory; returns 0 or -1 with *err set. */
    int (*download)(device *d, void *dst, const void *src, size_t n, kwb_error *err);
    /* Waits for all work on the device; returns 0 or -1 with *err set. */
    int (*sync)(device *d, kwb_error *err);
    /* The stream handed to kernels (NULL on the cpu). */
    kwb_stream (*stream)(device *d);
    /* The device's reference for DEFINITION, or NULL. */
    reference_fn (*reference)(device *d, const char *definition);
    /* Makes caches cold before a sample (cpu: writes a buffer larger than the LLC). */
    void (*flush)(device *d);
    /* Adds device facts (name, memory, clocks, timer) to the hello event. */
    void (*describe)(device *d, json_t *hello);
    /* Frees the device. */
    void (*close)(device *d);
} device_ops;

struct device {
    const device_ops *ops;
    void *priv;
};

/* Opens the device named SPEC ("cpu", "cuda", "cuda:N"). Returns NULL and sets *err when
 * the kind is unknown or not built into this runner. */
device *device_open(const char *spec, kwb_error *err);
/* The cpu device (device_cpu.c). */
device *device_cpu_open(kwb_error *err);

#endif

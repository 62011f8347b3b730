/* device.h - the runner's devices behind one table of functions (cpu now, cuda later).
 * The runner stages every tensor in host memory (generation, checks) and moves it to
 * the device with upload/download; on the cpu device those are plain copies. */
#ifndef KWB_DEVICE_H
#define KWB_DEVICE_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "check.h"
#include "error.h"
#include "kwb/kernel.h"
#include "protocol.h"

typedef struct device device;

/* Prefix of a device error that is an integrity finding (the runner reports it as
 * REJECTED_INTEGRITY), e.g. a call that left the persisting-L2 limit raised. */
#define DEVICE_INTEGRITY "integrity: "
struct timing_policy;

/* Makes one call of callee WHICH (the runner binds its arguments); returns 0, or -1 with
 * *err set. */
typedef int (*device_call)(void *ctx, int which, kwb_error *err);

/* One timed sample. */
typedef struct device_sample {
    double ms;        /* the primary figure: the device's own span of the call */
    double event_ms;  /* cross-check (events around the call); < 0 when there is none */
    double clock_mhz; /* SM clock during the sample; 0 when unknown */
    int throttled;    /* the clock was under 75% of its nominal rate: drop the sample */
    int kernels;      /* kernels the call launched (0 on the cpu) */
    double flush_ms;  /* device time of the cache flush before it (0: none or unknown) */
} device_sample;

typedef struct device_ops {
    const char *kind; /* "cpu", "cuda" */
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
    /* Fills N elements of type T at device memory DST as rng_fill(KEY) would (bit for bit). */
    int (*fill_random)(device *d, void *dst, kwb_dtype t, size_t n, uint64_t key, kwb_error *err);
    /* The same fill for NROWS rows of ROW_ELEMS elements only, the rows' numbers at device memory
     * ROWS (int64): each element gets the bits a whole fill from KEY gives it. */
    int (*fill_random_rows)(device *d, void *dst, kwb_dtype t, size_t row_elems, const int64_t *rows, size_t nrows,
                            uint64_t key, kwb_error *err);
    /* Times one call of CALL(ctx, which) under policy P (cold caches when p->cold). */
    int (*sample)(device *d, const struct timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                  kwb_error *err);
    /* Times K calls CALL(ctx, which[i]) back to back with one synchronization for all, each
     * sampled as sample() would (its own flush, span and events), into out[0..K). NULL when
     * the device has no batched path (the timing loop then samples one by one). */
    int (*sample_batch)(device *d, const struct timing_policy *p, device_call call, void *ctx, const int *which, int k,
                        device_sample *out, kwb_error *err);
    /* Name of the primary timer ("cupti", "events", "clock_gettime"). */
    const char *(*timer)(device *d);
    /* Nonzero once the device cannot be used any more (a sticky CUDA error); the runner
     * then reports the workload in flight and stops. */
    int (*broken)(device *d);
    /* The stream handed to kernels (NULL on the cpu). */
    kwb_stream (*stream)(device *d);
    /* The digest (digest_formula.h) of N bytes of device memory at P under KEY into *OUT.
     * Returns 0, 1 when the device has none to offer (the caller reads the bytes back
     * instead), or -1 with *err set. */
    int (*digest)(device *d, const void *p, size_t n, uint64_t key, uint64_t *out, kwb_error *err);
    /* The tolerance rule over N elements of type T at device memory OUT against REF under P:
     * 0 with *ST filled when every element is finite and within tolerance, 1 when not or when
     * the device has no comparison for T (the caller reads back and checks on the host), -1 with
     * *err set. NULL on a device without one. */
    int (*compare)(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                   check_stats *st, kwb_error *err);
    /* Whether each row of ROW elements of type T at device memory OUT holds the elements of REF's
     * row in some order, bit for bit ("order": "any" outputs that are the reference's): 0 when
     * every row does, 1 when one does not or the device cannot tell (the caller reads back and
     * checks on the host), -1 with *err set. NULL on a device without one. */
    int (*rows_equal)(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, size_t row, kwb_error *err);
    /* Makes caches cold before a sample (cpu: writes a buffer larger than the LLC). */
    void (*flush)(device *d);
    /* Adds device facts (name, memory, clocks, timer) to the hello event. */
    void (*describe)(device *d, json_t *hello);
    /* Frees the device. */
    void (*close)(device *d);
} device_ops;

/* Where the host's time around the timed samples went, summed since the device opened. */
typedef struct device_host_profile {
    double step_s[COST_HOST_STEPS]; /* seconds per step (COST_HOST_*, protocol.h) */
    long alone, batched;            /* samples taken one by one, and inside batches */
    long batches;                   /* batches taken */
} device_host_profile;

struct device {
    const device_ops *ops;
    void *priv;
    device_host_profile prof; /* kept by devices that sample on another processor (cuda) */
    int memory_short;         /* an allocation or launch of the harness's own failed for want of memory
                               * since the runner last cleared it (a candidate's own calls are not seen) */
};

/* Opens the device named SPEC ("cpu", "cuda", "cuda:N"). Returns NULL and sets *err when
 * the kind is unknown or not built into this runner. */
device *device_open(const char *spec, const char *cache_dir, kwb_error *err);
/* Prints one line per usable device: "cpu", then "cuda:N NAME" for each GPU. */
void device_list(FILE *f);
/* The GPUs the cuda device sees, one "cuda:N NAME" line each (device_cuda.c). */
void device_cuda_list(FILE *f);
/* The copy bandwidth of the cpu device D (GB/s, bytes read + written) over a working set of
 * BYTES, whichever of caches and memory holds it: measured once per size (powers of two), or
 * AGAIN (keeping the best: a busy machine measures low), never under the memory's; the
 * roofline's peak for warm timing. */
double device_cpu_copy_peak(device *d, double bytes, int again);
/* The cpu device (device_cpu.c); CACHE_DIR keeps its measured copy bandwidth (may be NULL). */
device *device_cpu_open(const char *cache_dir, kwb_error *err);
/* The cuda device on GPU ORDINAL (device_cuda.c; only when built with CUDA). CACHE_DIR
 * keeps the measured peaks per GPU (may be NULL). */
device *device_cuda_open(int ordinal, const char *cache_dir, kwb_error *err);

#endif

/* device_cuda.c - the cuda device: device memory, inputs generated on the
 * GPU, and timing by CUPTI spans with held-stream events beside them (DESIGN.md section 7). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"
#include "proc.h"
#include "protocol.h"
#include "runner/cuda_compare.h"
#include "runner/cuda_rng.h"
#include "digest_formula.h"
#include "runner/cuda_support.h"
#include "runner/cupti_timer.h"
#include "runner/device.h"
#include "runner/peaks_cache.h"
#include "runner/timing.h"
#include "strbuf.h"
#include "xalloc.h"

enum { HOLD_TIMEOUT_NS = 500000000 }; /* a call that synchronizes inside cannot deadlock */
#define THROTTLE_SHARE 0.75
enum { FLUSH_TIMED = 16 }; /* flushes timed with events (measure_flush), for the average reported with every sample */
/* In a batch the GPU waits this long after each flush before the call (one-by-one samples have
 * the host's synchronization there): the flush's write-back settles as it does between samples
 * taken alone, so that both ways measure the same kernel time. */
#define BATCH_GAP_US 20.0

typedef struct cuda_peaks {
    double copy_gbps; /* device-to-device copy, bytes read + written */
    double fp32_tflops;
    double bf16_tflops;  /* mma.sync through wmma */
    double front_end_us; /* launch front end: the gap between back-to-back kernels, added to each span */
} cuda_peaks;

typedef struct cuda_priv {
    int ordinal;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    cudaEvent_t flush_start, flush_stop; /* around the flush: its device time, for the floor */
    volatile int *hold_flag;             /* host-mapped */
    int *hold_flag_dev;
    /* Host-mapped, so that the host reads them once synchronized without a copy (a small
     * cudaMemcpy cost some 190 us on the H100 under CUPTI): the hold's timeout flag, and the
     * probes' readings (clock0, time0, clock1, time1 per call of a batch); *_DEV: as the device
     * sees them. */
    volatile int *timed_out;
    int *timed_out_dev;
    volatile unsigned long long *probe;
    unsigned long long *probe_dev;
    int *sink; /* device: the flush's read-back kernel's sink (never written in practice) */
    cudaEvent_t batch_start[TIMING_BATCH_MAX], batch_stop[TIMING_BATCH_MAX];
    int no_batch;  /* a batch's records could not be split by call: sample one by one */
    int *quiet;    /* device: a flag never set and a sink, for the quiet gap after a batch's flush */
    double gap_us; /* that gap (KWB_BATCH_GAP_US, default BATCH_GAP_US) */
    void *flush_buf;
    size_t flush_bytes;
    int l2_bytes, persist_max, sms, clock_khz, mem_clock_khz, mem_bus_bits;
    char name[256];
    char uuid[40];
    cupti_timer *cupti;
    char cupti_note[256];
    int broken;
    int raw_span; /* KWB_RAW_SPAN=1: report the bare activity span */
    cuda_peaks peaks;
    unsigned long long *digest_slot;          /* device: the digest kernel's sum */
    volatile unsigned long long *digest_host; /* host-mapped: its copy */
    unsigned long long *digest_host_dev;
    int digest_ok;        /* the digest kernel agreed with the host's formula at open */
    cuda_compare compare; /* the tolerance rule on the GPU (self-tested at open) */
    double flush_ms;      /* device time of one flush, averaged over the first FLUSH_TIMED */
    int flushes_timed;
} cuda_priv;

static cuda_priv *priv(device *d)
{
    return d->priv;
}

/* Records a failed CUDA call; a sticky error (the context is lost) breaks the device. */
static int cuda_fail(device *d, cudaError_t e, const char *what, kwb_error *err)
{
    if (e == cudaSuccess)
        return 0;
    kwb_error_set(err, "%s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    d->memory_short |= e == cudaErrorMemoryAllocation;
    if (cudaDeviceSynchronize() != cudaSuccess || cudaPeekAtLastError() != cudaSuccess)
        priv(d)->broken = 1;
    return -1;
}

static void *cuda_alloc(device *d, size_t n, kwb_error *err)
{
    void *p = NULL;
    if (cuda_fail(d, cudaMalloc(&p, n ? n : 256), "cudaMalloc", err) != 0)
        return NULL;
    return p;
}

static void cuda_release(device *d, void *p)
{
    if (p)
        cudaFree(p);
}

/* cudaMemcpy from pageable memory may return before the DMA has landed, and the device's
 * stream does not wait for the legacy stream: wait here, so that a kernel launched next
 * never races the tail of the upload (poison written after the kernel's output). */
static int cuda_upload(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    if (cuda_fail(d, cudaStreamSynchronize(priv(d)->stream), "upload", err) ||
        cuda_fail(d, cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice), "upload", err))
        return -1;
    return cuda_fail(d, cudaDeviceSynchronize(), "upload", err);
}

/* The copy runs on the legacy stream, which does not wait for the device's: the stream's queued
 * work (a fill, a call) is waited for first. */
static int cuda_download(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    if (cuda_fail(d, cudaStreamSynchronize(priv(d)->stream), "download", err))
        return -1;
    return cuda_fail(d, cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost), "download", err);
}

static int cuda_sync(device *d, kwb_error *err)
{
    if (cuda_fail(d, cudaStreamSynchronize(priv(d)->stream), "stream synchronize", err) != 0 ||
        cuda_fail(d, cudaDeviceSynchronize(), "device synchronize", err) != 0)
        return -1;
    /* The persisting-L2 limit is 0 outside the flush; a call that raised it keeps lines in L2. */
    size_t persisting = 0;
    if (priv(d)->persist_max > 0 && cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize) == cudaSuccess &&
        persisting != 0) {
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
        return kwb_error_set(err,
                             DEVICE_INTEGRITY "the call raised the persisting-L2 limit to %zu bytes (inputs kept "
                                              "in L2 across calls)",
                             persisting);
    }
    return 0;
}

/* Queued on the device's stream, not waited for: what reads the values next is on that stream
 * (a call, a digest) or waits for it (a download, an upload, a synchronization), so that the
 * fills of a set's inputs run back to back. */
static int cuda_fill_random(device *d, void *dst, kwb_dtype t, size_t n, uint64_t key, kwb_error *err)
{
    int rc = cuda_rng_fill(dst, (int)t, n, key, priv(d)->stream);
    return rc != 0 ? cuda_fail(d, (cudaError_t)rc, "input generation", err) : 0;
}

/* As cuda_fill_random, for the rows at ROWS alone (device_ops.fill_random_rows). */
static int cuda_fill_random_rows(device *d, void *dst, kwb_dtype t, size_t row_elems, const int64_t *rows, size_t nrows,
                                 uint64_t key, kwb_error *err)
{
    int rc = cuda_rng_fill_rows(dst, (int)t, row_elems, rows, nrows, key, priv(d)->stream);
    return rc != 0 ? cuda_fail(d, (cudaError_t)rc, "input generation", err) : 0;
}

/* Queues the cache flush's work: write twice the L2, then read it back so that the lines left
 * are clean (as Nsight Compute's cache control leaves them). */
static int queue_flush(device *d, kwb_error *err)
{
    cuda_priv *p = priv(d);
    static unsigned char byte;
    byte++;
    if (cuda_fail(d, cudaMemsetAsync(p->flush_buf, byte, p->flush_bytes, p->stream), "L2 flush", err) != 0 ||
        cuda_fail(d, (cudaError_t)cuda_support_read(p->stream, p->flush_buf, p->flush_bytes, p->sink), "L2 flush",
                  err) != 0)
        return -1;
    return 0;
}

/* Persisting lines dropped, persisting limit 0. */
static void drop_persisting(cuda_priv *p)
{
    if (p->persist_max > 0) {
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
}

/* Cold caches: the flush's work, then no persisting lines. */
static int cuda_flush_caches(device *d, kwb_error *err)
{
    if (queue_flush(d, err) != 0)
        return -1;
    drop_persisting(priv(d));
    return 0;
}

/* The flush's device time, from FLUSH_TIMED flushes timed with events after as many untimed
 * ones (the GPU's clocks up), at open: the batched path needs it from the first sample, and the
 * first samples' flushes, timed instead, averaged 0.41 ms on the H100 where this gives 0.096 ms.
 * Should it fail, those samples time it as before. */
static void measure_flush(device *d)
{
    cuda_priv *p = priv(d);
    kwb_error err;
    float total = 0, ms = 0;
    for (int i = 0; i < 2 * FLUSH_TIMED; i++) {
        if (i >= FLUSH_TIMED)
            cudaEventRecord(p->flush_start, p->stream);
        if (queue_flush(d, &err) != 0)
            return;
        if (i >= FLUSH_TIMED) {
            cudaEventRecord(p->flush_stop, p->stream);
            if (cudaEventSynchronize(p->flush_stop) != cudaSuccess ||
                cudaEventElapsedTime(&ms, p->flush_start, p->flush_stop) != cudaSuccess)
                return;
            total += ms;
        }
    }
    p->flush_ms = total / FLUSH_TIMED;
    p->flushes_timed = FLUSH_TIMED;
}

static void cuda_flush(device *d)
{
    kwb_error err;
    cuda_flush_caches(d, &err);
}

/* Adds the host time since *T to step STEP of D's profile and moves *T to now. */
static void lap(device *d, int step, double *t)
{
    double now = proc_now();
    d->prof.step_s[step] += now - *t;
    *t = now;
}

/* SM clock in MHz from the readings V of the probes before and after a call (clock, time,
 * clock, time); 0 when the reading makes no sense. */
static double clock_between(const cuda_priv *p, const unsigned long long *v)
{
    double cycles = (double)(v[2] - v[0]), ns = (double)(v[3] - v[1]);
    double mhz = ns > 0 ? cycles / ns * 1e3 : 0;
    return mhz > 0 && mhz < 4.0 * p->clock_khz / 1e3 ? mhz : 0;
}

/* The readings of the probes of calls 0..K-1 of the last (synchronized) sample or batch into V. */
static void read_probes(const cuda_priv *p, int k, unsigned long long *v)
{
    for (int i = 0; i < 4 * k; i++)
        v[i] = p->probe[i];
}

/* Queues hold, probe, start event; runs the call; queues stop event and probe. *T: as lap's,
 * the call's own time going to COST_HOST_CALL and the rest to COST_HOST_QUEUE. */
static int held_call(device *d, device_call call, void *ctx, int which, double *t, kwb_error *err)
{
    cuda_priv *p = priv(d);
    *p->hold_flag = 0;
    __sync_synchronize();
    if (cuda_fail(d, (cudaError_t)cuda_support_hold(p->stream, p->hold_flag_dev, HOLD_TIMEOUT_NS, p->timed_out_dev),
                  "hold", err) ||
        cuda_fail(d, (cudaError_t)cuda_support_probe(p->stream, p->probe_dev), "probe", err) ||
        cuda_fail(d, cudaEventRecord(p->start, p->stream), "event", err))
        return -1;
    lap(d, COST_HOST_QUEUE, t);
    int rc = call(ctx, which, err);
    lap(d, COST_HOST_CALL, t);
    cudaEventRecord(p->stop, p->stream);
    cuda_support_probe(p->stream, p->probe_dev + 2);
    *p->hold_flag = 1;
    __sync_synchronize();
    return rc;
}

/* One sample of CALL: cold caches if asked, the held-stream call, CUPTI span and events. */
static int timed_sample(device *d, const timing_policy *pol, device_call call, void *ctx, int which, device_sample *out,
                        kwb_error *err)
{
    cuda_priv *p = priv(d);
    double t = proc_now();
    int time_flush = pol->cold && p->flushes_timed < FLUSH_TIMED; /* events cost driver calls: a few suffice */
    if (time_flush)
        cudaEventRecord(p->flush_start, p->stream);
    if (pol->cold && queue_flush(d, err) != 0)
        return -1;
    if (time_flush)
        cudaEventRecord(p->flush_stop, p->stream);
    *p->timed_out = 0; /* the last sample is synchronized: nothing of it writes the flag now */
    __sync_synchronize();
    lap(d, COST_HOST_QUEUE, &t);
    if (cuda_sync(d, err))
        return -1;
    lap(d, COST_HOST_SYNC, &t);
    if (p->cupti)
        cupti_timer_begin(p->cupti);
    lap(d, COST_HOST_CUPTI, &t);
    if (held_call(d, call, ctx, which, &t, err) != 0)
        return -1;
    lap(d, COST_HOST_QUEUE, &t);
    if (cuda_sync(d, err) != 0)
        return -1;
    lap(d, COST_HOST_SYNC, &t);
    int spans = p->cupti && cupti_timer_end(p->cupti, &out->ms, &out->kernels) == 0;
    lap(d, COST_HOST_CUPTI, &t);
    float ev = 0, fl = 0;
    int timed_out = 0;
    cudaEventElapsedTime(&ev, p->start, p->stop);
    if (time_flush && cudaEventElapsedTime(&fl, p->flush_start, p->flush_stop) == cudaSuccess)
        p->flush_ms = (p->flush_ms * p->flushes_timed + fl) / (p->flushes_timed + 1), p->flushes_timed++;
    out->flush_ms = pol->cold ? p->flush_ms : 0;
    lap(d, COST_HOST_READS, &t);
    timed_out = *p->timed_out;
    out->event_ms = timed_out ? -1 : ev; /* the call synchronized while held: events are void */
    if (!spans && timed_out)
        return kwb_error_set(err, "the call synchronized the device inside while no CUPTI span was "
                                  "available: it cannot be timed");
    if (!spans)
        out->ms = ev;
    unsigned long long v[4];
    read_probes(p, 1, v);
    out->clock_mhz = clock_between(p, v);
    out->throttled = out->clock_mhz > 0 && out->clock_mhz < THROTTLE_SHARE * p->clock_khz / 1e3;
    lap(d, COST_HOST_COPIES, &t);
    d->prof.alone++;
    return 0;
}

/* A captured graph of back-to-back calls, launched as one call. */
typedef struct graph_replay {
    cudaGraphExec_t exec;
    cudaStream_t stream;
} graph_replay;

static int launch_replay(void *ctx, int which, kwb_error *err)
{
    graph_replay *g = ctx;
    (void)which;
    cudaError_t rc = cudaGraphLaunch(g->exec, g->stream);
    return rc == cudaSuccess ? 0 : kwb_error_set(err, "graph replay: %s", cudaGetErrorString(rc));
}

/* Captures CALLS calls of callee WHICH on the device's stream into g->exec. A call that
 * synchronizes, allocates or uses another stream cannot be captured: that is an error
 * that names graph mode, not the candidate's fault in eager mode. */
static int capture_replay(device *d, device_call call, void *ctx, int which, int calls, graph_replay *g, kwb_error *err)
{
    cuda_priv *p = priv(d);
    cudaGraph_t graph = NULL;
    g->stream = p->stream;
    g->exec = NULL;
    if (cuda_fail(d, cudaStreamBeginCapture(p->stream, cudaStreamCaptureModeThreadLocal), "graph capture", err))
        return -1;
    int rc = 0;
    for (int i = 0; i < calls && rc == 0; i++)
        rc = call(ctx, which, err);
    cudaError_t end = cudaStreamEndCapture(p->stream, &graph);
    if (rc == 0 && end != cudaSuccess)
        rc = kwb_error_set(err,
                           "graph replay: the call cannot be captured in a CUDA graph (%s); time it "
                           "without --graph",
                           cudaGetErrorString(end));
    if (rc == 0 && cudaGraphInstantiate(&g->exec, graph, 0) != cudaSuccess)
        rc = kwb_error_set(err, "graph replay: cudaGraphInstantiate failed");
    if (graph)
        cudaGraphDestroy(graph);
    cudaGetLastError(); /* a failed capture leaves a non-sticky error behind */
    return rc;
}

/* The launch front end (measured once per GPU) added to a span that saw kernels, as
 * Nsight Compute's duration counts it. */
static void add_front_end(const cuda_priv *p, device_sample *x)
{
    if (x->kernels > 0 && !p->raw_span)
        x->ms += p->peaks.front_end_us * 1e-3;
}

static int cuda_sample(device *d, const timing_policy *pol, device_call call, void *ctx, int which, device_sample *out,
                       kwb_error *err)
{
    graph_replay g = {NULL, NULL};
    if (pol->graph > 0) {
        if (capture_replay(d, call, ctx, which, pol->graph, &g, err) != 0)
            return -1;
        call = launch_replay;
        ctx = &g;
    }
    int rc = timed_sample(d, pol, call, ctx, which, out, err);
    /* The kernel's activity record starts when its first block starts; the launch front end
     * before it (measured once per GPU, Nsight Compute's duration counts it) is added, once
     * per call, so kwb's figure is the call's device time as ncu defines it. */
    if (rc == 0)
        add_front_end(priv(d), out);
    if (g.exec) {
        cudaGraphExecDestroy(g.exec);
        if (rc == 0) {
            out->ms /= pol->graph;
            if (out->event_ms > 0)
                out->event_ms /= pol->graph;
        }
    }
    return rc;
}

/* Queues call I of a batch behind the held stream: its flush and quiet gap, then probe, event,
 * the call, event, probe. *T: as held_call's. */
static int queue_batch_call(device *d, const timing_policy *pol, device_call call, void *ctx, int which, int i,
                            double *t, kwb_error *err)
{
    cuda_priv *p = priv(d);
    if (pol->cold && queue_flush(d, err) != 0)
        return -1;
    /* the quiet gap: the spin kernel on a flag never set, for gap_us */
    if (pol->cold && p->gap_us > 0 &&
        cuda_fail(d, (cudaError_t)cuda_support_hold(p->stream, p->quiet, (uint64_t)(p->gap_us * 1e3), p->quiet + 1),
                  "quiet gap", err))
        return -1;
    if (cuda_fail(d, (cudaError_t)cuda_support_probe(p->stream, p->probe_dev + 4 * i), "probe", err) ||
        cuda_fail(d, cudaEventRecord(p->batch_start[i], p->stream), "event", err))
        return -1;
    lap(d, COST_HOST_QUEUE, t);
    int rc = call(ctx, which, err);
    lap(d, COST_HOST_CALL, t);
    cudaEventRecord(p->batch_stop[i], p->stream);
    cuda_support_probe(p->stream, p->probe_dev + 4 * i + 2);
    return rc;
}

/* Fills the K samples of a synchronized batch from its events, probes and CUPTI records. */
static int read_batch(device *d, const timing_policy *pol, int k, device_sample *out, kwb_error *err)
{
    cuda_priv *p = priv(d);
    double ms[TIMING_BATCH_MAX];
    int kernels[TIMING_BATCH_MAX], timed_out = 0;
    unsigned long long v[4 * TIMING_BATCH_MAX];
    double t = proc_now();
    if (cupti_timer_end_batch(p->cupti, k, ms, kernels) != 0)
        p->no_batch = 1; /* these samples fall back to their events; later ones are taken alone */
    lap(d, COST_HOST_CUPTI, &t);
    read_probes(p, k, v);
    timed_out = *p->timed_out;
    lap(d, COST_HOST_COPIES, &t);
    for (int i = 0; i < k; i++) {
        float ev = 0;
        device_sample *x = &out[i];
        cudaEventElapsedTime(&ev, p->batch_start[i], p->batch_stop[i]);
        x->event_ms = timed_out ? -1 : ev;
        x->kernels = p->no_batch ? 0 : kernels[i];
        if (x->kernels == 0 && timed_out)
            return kwb_error_set(err, "the call synchronized the device inside while no CUPTI span was "
                                      "available: it cannot be timed");
        x->ms = x->kernels > 0 ? ms[i] : ev;
        x->flush_ms = pol->cold ? p->flush_ms + p->gap_us * 1e-3 : 0;
        x->clock_mhz = clock_between(p, v + 4 * i);
        x->throttled = x->clock_mhz > 0 && x->clock_mhz < THROTTLE_SHARE * p->clock_khz / 1e3;
        add_front_end(p, x);
    }
    lap(d, COST_HOST_READS, &t);
    return 0;
}

/* K samples back to back: every call with its own flush, probes and events queued behind one
 * hold, one synchronization, CUPTI's records split by call. The one-by-one path serves while
 * the flush is still being timed, without CUPTI, and after a batch that could not be split. */
static int cuda_sample_batch(device *d, const timing_policy *pol, device_call call, void *ctx, const int *which, int k,
                             device_sample *out, kwb_error *err)
{
    cuda_priv *p = priv(d);
    if (p->no_batch || !p->cupti || k > TIMING_BATCH_MAX || (pol->cold && p->flushes_timed < FLUSH_TIMED)) {
        for (int i = 0; i < k; i++)
            if (cuda_sample(d, pol, call, ctx, which[i], &out[i], err) != 0)
                return -1;
        return 0;
    }
    double t = proc_now();
    *p->timed_out = 0;
    __sync_synchronize();
    if (cuda_sync(d, err))
        return -1;
    lap(d, COST_HOST_SYNC, &t);
    cupti_timer_begin_batch(p->cupti);
    lap(d, COST_HOST_CUPTI, &t);
    *p->hold_flag = 0;
    __sync_synchronize();
    if (cuda_fail(d, (cudaError_t)cuda_support_hold(p->stream, p->hold_flag_dev, HOLD_TIMEOUT_NS, p->timed_out_dev),
                  "hold", err))
        return -1;
    int rc = 0;
    for (int i = 0; i < k && rc == 0; i++)
        rc = queue_batch_call(d, pol, call, ctx, which[i], i, &t, err);
    *p->hold_flag = 1;
    __sync_synchronize();
    lap(d, COST_HOST_QUEUE, &t);
    if (rc != 0 || cuda_sync(d, err) != 0)
        return -1;
    lap(d, COST_HOST_SYNC, &t);
    rc = read_batch(d, pol, k, out, err);
    d->prof.batched += k;
    d->prof.batches++;
    return rc;
}

static const char *cuda_timer(device *d)
{
    return priv(d)->cupti ? (priv(d)->raw_span ? "cupti-span" : "cupti") : "events";
}

static int cuda_broken(device *d)
{
    return priv(d)->broken;
}

static kwb_stream cuda_stream(device *d)
{
    return priv(d)->stream;
}

static void cuda_describe(device *d, json_t *hello)
{
    cuda_priv *p = priv(d);
    json_object_set_new(hello, "device", json_sprintf("cuda:%d %s", p->ordinal, p->name));
    int drv = 0, rt = 0;
    if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0)
        json_object_set_new(hello, "cuda_driver", json_sprintf("%d.%d", drv / 1000, drv % 1000 / 10));
    if (cudaRuntimeGetVersion(&rt) == cudaSuccess && rt > 0)
        json_object_set_new(hello, "cuda_runtime", json_sprintf("%d.%d", rt / 1000, rt % 1000 / 10));
    json_object_set_new(hello, "gpu", json_string(p->name));
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    json_object_set_new(hello, "driver", json_integer(driver)); /* the CUDA version the driver supports */
    json_object_set_new(hello, "cuda_runtime", json_integer(runtime));
    json_object_set_new(hello, "uuid", json_string(p->uuid));
    json_object_set_new(hello, "sms", json_integer(p->sms));
    json_object_set_new(hello, "l2_bytes", json_integer(p->l2_bytes));
    json_object_set_new(hello, "sm_clock_mhz", json_real(p->clock_khz / 1e3));
    json_object_set_new(hello, "mem_clock_mhz", json_real(p->mem_clock_khz / 1e3));
    json_object_set_new(hello, "timer", json_string(cuda_timer(d)));
    json_object_set_new(hello, "input_digest", json_boolean(p->digest_ok));
    json_object_set_new(hello, "output_compare", json_boolean(p->compare.ok));
    json_object_set_new(hello, "rows_compare", json_boolean(p->compare.rows_ok));
    if (!p->cupti)
        json_object_set_new(hello, "timer_note", json_string(p->cupti_note));
    json_object_set_new(hello, "peaks",
                        json_pack("{s:f, s:f, s:f, s:f}", "copy_gbps", p->peaks.copy_gbps, "fp32_tflops",
                                  p->peaks.fp32_tflops, "bf16_tflops", p->peaks.bf16_tflops, "front_end_us",
                                  p->peaks.front_end_us));
}

static void cuda_close(device *d)
{
    cuda_priv *p = priv(d);
    cupti_timer_close(p->cupti);
    if (!p->broken) {
        cudaFree(p->flush_buf);
        cudaFree(p->digest_slot);
        cuda_compare_close(&p->compare);
        cudaFreeHost((void *)p->probe);
        cudaFreeHost((void *)p->timed_out);
        cudaFreeHost((void *)p->digest_host);
        cudaFree(p->sink);
        cudaFree(p->quiet);
        cudaFreeHost((void *)p->hold_flag);
        cudaEventDestroy(p->start);
        cudaEventDestroy(p->stop);
        cudaEventDestroy(p->flush_start);
        cudaEventDestroy(p->flush_stop);
        for (int i = 0; i < TIMING_BATCH_MAX; i++) {
            cudaEventDestroy(p->batch_start[i]);
            cudaEventDestroy(p->batch_stop[i]);
        }
        cudaStreamDestroy(p->stream);
    }
    free(p);
    free(d);
}

/* The digest computed on the GPU: no read-back of the bytes. 1 when the kernel failed its
 * self-test at open (the caller then reads the bytes back). */
static int cuda_digest(device *d, const void *p, size_t n, uint64_t key, uint64_t *out, kwb_error *err)
{
    cuda_priv *c = priv(d);
    if (!c->digest_ok)
        return 1;
    if (cuda_fail(d, (cudaError_t)cuda_support_digest(c->stream, p, n, key, c->digest_slot, c->digest_host_dev),
                  "digest", err) ||
        cuda_fail(d, cudaStreamSynchronize(c->stream), "digest", err))
        return -1;
    *out = *c->digest_host;
    return 0;
}

static int cuda_compare_op(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                           check_stats *st, kwb_error *err)
{
    cuda_priv *c = priv(d);
    int e = 0, rc = cuda_compare_run(&c->compare, c->stream, out, ref, t, n, p, st, &e);
    if (rc < 0)
        cuda_fail(d, (cudaError_t)e, "compare", err);
    return rc;
}

static int cuda_rows_op(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, size_t row, kwb_error *err)
{
    cuda_priv *c = priv(d);
    int e = 0, rc = cuda_compare_rows(&c->compare, c->stream, out, ref, t, n, row, &e);
    if (rc < 0)
        cuda_fail(d, (cudaError_t)e, "compare", err);
    return rc;
}

/* Whether the digest kernel agrees with digest_host on sizes around a word and a block's
 * stride, and sees a one-bit change; a kernel that does not is never used. */
static int digest_self_test(device *d)
{
    enum { N = 256 * 8 * 3 + 13 };
    unsigned char host[N];
    for (size_t i = 0; i < N; i++)
        host[i] = (unsigned char)(i * 131 + 7);
    void *buf = NULL;
    kwb_error err = {{0}};
    int ok = cudaMalloc(&buf, N) == cudaSuccess && cudaMemcpy(buf, host, N, cudaMemcpyHostToDevice) == cudaSuccess;
    priv(d)->digest_ok = ok;
    static const size_t sizes[] = {0, 1, 8, 13, 2048, N};
    for (size_t k = 0; ok && k < sizeof sizes / sizeof *sizes; k++) {
        uint64_t got = 0;
        ok = cuda_digest(d, buf, sizes[k], 0x6b7762ULL + k, &got, &err) == 0 &&
             got == digest_host(host, sizes[k], 0x6b7762ULL + k);
    }
    uint64_t before = digest_host(host, N, 5), after = 0;
    host[N - 1] ^= 1;
    ok = ok && cudaMemcpy(buf, host, N, cudaMemcpyHostToDevice) == cudaSuccess &&
         cuda_digest(d, buf, N, 5, &after, &err) == 0 && after == digest_host(host, N, 5) && after != before;
    cudaFree(buf);
    return ok;
}

/* The device's operations as others ask for them, each timed into its COST_HOST_OP_* step (the
 * sampling path calls the bare ones and counts its own steps). */
static int op_upload(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_upload(d, dst, src, n, err);
    lap(d, COST_HOST_OP_UPLOAD, &t);
    return rc;
}

static int op_download(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_download(d, dst, src, n, err);
    lap(d, COST_HOST_OP_DOWNLOAD, &t);
    return rc;
}

static int op_sync(device *d, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_sync(d, err);
    lap(d, COST_HOST_OP_SYNC, &t);
    return rc;
}

static int op_fill_random(device *d, void *dst, kwb_dtype ty, size_t n, uint64_t key, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_fill_random(d, dst, ty, n, key, err);
    lap(d, COST_HOST_OP_FILL, &t);
    return rc;
}

static int op_fill_random_rows(device *d, void *dst, kwb_dtype ty, size_t row_elems, const int64_t *rows, size_t nrows,
                               uint64_t key, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_fill_random_rows(d, dst, ty, row_elems, rows, nrows, key, err);
    lap(d, COST_HOST_OP_FILL, &t);
    return rc;
}

static int op_digest(device *d, const void *p, size_t n, uint64_t key, uint64_t *out, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_digest(d, p, n, key, out, err);
    lap(d, COST_HOST_OP_DIGEST, &t);
    return rc;
}

static int op_compare(device *d, const void *out, const void *ref, kwb_dtype ty, size_t n, const check_policy *pol,
                      check_stats *st, kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_compare_op(d, out, ref, ty, n, pol, st, err);
    lap(d, COST_HOST_OP_COMPARE, &t);
    return rc;
}

static int op_rows_equal(device *d, const void *out, const void *ref, kwb_dtype ty, size_t n, size_t row,
                         kwb_error *err)
{
    double t = proc_now();
    int rc = cuda_rows_op(d, out, ref, ty, n, row, err);
    lap(d, COST_HOST_OP_COMPARE, &t);
    return rc;
}

static const device_ops cuda_ops = {
    .kind = "cuda",
    .alloc = cuda_alloc,
    .release = cuda_release,
    .upload = op_upload,
    .download = op_download,
    .sync = op_sync,
    .fill_random = op_fill_random,
    .fill_random_rows = op_fill_random_rows,
    .sample = cuda_sample,
    .sample_batch = cuda_sample_batch,
    .timer = cuda_timer,
    .broken = cuda_broken,
    .stream = cuda_stream,
    .digest = op_digest,
    .compare = op_compare,
    .rows_equal = op_rows_equal,
    .flush = cuda_flush,
    .describe = cuda_describe,
    .close = cuda_close,
};

/* Milliseconds of the work RUN queues on the stream, best of REPS. */
static double best_ms(device *d, int (*run)(device *, void *), void *arg, int reps)
{
    cuda_priv *p = priv(d);
    double best = 1e30;
    for (int i = 0; i < reps; i++) {
        float ms = 0;
        cudaEventRecord(p->start, p->stream);
        if (run(d, arg) != 0)
            return 0;
        cudaEventRecord(p->stop, p->stream);
        cudaEventSynchronize(p->stop);
        cudaEventElapsedTime(&ms, p->start, p->stop);
        if (ms > 0 && ms < best)
            best = ms;
    }
    return best < 1e30 ? best : 0;
}

typedef struct peak_arg {
    void *a, *b;
    size_t bytes;
    int grid, iters;
} peak_arg;

static int run_copy(device *d, void *arg)
{
    peak_arg *a = arg;
    return cudaMemcpyAsync(a->b, a->a, a->bytes, cudaMemcpyDeviceToDevice, priv(d)->stream) != cudaSuccess;
}

static int run_fma(device *d, void *arg)
{
    peak_arg *a = arg;
    return cuda_support_fma(priv(d)->stream, a->grid, a->iters, a->a) != 0;
}

static int run_mma(device *d, void *arg)
{
    peak_arg *a = arg;
    return cuda_support_mma(priv(d)->stream, a->grid, a->iters, a->a) != 0;
}

typedef struct tiny_arg {
    cuda_priv *p;
    int *slot;
    int count;
} tiny_arg;

static int launch_tiny(void *ctx, int which, kwb_error *err)
{
    tiny_arg *a = ctx;
    (void)which;
    for (int i = 0; i < a->count; i++)
        if (cuda_support_tiny(a->p->stream, a->slot) != 0)
            return kwb_error_set(err, "front-end probe: launch failed");
    return 0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median activity span (ms) of COUNT one-thread kernels queued back to back behind a held
 * stream; 0 when CUPTI is missing or a sample fails. */
static double tiny_span_ms(device *d, int *slot, int count)
{
    enum { SAMPLES = 21 };
    tiny_arg a = {priv(d), slot, count};
    timing_policy pol;
    memset(&pol, 0, sizeof pol);
    double v[SAMPLES];
    for (int i = 0; i < SAMPLES; i++) {
        device_sample s;
        kwb_error err;
        if (timed_sample(d, &pol, launch_tiny, &a, 0, &s, &err) != 0 || s.kernels != count)
            return 0;
        v[i] = s.ms;
    }
    qsort(v, SAMPLES, sizeof v[0], by_value);
    return v[SAMPLES / 2];
}

/* The launch front end: a kernel queued right behind another starts this long after the other
 * ends (launch processing, the post-grid flush), time its own activity record does not hold.
 * From spans of 1 and 33 back-to-back one-thread kernels: (span33 - 33 span1) / 32. */
static double measure_front_end_us(device *d)
{
    int *slot = NULL;
    if (!priv(d)->cupti || cudaMalloc((void **)&slot, sizeof *slot) != cudaSuccess)
        return 0;
    double one = tiny_span_ms(d, slot, 1), many = tiny_span_ms(d, slot, 33);
    cudaFree(slot);
    double gap_us = one > 0 && many > 0 ? (many - 33 * one) / 32 * 1e3 : 0;
    return gap_us > 0 && gap_us < 10 ? gap_us : 0;
}

static void measure_peaks(device *d, cuda_peaks *pk)
{
    cuda_priv *p = priv(d);
    peak_arg a = {NULL, NULL, (size_t)1 << 30, p->sms * 8, 4096};
    if (cudaMalloc(&a.a, a.bytes) != cudaSuccess || cudaMalloc(&a.b, a.bytes) != cudaSuccess) {
        cudaFree(a.a);
        return;
    }
    cudaMemset(a.a, 1, a.bytes);
    double ms = best_ms(d, run_copy, &a, 5);
    pk->copy_gbps = ms > 0 ? 2.0 * (double)a.bytes / (ms * 1e-3) / 1e9 : 0;
    ms = best_ms(d, run_fma, &a, 5);
    pk->fp32_tflops = ms > 0 ? 8.0 * a.iters * 256.0 * a.grid / (ms * 1e-3) / 1e12 : 0;
    ms = best_ms(d, run_mma, &a, 5);
    pk->bf16_tflops = ms > 0 ? 4.0 * 8192.0 * a.iters * 4.0 * a.grid / (ms * 1e-3) / 1e12 : 0;
    pk->front_end_us = measure_front_end_us(d);
    cudaFree(a.a);
    cudaFree(a.b);
}

/* Peaks are measured once per GPU and kept in CACHE_DIR/devices/UUID.json. */
static void load_or_measure_peaks(device *d, const char *cache_dir)
{
    cuda_priv *p = priv(d);
    json_t *cached = peaks_cache_load(cache_dir, p->uuid);
    int ok = cached && json_unpack(cached, "{s:F, s:F, s:F, s:F}", "copy_gbps", &p->peaks.copy_gbps, "fp32_tflops",
                                   &p->peaks.fp32_tflops, "bf16_tflops", &p->peaks.bf16_tflops, "front_end_us",
                                   &p->peaks.front_end_us) == 0;
    json_decref(cached);
    if (ok && (p->peaks.front_end_us > 0 || !p->cupti))
        return;
    if (ok) {
        p->peaks.front_end_us = measure_front_end_us(d); /* cached before CUPTI could measure it */
    } else {
        measure_peaks(d, &p->peaks);
    }
    json_t *o =
        json_pack("{s:s, s:f, s:f, s:f, s:f}", "gpu", p->name, "copy_gbps", p->peaks.copy_gbps, "fp32_tflops",
                  p->peaks.fp32_tflops, "bf16_tflops", p->peaks.bf16_tflops, "front_end_us", p->peaks.front_end_us);
    peaks_cache_save(cache_dir, p->uuid, o);
    json_decref(o);
}

static void read_facts(cuda_priv *p)
{
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, p->ordinal);
    snprintf(p->name, sizeof p->name, "%s", prop.name);
    char *u = p->uuid;
    for (int i = 0; i < 16; i++)
        u +=
            sprintf(u, "%s%02x", (i == 4 || i == 6 || i == 8 || i == 10) ? "-" : "", (unsigned char)prop.uuid.bytes[i]);
    cudaDeviceGetAttribute(&p->sms, cudaDevAttrMultiProcessorCount, p->ordinal);
    cudaDeviceGetAttribute(&p->l2_bytes, cudaDevAttrL2CacheSize, p->ordinal);
    cudaDeviceGetAttribute(&p->persist_max, cudaDevAttrMaxPersistingL2CacheSize, p->ordinal);
    if (p->persist_max > 0) { /* the invariant cuda_sync checks: 0 outside the flush, from the start */
        cudaCtxResetPersistingL2Cache();
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    }
    cudaDeviceGetAttribute(&p->clock_khz, cudaDevAttrClockRate, p->ordinal);
    cudaDeviceGetAttribute(&p->mem_clock_khz, cudaDevAttrMemoryClockRate, p->ordinal);
}

/* Stream-ordered allocations (cudaMallocAsync) keep their pool's memory across synchronizations,
 * as in a serving process: a call sampled alone (a synchronization before it) then sees the same
 * allocator as one inside a batch, where the pool's memory had not been handed back (with the
 * default threshold, 0, a top-k kernel's scratch cost it 1-3 % alone). */
static void keep_pool_memory(int ordinal)
{
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    if (cudaDeviceGetDefaultMemPool(&pool, ordinal) == cudaSuccess)
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
}

/* N bytes of zeroed host-mapped memory at *HOST, seen by the device at *DEV. */
static int host_mapped(device *d, void **host, void **dev, size_t n, kwb_error *err)
{
    if (cuda_fail(d, cudaHostAlloc(host, n, cudaHostAllocMapped), "host-mapped memory", err) ||
        cuda_fail(d, cudaHostGetDevicePointer(dev, *host, 0), "host-mapped memory", err))
        return -1;
    memset(*host, 0, n);
    return 0;
}

static int setup(device *d, kwb_error *err)
{
    cuda_priv *p = priv(d);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess)
        return kwb_error_set(err, "cuda: no usable GPU: %s", cudaGetErrorString(e));
    if (p->ordinal >= count)
        return kwb_error_set(err, "cuda:%d: this machine has %d GPU(s)", p->ordinal, count);
    if (cuda_fail(d, cudaSetDevice(p->ordinal), "cudaSetDevice", err))
        return -1;
    read_facts(p);
    keep_pool_memory(p->ordinal);
    p->flush_bytes = 2 * (size_t)(p->l2_bytes > 0 ? p->l2_bytes : 64 << 20);
    if (cuda_fail(d, cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking), "stream", err) ||
        cuda_fail(d, cudaEventCreate(&p->start), "event", err) ||
        cuda_fail(d, cudaEventCreate(&p->stop), "event", err) ||
        cuda_fail(d, cudaEventCreate(&p->flush_start), "event", err) ||
        cuda_fail(d, cudaEventCreate(&p->flush_stop), "event", err) ||
        cuda_fail(d, cudaHostAlloc((void **)&p->hold_flag, sizeof(int), cudaHostAllocMapped), "host flag", err) ||
        cuda_fail(d, cudaHostGetDevicePointer((void **)&p->hold_flag_dev, (void *)p->hold_flag, 0), "flag", err) ||
        host_mapped(d, (void **)&p->timed_out, (void **)&p->timed_out_dev, sizeof(int), err) ||
        cuda_fail(d, cudaMalloc((void **)&p->quiet, 2 * sizeof(int)), "cudaMalloc", err) ||
        cuda_fail(d, cudaMemset(p->quiet, 0, 2 * sizeof(int)), "cudaMemset", err) ||
        host_mapped(d, (void **)&p->probe, (void **)&p->probe_dev, 4 * TIMING_BATCH_MAX * sizeof(unsigned long long),
                    err) ||
        cuda_fail(d, cudaMalloc((void **)&p->sink, sizeof(int)), "cudaMalloc", err) ||
        cuda_fail(d, cudaMalloc(&p->flush_buf, p->flush_bytes), "cudaMalloc", err) ||
        cuda_fail(d, cudaMalloc((void **)&p->digest_slot, sizeof *p->digest_slot), "cudaMalloc", err) ||
        host_mapped(d, (void **)&p->digest_host, (void **)&p->digest_host_dev, sizeof(unsigned long long), err))
        return -1;
    for (int i = 0; i < TIMING_BATCH_MAX; i++)
        if (cuda_fail(d, cudaEventCreate(&p->batch_start[i]), "event", err) ||
            cuda_fail(d, cudaEventCreate(&p->batch_stop[i]), "event", err))
            return -1;
    p->digest_ok = digest_self_test(d);
    /* The persisting-L2 limit is 0 from here on: every synchronization checks it (cuda_sync), so
     * a call that raises it is caught before its samples count, and no sample needs a reset. */
    drop_persisting(p);
    return cuda_fail(d, (cudaError_t)cuda_compare_open(&p->compare, p->stream), "compare", err);
}

device *device_cuda_open(int ordinal, const char *cache_dir, kwb_error *err)
{
    device *d = xcalloc(1, sizeof *d);
    cuda_priv *p = xcalloc(1, sizeof *p);
    d->ops = &cuda_ops;
    d->priv = p;
    p->ordinal = ordinal;
    if (setup(d, err) != 0) {
        free(p);
        free(d);
        return NULL;
    }
    kwb_error cerr = {{0}};
    const char *no_cupti = getenv("KWB_NO_CUPTI");
    if (!no_cupti || !*no_cupti || strcmp(no_cupti, "0") == 0)
        p->cupti = cupti_timer_open(KWB_CUDA_PATH, &cerr);
    else
        snprintf(cerr.msg, sizeof cerr.msg, "KWB_NO_CUPTI is set");
    if (!p->cupti)
        snprintf(p->cupti_note, sizeof p->cupti_note, "CUPTI unavailable (%.180s): held-stream events", cerr.msg);
    p->raw_span = getenv("KWB_RAW_SPAN") && strcmp(getenv("KWB_RAW_SPAN"), "1") == 0;
    p->no_batch = getenv("KWB_NO_BATCH") && *getenv("KWB_NO_BATCH");
    const char *gap = getenv("KWB_BATCH_GAP_US");
    p->gap_us = gap && *gap ? atof(gap) : BATCH_GAP_US;
    load_or_measure_peaks(d, cache_dir);
    measure_flush(d);
    return d;
}

void device_cuda_list(FILE *f)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess)
        return;
    for (int i = 0; i < count; i++) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, i) == cudaSuccess)
            fprintf(f, "cuda:%d %s\n", i, prop.name);
    }
}

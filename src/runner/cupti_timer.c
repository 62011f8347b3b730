#define _GNU_SOURCE
#include "runner/cupti_timer.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runner/cuda_support.h"
#include "xalloc.h"

enum { CUPTI_BUFFER_BYTES = 4 << 20, CUPTI_ALIGN = 8 };

typedef CUptiResult (*enable_fn)(CUpti_ActivityKind);
typedef CUptiResult (*register_fn)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
typedef CUptiResult (*flush_fn)(uint32_t);
typedef CUptiResult (*next_fn)(uint8_t *, size_t, CUpti_Activity **);

struct cupti_timer {
    void *lib;
    enable_fn enable;
    enable_fn disable;
    register_fn register_callbacks;
    flush_fn flush_all;
    next_fn next_record;
    int window; /* tracing on only from begin to end, not for the integrity hooks' launches between
                 * samples (traced, a top-k input set's fills took 0.41 ms of host time on the H100,
                 * untraced 0.03 ms); KWB_CUPTI_WINDOW=0 traces for the runner's life */
};

/* The activity kinds a span is made of; KWB_CUPTI_SERIAL=1 traces kernels in CUPTI's serial kind
 * (kernels of different streams do not overlap while traced) instead of the concurrent one. */
static CUpti_ActivityKind traced[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                      CUPTI_ACTIVITY_KIND_MEMSET};

/* Turns the tracing of every traced kind on (ON 1) or off; returns 0, or -1 when CUPTI refused. */
static int set_tracing(cupti_timer *t, int on)
{
    for (size_t i = 0; i < sizeof traced / sizeof *traced; i++)
        if ((on ? t->enable : t->disable)(traced[i]) != CUPTI_SUCCESS)
            return -1;
    return 0;
}

/* One activity record kept for a batch: its launch's correlation id and its span. */
typedef struct span_rec {
    uint32_t corr;
    unsigned char probe; /* the clock probe kernel, which delimits the calls of a batch */
    uint64_t start, end;
} span_rec;

/* What the completion callback gathers (CUPTI has one client per process). */
static struct {
    next_fn next_record;
    uint64_t first_start;
    uint64_t last_end;
    int kernels;
    int keep; /* batch mode: every record is kept in recs */
    span_rec *recs;
    size_t nrecs, cap;
} cupti_seen;

static void keep_record(uint32_t corr, int probe, uint64_t start, uint64_t end)
{
    if (!cupti_seen.keep)
        return;
    if (cupti_seen.nrecs == cupti_seen.cap) {
        cupti_seen.cap = cupti_seen.cap ? 2 * cupti_seen.cap : 256;
        cupti_seen.recs = xrealloc(cupti_seen.recs, cupti_seen.cap * sizeof *cupti_seen.recs);
    }
    cupti_seen.recs[cupti_seen.nrecs++] = (span_rec){corr, (unsigned char)probe, start, end};
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, CUPTI_ALIGN, CUPTI_BUFFER_BYTES) != 0)
        p = NULL;
    *buffer = p;
    *size = p ? CUPTI_BUFFER_BYTES : 0;
    *max_records = 0;
}

static int is_helper(const char *name)
{
    return name && (strcmp(name, CUDA_SUPPORT_SPIN_KERNEL) == 0 || strcmp(name, CUDA_SUPPORT_PROBE_KERNEL) == 0);
}

static void note_span(uint64_t start, uint64_t end)
{
    if (end <= start)
        return;
    if (cupti_seen.kernels == 0 || start < cupti_seen.first_start)
        cupti_seen.first_start = start;
    if (cupti_seen.kernels == 0 || end > cupti_seen.last_end)
        cupti_seen.last_end = end;
    cupti_seen.kernels++;
}

/* Kernels, copies and memsets of the call all count: the call's work is all of them. */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_Activity *rec = NULL;
    while (valid > 0 && cupti_seen.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
            int probe = k->name && strcmp(k->name, CUDA_SUPPORT_PROBE_KERNEL) == 0;
            if (!is_helper(k->name))
                note_span(k->start, k->end);
            if (probe || !is_helper(k->name))
                keep_record(k->correlationId, probe, k->start, k->end);
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
            const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
            note_span(m->start, m->end);
            keep_record(m->correlationId, 0, m->start, m->end);
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
            const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
            note_span(m->start, m->end);
            keep_record(m->correlationId, 0, m->start, m->end);
        }
    }
    free(buffer);
}

static void *open_library(const char *cuda_path)
{
    const char *env = getenv("KWB_CUPTI_LIB");
    if (env && *env)
        return dlopen(env, RTLD_NOW | RTLD_LOCAL);
    const char *names[] = {"libcupti.so.13", "libcupti.so", NULL};
    for (int i = 0; names[i]; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    const char *dirs[] = {"extras/CUPTI/lib64", "lib64", "lib", "targets/x86_64-linux/lib", NULL};
    for (int i = 0; cuda_path && dirs[i]; i++) {
        char *p = xasprintf("%s/%s/libcupti.so", cuda_path, dirs[i]);
        void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        free(p);
        if (h)
            return h;
    }
    return NULL;
}

cupti_timer *cupti_timer_open(const char *cuda_path, kwb_error *err)
{
    void *lib = open_library(cuda_path);
    if (!lib) {
        kwb_error_set(err, "libcupti not found (%s); set KWB_CUPTI_LIB", dlerror());
        return NULL;
    }
    cupti_timer *t = xcalloc(1, sizeof *t);
    t->lib = lib;
    t->enable = (enable_fn)dlsym(lib, "cuptiActivityEnable");
    t->disable = (enable_fn)dlsym(lib, "cuptiActivityDisable");
    t->register_callbacks = (register_fn)dlsym(lib, "cuptiActivityRegisterCallbacks");
    t->flush_all = (flush_fn)dlsym(lib, "cuptiActivityFlushAll");
    t->next_record = (next_fn)dlsym(lib, "cuptiActivityGetNextRecord");
    int missing = !t->enable || !t->disable || !t->register_callbacks || !t->flush_all || !t->next_record;
    cupti_seen.next_record = t->next_record;
    const char *serial = getenv("KWB_CUPTI_SERIAL");
    traced[0] = serial && strcmp(serial, "1") == 0 ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    if (missing || t->register_callbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        set_tracing(t, 1) != 0) {
        kwb_error_set(err, "libcupti: cannot start kernel activity tracing");
        dlclose(lib);
        free(t);
        return NULL;
    }
    const char *knob = getenv("KWB_CUPTI_WINDOW");
    t->window = !(knob && strcmp(knob, "0") == 0) && set_tracing(t, 0) == 0;
    return t;
}

/* The records so far delivered; in window mode, tracing off until the next begin. */
static void close_window(cupti_timer *t)
{
    t->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (t->window)
        set_tracing(t, 0);
}

void cupti_timer_begin(cupti_timer *t)
{
    t->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    if (t->window)
        set_tracing(t, 1);
    cupti_seen.kernels = 0;
    cupti_seen.keep = 0;
}

void cupti_timer_begin_batch(cupti_timer *t)
{
    cupti_timer_begin(t);
    cupti_seen.nrecs = 0;
    cupti_seen.keep = 1;
}

static int by_correlation(const void *a, const void *b)
{
    const span_rec *x = a, *y = b;
    return x->corr < y->corr ? -1 : x->corr > y->corr;
}

/* Adds record R to call I's span: its first start, last end and record count. */
static void add_to_call(const span_rec *r, int i, uint64_t *first, uint64_t *end, int *kernels)
{
    if (r->end <= r->start)
        return;
    if (kernels[i] == 0 || r->start < first[i])
        first[i] = r->start;
    if (kernels[i] == 0 || r->end > end[i])
        end[i] = r->end;
    kernels[i]++;
}

int cupti_timer_end_batch(cupti_timer *t, int k, double *ms, int *kernels)
{
    close_window(t);
    cupti_seen.keep = 0;
    span_rec *r = cupti_seen.recs;
    size_t n = cupti_seen.nrecs;
    qsort(r, n, sizeof *r, by_correlation);
    uint64_t *first = xcalloc((size_t)k + 1, sizeof *first), *end = xcalloc((size_t)k + 1, sizeof *end);
    uint64_t opened = 0; /* start of the probe that opened the call in flight */
    int probes = 0, ok = 1;
    memset(kernels, 0, sizeof *kernels * (size_t)k);
    for (size_t j = 0; j < n && ok; j++) {
        if (r[j].probe) {
            opened = r[j].start;
            probes++;
        } else if (probes % 2 == 1 && probes / 2 < k) { /* between the probes of call probes/2 */
            ok = r[j].start >= opened;                  /* correlation ids follow the order of the launches */
            add_to_call(&r[j], probes / 2, first, end, kernels);
        }
    }
    ok = ok && probes == 2 * k;
    for (int i = 0; i < k; i++)
        ms[i] = ok && kernels[i] > 0 ? (double)(end[i] - first[i]) * 1e-6 : 0;
    free(first);
    free(end);
    return ok ? 0 : -1;
}

int cupti_timer_end(cupti_timer *t, double *ms, int *kernels)
{
    close_window(t);
    *kernels = cupti_seen.kernels;
    if (cupti_seen.kernels == 0) {
        *ms = 0;
        return -1;
    }
    *ms = (double)(cupti_seen.last_end - cupti_seen.first_start) * 1e-6;
    return 0;
}

void cupti_timer_close(cupti_timer *t)
{
    if (!t)
        return;
    t->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    set_tracing(t, 0);
    free(cupti_seen.recs);
    cupti_seen.recs = NULL;
    cupti_seen.nrecs = cupti_seen.cap = 0;
    dlclose(t->lib);
    free(t);
}

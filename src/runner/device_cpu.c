/* device_cpu.c - the cpu device: host memory, clock_gettime timing. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "proc.h"
#include "protocol.h"
#include "rng.h"
#include "digest_formula.h"
#include "runner/device.h"
#include "runner/peaks_cache.h"
#include "xalloc.h"

enum { CPU_FLUSH_BYTES = 64 << 20 }; /* larger than any LLC a CI or workstation has */

typedef struct cpu_priv {
    unsigned char *flush_buf;
    double copy_gbps;   /* cached or measured on first describe(); 0 until then or when it failed */
    double ws_gbps[40]; /* copy peak per working-set size bucket (2^k bytes); 0: not measured */
    char *cache_dir;    /* where measured peaks are kept; may be NULL */
} cpu_priv;

enum { PEAK_BYTES = 64 << 20, PEAK_MAX_THREADS = 64, PEAK_REPS = 10 };

typedef struct copy_part {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
    int reps;
} copy_part;

static void *copy_part_run(void *arg)
{
    copy_part *c = arg;
    for (int r = 0; r < c->reps; r++) {
        memcpy(c->dst, c->src, c->n);
        __asm__ __volatile__("" ::: "memory"); /* every copy happens */
    }
    return NULL;
}

/* Source and destination of HALF bytes each, page-aligned alike, written once (no first-touch
 * faults in a timed copy); 0, or -1 (both freed) when out of memory. Aligned alike because a
 * copy between addresses a few bytes apart modulo a page can run 15x slower (rep movsb on AMD
 * Zen: 6 GB/s for 90 from L2); the peak is the machine's best, not malloc's luck. */
static int copy_buffers(size_t half, unsigned char **a, unsigned char **b)
{
    void *pa = NULL, *pb = NULL;
    if (posix_memalign(&pa, 4096, half ? half : 1) != 0)
        pa = NULL;
    if (posix_memalign(&pb, 4096, half ? half : 1) != 0)
        pb = NULL;
    *a = pa;
    *b = pb;
    if (!*a || !*b) {
        free(*a);
        free(*b);
        return -1;
    }
    memset(*a, 1, half);
    memset(*b, 2, half);
    return 0;
}

/* Copy bandwidth (bytes read + written per second, 1e9) over a working set of WS bytes (half
 * source, half destination), on NT threads each copying its slice REPS times, best of
 * PEAK_REPS rounds (a busy machine slows some: the best is the machine's). */
static double copy_gbps_on(size_t ws, int nt, int reps)
{
    size_t half = ws / 2;
    unsigned char *a, *b;
    double best = 0;
    if (copy_buffers(half, &a, &b) != 0)
        return 0;
    for (int round = 0; round < PEAK_REPS; round++) {
        copy_part parts[PEAK_MAX_THREADS];
        pthread_t tids[PEAK_MAX_THREADS];
        int started[PEAK_MAX_THREADS] = {0};
        double t0 = proc_now();
        for (int t = 0; t < nt; t++) {
            size_t lo = half * (size_t)t / (size_t)nt, hi = half * (size_t)(t + 1) / (size_t)nt;
            parts[t] = (copy_part){b + lo, a + lo, hi - lo, reps};
            started[t] = t > 0 && pthread_create(&tids[t], NULL, copy_part_run, &parts[t]) == 0;
        }
        copy_part_run(&parts[0]);
        for (int t = 1; t < nt; t++) {
            if (started[t])
                pthread_join(tids[t], NULL);
            else
                copy_part_run(&parts[t]);
        }
        double s = proc_now() - t0;
        double gbps = s > 0 ? 2.0 * (double)half * reps / s / 1e9 : 0;
        best = gbps > best ? gbps : best;
    }
    free(a);
    free(b);
    return best;
}

static int online_cpus(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus > PEAK_MAX_THREADS ? PEAK_MAX_THREADS : (int)cpus;
}

/* Copy bandwidth of the machine from memory: one slice of a 64 MiB copy per online CPU; what a
 * multithreaded solution can reach on data that is not in a cache. */
static double measure_copy_gbps(void)
{
    return copy_gbps_on(2 * (size_t)PEAK_BYTES, online_cpus(), 1);
}

/* The best of single timed copies over a working set of WS bytes, the way a call is timed: a
 * single call can beat a loop of them (no write-backs of the previous copy in its way). */
static double single_call_gbps(size_t ws)
{
    size_t half = ws / 2;
    unsigned char *a, *b;
    double best = 0;
    if (copy_buffers(half, &a, &b) != 0)
        return 0;
    for (int i = 0; i < 400; i++) {
        double t0 = proc_now();
        memcpy(b, a, half);
        __asm__ __volatile__("" ::: "memory");
        double s = proc_now() - t0, g = s > 0 ? 2.0 * (double)half / s / 1e9 : 0;
        best = g > best ? g : best;
    }
    free(a);
    free(b);
    return best;
}

/* The best copy bandwidth over a working set of WS bytes, cached or not: one thread and one per
 * CPU (a working set in L1/L2 feeds each core from its own cache), each copy repeated so that a
 * round moves at least 32 MiB, and the best single timed copy. */
static double measure_copy_gbps_ws(size_t ws)
{
    int reps = (int)((32u << 20) / ws + 1), nt = online_cpus();
    double one = copy_gbps_on(ws, 1, reps), single = single_call_gbps(ws);
    one = single > one ? single : one;
    if (nt > 1 && ws / 2 / (size_t)nt >= 4096) {
        double all = copy_gbps_on(ws, nt, reps);
        one = all > one ? all : one;
    }
    return one;
}

static void *cpu_alloc(device *d, size_t n, kwb_error *err)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) {
        kwb_error_set(err, "cpu: cannot allocate %zu bytes", n);
        d->memory_short = 1;
        return NULL;
    }
    return p;
}

static void cpu_release(device *d, void *p)
{
    free(p);
}

static int cpu_copy(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    memcpy(dst, src, n);
    return 0;
}

static int cpu_sync(device *d, kwb_error *err)
{
    return 0;
}

/* One thread's share of a fill. */
typedef struct fill_part {
    void *dst;
    kwb_dtype t;
    size_t first, n;
    uint64_t key;
} fill_part;

static void *fill_part_run(void *arg)
{
    fill_part *f = arg;
    rng_fill_part(f->dst, f->t, f->first, f->n, f->key);
    return NULL;
}

/* Large fills (the MoE weights are 1.4 GB) in one part per core; the bytes do not depend on
 * the split. */
static int cpu_fill_random(device *d, void *dst, kwb_dtype t, size_t n, uint64_t key, kwb_error *err)
{
    (void)d;
    (void)err;
    enum { MAX_PARTS = 64, MIN_PART = 1 << 22 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = n / MIN_PART;
    if (parts > (size_t)(cores > 0 ? cores : 1))
        parts = (size_t)(cores > 0 ? cores : 1);
    if (parts > MAX_PARTS)
        parts = MAX_PARTS;
    if (parts < 2) {
        rng_fill(dst, t, n, key);
        return 0;
    }
    fill_part f[MAX_PARTS];
    pthread_t th[MAX_PARTS];
    size_t started = 0;
    for (size_t i = 0; i < parts; i++) {
        f[i] = (fill_part){dst, t, n / parts * i, i + 1 < parts ? n / parts : n - n / parts * i, key};
        if (pthread_create(&th[i], NULL, fill_part_run, &f[i]) == 0)
            started |= (size_t)1 << i;
        else
            fill_part_run(&f[i]); /* no thread: this one does it */
    }
    for (size_t i = 0; i < parts; i++)
        if (started >> i & 1)
            pthread_join(th[i], NULL);
    return 0;
}

static void cpu_flush(device *d);

static int cpu_sample(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                      kwb_error *err)
{
    if (p->cold)
        cpu_flush(d);
    int calls = p->graph > 0 ? p->graph : 1; /* the cpu's "graph": calls back to back */
    double t0 = proc_now();
    for (int i = 0; i < calls; i++)
        if (call(ctx, which, err) != 0)
            return -1;
    out->ms = (proc_now() - t0) * 1e3 / calls;
    out->event_ms = -1;
    return 0;
}

static const char *cpu_timer(device *d)
{
    return "clock_gettime";
}

static int cpu_broken(device *d)
{
    return 0;
}

static kwb_stream cpu_stream(device *d)
{
    return NULL;
}

static void cpu_flush(device *d)
{
    cpu_priv *p = d->priv;
    if (!p->flush_buf)
        p->flush_buf = xmalloc(CPU_FLUSH_BYTES);
    for (size_t i = 0; i < CPU_FLUSH_BYTES; i += 64)
        p->flush_buf[i] = (unsigned char)(p->flush_buf[i] + 1);
}

/* The copy bandwidth from the cache (keyed by host and CPU count), else measured and cached. */
static double cached_copy_gbps(const char *cache_dir)
{
    char host[256] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    char *key = xasprintf("cpu-%s-%ld", host, sysconf(_SC_NPROCESSORS_ONLN));
    json_t *cached = peaks_cache_load(cache_dir, key);
    double gbps = json_number_value(json_object_get(cached, "copy_gbps"));
    json_decref(cached);
    if (!(gbps > 0)) {
        gbps = measure_copy_gbps();
        json_t *o = json_pack("{s:f}", "copy_gbps", gbps);
        if (gbps > 0)
            peaks_cache_save(cache_dir, key, o);
        json_decref(o);
    }
    free(key);
    return gbps;
}

/* The processor's model name from /proc/cpuinfo, or NULL (malloc'd). */
static char *cpu_model(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512], *model = NULL;
    while (f && !model && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            colon += 1 + strspn(colon + 1, " \t");
            model = xstrndup(colon, strcspn(colon, "\n"));
        }
    }
    if (f)
        fclose(f);
    return model;
}

static void cpu_describe(device *d, json_t *hello)
{
    json_object_set_new(hello, "device", json_string("cpu"));
    char *model = cpu_model();
    if (model)
        json_object_set_new(hello, "model", json_string(model));
    free(model);
    json_object_set_new(hello, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_set_new(hello, "timer", json_string("clock_gettime(CLOCK_MONOTONIC)"));
    cpu_priv *p = d->priv;
    if (p->copy_gbps == 0)
        p->copy_gbps = cached_copy_gbps(p->cache_dir);
    if (p->copy_gbps > 0)
        json_object_set_new(hello, "peaks", json_pack("{s:f}", "copy_gbps", p->copy_gbps));
}

double device_cpu_copy_peak(device *d, double bytes, int again)
{
    cpu_priv *p = d->priv;
    if (p->copy_gbps == 0)
        p->copy_gbps = cached_copy_gbps(p->cache_dir);
    int k = 12; /* the power of two at or under BYTES (a smaller set copies no slower), 4 KiB and up */
    while (k < 39 && (double)((size_t)1 << (k + 1)) <= bytes)
        k++;
    if ((size_t)1 << k >= 2 * (size_t)PEAK_BYTES)
        return p->copy_gbps; /* larger than any cache: from memory */
    double best = p->copy_gbps;
    for (int b = k > 12 ? k - 1 : k; b <= k; b++) { /* and half of it: the peak stays an upper bound */
        if (p->ws_gbps[b] == 0 || again) {          /* again: the best of every measurement so far */
            double g = measure_copy_gbps_ws((size_t)1 << b);
            p->ws_gbps[b] = g > p->ws_gbps[b] ? g : p->ws_gbps[b];
        }
        best = p->ws_gbps[b] > best ? p->ws_gbps[b] : best;
    }
    return best;
}

static void cpu_close(device *d)
{
    cpu_priv *p = d->priv;
    free(p->flush_buf);
    free(p->cache_dir);
    free(p);
    free(d);
}

/* Host memory: the digest computed in place. */
static int cpu_digest(device *d, const void *p, size_t n, uint64_t key, uint64_t *out, kwb_error *err)
{
    (void)d, (void)err;
    *out = digest_host(p, n, key);
    return 0;
}

/* Host memory: the tolerance rule in place, the outputs never copied (the path the GPU's
 * comparison takes, exercised on the CPU); a mismatch is left to the host's check. */
static int cpu_compare(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                       check_stats *st, kwb_error *err)
{
    (void)d, (void)err;
    check_tolerance(out, ref, t, n, p, st);
    return st->fails || st->nonfinite ? 1 : 0;
}

/* Host memory: the rows compared as multisets in place (the GPU's path, exercised on the CPU). */
static int cpu_rows_equal(device *d, const void *out, const void *ref, kwb_dtype t, size_t n, size_t row,
                          kwb_error *err)
{
    (void)d, (void)err;
    check_policy exact = check_policy_exact();
    check_stats st;
    check_tolerance_rows_any_order(out, ref, t, n, row, &exact, &st);
    return st.fails || st.nonfinite ? 1 : 0;
}

/* K samples one after another with no hook between them: the timing loop's batched schedule
 * (hooks deferred to the end of the batch) exercised on the CPU, as the GPU runs it. */
static int cpu_sample_batch(device *d, const timing_policy *p, device_call call, void *ctx, const int *which, int k,
                            device_sample *out, kwb_error *err)
{
    for (int i = 0; i < k; i++)
        if (cpu_sample(d, p, call, ctx, which[i], &out[i], err) != 0)
            return -1;
    return 0;
}

/* Rows of a whole fill alone (device_ops.fill_random_rows): each at its place in DST. */
static int cpu_fill_random_rows(device *d, void *dst, kwb_dtype t, size_t row_elems, const int64_t *rows, size_t nrows,
                                uint64_t key, kwb_error *err)
{
    (void)d;
    (void)err;
    for (size_t r = 0; r < nrows; r++)
        rng_fill_part(dst, t, (size_t)rows[r] * row_elems, row_elems, key);
    return 0;
}

static const device_ops cpu_ops = {
    .kind = "cpu",
    .alloc = cpu_alloc,
    .release = cpu_release,
    .upload = cpu_copy,
    .download = cpu_copy,
    .sync = cpu_sync,
    .fill_random = cpu_fill_random,
    .fill_random_rows = cpu_fill_random_rows,
    .sample = cpu_sample,
    .sample_batch = cpu_sample_batch,
    .timer = cpu_timer,
    .broken = cpu_broken,
    .stream = cpu_stream,
    .digest = cpu_digest,
    .compare = cpu_compare,
    .rows_equal = cpu_rows_equal,
    .flush = cpu_flush,
    .describe = cpu_describe,
    .close = cpu_close,
};

device *device_cpu_open(const char *cache_dir, kwb_error *err)
{
    (void)err;
    device *d = xcalloc(1, sizeof *d);
    d->ops = &cpu_ops;
    cpu_priv *p = xcalloc(1, sizeof *p);
    p->cache_dir = cache_dir ? xstrdup(cache_dir) : NULL;
    d->priv = p;
    return d;
}

device *device_open(const char *spec, const char *cache_dir, kwb_error *err)
{
    if (strcmp(spec, "cpu") == 0)
        return device_cpu_open(cache_dir, err);
    if (strncmp(spec, "cuda", 4) == 0 && (spec[4] == '\0' || spec[4] == ':')) {
#ifdef HAVE_CUDA
        char *end = NULL;
        long ordinal = spec[4] == ':' ? strtol(spec + 5, &end, 10) : 0;
        if (spec[4] == ':' && (end == spec + 5 || *end || ordinal < 0)) {
            kwb_error_set(err, "device '%s': expected cuda or cuda:N", spec);
            return NULL;
        }
        return device_cuda_open((int)ordinal, cache_dir, err);
#else
        kwb_error_set(err, "device '%s': this kwb-runner was built without the CUDA device", spec);
        return NULL;
#endif
    }
    kwb_error_set(err, "unknown device '%s' (cpu, cuda, cuda:N)", spec);
    return NULL;
}

void device_list(FILE *f)
{
    fprintf(f, "cpu\n");
#ifdef HAVE_CUDA
    device_cuda_list(f);
#endif
}

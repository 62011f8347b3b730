/* gdn_decode_fast.c - fused, multithreaded C solution of gdn_decode_qk4_v8_d128_k_last.
 *
 * In the k-last layout ([V][K], K contiguous) the reference's K x V matrix M = state^T has
 * column v stored as state row v, and the delta rule acts on each such row on its own:
 *   u_v     = k . (g * row_v)                       (k^T M, entry v)
 *   new M   = g*M - k (x) u + k (x) (beta*v + (1-beta)*u)
 *           = g*M + k (x) beta*(v - u)               (per column v: delta_v = beta*(v_v - u_v))
 *   new_row = g*row_v + k * delta_v
 *   out_v   = scale * (q . new_row)
 * So each state row is read once and written once; the three short passes over a row (u, the
 * update, the output) touch 512 bytes that stay in L1. Dot products keep 8 float lanes so that gcc -O2 vectorizes them
 * without reassociation flags. (batch, head) pairs are split across up to 8 threads once there are at least 16 pairs;
 * every thread is joined before kwb_entry returns.
 *
 * Arguments: q k v state A_log a dt_bias b scale | output new_state. */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "kwb/kernel.h"

#define NQ 4  /* q and k heads */
#define NV 8  /* value heads */
#define D 128 /* head size (K = V = 128) */
/* Knobs for `kwb run --agent tuner`: independent float accumulators per dot product, the
 * most threads, and the fewest (batch, head) pairs worth threading. */
#define LANES 8               /* kwb:tune LANES {1,2,4,8,16} */
#define MAX_THREADS 8         /* kwb:tune MAX_THREADS {1,2,4,8} */
#define MIN_PAIRS_THREADED 64 /* kwb:tune MIN_PAIRS_THREADED {16,32,64,128} */

/* bfloat16 bits to float (exact). */
static float bf16_to_f32(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* float to bfloat16 bits, round to nearest even; NaN gives the quiet NaN with its sign. */
static uint16_t f32_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* torch.nn.functional.softplus: beta 1, threshold 20. */
static float softplus(float x)
{
    return x > 20.0f ? x : log1pf(expf(x));
}

static void widen_bf16(float *restrict dst, const uint16_t *restrict src)
{
    for (int i = 0; i < D; i++)
        dst[i] = bf16_to_f32(src[i]);
}

/* The sum of the LANES accumulators as a pairwise tree (LANES a power of two). */
static float sum_lanes(float *acc)
{
    for (int w = LANES / 2; w > 0; w /= 2)
        for (int j = 0; j < w; j++)
            acc[j] += acc[j + w];
    return acc[0];
}

/* k . (g * row) */
static float dot_scaled(const float *restrict k, const float *restrict row, float g)
{
    float acc[LANES] = {0};
    for (int i = 0; i < D; i += LANES)
        for (int j = 0; j < LANES; j++)
            acc[j] += k[i + j] * (g * row[i + j]);
    return sum_lanes(acc);
}

/* a . b */
static float dot(const float *restrict a, const float *restrict b)
{
    float acc[LANES] = {0};
    for (int i = 0; i < D; i += LANES)
        for (int j = 0; j < LANES; j++)
            acc[j] += a[i + j] * b[i + j];
    return sum_lanes(acc);
}

/* out = g*row + k*delta */
static void update_row(float *restrict out, const float *restrict row, const float *restrict k, float g, float delta)
{
    for (int i = 0; i < D; i++)
        out[i] = g * row[i] + k[i] * delta;
}

/* One (batch b, value head h) pair, given as the flat index PAIR = b*NV + h. */
static void gdn_pair(const kwb_arg *args, size_t pair, float scale)
{
    const int h = (int)(pair % NV);
    const size_t qk_off = (pair / NV * NQ + (size_t)(h / 2)) * D;
    const float *state = (const float *)args[3].data + pair * D * D;
    const float a = bf16_to_f32(((const uint16_t *)args[5].data)[pair]);
    const float bg = bf16_to_f32(((const uint16_t *)args[7].data)[pair]);
    const float a_log = ((const float *)args[4].data)[h];
    const float dt_bias = ((const float *)args[6].data)[h];
    uint16_t *out = (uint16_t *)args[9].data + pair * D;
    float *new_state = (float *)args[10].data + pair * D * D;
    float q[D] __attribute__((aligned(64)));
    float k[D] __attribute__((aligned(64)));
    float v[D] __attribute__((aligned(64)));

    const float g = expf(-expf(a_log) * softplus(a + dt_bias));
    const float beta = 1.0f / (1.0f + expf(-bg));
    widen_bf16(q, (const uint16_t *)args[0].data + qk_off);
    widen_bf16(k, (const uint16_t *)args[1].data + qk_off);
    widen_bf16(v, (const uint16_t *)args[2].data + pair * D);

    for (int vi = 0; vi < D; vi++) {
        const float *row = state + (size_t)vi * D;
        float u = dot_scaled(k, row, g);
        float delta = beta * (v[vi] - u);
        float *new_row = new_state + (size_t)vi * D;
        update_row(new_row, row, k, g, delta);
        out[vi] = f32_to_bf16(scale * dot(q, new_row));
    }
}

/* A contiguous range of pairs for one thread. */
typedef struct gdn_job {
    const kwb_arg *args;
    size_t first, end;
    float scale;
} gdn_job;

static void *gdn_run_job(void *p)
{
    const gdn_job *job = p;
    for (size_t pair = job->first; pair < job->end; pair++)
        gdn_pair(job->args, pair, job->scale);
    return NULL;
}

/* Online CPUs, read once (sysconf reads /sys on every call), clamped to [1, MAX_THREADS]. */
static int online_cpus(void)
{
    static int cached;
    int n = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (n > 0)
        return n;
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    n = c < 1 ? 1 : c > MAX_THREADS ? MAX_THREADS : (int)c;
    __atomic_store_n(&cached, n, __ATOMIC_RELAXED);
    return n;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 11 || args[0].rank != 4 || args[0].shape[0] < 0)
        return -1;
    const size_t pairs = (size_t)args[0].shape[0] * NV;
    float scale = (float)args[8].f;
    if (scale == 0.0f)
        scale = 1.0f / sqrtf((float)D);

    size_t nthreads = 1;
    if (pairs >= MIN_PAIRS_THREADED) {
        nthreads = (size_t)online_cpus();
        if (nthreads > pairs)
            nthreads = pairs;
    }
    gdn_job jobs[MAX_THREADS];
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    for (size_t t = 0; t < nthreads; t++)
        jobs[t] = (gdn_job){args, pairs * t / nthreads, pairs * (t + 1) / nthreads, scale};
    /* Threads 1.. run in the background; thread 0's share, and that of any thread that
     * could not be started, runs here. */
    for (size_t t = 1; t < nthreads; t++)
        started[t] = pthread_create(&tids[t], NULL, gdn_run_job, &jobs[t]) == 0;
    gdn_run_job(&jobs[0]);
    for (size_t t = 1; t < nthreads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            gdn_run_job(&jobs[t]);
    }
    return 0;
}

/* store_scale.c - the session store at scale: fills a store with N candidates (one round
 * each after the baseline) x W workloads of evaluations in large batches, then times the
 * TUI's queries (median and p90 of R runs after a warm-up) and the live per-workload commit.
 *
 *   bench/store_scale [--candidates N] [--workloads W] [--runs R] [--keep]
 *
 * Defaults: 10000 x 128, 50 runs. The store goes to a fresh folder under /tmp, removed at
 * the end unless --keep. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store.h"
#include "xalloc.h"

#define BATCH 50 /* candidates per fill transaction */
#define WARMUP 5

typedef struct bench {
    int candidates, workloads, runs, keep;
    char dir[64], path[96];
    workload *wl;
    char (*uuid)[64];
    uint64_t rng;
} bench;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double uniform(bench *b)
{
    b->rng = b->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(b->rng >> 11) / 9007199254740992.0;
}

static void die(const char *what, const kwb_error *err)
{
    fprintf(stderr, "store_scale: %s: %s\n", what, err->msg);
    exit(1);
}

/* One evaluation of CAND over every workload, latencies around SCALE ms; every 8th
 * candidate fails one workload. */
static void record_eval(bench *b, store *st, int64_t cand, int64_t round, int index, double scale)
{
    kwb_error err;
    int64_t run;
    if (store_eval_begin(st, cand, round, "NVIDIA H200", "kwb-runner 1", b->workloads, &run, &err))
        die("eval begin", &err);
    for (int w = 0; w < b->workloads; w++) {
        wl_result r;
        memset(&r, 0, sizeof r);
        r.wl = &b->wl[w];
        r.status = (index % 8 == 7 && w == index % b->workloads) ? ST_INCORRECT_NUMERICAL : ST_PASSED;
        double ms = scale * (0.01 + 0.001 * w) * (0.95 + 0.1 * uniform(b));
        r.has_candidate = r.status == ST_PASSED;
        r.candidate = (stats_summary){.n = 50, .median = ms, .mean = ms * 1.01, .min = ms * 0.97, .iqr = ms * 0.02};
        r.has_baseline = 1;
        r.baseline = (stats_summary){.n = 50, .median = 0.011 + 0.001 * w, .mean = 0.012, .min = 0.01, .iqr = 0.0002};
        r.has_reference = 1;
        r.reference = (stats_summary){.n = 5, .median = 0.5, .mean = 0.5, .min = 0.5, .iqr = 0.01};
        snprintf(r.timer, sizeof r.timer, "cupti");
        snprintf(r.verdict, sizeof r.verdict, "faster");
        if (store_eval_add(st, run, &r, NULL, &err))
            die("eval add", &err);
    }
    if (store_eval_finish(st, run, "complete", &err))
        die("eval finish", &err);
}

/* One candidate and, after the baseline, the round that made it. */
static void record_candidate(bench *b, store *st, int64_t session, int i, int64_t *prev)
{
    kwb_error err;
    char name[32], commit[48];
    int64_t cand = 0, round = 0;
    snprintf(name, sizeof name, "cand-%05d", i);
    snprintf(commit, sizeof commit, "%08x%032llx", (unsigned)i * 2654435761u, (unsigned long long)b->rng);
    if (i > 0 && store_round_begin(st, session, "a direction", &round, NULL, &err))
        die("round begin", &err);
    if (store_candidate_add(st, session, *prev, i ? "agent" : "baseline", name, "/k/cand", commit, &cand, &err) ||
        store_build_add(st, cand, commit, "nvcc -O3 -arch=sm_90a", "", 1, 2.5, NULL, &err))
        die("candidate", &err);
    record_eval(b, st, cand, round, i, 1.0 - 0.5 * (double)i / b->candidates + 0.05 * uniform(b));
    if (i > 0 && (store_round_set_candidate(st, round, cand, &err) ||
                  store_round_end(st, round, "done", "recorded by the bench", &err)))
        die("round end", &err);
    *prev = cand;
}

static double fill(bench *b)
{
    kwb_error err;
    int64_t session, prev = 0;
    store *st = store_open(b->path, 0, &err);
    double t0 = mono();
    if (!st || store_session_create(st, "scale", "gdn_decode_qk4_v8_d128_k_last", &session, &err) ||
        store_session_acquire(st, session, getpid(), &err))
        die("open", &err);
    for (int i = 0; i < b->candidates; i++) {
        if (i % BATCH == 0 && store_batch_begin(st, &err))
            die("batch", &err);
        record_candidate(b, st, session, i, &prev);
        if ((i % BATCH == BATCH - 1 || i == b->candidates - 1) && store_batch_commit(st, &err))
            die("commit", &err);
        if (i % 1000 == 999)
            fprintf(stderr, "  %d candidates, %.1f s\n", i + 1, mono() - t0);
    }
    store_close(st);
    return mono() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef int (*query_fn)(store *st, int64_t session, int *rows, kwb_error *err);

static int q_best(store *st, int64_t session, int *rows, kwb_error *err)
{
    store_wl_table t;
    int rc = store_wl_table_best(st, session, &t, err);
    *rows = t.n;
    store_wl_table_free(&t);
    return rc == 1 ? 0 : -1;
}

static int q_current(store *st, int64_t session, int *rows, kwb_error *err)
{
    store_wl_table t;
    int rc = store_wl_table_current(st, session, &t, err);
    *rows = t.n;
    store_wl_table_free(&t);
    return rc == 1 ? 0 : -1;
}

static int trajectory(store *st, int64_t session, int last, int *rows, kwb_error *err)
{
    store_round *r;
    int rc = store_trajectory(st, session, last, &r, rows, err);
    store_round_list_free(r, *rows);
    return rc;
}

static int q_trajectory_all(store *st, int64_t session, int *rows, kwb_error *err)
{
    return trajectory(st, session, 0, rows, err);
}

static int q_trajectory_100(store *st, int64_t session, int *rows, kwb_error *err)
{
    return trajectory(st, session, 100, rows, err);
}

static int q_log_200(store *st, int64_t session, int *rows, kwb_error *err)
{
    store_log_entry *e;
    int rc = store_log_list(st, session, 0, 200, &e, rows, err);
    store_log_list_free(e, *rows);
    return rc;
}

static int q_best_id(store *st, int64_t session, int *rows, kwb_error *err)
{
    int64_t id;
    *rows = 1;
    return store_candidate_best(st, session, &id, NULL, err) == 1 ? 0 : -1;
}

/* Times Q R times after a warm-up; prints its median and p90 in ms. */
static void time_query(bench *b, store *st, int64_t session, const char *name, query_fn q)
{
    kwb_error err;
    double *t = xmalloc((size_t)b->runs * sizeof *t);
    int rows = 0;
    for (int i = 0; i < WARMUP + b->runs; i++) {
        double t0 = mono();
        if (q(st, session, &rows, &err))
            die(name, &err);
        if (i >= WARMUP)
            t[i - WARMUP] = (mono() - t0) * 1e3;
    }
    qsort(t, (size_t)b->runs, sizeof *t, cmp_double);
    double p90 = t[(int)ceil(0.9 * b->runs) - 1];
    printf("%-34s %7d %10.3f %10.3f\n", name, rows, t[b->runs / 2], p90);
    free(t);
}

/* Live recording: one more candidate's evaluation, one transaction per workload row. */
static void time_live(bench *b, store *st, int64_t session)
{
    kwb_error err;
    int64_t cand, run;
    if (store_candidate_add(st, session, 0, "human", "live", NULL, NULL, &cand, &err) ||
        store_eval_begin(st, cand, 0, "NVIDIA H200", "kwb-runner 1", b->workloads, &run, &err))
        die("live", &err);
    double *t = xmalloc((size_t)b->workloads * sizeof *t);
    for (int w = 0; w < b->workloads; w++) {
        wl_result r;
        memset(&r, 0, sizeof r);
        r.wl = &b->wl[w];
        r.has_candidate = 1;
        r.candidate = (stats_summary){.n = 50, .median = 0.01, .mean = 0.01, .min = 0.01};
        double t0 = mono();
        if (store_eval_add(st, run, &r, NULL, &err))
            die("live add", &err);
        t[w] = (mono() - t0) * 1e3;
    }
    qsort(t, (size_t)b->workloads, sizeof *t, cmp_double);
    printf("%-34s %7d %10.3f %10.3f\n", "live eval_add (1 txn per row)", 1, t[b->workloads / 2],
           t[(int)ceil(0.9 * b->workloads) - 1]);
    free(t);
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

static void parse_args(bench *b, int argc, char **argv)
{
    b->candidates = 10000, b->workloads = 128, b->runs = 50;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--keep") == 0)
            b->keep = 1;
        else if (i + 1 < argc && strcmp(argv[i], "--candidates") == 0)
            b->candidates = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--workloads") == 0)
            b->workloads = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--runs") == 0)
            b->runs = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: store_scale [--candidates N] [--workloads W] [--runs R] [--keep]\n");
            exit(2);
        }
    }
    if (b->candidates < 2 || b->workloads < 1 || b->runs < 1) {
        fprintf(stderr, "store_scale: need at least 2 candidates, 1 workload and 1 run\n");
        exit(2);
    }
}

int main(int argc, char **argv)
{
    bench b = {.rng = 42};
    kwb_error err;
    parse_args(&b, argc, argv);
    snprintf(b.dir, sizeof b.dir, "/tmp/kwb-store-scale-XXXXXX");
    if (!mkdtemp(b.dir))
        return perror("mkdtemp"), 1;
    snprintf(b.path, sizeof b.path, "%s/kwb.db", b.dir);
    b.wl = xcalloc((size_t)b.workloads, sizeof *b.wl);
    b.uuid = xcalloc((size_t)b.workloads, sizeof *b.uuid);
    for (int w = 0; w < b.workloads; w++) {
        snprintf(b.uuid[w], sizeof b.uuid[w], "%08x-%04x-4%03x-8%03x-%012x", (unsigned)w * 2654435761u, (unsigned)w,
                 (unsigned)w, (unsigned)w, (unsigned)w);
        b.wl[w].uuid = b.uuid[w];
    }

    fprintf(stderr, "filling %s: %d candidates x %d workloads\n", b.path, b.candidates, b.workloads);
    double fill_s = fill(&b);
    long long size = file_size(b.path);
    char wal[128];
    snprintf(wal, sizeof wal, "%s-wal", b.path);
    size += file_size(wal);

    store *st = store_open(b.path, 0, &err);
    int64_t session;
    if (!st || store_session_find(st, "scale", &session, &err) != 1)
        die("reopen", &err);
    long long rows = (long long)b.candidates * b.workloads;
    printf("store_scale: %d candidates x %d workloads = %lld evaluation rows, %d rounds; SQLite %s\n", b.candidates,
           b.workloads, rows, b.candidates - 1, sqlite3_libversion());
    printf("fill: %.1f s (%.0f rows/s, batches of %d candidates); file %.1f MiB (%.0f bytes/row)\n", fill_s,
           (double)rows / fill_s, BATCH, (double)size / 1048576.0, (double)size / (double)rows);
    printf("%-34s %7s %10s %10s   (%d runs after %d warm-up)\n", "query", "rows", "median ms", "p90 ms", b.runs,
           WARMUP);
    time_query(&b, st, session, "best candidate (id only)", q_best_id);
    time_query(&b, st, session, "workload table, best candidate", q_best);
    time_query(&b, st, session, "workload table, current candidate", q_current);
    time_query(&b, st, session, "round trajectory, all rounds", q_trajectory_all);
    time_query(&b, st, session, "round trajectory, last 100", q_trajectory_100);
    time_query(&b, st, session, "session log, last 200 lines", q_log_200);
    time_live(&b, st, session);
    store_close(st);

    if (!b.keep) {
        const char *suffix[] = {"", "-wal", "-shm"};
        for (int i = 0; i < 3; i++) {
            char p[128];
            snprintf(p, sizeof p, "%s%s", b.path, suffix[i]);
            unlink(p);
        }
        rmdir(b.dir);
    } else {
        printf("kept %s\n", b.path);
    }
    free(b.wl);
    free(b.uuid);
    return 0;
}

#define _GNU_SOURCE
#include "cmd_dump.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devlist.h"
#include "paths.h"
#include "refsel.h"
#include "runclient.h"
#include "traceset.h"
#include "xalloc.h"
#include "suggest.h"

typedef struct dump_args {
    const char *definition; /* a name, or the path of a definition JSON */
    const char *filter;
    const char *device;
    const char *dataset;
    const char *out;
    const char *reference; /* --reference DIR|torch (refsel.h); NULL: the definition's or the runner's */
    unsigned long long seed;
    unsigned long long trial;
    double timeout_s;
} dump_args;

static void dump_usage(FILE *f)
{
    fputs("usage: kwb dump --definition NAME|PATH [--workloads FILTER] --out DIR [--device cpu|cuda[:N]]\n"
          "                [--dataset DIR] [--seed N] [--trial N] [--timeout S] [--reference DIR|torch]\n"
          "Writes DIR/UUID.safetensors per workload: the inputs of trial N (in.NAME) and the\n"
          "reference's outputs (out.NAME), as the runner makes them for kwb eval.\n",
          f);
}

/* A whole number from MIN to MAX into *out; -1 with a message otherwise. */
static int parse_whole(const char *opt, const char *s, unsigned long long max, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v > max) {
        fprintf(stderr, "kwb dump: %s: '%s' is not a whole number from 0 to %llu\n", opt, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

/* "cpu", "cuda" or "cuda:N". */
static int valid_device(const char *s)
{
    if (strcmp(s, "cpu") == 0 || strcmp(s, "cuda") == 0)
        return 1;
    return strncmp(s, "cuda:", 5) == 0 && s[5] && strspn(s + 5, "0123456789") == strlen(s + 5);
}

static int parse_dump_args(int argc, char **argv, dump_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'},
        {"workloads", required_argument, NULL, 'w'},
        {"device", required_argument, NULL, 'v'},
        {"dataset", required_argument, NULL, 'D'},
        {"seed", required_argument, NULL, 'S'},
        {"trial", required_argument, NULL, 't'},
        {"out", required_argument, NULL, 'o'},
        {"timeout", required_argument, NULL, 'T'},
        {"reference", required_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (dump_args){.device = "cpu", .seed = 1, .timeout_s = 300};
    unsigned long long v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 'w': a->filter = optarg; break;
        case 'v': a->device = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'o': a->out = optarg; break;
        case 'F': a->reference = optarg; break;
        case 'S':
            if (parse_whole("--seed", optarg, INT64_MAX, &a->seed))
                return -1;
            break;
        case 't':
            if (parse_whole("--trial", optarg, INT32_MAX, &a->trial))
                return -1;
            break;
        case 'T':
            if (parse_whole("--timeout", optarg, 1000000, &v) || v == 0)
                return -1;
            a->timeout_s = (double)v;
            break;
        case 'h': dump_usage(stdout); exit(0);
        default:
            suggest_bad_option("dump", argv, opts);
            dump_usage(stderr);
            return -1;
        }
    }
    if (optind < argc || !a->definition || !a->out) {
        fprintf(stderr, "kwb dump: %s\n",
                optind < argc ? "unexpected argument" : "--definition and --out are required");
        dump_usage(stderr);
        return -1;
    }
    if (!valid_device(a->device)) {
        fprintf(stderr, "kwb dump: --device: '%s' is not cpu, cuda or cuda:N\n", a->device);
        return -1;
    }
    return 0;
}

/* A definition given as a file rather than a name: it has a '/' or ends in ".json". */
static int is_definition_path(const char *s)
{
    size_t n = strlen(s);
    return strchr(s, '/') || (n > 5 && strcmp(s + n - 5, ".json") == 0);
}

/* The TraceSet root above a definition file ROOT/definitions/..., or NULL. */
static char *root_above(const char *def_path)
{
    char *real = realpath(def_path, NULL), *cut = NULL;
    for (char *p = real; p && (p = strstr(p, "/definitions/")) != NULL; p++)
        cut = p;
    if (!cut) {
        free(real);
        return NULL;
    }
    *cut = '\0';
    return real;
}

/* The definition at PATH and its workloads from DATASET (default: the root above PATH, else
 * the default dataset), into *dataset, *d and *set. */
static int load_from_path(const char *path, const char *dataset, char **root, definition **d, workload_set *set,
                          kwb_error *err)
{
    *d = definition_load(path, err);
    if (!*d)
        return -1;
    *root = dataset ? xstrdup(dataset) : root_above(path);
    if (!*root)
        *root = paths_dataset();
    char *wpath = traceset_workloads_path(*root, (*d)->name, err);
    int rc = wpath ? workload_load_file(wpath, *d, set, err) : -1;
    free(wpath);
    return rc;
}

/* The definition and the selected workloads; prints the problem and returns -1. */
static int load_selection(const dump_args *a, char **root, definition **d, workload_set *set)
{
    kwb_error err = {{0}};
    int rc;
    if (is_definition_path(a->definition))
        rc = load_from_path(a->definition, a->dataset, root, d, set, &err);
    else {
        *root = a->dataset ? xstrdup(a->dataset) : paths_dataset();
        rc = traceset_load(*root, a->definition, d, set, &err);
    }
    if (rc != 0)
        fprintf(stderr, "kwb dump: %s\n", err.msg);
    else if (a->filter && workload_set_filter(set, *d, a->filter) == 0) {
        fprintf(stderr, "kwb dump: no workload of %s matches '%s'\n", (*d)->name, a->filter);
        rc = -1;
    } else if (set->count == 0) {
        fprintf(stderr, "kwb dump: %s has no workloads in %s\n", (*d)->name, *root);
        rc = -1;
    }
    return rc;
}

/* Makes DIR (and its parents) and checks that files can be made in it; returns its absolute
 * path, or NULL with the problem printed. */
static char *prepare_out(const char *dir)
{
    struct stat sb;
    const char *why = NULL;
    if (paths_mkdir_p(dir) != 0 || stat(dir, &sb) != 0)
        why = strerror(errno);
    else if (!S_ISDIR(sb.st_mode))
        why = "not a folder";
    else if (access(dir, W_OK | X_OK) != 0)
        why = strerror(errno);
    if (why) {
        fprintf(stderr, "kwb dump: --out %s: cannot write there: %s\n", dir, why);
        return NULL;
    }
    return realpath(dir, NULL);
}

typedef struct dump_progress {
    const definition *d;
    const char *out;
    char *reported; /* reported[i]: workload i's line is out */
} dump_progress;

/* Why workload R was not dumped, on stderr. */
static void report_failure(const wl_result *r)
{
    fprintf(stderr, "kwb dump: %s: not dumped: %s: %s\n", r->wl->uuid, status_name(r->status),
            r->message ? r->message : "no reason given");
}

/* One line per workload as it is final: stdout for a file written, stderr for a failure. */
static void report(void *ctx, int done, int total, const wl_result *r)
{
    const dump_progress *p = ctx;
    (void)total;
    if (done >= 1)
        p->reported[done - 1] = 1;
    if (r->status == ST_PASSED) {
        char axes[256];
        workload_axes_string(r->wl, p->d, axes, sizeof axes);
        printf("%s  %s  %s/%s.safetensors\n", r->wl->uuid, axes, p->out, r->wl->uuid);
        fflush(stdout);
    } else
        report_failure(r);
}

/* Runs the dump job in one runner; returns the exit code. */
static int run_dump(const dump_args *a, const definition *d, const char *root, workload_set *set, const char *out)
{
    runner_job job;
    protocol_job_defaults(&job);
    char *runner = paths_runner(), *def_path = realpath(d->path, NULL), *abs_root = realpath(root, NULL);
    job.device = (char *)a->device;
    job.definition_path = def_path ? def_path : d->path;
    job.dataset_root = abs_root ? abs_root : (char *)root;
    job.cache_dir = paths_cache_dir();
    job.trials = 1;
    job.seed = a->seed;
    job.dump_dir = (char *)out;
    job.dump_trial = (int)a->trial;
    dump_progress prog = {d, out, xcalloc((size_t)set->count + 1, 1)};
    build_options bo;
    build_options_default(&bo);
    refsel ref = {0};
    kwb_error rerr = {{0}};
    if (devlist_check(runner, a->device, &rerr) != 0 ||
        refsel_prepare(a->reference, d, a->device, &bo, &ref, &rerr) != 0) {
        fprintf(stderr, "kwb dump: %s\n", rerr.msg);
        refsel_free(&ref);
        build_options_free(&bo);
        free(prog.reported);
        free(job.cache_dir);
        free(def_path);
        free(abs_root);
        free(runner);
        return 2;
    }
    job.reference = refsel_job_entry(&ref);
    runclient client = {.runner_path = runner,
                        .timeout_s = a->timeout_s,
                        .job = &job,
                        .keep_going = 1,
                        .progress = report,
                        .progress_ctx = &prog};
    wl_result *res = xcalloc((size_t)set->count, sizeof *res);
    kwb_error err = {{0}};
    int code = 2;
    if (runclient_run(&client, set, res, &err) != 0)
        fprintf(stderr, "kwb dump: %s\n", err.msg);
    else {
        for (int i = 0; i < set->count; i++) /* failed before the runner reached them (a job error) */
            if (!prog.reported[i] && res[i].status != ST_PASSED)
                report_failure(&res[i]);
        results_summary s = results_summarize(res, set->count);
        int written = s.by_status[ST_PASSED];
        fprintf(stderr, "kwb dump: %d of %d workload(s) dumped to %s (seed %llu, trial %llu, device %s)\n", written,
                s.total, out, a->seed, a->trial, a->device);
        code = written == s.total ? 0 : 1;
    }
    for (int i = 0; i < set->count; i++)
        results_free(&res[i]);
    free(res);
    free(prog.reported);
    refsel_free(&ref);
    build_options_free(&bo);
    runclient_free(&client);
    free(job.cache_dir);
    free(def_path);
    free(abs_root);
    free(runner);
    return code;
}

int cmd_dump(int argc, char **argv)
{
    dump_args a;
    if (parse_dump_args(argc, argv, &a) != 0)
        return 2;
    char *root = NULL, *out = NULL;
    definition *d = NULL;
    workload_set set = {0};
    int code = 2;
    if (load_selection(&a, &root, &d, &set) == 0 && (out = prepare_out(a.out)) != NULL)
        code = run_dump(&a, d, root, &set, out);
    workload_set_free(&set);
    definition_free(d);
    free(root);
    free(out);
    return code;
}

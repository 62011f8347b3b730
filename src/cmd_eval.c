#define _GNU_SOURCE
#include "cmd_eval.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "paths.h"
#include "runclient.h"
#include "solution.h"
#include "trace.h"
#include "traceset.h"
#include "xalloc.h"

typedef struct eval_args {
    const char *definition;
    const char *solution_dir;
    const char *baseline_dir;
    const char *dataset;
    const char *filter;
    const char *device;
    const char *traces;
    int trials;
    double timeout_s;
    double max_time_s;
    long long seed;
    int json;
    int quiet;
} eval_args;

static void eval_usage(FILE *f)
{
    fputs("usage: kwb eval --definition NAME --solution DIR [--baseline DIR] [--dataset DIR]\n"
          "                [--workloads FILTER] [--device cpu|cuda[:N]] [--trials N] [--timeout S]\n"
          "                [--max-time S] [--seed N] [--json] [--traces FILE] [--quiet]\n",
          f);
}

static int parse_number(const char *opt, const char *s, double lo, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || v < lo) {
        fprintf(stderr, "kwb eval: %s: '%s' is not a number >= %g\n", opt, s, lo);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_eval_args(int argc, char **argv, eval_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'}, {"solution", required_argument, NULL, 's'},
        {"baseline", required_argument, NULL, 'b'},   {"dataset", required_argument, NULL, 'D'},
        {"workloads", required_argument, NULL, 'w'},  {"device", required_argument, NULL, 'v'},
        {"trials", required_argument, NULL, 't'},     {"timeout", required_argument, NULL, 'T'},
        {"max-time", required_argument, NULL, 'm'},   {"seed", required_argument, NULL, 'S'},
        {"json", no_argument, NULL, 'j'},             {"traces", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},            {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (eval_args){.device = "cpu", .trials = 3, .timeout_s = 300, .max_time_s = 0.3, .seed = 1};
    double v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 's': a->solution_dir = optarg; break;
        case 'b': a->baseline_dir = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'w': a->filter = optarg; break;
        case 'v': a->device = optarg; break;
        case 'o': a->traces = optarg; break;
        case 'j': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        case 't': if (parse_number("--trials", optarg, 1, &v)) return -1; a->trials = (int)v; break;
        case 'T': if (parse_number("--timeout", optarg, 0.001, &v)) return -1; a->timeout_s = v; break;
        case 'm': if (parse_number("--max-time", optarg, 0, &v)) return -1; a->max_time_s = v; break;
        case 'S': if (parse_number("--seed", optarg, 0, &v)) return -1; a->seed = (long long)v; break;
        case 'h': eval_usage(stdout); exit(0);
        default: eval_usage(stderr); return -1;
        }
    }
    if (optind < argc || !a->definition || !a->solution_dir) {
        fprintf(stderr, "kwb eval: %s\n", optind < argc ? "unexpected argument" : "--definition and --solution are required");
        eval_usage(stderr);
        return -1;
    }
    return 0;
}

/* Loads and builds the solution in DIR for definition NAME; 1 = built, 0 = compile error. */
static int prepare_solution(const char *dir, const char *name, const build_options *bo, solution **sol,
                            build_result *br, kwb_error *err)
{
    *sol = solution_load(dir, err);
    if (!*sol)
        return -1;
    if (strcmp((*sol)->definition, name) != 0)
        return kwb_error_set(err, "%s: solution is for '%s', not '%s'", (*sol)->json_path, (*sol)->definition, name);
    if (build_solution(*sol, bo, br, err) != 0)
        return -1;
    if (br->ok && br->cached)
        fprintf(stderr, "kwb: %s: cached build %.12s\n", (*sol)->name, br->hash);
    else if (br->ok)
        fprintf(stderr, "kwb: %s: built %.12s in %.2f s\n", (*sol)->name, br->hash, br->seconds);
    else
        fprintf(stderr, "kwb: %s: COMPILE_ERROR\n%s", (*sol)->name, br->log);
    return br->ok;
}

static void progress(void *ctx, int done, int total, const wl_result *r)
{
    fprintf(stderr, "\r\033[K[%d/%d] %.8s %s", done, total, r->wl->uuid, status_name(r->status));
    if (done == total)
        fputc('\n', stderr);
}

static char *abs_path(const char *p)
{
    char *r = realpath(p, NULL);
    return r ? r : xstrdup(p);
}

/* Every workload gets COMPILE_ERROR with the compiler's output. */
static void mark_compile_error(wl_result *res, const workload_set *set, const build_result *br, const char *who)
{
    for (int i = 0; i < set->count; i++) {
        memset(&res[i], 0, sizeof res[i]);
        res[i].wl = &set->items[i];
        char *msg = xasprintf("%s did not compile: %.600s", who, br->log);
        for (char *p = msg; *p; p++)
            if (*p == '\n')
                *p = ' ';
        results_set_status(&res[i], ST_COMPILE_ERROR, msg);
        res[i].log = xstrdup(br->log);
        free(msg);
    }
}

static job_solution job_entry(const char *role, const solution *s, const build_result *br)
{
    job_solution j = {(char *)role, s->name, br->so_path, s->entry_symbol};
    return j;
}

static int run_eval(const eval_args *a, const definition *d, workload_set *set, wl_result *res,
                    char **hardware, kwb_error *err)
{
    build_options bo;
    build_options_default(&bo);
    solution *sol = NULL, *base = NULL;
    build_result br = {0}, bbr = {0};
    int rc = prepare_solution(a->solution_dir, d->name, &bo, &sol, &br, err);
    if (rc == 1 && a->baseline_dir)
        rc = prepare_solution(a->baseline_dir, d->name, &bo, &base, &bbr, err) == 1 ? 1 : -1;
    if (rc == 0)
        mark_compile_error(res, set, &br, sol->name);
    else if (rc == 1) {
        runner_job job;
        protocol_job_defaults(&job);
        job.device = (char *)a->device;
        job.definition_path = abs_path(d->path);
        job.dataset_root = abs_path(a->dataset);
        job.solutions[job.nsolutions++] = job_entry("candidate", sol, &br);
        if (base)
            job.solutions[job.nsolutions++] = job_entry("baseline", base, &bbr);
        job.trials = a->trials;
        job.seed = (uint64_t)a->seed;
        job.timing.max_time_s = a->max_time_s;
        runclient rcl = {0};
        rcl.runner_path = paths_runner();
        rcl.timeout_s = a->timeout_s;
        rcl.job = &job;
        if (!a->quiet && isatty(STDERR_FILENO))
            rcl.progress = progress;
        rc = runclient_run(&rcl, set, res, err) == 0 ? 1 : -1;
        const char *hw = json_string_value(json_object_get(rcl.hello, "device"));
        *hardware = xstrdup(hw ? hw : a->device);
        runclient_free(&rcl);
        free((char *)rcl.runner_path);
        free(job.definition_path);
        free(job.dataset_root);
    }
    if (rc == 1 && base && !bbr.ok)
        rc = -1;
    solution_free(sol);
    solution_free(base);
    build_result_free(&br);
    build_result_free(&bbr);
    build_options_free(&bo);
    return rc < 0 ? -1 : 0;
}

int cmd_eval(int argc, char **argv)
{
    eval_args a;
    if (parse_eval_args(argc, argv, &a) != 0)
        return 2;
    char *dataset = a.dataset ? xstrdup(a.dataset) : paths_dataset();
    a.dataset = dataset;
    kwb_error err = {{0}};
    definition *d = NULL;
    workload_set set = {0};
    if (traceset_load(dataset, a.definition, &d, &set, &err) != 0) {
        fprintf(stderr, "kwb eval: %s\n", err.msg);
        workload_set_free(&set);
        free(dataset);
        return 2;
    }
    int code = 2;
    if (a.filter && workload_set_filter(&set, d, a.filter) == 0)
        fprintf(stderr, "kwb eval: no workload of %s matches '%s'\n", d->name, a.filter);
    else if (set.count == 0)
        fprintf(stderr, "kwb eval: %s has no workloads in %s\n", d->name, dataset);
    else {
        wl_result *res = xcalloc((size_t)set.count, sizeof *res);
        char *hardware = NULL;
        if (run_eval(&a, d, &set, res, &hardware, &err) != 0)
            fprintf(stderr, "kwb eval: %s\n", err.msg);
        else {
            if (a.json)
                results_print_json(stdout, d, res, set.count);
            else
                results_print_table(stdout, d, res, set.count);
            results_summary s = results_summarize(res, set.count);
            code = s.by_status[ST_PASSED] == s.total ? 0 : 1;
            if (a.traces && trace_write_file(a.traces, d, a.solution_dir, hardware ? hardware : a.device, res,
                                             set.count, &err) != 0) {
                fprintf(stderr, "kwb eval: %s\n", err.msg);
                code = 2;
            }
        }
        for (int i = 0; i < set.count; i++)
            results_free(&res[i]);
        free(res);
        free(hardware);
    }
    workload_set_free(&set);
    definition_free(d);
    free(dataset);
    return code;
}

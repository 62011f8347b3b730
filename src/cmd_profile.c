#define _GNU_SOURCE
#include "cmd_profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "build.h"
#include "cmd_eval.h"
#include "config.h"
#include "ncu.h"
#include "paths.h"
#include "proc.h"
#include "profile.h"
#include "refsel.h"
#include "roofline.h"
#include "strbuf.h"
#include "traceset.h"
#include "wsopen.h"
#include "xalloc.h"
#include "suggest.h"

#define MAX_KERNELS 64

typedef struct profile_args {
    const char *definition;
    const char *solution_dir;
    const char *workload;
    const char *device;
    const char *dataset;
    const char *session;
    const char *workspace;
    double time_limit_s;
    int launch_count; /* 0: one launch per kernel of the compiler's report */
    int json;
    const char *keep_csv; /* where to keep Nsight Compute's raw CSV page (NULL: nowhere) */
} profile_args;

static void profile_usage(FILE *f)
{
    fputs("usage: kwb profile --definition NAME --solution DIR --workload UUID [--device cuda[:N]|cpu]\n"
          "                   [--dataset DIR] [--time-limit S] [--launch-count K]\n"
          "                   [--session NAME [--workspace DIR]] [--keep-csv FILE] [--json]\n",
          f);
}

/* "cpu", "cuda" or "cuda:N". */
static int valid_device(const char *s)
{
    if (strcmp(s, "cpu") == 0 || strcmp(s, "cuda") == 0)
        return 1;
    if (strncmp(s, "cuda:", 5) != 0 || !s[5])
        return 0;
    return strspn(s + 5, "0123456789") == strlen(s + 5);
}

static int parse_profile_args(int argc, char **argv, profile_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'},
        {"solution", required_argument, NULL, 's'},
        {"workload", required_argument, NULL, 'w'},
        {"device", required_argument, NULL, 'v'},
        {"dataset", required_argument, NULL, 'D'},
        {"time-limit", required_argument, NULL, 'T'},
        {"launch-count", required_argument, NULL, 'k'},
        {"session", required_argument, NULL, 'X'},
        {"workspace", required_argument, NULL, 'W'},
        {"json", no_argument, NULL, 'j'},
        {"keep-csv", required_argument, NULL, 'K'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (profile_args){.device = "cuda", .time_limit_s = 120};
    char *end;
    double v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 's': a->solution_dir = optarg; break;
        case 'w': a->workload = optarg; break;
        case 'v': a->device = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'X': a->session = optarg; break;
        case 'W': a->workspace = optarg; break;
        case 'j': a->json = 1; break;
        case 'K': a->keep_csv = optarg; break;
        case 'T':
            v = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || !(v > 0)) {
                fprintf(stderr, "kwb profile: --time-limit: '%s' is not a number of seconds > 0\n", optarg);
                return -1;
            }
            a->time_limit_s = v;
            break;
        case 'k':
            v = strtod(optarg, &end);
            if (*optarg == '\0' || *end != '\0' || v < 1 || v > 10000 || v != (int)v) {
                fprintf(stderr, "kwb profile: --launch-count: '%s' is not a whole number from 1 to 10000\n", optarg);
                return -1;
            }
            a->launch_count = (int)v;
            break;
        case 'h': profile_usage(stdout); exit(0);
        default:
            suggest_bad_option("profile", argv, opts);
            profile_usage(stderr);
            return -1;
        }
    }
    const char *problem = NULL;
    if (optind < argc)
        problem = "unexpected argument";
    else if (!a->definition || !a->solution_dir || !a->workload)
        problem = "--definition, --solution and --workload are required";
    else if (!valid_device(a->device))
        problem = "--device: not cpu, cuda or cuda:N";
    else if (a->workspace && !a->session)
        problem = "--workspace needs --session NAME";
    if (problem) {
        fprintf(stderr, "kwb profile: %s\n", problem);
        profile_usage(stderr);
        return -1;
    }
    return 0;
}

/* Cuts SET down to the one workload whose uuid contains ID. */
static int pick_workload(workload_set *set, const definition *d, const char *id, kwb_error *err)
{
    int n = workload_set_filter(set, d, id);
    if (n == 0)
        return kwb_error_set(err, "no workload of %s matches '%s'", d->name, id);
    if (n > 1)
        return kwb_error_set(err, "'%s' matches %d workloads of %s; give more of the uuid", id, n, d->name);
    return 0;
}

/* This kwb, for its children ("kwb" on PATH when /proc/self/exe cannot be read). */
static char *self_path(void)
{
    char *self = paths_self();
    return self ? self : xstrdup("kwb");
}

/* Runs ARGV with stdout into OUT and stderr into ERRF for at most LIMIT_S seconds: 0 when it
 * ended (*status: its wait status), 1 when it ran past the limit (killed), -1 when it could not
 * start (*err says why). */
static int run_child(char *const argv[], const char *out, const char *errf, double limit_s, int *status, kwb_error *err)
{
    int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fo < 0 || fe < 0) {
        kwb_error_set(err, "%s: %s", fo < 0 ? out : errf, strerror(errno));
        if (fo >= 0)
            close(fo);
        if (fe >= 0)
            close(fe);
        return -1;
    }
    proc_io io = proc_io_default();
    io.stdout_fd = fo;
    io.stderr_fd = fe;
    pid_t pid = proc_spawn(argv, &io, err);
    close(fo);
    close(fe);
    if (pid < 0)
        return -1;
    if (proc_wait(pid, limit_s, status) == 1) {
        proc_kill_group(pid);
        return 1;
    }
    return 0;
}

/* The first line of file PATH that starts with PREFIX (or, PREFIX NULL, the last non-blank
 * line), without its newline; NULL when there is none. */
static char *file_line(const char *path, const char *prefix)
{
    char *text = strbuf_read_file(path, NULL), *found = NULL, *save = NULL;
    for (char *l = text ? strtok_r(text, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
        if (prefix && strncmp(l, prefix, strlen(prefix)) == 0) {
            found = l;
            break;
        }
        if (!prefix && l[strspn(l, " \t\r")])
            found = l;
    }
    char *r = found ? xstrndup(found, strcspn(found, "\r")) : NULL;
    free(text);
    return r;
}

/* The peaks kwb measured on this machine's GPU (the newest JSON file in CACHE/devices); 0 when none. */
static roofline_peaks cached_peaks(const char *cache_dir)
{
    roofline_peaks pk = {0};
    char *dir = xasprintf("%s/devices", cache_dir), *newest = NULL;
    DIR *dh = opendir(dir);
    struct dirent *e;
    time_t when = 0;
    while (dh && (e = readdir(dh)) != NULL) {
        size_t n = strlen(e->d_name);
        char *p = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0 && stat(p, &st) == 0 && (!newest || st.st_mtime > when)) {
            free(newest);
            newest = p, p = NULL, when = st.st_mtime;
        }
        free(p);
    }
    if (dh)
        closedir(dh);
    json_t *file = newest ? json_load_file(newest, 0, NULL) : NULL;
    if (file) {
        json_t *facts = json_pack("{s:o}", "peaks", file);
        pk = roofline_peaks_from_facts(facts);
        json_decref(facts);
    }
    free(newest);
    free(dir);
    return pk;
}

/* Whether the roofline floor of C is the bytes term, as roofline_of decides it: with the cached
 * peaks of this machine's GPU; without them, when no FLOPs are modelled. */
static int memory_floor(const definition *d, const profile_call *c, const char *cache_dir)
{
    if (!(c->tflops > 0))
        return 1;
    roofline_peaks pk = cached_peaks(cache_dir);
    double compute = d->cost.compute && strcmp(d->cost.compute, "bf16") == 0 ? pk.bf16_tflops : pk.fp32_tflops;
    if (!(pk.copy_gbps > 0) || !(compute > 0))
        return 1;
    return c->gbps / pk.copy_gbps >= c->tflops / compute;
}

/* What one profile run holds. */
typedef struct profile_job {
    const profile_args *a;
    const definition *d;
    const char *dataset;
    const char *uuid;
    char *self;
    char *tmp; /* the run's scratch folder in the cache */
    char *cache_dir;
    profile_call call;
    json_t *eval_doc; /* owns the strings in call */
} profile_job;

/* Appends the NULL-terminated WORDS to ARGV at *N, and the NULL after them. */
static void add_args(char **argv, int *n, char *const *words)
{
    while (*words)
        argv[(*n)++] = *words++;
    argv[*n] = NULL;
}

/* The kwb eval command line both runs share (kwb eval of the candidate on the one workload, one
 * trial) into ARGV; returns how many words. */
static int eval_argv(const profile_job *j, char **argv)
{
    const profile_args *a = j->a;
    int n = 0;
    add_args(argv, &n,
             (char *[]){j->self, "eval", "--device", (char *)a->device, "--definition", (char *)a->definition,
                        "--solution", (char *)a->solution_dir, "--dataset", (char *)j->dataset, "--workloads",
                        (char *)j->uuid, "--trials", "1", NULL});
    return n;
}

/* The plain eval run (kwb eval --json) of the candidate on the workload: status, latency,
 * roofline share. Returns 0, or -1 with *err set when it gave no result. */
static int run_eval(profile_job *j, kwb_error *err)
{
    const profile_args *a = j->a;
    char *out = xasprintf("%s/eval.json", j->tmp), *errf = xasprintf("%s/eval.err", j->tmp);
    char *max_time = strncmp(a->device, "cuda", 4) == 0 ? "2" : "0.3"; /* enough for a median */
    char *argv[24];
    int n = eval_argv(j, argv);
    add_args(argv, &n, (char *[]){"--max-time", max_time, "--json", "--quiet", NULL});
    int status = 0, rc = run_child(argv, out, errf, a->time_limit_s, &status, err);
    json_t *w = NULL;
    if (rc == 0) {
        j->eval_doc = json_load_file(out, 0, NULL);
        w = json_array_get(json_object_get(j->eval_doc, "workloads"), 0);
    }
    if (rc == 1)
        rc = kwb_error_set(err, "kwb eval ran past the %g s time limit (--time-limit)", a->time_limit_s);
    else if (rc == 0 && !w) {
        char *why = file_line(errf, NULL), buf[64];
        rc = kwb_error_set(err, "kwb eval gave no result (%s): %s", proc_describe_status(status, buf, sizeof buf),
                           why ? why : "no message");
        free(why);
    } else if (rc == 0) {
        profile_call *c = &j->call;
        c->status = json_string_value(json_object_get(w, "status"));
        c->message = json_string_value(json_object_get(w, "message"));
        c->timer = json_string_value(json_object_get(w, "timer"));
        c->median_ms = json_number_value(json_object_get(json_object_get(w, "latency"), "median_ms"));
        c->gbps = json_number_value(json_object_get(w, "gbps"));
        c->tflops = json_number_value(json_object_get(w, "tflops"));
        c->roofline = json_number_value(json_object_get(w, "roofline"));
        c->gpu_wall = strncmp(a->device, "cuda", 4) == 0;
        c->memory_floor = memory_floor(j->d, c, j->cache_dir);
    }
    free(out);
    free(errf);
    return rc;
}

/* Nsight Compute: $KWB_NCU, else ncu on PATH, else the CUDA toolkit's. */
static char *find_ncu(void)
{
    const char *e = getenv("KWB_NCU");
    if (e && *e)
        return xstrdup(e);
    char *path = xstrdup(getenv("PATH") ? getenv("PATH") : ""), *save = NULL, *found = NULL;
    for (char *dir = strtok_r(path, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
        char *p = xasprintf("%s/ncu", *dir ? dir : ".");
        if (access(p, X_OK) == 0)
            found = xstrdup("ncu");
        free(p);
    }
    free(path);
#ifdef KWB_CUDA_PATH
    if (!found && access(KWB_CUDA_PATH "/bin/ncu", X_OK) == 0)
        found = xstrdup(KWB_CUDA_PATH "/bin/ncu");
#endif
    return found ? found : xstrdup("ncu");
}

/* Why the raw page in OUT (ncu's stderr in ERRF, wait STATUS) has no row: ncu's first error,
 * its exit status, its first warning, or that it profiled nothing. */
static char *ncu_reason(const char *out, const char *errf, int status)
{
    char *line = file_line(out, "==ERROR==");
    if (!line)
        line = file_line(errf, "==ERROR==");
    if (!line && status != 0) {
        char buf[64];
        line = xasprintf("%s", proc_describe_status(status, buf, sizeof buf));
    }
    if (!line)
        line = file_line(out, "==WARNING==");
    if (!line)
        line = file_line(errf, "==WARNING==");
    if (!line)
        return xstrdup("profiled no kernel");
    if (strncmp(line, "==", 2) == 0 && strstr(line + 2, "== ")) /* "==ERROR== " */
        memmove(line, strstr(line + 2, "== ") + 3, strlen(strstr(line + 2, "== ") + 3) + 1);
    size_t n = strlen(line);
    if (n > 0 && line[n - 1] == '.')
        line[n - 1] = '\0';
    return line;
}

/* Runs the workload under Nsight Compute, profiling the first K launches of the kernels PX
 * names. Returns NULL with *t filled, or the note that says why there are no counters. */
static char *run_ncu(profile_job *j, const ptxas_usage *px, int npx, ncu_table *t)
{
    const profile_args *a = j->a;
    char *filter = profile_kernel_filter(px, npx);
    if (!filter)
        return xstrdup("ncu: the compiler's report names no kernel of the candidate, so there is nothing to "
                       "profile; roofline-only profile");
    char *ncu = find_ncu(), *out = xasprintf("%s/ncu.csv", j->tmp), *errf = xasprintf("%s/ncu.err", j->tmp);
    char *count = xasprintf("%d", a->launch_count > 0 ? a->launch_count : npx), *note = NULL;
    char *argv[64] = {ncu};
    int n = 1;
    add_args(argv, &n,
             (char *[]){"--csv",
                        "--page",
                        "raw",
                        "--print-units",
                        "base",
                        "--clock-control",
                        "none",
                        "--section",
                        "SpeedOfLight",
                        "--section",
                        "Occupancy",
                        "--section",
                        "LaunchStats",
                        "--section",
                        "MemoryWorkloadAnalysis",
                        "--kernel-name-base",
                        "mangled",
                        "--print-kernel-base",
                        "mangled",
                        "-k",
                        filter,
                        "--launch-count",
                        count,
                        "--target-processes",
                        "all",
                        NULL});
    n += eval_argv(j, argv + n);
    add_args(argv, &n, (char *[]){"--min-time", "0", "--max-time", "0.05", "--quiet", "--sandbox", "off", NULL});
    char *old = getenv("KWB_NO_CUPTI") ? xstrdup(getenv("KWB_NO_CUPTI")) : NULL;
    setenv("KWB_NO_CUPTI", "1", 1); /* CUPTI and Nsight Compute do not share a process */
    /* Nsight Compute follows the eval into the runner and talks to its injection there: the
     * runner keeps to the host's PID namespace and leaves the sandbox off (the plain eval before
     * this one ran sandboxed); it still dies with kwb. */
    int had_no_pidns = getenv("KWB_NO_PIDNS") != NULL;
    if (!had_no_pidns)
        setenv("KWB_NO_PIDNS", "1", 1);
    kwb_error err = {{0}};
    int status = 0, rc = run_child(argv, out, errf, a->time_limit_s, &status, &err);
    if (old)
        setenv("KWB_NO_CUPTI", old, 1);
    else
        unsetenv("KWB_NO_CUPTI");
    if (!had_no_pidns)
        unsetenv("KWB_NO_PIDNS");
    size_t len = 0;
    char *text = rc == 0 ? strbuf_read_file(out, &len) : NULL;
    if (text && a->keep_csv) {
        FILE *f = fopen(a->keep_csv, "w");
        if (!f || fwrite(text, 1, len, f) != len)
            fprintf(stderr, "kwb profile: %s: cannot write the CSV: %s\n", a->keep_csv, strerror(errno));
        if (f)
            fclose(f);
    }
    if (rc < 0)
        note = xasprintf("ncu: %s; roofline-only profile", err.msg);
    else if (rc == 1)
        note = xasprintf("ncu: ran past the %g s time limit (--time-limit) and was killed; roofline-only profile",
                         a->time_limit_s);
    else if (!text || ncu_parse(text, len, out, t, &err) != 0 || t->nrows == 0) {
        if (text && t->columns)
            ncu_free(t);
        char *why = ncu_reason(out, errf, status);
        note = xasprintf("ncu: %s; roofline-only profile", why);
        free(why);
    }
    free(text);
    free(old);
    free(count);
    free(errf);
    free(out);
    free(ncu);
    free(filter);
    return note;
}

/* 1 when CANDIDATE's latest recorded build is HASH, 0 when not (or none), -1 on error. */
static int built_as(store *st, int64_t candidate, const char *hash, kwb_error *err)
{
    store_build b;
    int got = store_build_latest(st, candidate, &b, err);
    if (got != 1)
        return got;
    int same = b.hash && strcmp(b.hash, hash) == 0;
    store_build_free(&b);
    return same;
}

/* The candidate a profile of build HASH belongs to: the session's current candidate when its
 * latest build is HASH, else the candidate named NAME, else the current one (with a note when
 * the one chosen was built otherwise). */
static int pick_candidate(ws_handle *h, int64_t session, const char *name, const char *hash, int64_t *id,
                          kwb_error *err)
{
    int64_t cur = 0;
    int has_cur = store_candidate_current(h->st, session, &cur, err), same = 0;
    if (has_cur < 0 || (has_cur && (same = built_as(h->st, cur, hash, err)) < 0))
        return -1;
    if (same) {
        *id = cur;
        return 0;
    }
    store_candidate c;
    int named = store_candidate_find(h->st, session, name, &c, err);
    if (named < 0)
        return -1;
    if (named == 1) {
        *id = c.id;
        store_candidate_free(&c);
    } else if (has_cur) {
        *id = cur;
    } else {
        return kwb_error_set(err, "the session has no candidate yet (kwb eval --session records one)");
    }
    if ((same = built_as(h->st, *id, hash, err)) < 0)
        return -1;
    if (!same)
        fprintf(stderr,
                "kwb profile: note: the profiled build %.12s is not the recorded build of %s, which the "
                "profile is stored for\n",
                hash, named == 1 ? name : "the session's current candidate");
    return 0;
}

/* Stores DOC for its candidate in the session; the workspace is open only meanwhile. */
static int store_doc(const profile_args *a, json_t *doc, kwb_error *err)
{
    ws_handle h;
    if (wsopen(a->workspace, 0, &h, err) != 0)
        return -1;
    int64_t session = 0, cand = 0;
    char *text = json_dumps(doc, JSON_COMPACT);
    const char *tool = json_string_value(json_object_get(doc, "tool"));
    int rc = wsopen_session(&h, a->session, &session, err);
    if (rc == 0)
        rc = pick_candidate(&h, session, json_string_value(json_object_get(doc, "solution")),
                            json_string_value(json_object_get(doc, "build")), &cand, err);
    if (rc == 0)
        rc = store_profile_add(h.st, cand, json_string_value(json_object_get(doc, "workload")), tool, text, NULL, err);
    free(text);
    wsclose(&h);
    return rc;
}

/* Checks that the session exists before the profile is spent (read-only, not held). */
static int check_session(const profile_args *a, kwb_error *err)
{
    ws_handle h;
    int64_t id;
    if (wsopen(a->workspace, 1, &h, err) != 0)
        return -1;
    int rc = wsopen_session(&h, a->session, &id, err);
    wsclose(&h);
    return rc;
}

/* Profiles the built solution SOL (build BR) in J: the eval run, then ncu; prints and stores.
 * Returns the exit code. */
static int profile_built(profile_job *j, const solution *sol, const build_result *br)
{
    const profile_args *a = j->a;
    kwb_error err = {{0}};
    ptxas_usage px[MAX_KERNELS];
    int npx = ptxas_parse(br->log ? br->log : "", px, MAX_KERNELS);
    if (run_eval(j, &err) != 0) {
        fprintf(stderr, "kwb profile: %s\n", err.msg);
        return 2;
    }
    ncu_table t = {0};
    char *note = run_ncu(j, px, npx, &t);
    profile_inputs in = {j->d->name, j->uuid, a->device, sol->name, br->hash, note ? NULL : &t, note, px, npx, j->call};
    json_t *doc = profile_document(&in);
    const char *tool = json_string_value(json_object_get(doc, "tool"));
    const char *why = json_string_value(json_object_get(doc, "note"));
    if (a->json) {
        json_dumpf(doc, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        if (why)
            fprintf(stderr, "kwb profile: %s\n", why);
    } else {
        profile_print(stdout, doc);
    }
    fflush(stdout);
    int code = j->call.status && strcmp(j->call.status, "PASSED") == 0 ? 0 : 1;
    if (code)
        fprintf(stderr, "kwb profile: the candidate is %s on %s; the profile is of a failing call\n",
                j->call.status ? j->call.status : "not evaluated", j->uuid);
    if (a->session && store_doc(a, doc, &err) != 0) {
        fprintf(stderr, "kwb profile: %s\n", err.msg);
        code = 2;
    } else if (a->session) {
        fprintf(stderr, "kwb profile: %s profile stored in session %s\n", tool, a->session);
    }
    json_decref(doc);
    if (!note)
        ncu_free(&t);
    free(note);
    return code;
}

/* Builds the solution and profiles it on workload W; returns the exit code. */
static int profile_solution(const profile_args *a, const definition *d, const char *dataset, const workload *w)
{
    build_options bo;
    build_options_default(&bo);
    refsel_includes(d, &bo); /* as kwb eval builds it */
    solution *sol = NULL;
    build_result br = {0};
    kwb_error err = {{0}};
    profile_job j = {.a = a, .d = d, .dataset = dataset, .uuid = w->uuid, .self = self_path()};
    j.cache_dir = xstrdup(bo.cache_dir);
    int code, rc = cmd_eval_prepare_solution("profile", a->solution_dir, d->name, &bo, &sol, &br, &err);
    char *parent = xasprintf("%s/profiles", bo.cache_dir);
    if (rc < 0) {
        fprintf(stderr, "kwb profile: %s\n", err.msg);
        code = 2;
    } else if (rc == 0) {
        fprintf(stderr, "kwb profile: %s did not compile; nothing to profile\n", sol->name);
        code = 1;
    } else if (paths_mkdir_p(parent) != 0 || !mkdtemp(j.tmp = xasprintf("%s/run.XXXXXX", parent))) {
        fprintf(stderr, "kwb profile: %s: %s\n", parent, strerror(errno));
        free(j.tmp);
        j.tmp = NULL;
        code = 2;
    } else {
        code = profile_built(&j, sol, &br);
    }
    if (j.tmp)
        paths_remove_tree(j.tmp);
    free(j.tmp);
    free(parent);
    json_decref(j.eval_doc);
    free(j.cache_dir);
    free(j.self);
    solution_free(sol);
    build_result_free(&br);
    refsel_includes_free(&bo);
    build_options_free(&bo);
    return code;
}

int cmd_profile(int argc, char **argv)
{
    profile_args a;
    if (parse_profile_args(argc, argv, &a) != 0)
        return 2;
    char *dataset = a.dataset ? xstrdup(a.dataset) : paths_dataset();
    kwb_error err = {{0}};
    definition *d = NULL;
    workload_set set = {0};
    int code = 2;
    if (traceset_load(dataset, a.definition, &d, &set, &err) != 0 || pick_workload(&set, d, a.workload, &err) != 0 ||
        (a.session && check_session(&a, &err) != 0))
        fprintf(stderr, "kwb profile: %s\n", err.msg);
    else
        code = profile_solution(&a, d, dataset, &set.items[0]);
    workload_set_free(&set);
    definition_free(d);
    free(dataset);
    return code;
}

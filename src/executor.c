#define _GNU_SOURCE
#include "executor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"
#include "strbuf.h"
#include "xalloc.h"

enum { SALLOC_WAIT_S = 3600 };

/* A growing NULL-terminated argv. */
typedef struct words {
    char **v;
    int n;
} words;

static void words_add(words *w, const char *s)
{
    w->v = xrealloc(w->v, sizeof *w->v * (size_t)(w->n + 2));
    w->v[w->n++] = xstrdup(s);
    w->v[w->n] = NULL;
}

static void words_addf(words *w, const char *fmt, const char *s)
{
    char *t = xasprintf(fmt, s);
    words_add(w, t);
    free(t);
}

/* Adds the blank-separated words of S (no quoting, no shell). */
static void words_split(words *w, const char *s)
{
    char *copy = xstrdup(s ? s : ""), *save = NULL;
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        words_add(w, t);
    free(copy);
}

static void words_free(char **v)
{
    for (int i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

const char *executor_spec(const char *option)
{
    const char *env = getenv("KWB_EXECUTOR");
    return option ? option : env && *env ? env : "local";
}

int executor_use(const char *spec, const char *cmd)
{
    executor ex;
    kwb_error err = {{0}};
    if (executor_parse(spec, &ex, &err) != 0) {
        fprintf(stderr, "kwb %s: %s\n", cmd, err.msg);
        return -1;
    }
    executor_stop(&ex);
    setenv("KWB_EXECUTOR", spec, 1);
    return 0;
}

/* One KEY=VALUE entry of the list. */
static int set_key(executor *ex, const char *spec, const char *key, const char *value, kwb_error *err)
{
    struct {
        const char *name;
        char **field;
        int ssh, slurm;
    } strs[] = {
        {"runner", &ex->runner, 1, 1},
        {"ship_cache", &ex->ship_cache, 1, 1},
        {"ssh", &ex->ssh, 1, 0},
        {"gres", &ex->gres, 0, 1},
        {"partition", &ex->partition, 0, 1},
        {"time", &ex->time, 0, 1},
        {"account", &ex->account, 0, 1},
        {"srun", &ex->srun, 0, 1},
        {"salloc", &ex->salloc, 0, 1},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        if (strcmp(key, strs[i].name) != 0)
            continue;
        if (!(ex->kind == EXECUTOR_SSH ? strs[i].ssh : strs[i].slurm))
            break;
        free(*strs[i].field);
        *strs[i].field = xstrdup(value);
        return 0;
    }
    if ((strcmp(key, "workers") == 0 || strcmp(key, "batch") == 0) && ex->kind != EXECUTOR_SLURM)
        return kwb_error_set(err, "--executor %s: '%s' is not a setting of ssh", spec, key);
    char *end;
    double v = strtod(value, &end);
    int number = *value && *end == '\0';
    if (strcmp(key, "silence") == 0 && number && v > 0)
        ex->silence_s = v;
    else if (strcmp(key, "workers") == 0 && ex->kind == EXECUTOR_SLURM && number && v >= 1 && v == (int)v)
        ex->workers = (int)v;
    else if (strcmp(key, "files") == 0 && (strcmp(value, "shared") == 0 || strcmp(value, "ship") == 0))
        ex->ship = strcmp(value, "ship") == 0;
    else if (strcmp(key, "batch") == 0 && ex->kind == EXECUTOR_SLURM && (!strcmp(value, "yes") || !strcmp(value, "no")))
        ex->batch = strcmp(value, "yes") == 0;
    else if (strcmp(key, "silence") == 0 || strcmp(key, "workers") == 0 || strcmp(key, "files") == 0 ||
             (strcmp(key, "batch") == 0 && ex->kind == EXECUTOR_SLURM))
        return kwb_error_set(err, "--executor %s: %s='%s' is not %s", spec, key, value,
                             strcmp(key, "files") == 0     ? "shared or ship"
                             : strcmp(key, "silence") == 0 ? "a number of seconds > 0"
                             : strcmp(key, "batch") == 0   ? "yes or no"
                                                           : "a whole number >= 1");
    else
        return kwb_error_set(err, "--executor %s: '%s' is not a setting of %s", spec, key,
                             ex->kind == EXECUTOR_SSH ? "ssh" : "slurm");
    return 0;
}

int executor_parse(const char *spec, executor *ex, kwb_error *err)
{
    memset(ex, 0, sizeof *ex);
    ex->silence_s = 60;
    const char *colon = strchr(spec, ':');
    size_t kind_len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (kind_len == 5 && strncmp(spec, "local", 5) == 0 && !colon)
        return 0;
    if (kind_len == 3 && strncmp(spec, "ssh", 3) == 0)
        ex->kind = EXECUTOR_SSH;
    else if (kind_len == 5 && strncmp(spec, "slurm", 5) == 0)
        ex->kind = EXECUTOR_SLURM;
    else
        return kwb_error_set(err, "--executor %s: not local, ssh:HOSTS or slurm[:OPTIONS]", spec);
    char *list = xstrdup(colon ? colon + 1 : ""), *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(list, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (eq) {
            *eq = '\0';
            rc = set_key(ex, spec, t, eq + 1, err);
        } else if (ex->kind == EXECUTOR_SSH) {
            ex->hosts = xrealloc(ex->hosts, sizeof *ex->hosts * (size_t)(ex->nhosts + 1));
            ex->hosts[ex->nhosts++] = xstrdup(t);
        } else
            rc = kwb_error_set(err, "--executor %s: '%s' is not KEY=VALUE", spec, t);
    }
    free(list);
    if (rc == 0 && ex->kind == EXECUTOR_SSH && ex->nhosts == 0)
        rc = kwb_error_set(err, "--executor %s: no host (ssh:HOST[/DEVICE][,HOST...])", spec);
    if (rc != 0)
        executor_stop(ex);
    return rc;
}

/* The options of an allocation for EX's workers (salloc's and sbatch's alike) onto W. */
static void allocation_options(const executor *ex, words *w)
{
    char n[32];
    snprintf(n, sizeof n, "%d", ex->workers ? ex->workers : 1);
    words_addf(w, "--ntasks=%s", n);
    if (!ex->gres || strcmp(ex->gres, "none") != 0)
        words_add(w, "--gpus-per-task=1"); /* each step then takes its own with --gres */
    if (ex->partition)
        words_addf(w, "--partition=%s", ex->partition);
    if (ex->time)
        words_addf(w, "--time=%s", ex->time);
    if (ex->account)
        words_addf(w, "--account=%s", ex->account);
    words_split(w, ex->salloc);
}

/* salloc --no-shell for the workers; the job id from its "Granted job allocation N". */
static int slurm_allocate(executor *ex, kwb_error *err)
{
    words w = {0};
    words_add(&w, "salloc");
    words_add(&w, "--no-shell");
    words_add(&w, "--job-name=kwb");
    allocation_options(ex, &w);
    fprintf(stderr,
            "kwb: slurm: asking for an allocation for %d worker(s) (salloc; it waits while the queue holds it)\n",
            ex->workers);
    int code;
    char *text = proc_run_captured(w.v, NULL, SALLOC_WAIT_S, &code, err);
    words_free(w.v);
    const char *g = text ? strstr(text, "Granted job allocation ") : NULL;
    if (code == 0 && g)
        snprintf(ex->jobid, sizeof ex->jobid, "%ld", strtol(g + 23, NULL, 10));
    else if (text)
        kwb_error_set(err, "salloc gave no allocation (exit code %d): %.300s", code, text);
    free(text);
    if (!ex->jobid[0])
        return -1;
    ex->own_allocation = 1;
    fprintf(stderr, "kwb: slurm: allocation %s for %d worker(s)\n", ex->jobid, ex->workers);
    return 0;
}

int executor_batch(const executor *ex)
{
    const char *job = getenv("SLURM_JOB_ID");
    return ex->kind == EXECUTOR_SLURM && ex->batch && !(job && *job);
}

/* ARG quoted for sh (in single quotes, each ' as '\'') and a blank, onto SB. */
static void shell_quote(strbuf *sb, const char *arg)
{
    strbuf_puts(sb, "'");
    for (const char *p = arg; *p; p++)
        if (*p == '\'')
            strbuf_puts(sb, "'\\''");
        else
            strbuf_add(sb, p, 1);
    strbuf_puts(sb, "' ");
}

int executor_submit(const executor *ex, int argc, char **argv, kwb_error *err)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return kwb_error_set(err, "cannot find kwb's own path: %s", strerror(errno));
    self[len] = '\0';
    strbuf cmd;
    strbuf_init(&cmd);
    shell_quote(&cmd, self);
    for (int i = 0; i < argc; i++)
        shell_quote(&cmd, argv[i]);
    words w = {0};
    words_add(&w, "sbatch");
    words_add(&w, "--parsable");
    words_add(&w, "--job-name=kwb-eval");
    words_add(&w, "--output=slurm-%j.out");
    allocation_options(ex, &w);
    words_addf(&w, "--wrap=%s", cmd.s);
    strbuf_free(&cmd);
    int code;
    char *out = proc_run_captured(w.v, NULL, 300, &code, err);
    words_free(w.v);
    if (!out)
        return -1;
    long job = strtol(out, NULL, 10);
    int rc = code == 0 && job > 0 ? 0 : kwb_error_set(err, "sbatch failed (exit code %d): %.300s", code, out);
    if (rc == 0) {
        printf("%ld\n", job);
        fprintf(stderr,
                "kwb: slurm: submitted batch job %ld (output: slurm-%ld.out); its results go to the session as "
                "they come: kwb show, and kwb eval --session S --resume after an interruption\n",
                job, job);
    }
    free(out);
    return rc;
}

int executor_start(executor *ex, kwb_error *err)
{
    if (ex->kind != EXECUTOR_SLURM)
        return 0;
    const char *job = getenv("SLURM_JOB_ID");
    if (job && *job) { /* inside an allocation (salloc, sbatch): its tasks are the workers */
        snprintf(ex->jobid, sizeof ex->jobid, "%s", job);
        const char *tasks = getenv("SLURM_NTASKS");
        if (!ex->workers)
            ex->workers = tasks && atoi(tasks) > 0 ? atoi(tasks) : 1;
        return 0;
    }
    if (!ex->workers)
        ex->workers = 1;
    return slurm_allocate(ex, err);
}

/* The command that reaches worker K: ssh HOST, or an srun step, then the runner's relay. */
static char **worker_argv(const executor *ex, int k, const char *runner)
{
    words w = {0};
    if (ex->kind == EXECUTOR_SSH) {
        words_split(&w, ex->ssh ? ex->ssh : "ssh -o BatchMode=yes");
        char *host = xstrndup(ex->hosts[k], strcspn(ex->hosts[k], "/"));
        words_add(&w, host);
        free(host);
    } else {
        words_add(&w, "srun");
        words_addf(&w, "--jobid=%s", ex->jobid);
        words_add(&w, "--ntasks=1");
        words_add(&w, "--nodes=1");
        words_add(&w, "--exact");
        words_add(&w, "--unbuffered");
        words_add(&w, "--quiet");
        words_add(&w, "--job-name=kwb-worker");
        if (!ex->gres || strcmp(ex->gres, "none") != 0)
            words_addf(&w, "--gres=%s", ex->gres ? ex->gres : "gpu:1");
        words_split(&w, ex->srun);
    }
    words_add(&w, ex->runner ? ex->runner : runner);
    words_add(&w, "--stdio");
    char hb[32];
    snprintf(hb, sizeof hb, "%g", ex->silence_s / 6);
    words_add(&w, "--heartbeat");
    words_add(&w, hb);
    if (ex->ship_cache) {
        words_add(&w, "--ship-cache");
        words_add(&w, ex->ship_cache);
    }
    return w.v;
}

executor_worker *executor_workers(const executor *ex, const char *runner, const char *device, int *n)
{
    *n = ex->kind == EXECUTOR_SSH ? ex->nhosts : ex->workers;
    executor_worker *w = xcalloc((size_t)*n + 1, sizeof *w);
    for (int k = 0; k < *n; k++) {
        const char *slash = ex->kind == EXECUTOR_SSH ? strchr(ex->hosts[k], '/') : NULL;
        w[k].where = ex->kind == EXECUTOR_SSH ? xstrndup(ex->hosts[k], strcspn(ex->hosts[k], "/"))
                                              : xasprintf("slurm job %s", ex->jobid);
        w[k].device = xstrdup(slash ? slash + 1 : device);
        w[k].remote.argv = worker_argv(ex, k, runner);
        w[k].remote.silence_s = ex->silence_s;
        w[k].remote.ship = ex->ship;
        w[k].remote.where = w[k].where;
    }
    return w;
}

void executor_workers_free(executor_worker *w, int n)
{
    for (int k = 0; w && k < n; k++) {
        free(w[k].where);
        free(w[k].device);
        words_free(w[k].remote.argv);
    }
    free(w);
}

void executor_stop(executor *ex)
{
    if (ex->own_allocation) {
        char *argv[] = {"scancel", ex->jobid, NULL};
        kwb_error err = {{0}};
        if (proc_run_logged(argv, NULL, "/dev/null", 60, &err) != 0)
            fprintf(stderr, "kwb: slurm: scancel %s failed: cancel it by hand\n", ex->jobid);
    }
    for (int i = 0; i < ex->nhosts; i++)
        free(ex->hosts[i]);
    free(ex->hosts);
    char **strs[] = {&ex->ship_cache, &ex->runner,  &ex->ssh,  &ex->gres,  &ex->partition,
                     &ex->time,       &ex->account, &ex->srun, &ex->salloc};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++)
        free(*strs[i]);
    memset(ex, 0, sizeof *ex);
}

/* app.c - `kwb tui`: options, start-up, the one loop (poll on the terminal and the jobs' pipes),
 * script mode (KWB_SCRIPT=FILE: keys and :commands from a file, each line after pending work has
 * settled, drawn into the surface with no terminal) and shutdown. */
#define _GNU_SOURCE
#include "tui/workbench.h"

#include <curses.h>
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_tui.h"
#include "executor.h"
#include "paths.h"
#include "proc.h"
#include "tui/flow.h"
#include "tui/input.h"
#include "tui/model.h"
#include "tui/view.h"
#include "tui/views.h"
#include "tui/state.h"
#include "tui/term.h"
#include "tui/words.h"
#include "xalloc.h"
#include "suggest.h"

static void tui_usage(FILE *f)
{
    fputs("usage: kwb tui [--session NAME] [--definition NAME --solution DIR] [--workspace DIR]\n"
          "               [--device cpu|cuda[:N]] [--agent tuner] [--workloads FILTER] [--max-time S]\n"
          "               [--no-color] [--check-config] [--executor local|ssh:HOSTS|slurm[:OPTIONS]]\n"
          "  (with no --session: the newest session of the workspace; a session that does not exist is\n"
          "   started from --definition and --solution, as kwb run does)\n",
          f);
}

static int parse_args(int argc, char **argv, tui_options *o, int *check_config)
{
    static const struct option opts[] = {{"session", required_argument, NULL, 'S'},
                                         {"definition", required_argument, NULL, 'd'},
                                         {"solution", required_argument, NULL, 's'},
                                         {"workspace", required_argument, NULL, 'w'},
                                         {"device", required_argument, NULL, 'D'},
                                         {"agent", required_argument, NULL, 'a'},
                                         {"workloads", required_argument, NULL, 'W'},
                                         {"max-time", required_argument, NULL, 'T'},
                                         {"no-color", no_argument, NULL, 'C'},
                                         {"check-config", no_argument, NULL, 'K'},
                                         {"executor", required_argument, NULL, 'X'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "C", opts, NULL)) != -1)
        switch (c) {
        case 'S': o->session = optarg; break;
        case 'd': o->definition = optarg; break;
        case 's': o->solution = optarg; break;
        case 'w': o->workspace = optarg; break;
        case 'D': o->device = optarg; break;
        case 'a': o->agent = optarg; break;
        case 'W': o->workloads = optarg; break;
        case 'T': o->max_time = optarg; break;
        case 'C': o->no_color = 1; break;
        case 'K': *check_config = 1; break;
        case 'X':
            if (executor_use(optarg, "tui") != 0)
                return -1;
            break;
        case 'h': tui_usage(stdout); exit(0);
        default:
            suggest_bad_option("tui", argv, opts);
            tui_usage(stderr);
            return -1;
        }
    if (optind < argc) {
        fprintf(stderr, "kwb tui: unexpected argument '%s'\n", argv[optind]);
        return -1;
    }
    if (o->agent && strcmp(o->agent, "tuner") != 0 && strcmp(o->agent, "openai") != 0 &&
        strcmp(o->agent, "anthropic") != 0 && strcmp(o->agent, "command") != 0) {
        fprintf(stderr, "kwb tui: --agent: unknown agent '%s'\n", o->agent);
        return -1;
    }
    return 0;
}

/* stdin is not a terminal and no script: the rounds run headless (kwb run --auto) instead. */
static int headless(const tui_options *o)
{
    if (!o->definition || !o->solution) {
        fprintf(stderr,
                "kwb tui: stdin is not a terminal; the workbench needs one (or KWB_SCRIPT=FILE).\n"
                "  For rounds without a terminal: kwb run --auto --definition NAME --solution DIR --session NAME\n");
        return 2;
    }
    fprintf(stderr, "kwb tui: stdin is not a terminal: running three rounds headless instead (kwb run --auto)\n");
    char *self = paths_self();
    const char *argv[24] = {self ? self : "kwb",
                            "run",
                            "--auto",
                            "--rounds",
                            "3",
                            "--definition",
                            o->definition,
                            "--solution",
                            o->solution,
                            "--session",
                            o->session ? o->session : "demo",
                            "--agent",
                            o->agent ? o->agent : "tuner",
                            "--device",
                            o->device ? o->device : "cpu"};
    int n = 15;
    if (o->workspace)
        argv[n++] = "--workspace", argv[n++] = o->workspace;
    if (o->workloads)
        argv[n++] = "--workloads", argv[n++] = o->workloads;
    if (o->max_time)
        argv[n++] = "--max-time", argv[n++] = o->max_time;
    argv[n] = NULL;
    execv(argv[0], (char *const *)argv);
    fprintf(stderr, "kwb tui: cannot run %s: %s\n", argv[0], strerror(errno));
    return 2;
}

static void on_resize(tui_app *a, int rows, int cols)
{
    if (rows > 0 && cols > 0) {
        if (term_active())
            resizeterm(rows, cols);
        surface_resize(&a->scr, rows, cols);
    } else {
        term_resize(a);
    }
    view_mark_all(a, 1);
}

/* Services the jobs for up to TIMEOUT_MS (also watching fd STDIN_FD when >= 0); 1 when stdin is readable. */
static int wait_events(tui_app *a, int stdin_fd, int timeout_ms)
{
    struct pollfd pfd[2 * JOB_MAX + 1];
    int k = 0;
    if (stdin_fd >= 0)
        pfd[k++] = (struct pollfd){stdin_fd, POLLIN, 0};
    k += job_pollfds(a->jobs, JOB_MAX, pfd + k, 2 * JOB_MAX);
    int rc = poll(pfd, (nfds_t)k, timeout_ms);
    job_service(a->jobs, JOB_MAX, flow_job_line, flow_job_done, a);
    if (a->eng.step == ROUND_JUDGING && proc_now() - a->progress_polled > 0.25) {
        model_poll_progress(a);
        a->progress_polled = proc_now();
    }
    return rc > 0 && stdin_fd >= 0 && (pfd[0].revents & (POLLIN | POLLHUP));
}

static void terminal_loop(tui_app *a)
{
    while (!a->quit) {
        if (term_take_sigcont())
            term_resize(a);
        if (term_quit_requested()) {
            flow_cancel(a);
            break;
        }
        if (view_pending(a))
            input_frame(a);
        if (a->first_frame_s == 0)
            a->first_frame_s = proc_now();
        wait_events(a, 0, job_count(a->jobs, JOB_MAX) ? 100 : 1000);
        int key; /* read even when poll saw nothing: a SIGWINCH interrupts it and wgetch reports KEY_RESIZE */
        while ((key = term_read_key()) >= 0 && !a->quit)
            input_key(a, key);
    }
}

/* Waits until no job is in flight (bounded by KWB_SCRIPT_TIMEOUT seconds, default 600). */
static int settle(tui_app *a)
{
    const char *t = getenv("KWB_SCRIPT_TIMEOUT");
    double until = proc_now() + (t && atof(t) > 0 ? atof(t) : 600);
    while (job_count(a->jobs, JOB_MAX) > 0) {
        wait_events(a, -1, 100);
        if (proc_now() > until) {
            fprintf(stderr, "kwb tui: script: work still in flight after the time limit; cancelled\n");
            flow_cancel(a);
            job_drain(a->jobs, JOB_MAX, 5, flow_job_line, flow_job_done, a);
            return -1;
        }
    }
    return 0;
}

static int script_loop(tui_app *a, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "kwb tui: %s: cannot read: %s\n", path, strerror(errno));
        return 2;
    }
    char line[2048];
    int lineno = 0, failed = 0;
    input_frame(a);
    a->first_frame_s = proc_now();
    settle(a);
    input_frame(a);
    while (!a->quit && fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            continue;
        if (*p == ':') {
            int bad = 0;
            input_command(a, p + 1, &bad);
            if (bad) {
                fprintf(stderr, "%s:%d: %s\n", path, lineno, a->status);
                failed = 1;
            }
        } else {
            char *w[64];
            int n = words_split(p, w, 64);
            for (int i = 0; i < n; i++)
                for (const char *k = w[i]; *k;) {
                    int key = key_parse(&k);
                    if (key < 0) {
                        fprintf(stderr, "%s:%d: unknown key in '%s'\n", path, lineno, w[i]);
                        failed = 1;
                        break;
                    }
                    input_key(a, key);
                    if (view_pending(a))
                        input_frame(a);
                }
        }
        if (settle(a) != 0)
            failed = 1;
        input_frame(a);
    }
    fclose(f);
    return failed ? 1 : 0;
}

static void app_free(tui_app *a)
{
    view_done_all(a);
    free(a->detail);
    surface_free(&a->scr);
    config_free(&a->cfg);
    model_close(a);
}

/* Each pane's view. */
static void views_init(tui_app *a)
{
    static const view_ops *const ops[PANE_COUNT] = {
        NULL,           &view_workloads_ops, &view_bottleneck_ops, &view_proposals_ops,
        &view_diff_ops, &view_log_ops,       &view_history_ops};
    for (int p = 1; p < PANE_COUNT; p++)
        view_init(a, p, ops[p]);
}

/* The start: config, workspace, session; the first job of the round. */
static int app_start(tui_app *a, kwb_error *err)
{
    if (a->cfg.nerrors)
        for (char *l = strtok(a->cfg.errors.s, "\n"); l; l = strtok(NULL, "\n"))
            app_log(a, TC_LOG_ERROR, "config: %s", l);
    a->df.mode = !strcmp(a->cfg.diff_mode, "side-by-side") ? 1 : !strcmp(a->cfg.diff_mode, "unified") ? 2 : 0;
    views_init(a);
    a->chosen = -1;
    a->focus = PANE_WORKLOADS;
    a->bottom = PANE_LOG;
    if (model_open(a, err) < 0)
        return -1;
    if (a->session) {
        model_reload(a);
        if (!a->opt.session) {
            store_session s;
            if (store_session_get(a->h.st, a->session, &s, err) == 0) {
                a->opt.session = xstrdup(s.name); /* lives as long as the process */
                store_session_free(&s);
            }
        }
    }
    if (!a->script) /* scripts start from the defaults, so they stay repeatable */
        state_load(a);
    app_status(a, TC_NORMAL, "? help  Tab panes  a accept  x reject  q quit"); /* until the round says more */
    return flow_begin(a, err) != 0 ? -1 : 0;
}

int cmd_tui(int argc, char **argv)
{
    tui_app *a = xcalloc(1, sizeof *a);
    a->start_s = proc_now();
    int check_config = 0;
    if (parse_args(argc, argv, &a->opt, &check_config) != 0) {
        free(a);
        return 2;
    }
    setlocale(LC_ALL, "");
    int code = 0;
    if (check_config) {
        config_init(&a->cfg);
        config_load(&a->cfg);
        strbuf loaded;
        strbuf_init(&loaded);
        config_describe(&a->cfg, &loaded);
        fputs(loaded.s, stdout);
        strbuf_free(&loaded);
        fputs(a->cfg.errors.s, stderr);
        code = a->cfg.nerrors ? 1 : 0;
        config_free(&a->cfg);
        free(a);
        return code;
    }
    const char *script = getenv("KWB_SCRIPT");
    if ((!script || !*script) && (!isatty(0) || !isatty(1))) {
        code = headless(&a->opt);
        free(a);
        return code;
    }
    config_init(&a->cfg);
    config_load(&a->cfg); /* before the terminal starts: theme, line graphics and mouse come from it */
    input_on_resize = on_resize;
    kwb_error err = {{0}};
    if (script && *script) {
        a->script = 1;
        const char *lines = getenv("LINES"), *cols = getenv("COLUMNS");
        int r = lines && atoi(lines) > 0 ? atoi(lines) : 24, c = cols && atoi(cols) > 0 ? atoi(cols) : 80;
        a->scr.g = tui_glyphs_for(strcmp(getenv("KWB_SCRIPT_GLYPHS") ? getenv("KWB_SCRIPT_GLYPHS") : "", "utf-8") == 0);
        surface_resize(&a->scr, r, c);
        theme_mono(&a->th);
        if (app_start(a, &err) != 0) {
            fprintf(stderr, "kwb tui: %s\n", err.msg);
            code = 2;
        } else {
            if (getenv("KWB_SCRIPT_CURSES")) /* frames also go through curses, to /dev/null (timing) */
                term_init_virtual(a, r, c);
            code = script_loop(a, script);
        }
    } else {
        if (term_init(a, &err) != 0 || app_start(a, &err) != 0) {
            term_restore();
            fprintf(stderr, "kwb tui: %s\n", err.msg);
            code = 2;
        } else {
            terminal_loop(a);
            state_save(a);
        }
    }
    flow_cancel(a);
    job_drain(a->jobs, JOB_MAX, 5, flow_job_line, flow_job_done, a);
    term_restore();
    app_free(a);
    free(a);
    return code;
}

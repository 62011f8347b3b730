/* cmd_judge.c - `kwb judge`: the harness's verdict on one candidate folder against the
 * session's promoted best (judge.h: gate, sweep, replay, each recorded in the session). It
 * does not decide: `kwb decide` (or the workbench's confirmation) does. */
#include "cmd_judge.h"

#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"
#include "judge.h"
#include "paths.h"
#include "store.h"
#include "wsopen.h"
#include "xalloc.h"
#include "suggest.h"

typedef struct judge_args {
    const char *definition, *session, *workspace, *solution, *name, *direction;
    const char *origin; /* who wrote the candidate: human (default), tuner, llm, command */
    const char *device, *filter, *max_time, *dataset;
    const char *fixes; /* workloads where the best fails a replay (--fixes) */
    int json, quiet, again, replay_on_gate;
} judge_args;

static void judge_usage(FILE *f)
{
    fputs("usage: kwb judge --session NAME --solution DIR --name NAME [--direction TEXT]\n"
          "                 [--origin human|tuner|llm|command]\n"
          "                 [--definition NAME] [--device cpu|cuda[:N]] [--workloads FILTER]\n"
          "                 [--max-time S] [--replay-on all|gate] [--fixes FILTER] [--dataset DIR]\n"
          "                 [--again] [--json] [--quiet] [--workspace DIR]\n"
          "                 [--executor local|ssh:HOSTS|slurm[:OPTIONS]]\n",
          f);
}

static int parse_judge_args(int argc, char **argv, judge_args *a)
{
    static const struct option opts[] = {
        {"definition", required_argument, NULL, 'd'},
        {"session", required_argument, NULL, 'S'},
        {"workspace", required_argument, NULL, 'W'},
        {"solution", required_argument, NULL, 's'},
        {"name", required_argument, NULL, 'N'},
        {"direction", required_argument, NULL, 'R'},
        {"origin", required_argument, NULL, 'I'},
        {"device", required_argument, NULL, 'v'},
        {"workloads", required_argument, NULL, 'w'},
        {"max-time", required_argument, NULL, 'm'},
        {"dataset", required_argument, NULL, 'D'},
        {"json", no_argument, NULL, 'j'},
        {"quiet", no_argument, NULL, 'q'},
        {"replay-on", required_argument, NULL, 'r'},
        {"executor", required_argument, NULL, 'X'},
        {"again", no_argument, NULL, 'g'},
        {"fixes", required_argument, NULL, 'F'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    *a = (judge_args){.device = "cpu", .direction = "human"};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->definition = optarg; break;
        case 'S': a->session = optarg; break;
        case 'W': a->workspace = optarg; break;
        case 's': a->solution = optarg; break;
        case 'N': a->name = optarg; break;
        case 'R': a->direction = optarg; break;
        case 'I': a->origin = optarg; break;
        case 'v': a->device = optarg; break;
        case 'w': a->filter = optarg; break;
        case 'm': a->max_time = optarg; break;
        case 'D': a->dataset = optarg; break;
        case 'j': a->json = 1; break;
        case 'q': a->quiet = 1; break;
        case 'X':
            if (executor_use(optarg, "judge") != 0)
                return -1;
            break;
        case 'g': a->again = 1; break;
        case 'F': a->fixes = optarg; break;
        case 'r':
            if (strcmp(optarg, "gate") != 0 && strcmp(optarg, "all") != 0) {
                fprintf(stderr, "kwb judge: --replay-on: expected all or gate, not '%s'\n", optarg);
                return -1;
            }
            a->replay_on_gate = strcmp(optarg, "gate") == 0;
            break;
        case 'h': judge_usage(stdout); exit(0);
        default:
            suggest_bad_option("judge", argv, opts);
            judge_usage(stderr);
            return -1;
        }
    }
    if (optind < argc || !a->session || !a->solution || !a->name) {
        fprintf(stderr, "kwb judge: %s\n",
                optind < argc ? "unexpected argument" : "--session, --solution and --name are required");
        judge_usage(stderr);
        return -1;
    }
    if (a->origin && !store_writer_known(a->origin)) {
        fprintf(stderr, "kwb judge: --origin %s: who wrote the candidate is human, tuner, llm or command\n", a->origin);
        return -1;
    }
    return 0;
}

/* Prints the JSON output of the step that decided (the sweep's, else the gate's) with the
 * verdict added as its "judge" object. */
static int print_json(const char *folder, const judge_args *a, const judge_verdict *v, kwb_error *err)
{
    char *gate = xasprintf("%s/%s.gate.json", folder, a->name);
    const char *path = v->sweep_json[0] ? v->sweep_json : gate;
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    free(gate);
    if (!doc)
        return kwb_error_set(err, "%s:%d: %s", path, jerr.line, jerr.text);
    json_object_set_new(doc, "judge",
                        json_pack("{s:b, s:s, s:s, s:i, s:i, s:i}", "promote", v->promote, "stage", v->stage, "reason",
                                  v->reason, "gate_workloads", v->gate_workloads, "replay_trials", v->replay_trials,
                                  "heldout_workloads", v->heldout_workloads));
    json_dumpf(doc, stdout, JSON_INDENT(1));
    fputc('\n', stdout);
    json_decref(doc);
    return 0;
}

int cmd_judge(int argc, char **argv)
{
    judge_args a;
    if (parse_judge_args(argc, argv, &a) != 0)
        return 2;
    ws_handle h;
    kwb_error err = {{0}};
    if (wsopen(a.workspace, 0, &h, &err) != 0) {
        fprintf(stderr, "kwb judge: %s\n", err.msg);
        return 2;
    }
    int64_t session = 0, best_id = 0;
    store_session s = {0};
    store_candidate best = {0};
    char *folder = NULL, *best_dir = NULL;
    int code = 2, have_best = 0;
    /* a session that does not exist yet is started by this judgement (the start: no best) */
    int found = a.definition ? store_session_find(h.st, a.session, &session, &err) : 1;
    if (found < 0 || (found && (wsopen_session(&h, a.session, &session, &err) != 0 ||
                                store_session_get(h.st, session, &s, &err) != 0)))
        goto out;
    if (!found)
        s.definition = xstrdup(a.definition);
    if (a.definition && strcmp(a.definition, s.definition) != 0) {
        kwb_error_set(&err, "session %s is for %s, not %s", a.session, s.definition, a.definition);
        goto out;
    }
    have_best = found ? store_candidate_promoted(h.st, session, &best_id, NULL, &err) : 0;
    if (have_best < 0 || (have_best && store_candidate_get(h.st, best_id, &best, &err) != 0))
        goto out;
    if (have_best && !(best_dir = wsopen_candidate_folder(&h, a.session, &best, &err)))
        goto out;
    folder = xasprintf("%s/run/%s", h.ws.root, a.session);
    if (paths_mkdir_p(folder) != 0) {
        kwb_error_set(&err, "%s: cannot make the folder: %s", folder, strerror(errno));
        goto out;
    }
    judge_request q = {
        .definition = s.definition,
        .dataset = a.dataset,
        .session = a.session,
        .workspace = a.workspace,
        .device = a.device,
        .filter = a.filter,
        .max_time = a.max_time,
        .name = a.name,
        .dir = a.solution,
        .direction = a.direction,
        .origin = a.origin,
        .best_name = have_best ? best.name : NULL,
        .best_dir = best_dir,
        .st = h.st,
        .best_id = best_id,
        .folder = folder,
        .again = a.again,
        .replay_on_gate = a.replay_on_gate,
        .fixes = a.fixes,
        .quiet = a.quiet,
    };
    judge_verdict v;
    if (!a.quiet)
        fprintf(stderr, "kwb judge: %s against %s: gate, sweep, replay and held-out shapes where there are\n", a.name,
                have_best ? best.name : "nothing (no best)");
    if (judge_candidate(&q, &v, &err) != 0)
        goto out;
    if (a.json ? print_json(folder, &a, &v, &err) != 0 : 0)
        goto out;
    if (!a.json)
        printf("%s: %s at the %s: %s\n", a.name, v.promote ? "promotable" : "not promotable",
               v.promote ? "end" : v.stage, v.reason);
    code = v.promote ? 0 : 1;
out:
    if (code == 2)
        fprintf(stderr, "kwb judge: %s\n", err.msg);
    free(folder);
    free(best_dir);
    store_candidate_free(&best);
    store_session_free(&s);
    wsclose(&h);
    return code;
}

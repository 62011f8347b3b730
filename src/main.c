/* kwb, the kernel workbench: command dispatch. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "agentcfg.h"
#include "cmd_dump.h"
#include "cmd_eval.h"
#include "cmd_profile.h"
#include "cmd_propose.h"
#include "cmd_recon.h"
#include "cmd_judge.h"
#include "cmd_run.h"
#include "cmd_store.h"
#include "cmd_tui.h"
#include "cmd_write.h"
#include "proc.h"
#include "config.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} command;

static const command commands[] = {
    {"eval", cmd_eval, "evaluate a solution on every workload of a definition"},
    {"dump", cmd_dump, "write workloads' inputs and reference outputs as safetensors"},
    {"run", cmd_run, "rounds of the controller with no terminal UI: propose, gate, sweep, decide"},
    {"judge", cmd_judge, "gate, sweep, replay and held-out shapes of a candidate against the best (no decision)"},
    {"propose", cmd_propose, "the directions a session's next round may take, ranked"},
    {"write", cmd_write, "an agent writes a candidate for one direction from the session's best"},
    {"recon", cmd_recon, "search reference folders for a direction's keywords (reference-first)"},
    {"profile", cmd_profile, "one workload under Nsight Compute: per-kernel figures and the bottleneck"},
    {"init", cmd_init, "make a workspace: a session store and a candidate archive"},
    {"sessions", cmd_sessions, "list the workspace's sessions"},
    {"log", cmd_log, "a session's rounds, decisions and best latency after each"},
    {"show", cmd_show, "a candidate's diff against its parent and its results"},
    {"decide", cmd_decide, "promote (tag) or reject a candidate, with a reason"},
    {"checkout", cmd_checkout, "write a candidate's files into a folder"},
    {"report", cmd_report, "a session's report as md, csv, json, traces or html"},
    {"tui", cmd_tui, "the terminal workbench: rounds step by step, diffs side by side (also: kwb alone)"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: kwb COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n'kwb COMMAND --help' shows a command's options; kwb(1) has the rest.\n");
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* a runner that dies early must not take kwb with it */
    proc_guard_signals();     /* ended by a signal, kwb ends its children first */
    agentcfg_register_keys(); /* no key written in agents.conf reaches anything this process writes */
    if (argc < 2) {           /* kwb alone opens the workbench (it explains itself without a terminal) */
        char *tui_argv[] = {"tui", NULL};
        return cmd_tui(1, tui_argv);
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("kwb %s\n", PACKAGE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kwb: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

/* cmd_eval.h - `kwb eval`: one solution (optionally against a baseline) on every
 * workload of a definition; prints the per-workload table. */
#ifndef KWB_CMD_EVAL_H
#define KWB_CMD_EVAL_H

#include "build.h"
#include "solution.h"

/* Runs `kwb eval` with ARGV[0] == "eval". Returns the exit code: 0 all PASSED, 1 any
 * failure, 2 usage or input error. */
int cmd_eval(int argc, char **argv);

/* Loads the solution in DIR (it must be for definition NAME) into *sol and builds it into *br,
 * saying so on stderr as "kwb CMD: ..." (the compiler's output on COMPILE_ERROR): 1 built, 0 COMPILE_ERROR, -1
 * with *err set. *br starts zeroed; the caller frees *sol and *br, whatever the result. */
int cmd_eval_prepare_solution(const char *cmd, const char *dir, const char *name, const build_options *bo,
                              solution **sol, build_result *br, kwb_error *err);

#endif

/* cmd_eval.h - `kwb eval`: one solution (optionally against a baseline) on every
 * workload of a definition; prints the per-workload table. */
#ifndef KWB_CMD_EVAL_H
#define KWB_CMD_EVAL_H

/* Runs `kwb eval` with ARGV[0] == "eval". Returns the exit code: 0 all PASSED, 1 any
 * failure, 2 usage or input error. */
int cmd_eval(int argc, char **argv);

#endif

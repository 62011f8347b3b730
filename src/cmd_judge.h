/* cmd_judge.h - `kwb judge`: gate, sweep, replay and held-out shapes of one candidate against a
 * session's best. */
#ifndef KWB_CMD_JUDGE_H
#define KWB_CMD_JUDGE_H

/* Entry point of `kwb judge`; returns the process exit status (0 promotable, 1 not, 2 error). */
int cmd_judge(int argc, char **argv);

#endif

/* cmd_store.h - the workspace commands: init, sessions, log, show, decide, checkout,
 * report. Each takes its own argv (argv[0] is the command's name) and returns the exit
 * code: 0 done, 1 the thing asked about is not there, 2 usage or input error. */
#ifndef KWB_CMD_STORE_H
#define KWB_CMD_STORE_H

/* kwb init [DIR] [--repo PATH]: a new workspace (store and candidate archive). */
int cmd_init(int argc, char **argv);
/* kwb sessions: every session with its definition, holder and candidate count. */
int cmd_sessions(int argc, char **argv);
/* kwb log [SESSION]: rounds, decisions and the best latency after each round. */
int cmd_log(int argc, char **argv);
/* kwb show CANDIDATE [--session S]: the diff against its parent and its per-workload results. */
int cmd_show(int argc, char **argv);
/* kwb decide CANDIDATE promote|reject [--reason TEXT] [--session S]: a human decision. */
int cmd_decide(int argc, char **argv);
/* kwb checkout CANDIDATE DIR [--session S]: writes a candidate's files out. */
int cmd_checkout(int argc, char **argv);
/* kwb report [SESSION] [--format md|csv|json|traces|html] [--output FILE]. */
int cmd_report(int argc, char **argv);

#endif

/* cmd_run.h - `kwb run`: rounds of the controller with no terminal UI (headless). */
#ifndef KWB_CMD_RUN_H
#define KWB_CMD_RUN_H

/* Entry point of `kwb run`; returns the process exit status. */
int cmd_run(int argc, char **argv);

#endif

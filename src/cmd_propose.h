/* cmd_propose.h - `kwb propose`: the directions a round may take next, ranked. */
#ifndef KWB_CMD_PROPOSE_H
#define KWB_CMD_PROPOSE_H

/* kwb propose --session NAME [--workspace DIR] [--agent NAME] [--limit N] [--json]; returns the exit code. */
int cmd_propose(int argc, char **argv);

#endif

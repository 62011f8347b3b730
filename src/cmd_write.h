/* cmd_write.h - `kwb write`: one agent turns one direction into a candidate folder. */
#ifndef KWB_CMD_WRITE_H
#define KWB_CMD_WRITE_H

/* kwb write --session NAME --direction ID --out DIR [--agent NAME] [--from DIR] [--workspace DIR]
 * [--events]; returns the exit code (0 written, 1 the agent failed, 2 usage or workspace). */
int cmd_write(int argc, char **argv);

#endif

/* cmd_tui.h - `kwb tui`, the terminal workbench (src/tui/). */
#ifndef KWB_CMD_TUI_H
#define KWB_CMD_TUI_H

/* Runs the workbench with ARGV (argv[0] is "tui"); returns the exit code. */
int cmd_tui(int argc, char **argv);

#endif

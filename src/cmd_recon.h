/* cmd_recon.h - `kwb recon DIRECTION`: the reference-first reconnaissance of a direction. */
#ifndef KWB_CMD_RECON_H
#define KWB_CMD_RECON_H

/* kwb recon DIRECTION [--definition NAME] [--ref DIR]... [--skills DIR] [--keywords A,B] [--agent NAME]
 * [--max-hits N] [--context N]: prints the keywords, the references consulted and the hits; 0, 1 when nothing
 * could be searched, 2 on bad usage. */
int cmd_recon(int argc, char **argv);

#endif

/* devlist.h - the devices kwb-runner sees, so that a GPU that is not there is one error up
 * front rather than a failure per workload. */
#ifndef KWB_DEVLIST_H
#define KWB_DEVLIST_H

#include "error.h"

/* The devices kwb-runner RUNNER lists ("cpu", "cuda:0", ...: the first word of each line of
 * --list-devices) into *out (each and the array malloc'd); the count, or -1 with *err set. */
int devlist_runner(const char *runner, char ***out, kwb_error *err);
/* 0 when every cuda device of NAMES[0..n) is one SEEN[0..nseen) lists ("cuda" meaning cuda:0),
 * else -1 with *err naming the first that is not and what the runner sees. */
int devlist_usable(char **names, int n, char **seen, int nseen, kwb_error *err);
/* 0 when DEVICE is not a GPU or is one RUNNER sees; else -1 with *err set. */
int devlist_check(const char *runner, const char *device, kwb_error *err);

#endif

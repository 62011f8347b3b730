/* lifetime.h - nothing a candidate starts outlives its runner. The runner splits into a
 * supervisor and the runner proper: in a PID namespace of its own when the kernel allows it
 * (as root, or through a user namespace), whose init ends every process of the namespace when
 * the runner ends; otherwise the supervisor is a child subreaper that kills what the runner
 * left. Every process of the chain dies with its parent (parent-death signal), so a killed kwb
 * takes them all. */
#ifndef KWB_RUNNER_LIFETIME_H
#define KWB_RUNNER_LIFETIME_H

#include <stddef.h>

/* Splits this (single-threaded) process; returns 0 in the runner proper, with what was set up
 * described in MODE. The supervisor never returns: it waits for the runner, kills whatever is
 * left, and exits with the runner's status (its signal re-raised). Returns -1 when it cannot
 * fork; the caller then carries on alone. KWB_NO_PIDNS=1 skips the namespace. */
int lifetime_split(char *mode, size_t cap);

/* Kills every process the runner's calls started (its whole namespace but init and itself, or
 * its descendants) and reaps them. Returns how many were killed. */
int lifetime_kill_strays(void);

/* What lifetime_split would set up on this kernel, in words (probed in a child). */
void lifetime_describe(char *mode, size_t cap);

#endif

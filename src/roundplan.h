/* roundplan.h - which workloads each step of a round runs (DESIGN.md sections 1 and 10): the
 * gate times a candidate against the best on one representative workload per regime (cheap,
 * paired), the sweep on every workload, and the replay repeats a definition that asks for it
 * (kwb.replay) with the trials that catch a rare failure. */
#ifndef KWB_ROUNDPLAN_H
#define KWB_ROUNDPLAN_H

#include <stddef.h>

#include "definition.h"
#include "workload.h"

/* The size key of workload W: the product of its var axes' values (1 with none). */
double roundplan_size_key(const definition *d, const workload *w);
/* One representative per regime of SET (regimes.h over the size key and LATENCY_MS[i], the
 * best's latency of workload i, or NULL for equal weights): the workload whose key is the
 * regime's median. Writes their uuids joined by '|' into OUT (a `--workloads` filter; the
 * first 8 characters of each uuid) and returns how many; 0 for an empty set. */
int roundplan_gate_filter(const definition *d, const workload_set *set, const double *latency_ms, char *out,
                          size_t cap);
/* Trials of the replay before promotion for D: trialbudget_trials of its kwb.replay, or 0 when
 * D asks for none. */
int roundplan_replay_trials(const definition *d);

#endif

/* relay.h - kwb-runner --stdio: the runner's protocol over one byte stream (stdin for the
 * job, stdout for the events), as an SSH channel or a Slurm step carries it. A relay process
 * reads the job, starts the real runner as its child (job on descriptor 3, events on 4, the
 * candidate's output on the relay's stderr), and forwards each whole sealed event line; while
 * it waits it sends an empty line every HEARTBEAT_S seconds (the parent's proof that the worker
 * is alive); when the runner ends, one sealed "exit" event with its wait status follows its
 * last line; when stdin closes (the parent or the link gone) it kills its process group. */
#ifndef KWB_RUNNER_RELAY_H
#define KWB_RUNNER_RELAY_H

/* Runs the relay for the runner binary SELF (argv[0] resolved). A manifest before the job (files=ship,
 * ship.h) is answered from SHIP_CACHE, the cache of shipped files on this host. Returns the exit
 * code: 0 once the runner's end was reported, 2 when no job could be read. */
int relay_main(const char *self, double heartbeat_s, const char *ship_cache);

#endif

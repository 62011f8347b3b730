/* cmd_profile.h - `kwb profile`: one workload of a solution under Nsight Compute, with the
 * compiler's resource report and the bottleneck class per kernel (profile.h); a roofline-only
 * profile, with a note, when ncu is missing, fails or profiles nothing. */
#ifndef KWB_CMD_PROFILE_H
#define KWB_CMD_PROFILE_H

/* Runs `kwb profile` with ARGV[0] == "profile". Returns the exit code: 0 profiled (with ncu or
 * roofline-only), 1 the candidate did not compile or did not pass on the workload, 2 usage or
 * input error. */
int cmd_profile(int argc, char **argv);

#endif

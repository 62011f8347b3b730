/* cmd_dump.h - `kwb dump`: the inputs of one trial and the reference's outputs, per selected
 * workload, written by the runner to DIR/UUID.safetensors (for conformance checks against
 * the definition's PyTorch reference, tests/gpu/conformance). */
#ifndef KWB_CMD_DUMP_H
#define KWB_CMD_DUMP_H

/* Runs `kwb dump` with ARGV[0] == "dump". Returns the exit code: 0 every workload dumped,
 * 1 any workload not dumped (its reason on stderr), 2 usage or input error. */
int cmd_dump(int argc, char **argv);

#endif

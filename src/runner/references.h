/* references.h - reference implementations, registered per definition name.
 * A reference has the solution ABI (kwb/kernel.h): inputs then outputs, in definition
 * order, host memory on the cpu device. References favour obvious correctness over speed
 * (double accumulation on the CPU). */
#ifndef KWB_REFERENCES_H
#define KWB_REFERENCES_H

#include "kwb/kernel.h"

/* A reference entry point; same contract as kwb_entry. */
typedef int (*reference_fn)(const kwb_arg *args, int nargs, kwb_stream stream);

/* The CPU reference of DEFINITION, or NULL when none is registered. */
reference_fn references_find_cpu(const char *definition);
/* The CUDA reference of DEFINITION (device pointers, the given stream), or NULL when none is
 * registered or the runner was built without CUDA. */
reference_fn references_find_cuda(const char *definition);
/* Number of registered definitions, and the name of the i-th (for listings). */
int references_count(void);
const char *references_name(int i);
/* The devices the i-th definition has references on ("cpu" or "cpu,cuda"). */
const char *references_devices(int i);

/* gdn_decode_qk4_v8_d128_k_last on the CPU, double accumulation
 * (kernels/gdn_decode_qk4_v8_d128_k_last/cpu/reference.c). Returns 0, or -1 when the
 * arguments do not match the definition (count, rank, shape, dtype). */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* gdn_decode_qk4_v8_d128_k_last on CUDA, float32 (kernels/gdn_decode_qk4_v8_d128_k_last/cuda/reference.cu). */
int kwb_ref_cuda_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* bench_copy_f32 (y = x), the timing-fidelity operator, on the CPU and on CUDA. */
int kwb_ref_bench_copy_f32(const kwb_arg *args, int nargs, kwb_stream stream);
int kwb_ref_cuda_bench_copy_f32(const kwb_arg *args, int nargs, kwb_stream stream);

#endif

/* references.h - reference implementations, registered per definition name.
 * A reference has the solution ABI (kwb/kernel.h): inputs then outputs, in definition
 * order, host memory on the cpu device. References favour obvious correctness over speed
 * (double accumulation on the CPU). */
#ifndef KWB_REFERENCES_H
#define KWB_REFERENCES_H

#include <stddef.h>
#include <stdint.h>

#include "check.h"
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

/* A per-definition function that computes the values a definition's cost model names in
 * "kwb": {"cost": {"from_inputs": [...]}} from one call's inputs (INPUTS: the NINPUTS inputs in
 * definition order, tensors in host memory, scalars by value): VALUES[i] for NAMES[i], i < N.
 * Returns 0, or -1 when a name is not one it knows or the inputs are not the definition's. */
typedef int (*cost_values_fn)(const kwb_arg *inputs, int ninputs, const char *const *names, int n, int64_t *values);
/* The cost-values function of DEFINITION, or NULL when it has none. */
cost_values_fn references_find_cost_values(const char *definition);

/* A definition's own output check, used instead of the element-wise tolerance rule (the DSA
 * top-k's score equivalence): ARGS are the trial's inputs then the callee's outputs (host
 * memory, definition order, NARGS in all), WANT the reference's outputs. Fills *ST (counts and
 * errors over every output); returns 0 when the trial passes, else 1 with a one-line reason in
 * MSG (CAP bytes). */
typedef int (*output_check_fn)(const kwb_arg *args, int nargs, const kwb_arg *want, const check_policy *p,
                               check_stats *st, char *msg, size_t cap);
/* The output check of DEFINITION, or NULL when its outputs are checked element by element. */
output_check_fn references_find_check(const char *definition);

/* A generator of one input of a definition, used instead of the dtype's random draw where the
 * workload says "random" (FlashInfer-Bench's evaluator-specific inputs, such as the DSA
 * top-k's quantized K cache): fills ARG's tensor (device memory on cuda; its shape in ARG) from
 * KEY on STREAM, without waiting. Returns 0, or -1 when ARG is not the input it makes. */
typedef int (*input_gen_fn)(const kwb_arg *arg, uint64_t key, kwb_stream stream);
/* The generator of input INPUT of DEFINITION on device kind KIND ("cpu", "cuda"), or NULL. */
input_gen_fn references_find_generator(const char *kind, const char *definition, const char *input);

/* gdn_decode_qk4_v8_d128_k_last on the CPU, double accumulation
 * (kernels/gdn_decode_qk4_v8_d128_k_last/cpu/reference.c). Returns 0, or -1 when the
 * arguments do not match the definition (count, rank, shape, dtype). */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* gdn_decode_qk4_v8_d128_k_last on CUDA, float32 (kernels/gdn_decode_qk4_v8_d128_k_last/cuda/reference.cu). */
int kwb_ref_cuda_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* gdn_prefill_qk4_v8_d128_k_last on the CPU, double accumulation
 * (kernels/gdn_prefill_qk4_v8_d128_k_last/cpu/reference.c); cu_seqlens in host memory. Returns
 * 0, or -1 when the arguments do not match the definition or cu_seqlens is not a split of
 * total_seq_len (first 0, never decreasing, last total_seq_len). */
int kwb_ref_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* gdn_prefill_qk4_v8_d128_k_last on CUDA, float32, cu_seqlens read on the device
 * (kernels/gdn_prefill_qk4_v8_d128_k_last/cuda/reference.cu). */
int kwb_ref_cuda_gdn_prefill_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

/* moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 on the CPU, double accumulation
 * after float32 routing (kernels/moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048/
 * cpu/reference.c), for small seq_len. Returns 0, or -1 when the arguments do not match the
 * definition. */
int kwb_ref_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(const kwb_arg *args, int nargs,
                                                                         kwb_stream stream);
/* The same on CUDA, float32 dequantize-and-multiply (.../cuda/reference.cu); -1 as above, or
 * when a CUDA call fails. */
int kwb_ref_cuda_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(const kwb_arg *args, int nargs,
                                                                              kwb_stream stream);
/* Its cost values (a cost_values_fn): local_pairs, routed_tokens, active_experts, from the
 * routing of the inputs (.../cost.c). */
int kwb_cost_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048(const kwb_arg *inputs, int ninputs,
                                                                          const char *const *names, int n,
                                                                          int64_t *values);

/* dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 on the CPU, double accumulation
 * (kernels/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/cpu/reference.c). Returns 0, or -1 when
 * the arguments do not match the definition, a seq_len is negative or needs more pages than
 * block_table has, or a page in use is outside the cache. */
int kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);
/* The same on CUDA, float32 (.../cuda/reference.cu); it cannot report a bad seq_len or page
 * without synchronizing, so tokens on pages outside the cache are left out. */
int kwb_ref_cuda_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);
/* Its output check (an output_check_fn): score equivalence (.../cpu/check.c). */
int kwb_check_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64(const kwb_arg *args, int nargs, const kwb_arg *want,
                                                          const check_policy *p, check_stats *st, char *msg,
                                                          size_t cap);
/* Its k_index_cache_fp8 (input_gen_fn): a bfloat16 N(0,1) cache quantized per token to the
 * deep_gemm FP8 layout, on the host (.../cpu/kcache.c) and on CUDA (.../cuda/kcache.cu), the
 * same bytes on both. */
int kwb_gen_dsa_topk_kcache(const kwb_arg *arg, uint64_t key, kwb_stream stream);
int kwb_gen_cuda_dsa_topk_kcache(const kwb_arg *arg, uint64_t key, kwb_stream stream);

/* dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 on the CPU, double accumulation
 * (kernels/dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64/cpu/reference.c). Returns 0, or
 * -1 when the arguments do not match the definition or an index is neither -1 nor a token of
 * the cache. */
int kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);
/* The same on CUDA, float32 (.../cuda/reference.cu); indices outside the cache count as
 * padding there (it cannot report them without synchronizing). */
int kwb_ref_cuda_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64(const kwb_arg *args, int nargs, kwb_stream stream);

#endif

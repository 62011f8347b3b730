#include "runner/references.h"

#include <string.h>

#include "config.h"

#ifdef HAVE_CUDA
#define CUDA_REF(fn) fn
#else
#define CUDA_REF(fn) NULL
#endif

typedef struct reference_entry {
    const char *definition;
    reference_fn cpu;
    reference_fn cuda;
} reference_entry;

static const reference_entry reference_table[] = {
    {"gdn_decode_qk4_v8_d128_k_last", kwb_ref_gdn_decode_qk4_v8_d128_k_last,
     CUDA_REF(kwb_ref_cuda_gdn_decode_qk4_v8_d128_k_last)},
    {"gdn_prefill_qk4_v8_d128_k_last", kwb_ref_gdn_prefill_qk4_v8_d128_k_last,
     CUDA_REF(kwb_ref_cuda_gdn_prefill_qk4_v8_d128_k_last)},
    {"moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
     kwb_ref_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048,
     CUDA_REF(kwb_ref_cuda_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048)},
    {"dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", kwb_ref_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64,
     CUDA_REF(kwb_ref_cuda_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64)},
    {"dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64", kwb_ref_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64,
     CUDA_REF(kwb_ref_cuda_dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64)},
};

/* Definitions whose cost model reads values computed from the inputs (kwb.cost.from_inputs). */
static const struct {
    const char *definition;
    cost_values_fn fn;
} cost_values_table[] = {
    {"moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048",
     kwb_cost_moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048},
};

/* Definitions with their own output check (references_find_check). */
static const struct {
    const char *definition;
    output_check_fn fn;
} check_table[] = {
    {"dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", kwb_check_dsa_topk_indexer_fp8_h64_d128_topk2048_ps64},
};

/* Inputs made by a generator of their own where the workload says "random". */
static const struct {
    const char *definition, *input;
    input_gen_fn cpu, cuda;
} generator_table[] = {
    {"dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", "k_index_cache_fp8", kwb_gen_dsa_topk_kcache,
     CUDA_REF(kwb_gen_cuda_dsa_topk_kcache)},
};

enum { REFERENCE_COUNT = sizeof reference_table / sizeof reference_table[0] };

reference_fn references_find_cpu(const char *definition)
{
    for (int i = 0; i < REFERENCE_COUNT; i++)
        if (strcmp(reference_table[i].definition, definition) == 0)
            return reference_table[i].cpu;
    return NULL;
}

reference_fn references_find_cuda(const char *definition)
{
    for (int i = 0; i < REFERENCE_COUNT; i++)
        if (strcmp(reference_table[i].definition, definition) == 0)
            return reference_table[i].cuda;
    return NULL;
}

cost_values_fn references_find_cost_values(const char *definition)
{
    for (size_t i = 0; i < sizeof cost_values_table / sizeof cost_values_table[0]; i++)
        if (strcmp(cost_values_table[i].definition, definition) == 0)
            return cost_values_table[i].fn;
    return NULL;
}

output_check_fn references_find_check(const char *definition)
{
    for (size_t i = 0; i < sizeof check_table / sizeof check_table[0]; i++)
        if (strcmp(check_table[i].definition, definition) == 0)
            return check_table[i].fn;
    return NULL;
}

input_gen_fn references_find_generator(const char *kind, const char *definition, const char *input)
{
    for (size_t i = 0; i < sizeof generator_table / sizeof generator_table[0]; i++)
        if (strcmp(generator_table[i].definition, definition) == 0 && strcmp(generator_table[i].input, input) == 0)
            return strcmp(kind, "cuda") == 0 ? generator_table[i].cuda : generator_table[i].cpu;
    return NULL;
}

int references_count(void)
{
    return REFERENCE_COUNT;
}

const char *references_devices(int i)
{
    if (i < 0 || i >= REFERENCE_COUNT)
        return NULL;
    return reference_table[i].cuda ? "cpu,cuda" : "cpu";
}

const char *references_name(int i)
{
    return i >= 0 && i < REFERENCE_COUNT ? reference_table[i].definition : NULL;
}

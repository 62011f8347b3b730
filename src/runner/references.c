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
    {"bench_copy_f32", kwb_ref_bench_copy_f32, CUDA_REF(kwb_ref_cuda_bench_copy_f32)},
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

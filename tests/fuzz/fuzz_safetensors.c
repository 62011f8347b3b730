/* fuzz_safetensors.c - a safetensors file (8-byte header length, JSON header, data):
 * safetensors_open validates it; every tensor is then looked up by name and its bytes touched. */
#include "fuzz_common.h"
#include "safetensors.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kwb_error err;
    safetensors *st = safetensors_open(fuzz_file(data, size), &err);
    if (!st)
        return 0;
    volatile unsigned sum = 0;
    for (size_t i = 0; i < st->count; i++) {
        const st_tensor *t = safetensors_find(st, st->tensors[i].name);
        const unsigned char *p = safetensors_data(st, t);
        if (t->nbytes)
            sum += p[0] + p[t->nbytes - 1];
    }
    (void)sum;
    safetensors_close(st);
    return 0;
}

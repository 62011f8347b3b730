/* fuzz_definition.c - a definition file (FlashInfer-Bench JSON with kwb's "kwb" member):
 * definition_parse, then the cost model evaluated over every axis set to one value. */
#include <stdlib.h>

#include "definition.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kwb_error err;
    definition *d = definition_parse((const char *)data, size, "fuzz.json", &err);
    if (!d)
        return 0;
    int n = d->naxes + d->cost.nfrom_inputs;
    int64_t *values = malloc(((size_t)n + 1) * sizeof *values);
    for (int i = 0; i < n; i++)
        values[i] = 3;
    (void)definition_cost_bytes(d, values);
    (void)definition_cost_flops(d, values);
    free(values);
    (void)definition_var_axes(d);
    definition_free(d);
    return 0;
}

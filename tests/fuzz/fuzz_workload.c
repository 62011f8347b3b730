/* fuzz_workload.c - a workload file (JSONL) for a definition: the input is the definition's JSON,
 * a NUL byte, then the JSONL lines; workload_load_file reads them, and each workload's shapes,
 * axes string and filter are computed as eval does. */
#include <stdlib.h>
#include <string.h>

#include "definition.h"
#include "fuzz_common.h"
#include "workload.h"

static void use(const workload_set *set, const definition *d)
{
    char axes[512];
    int64_t shape[KWB_MAX_RANK];
    for (int w = 0; w < set->count; w++) {
        workload_axes_string(&set->items[w], d, axes, sizeof axes);
        for (int i = 0; i < d->ninputs; i++)
            workload_shape(&set->items[w], &d->inputs[i], shape);
        for (int i = 0; i < d->noutputs; i++)
            workload_shape(&set->items[w], &d->outputs[i], shape);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    if (!nul)
        return 0;
    kwb_error err;
    definition *d = definition_parse((const char *)data, (size_t)(nul - data), "fuzz.json", &err);
    if (!d)
        return 0;
    size_t rest = size - (size_t)(nul + 1 - data);
    workload_set set = {0};
    if (workload_load_file(fuzz_file(nul + 1, rest), d, &set, &err) == 0) {
        use(&set, d);
        workload_set_filter(&set, d, "batch_size=1|w0");
    }
    workload_set_free(&set);
    definition_free(d);
    return 0;
}

/* fuzz_solution.c - a solution folder's solution.json: solution_load reads it (sources named by
 * path are looked up in the same private folder, which holds only solution.json). */
#include "fuzz_common.h"
#include "solution.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_dir_file("solution.json", data, size);
    kwb_error err;
    solution *s = solution_load(fuzz_dir(), &err);
    solution_free(s);
    return 0;
}

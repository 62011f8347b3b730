/* bench_copy_f32 on the CPU: y = x (the timing-fidelity operator). */
#include <string.h>

#include "runner/references.h"

int kwb_ref_bench_copy_f32(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 2 || args[0].dtype != KWB_F32 || args[1].dtype != KWB_F32 || args[0].rank != 1 ||
        args[1].rank != 1 || args[0].shape[0] != args[1].shape[0])
        return -1;
    memcpy(args[1].data, args[0].data, (size_t)args[0].shape[0] * sizeof(float));
    return 0;
}

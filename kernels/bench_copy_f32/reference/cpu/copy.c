/* bench_copy_f32's reference on the CPU, a solution folder (the definition's
 * "kwb": {"reference": {"cpu": ...}}): y = x (the timing-fidelity operator). */
#include <string.h>

#include "kwb/kernel.h"

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    (void)stream;
    if (nargs != 2 || args[0].dtype != KWB_F32 || args[1].dtype != KWB_F32 || args[0].rank != 1 || args[1].rank != 1 ||
        args[0].shape[0] != args[1].shape[0])
        return -1;
    memcpy(args[1].data, args[0].data, (size_t)args[0].shape[0] * sizeof(float));
    return 0;
}

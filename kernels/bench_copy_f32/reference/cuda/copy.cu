/* bench_copy_f32's reference on CUDA, a solution folder (the definition's
 * "kwb": {"reference": {"cuda": ...}}): y = x by a device-to-device copy on the given stream. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

extern "C" int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    if (nargs != 2 || args[0].dtype != KWB_F32 || args[1].dtype != KWB_F32 || args[0].rank != 1 || args[1].rank != 1 ||
        args[0].shape[0] != args[1].shape[0])
        return -1;
    size_t bytes = (size_t)args[0].shape[0] * sizeof(float);
    return cudaMemcpyAsync(args[1].data, args[0].data, bytes, cudaMemcpyDeviceToDevice, (cudaStream_t)stream) ==
                   cudaSuccess
               ? 0
               : -1;
}

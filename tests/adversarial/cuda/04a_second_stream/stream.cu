/* Exploit 4: launch on a stream of its own (non-blocking, so the legacy stream does not
 * order it) and return: events recorded on kwb's stream bracket nothing. Caught: the CUPTI
 * span counts every kernel the call launched on any stream, and outputs are checked after a
 * device-wide synchronize; the latency must match the honest copy's. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

__global__ void copy_kernel(const float *__restrict__ x, float *__restrict__ y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i];
}

static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b > 1056 ? 1056 : b ? b : 1);
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static cudaStream_t mine;
    if (!mine && cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess)
        return -1;
    size_t n = (size_t)a[0].shape[0];
    copy_kernel<<<blocks_for(n), 256, 0, mine>>>((const float *)a[0].data, (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

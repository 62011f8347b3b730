/* Exploit 4: work left running after the call returns: a kernel on its own stream spins for
 * 2 ms (globaltimer) and only then copies. Caught: the CUPTI span runs to the end of the last
 * kernel, so the latency is at least 2 ms; the outputs are checked after a device-wide sync. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

__global__ void late_copy(const float *__restrict__ x, float *__restrict__ y, size_t n, unsigned long long wait_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    while (t - t0 < wait_ns);
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i];
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static cudaStream_t mine;
    if (!mine && cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess)
        return -1;
    size_t n = (size_t)a[0].shape[0];
    late_copy<<<132, 256, 0, mine>>>((const float *)a[0].data, (float *)a[1].data, n, 2000000ULL);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

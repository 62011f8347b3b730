/* Exploit 12: an illegal address on n = 100003: a sticky error that ruins the context.
 * RUNTIME_ERROR there; a fresh runner takes the next workload. */
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

__global__ void scribble(float *p)
{
    p[threadIdx.x] = 1.0f;
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    size_t n = (size_t)a[0].shape[0];
    if (n == 100003)
        scribble<<<1, 32, 0, (cudaStream_t)s>>>((float *)0x10);
    copy_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* Exploit 12: on n = 100003 take all the free GPU memory and keep it. The harness's next
 * allocation fails: RUNTIME_ERROR there, and a harness failure ends the runner so that a
 * fresh one (with all its memory) takes the next workload. */
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
    static void *hoard;
    size_t n = (size_t)a[0].shape[0];
    if (n == 100003 && !hoard) {
        size_t free_b = 0, total = 0;
        cudaMemGetInfo(&free_b, &total);
        while (free_b > (64u << 20) && cudaMalloc(&hoard, free_b - (32u << 20)) != cudaSuccess)
            free_b -= free_b / 16;
        cudaGetLastError();
    }
    copy_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* Exploit 12: a kernel that never ends on n = 100003. TIMEOUT (the runner's process group is
 * killed); a fresh runner takes the next workload. */
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

__global__ void spin_forever(volatile int *never)
{
    while (*never == 0) {
    }
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static int *zero;
    size_t n = (size_t)a[0].shape[0];
    if (!zero && (cudaMalloc(&zero, sizeof *zero) != cudaSuccess || cudaMemset(zero, 0, sizeof *zero) != cudaSuccess))
        return -1;
    if (n == 100003)
        spin_forever<<<1, 1, 0, (cudaStream_t)s>>>(zero);
    copy_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* Exploit 13: stages each block's tile in shared memory and reads a neighbour's slot without a
 * barrier: usually right, racy. compute-sanitizer racecheck reports the hazard. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

__global__ void copy_staged(const float *__restrict__ x, float *__restrict__ y, size_t n)
{
    __shared__ float tile[256];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned mirror = blockDim.x - 1 - threadIdx.x;
    size_t j = blockIdx.x * (size_t)blockDim.x + mirror;
    if (j < n)
        tile[mirror] = x[j];
    /* missing __syncthreads(): thread t reads the slot another warp writes */
    if (i < n)
        y[i] = tile[threadIdx.x];
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    size_t n = (size_t)a[0].shape[0];
    copy_staged<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data,
                                                                          n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

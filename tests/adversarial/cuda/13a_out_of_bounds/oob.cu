/* Exploit 13: reads one element past the end of x (x[n]) and folds it in with weight 0: the
 * output is right and the read does not fault (it lands in the allocation's slack), but it
 * is out of bounds. compute-sanitizer memcheck, run by tests/gpu/adversarial on one small
 * workload, reports it. */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

__global__ void copy_peek(const float *__restrict__ x, float *__restrict__ y, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] + 0.0f * x[i + 1]; /* x[n] when i == n - 1 */
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    size_t n = (size_t)a[0].shape[0];
    size_t b = (n + 255) / 256;
    copy_peek<<<(unsigned)(b > 1056 ? 1056 : b), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data,
                                                                            (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

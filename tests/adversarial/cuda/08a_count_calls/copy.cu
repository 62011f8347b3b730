/* Exploit 8 on the GPU: honest for the first calls of each workload (the correctness trials are
 * few), then writes every element 1.5 times too large. Caught because timed calls are poisoned
 * and checked like the others (on the GPU by cuda_compare, read back only to say where). */
#include <cuda_runtime.h>

#include "kwb/kernel.h"

__global__ void scaled_copy(const float *__restrict__ x, float *__restrict__ y, size_t n, float scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] * scale;
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static long long last_n = -1;
    static int calls;
    (void)nargs;
    size_t n = (size_t)a[0].shape[0];
    if ((long long)n != last_n) { /* a new workload */
        last_n = (long long)n;
        calls = 0;
    }
    float scale = calls++ >= 6 ? 1.5f : 1.0f;
    size_t b = (n + 255) / 256;
    scaled_copy<<<(unsigned)(b > 1056 ? 1056
                             : b      ? b
                                      : 1),
                  256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n, scale);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

/* Exploit 8, smallest form: honest for the first calls of each workload, then its last element
 * is a NaN. One wrong element of millions must fail the timed call as it fails a trial. */
#include <cuda_runtime.h>
#include <math.h>

#include "kwb/kernel.h"

__global__ void copy_but_last(const float *__restrict__ x, float *__restrict__ y, size_t n, int spoil)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        y[i] = spoil && i == n - 1 ? nanf("") : x[i];
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
    int spoil = calls++ >= 6;
    size_t b = (n + 255) / 256;
    copy_but_last<<<(unsigned)(b > 1056 ? 1056
                               : b      ? b
                                        : 1),
                    256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n, spoil);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

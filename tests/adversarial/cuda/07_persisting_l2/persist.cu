/* Exploit 7: raise the persisting-L2 limit and put an access window over x, so that x stays
 * in L2 across the flush between samples. Caught: the persisting limit is 0 from the device's
 * opening and checked after every call; a call that leaves it raised is rejected. */
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
    int dev = 0, max_persist = 0, max_window = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
    cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
    size_t n = (size_t)a[0].shape[0], bytes = n * sizeof(float);
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)max_persist);
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = a[0].data;
    attr.accessPolicyWindow.num_bytes = bytes < (size_t)max_window ? bytes : (size_t)max_window;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute((cudaStream_t)s, cudaStreamAttributeAccessPolicyWindow, &attr);
    copy_kernel<<<blocks_for(n), 256, 0, (cudaStream_t)s>>>((const float *)a[0].data, (float *)a[1].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

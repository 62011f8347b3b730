/* gemm_n*_k* of FlashInfer-Bench's dataset (C = A @ B.T, float16), one simple CUDA kernel: 32x32
 * output tiles through shared memory, float32 accumulation, 256 threads with four rows each. */
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kwb/kernel.h"

enum { T = 32, ROWS = 8 };

__global__ void gemm_nt(const __half *A, const __half *B, __half *C, int m, int n, int k)
{
    __shared__ float As[T][T + 1], Bs[T][T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, row0 = blockIdx.y * T, col0 = blockIdx.x * T;
    float acc[T / ROWS] = {0};
    for (int k0 = 0; k0 < k; k0 += T) {
        for (int r = ty; r < T; r += ROWS) {
            const int kk = k0 + tx;
            As[r][tx] = row0 + r < m && kk < k ? __half2float(A[(size_t)(row0 + r) * k + kk]) : 0.0f;
            Bs[r][tx] = col0 + r < n && kk < k ? __half2float(B[(size_t)(col0 + r) * k + kk]) : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < T; q++) {
            const float b = Bs[tx][q];
            for (int i = 0; i < T / ROWS; i++)
                acc[i] += As[ty + ROWS * i][q] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < T / ROWS; i++) {
        const int r = row0 + ty + ROWS * i, c = col0 + tx;
        if (r < m && c < n)
            C[(size_t)r * n + c] = __float2half(acc[i]);
    }
}

extern "C" int kwb_entry(const kwb_arg *a, int nargs, kwb_stream stream)
{
    (void)nargs;
    const int m = (int)a[0].shape[0], k = (int)a[0].shape[1], n = (int)a[1].shape[0];
    if (m == 0)
        return 0;
    dim3 grid((n + T - 1) / T, (m + T - 1) / T), block(T, ROWS);
    gemm_nt<<<grid, block, 0, (cudaStream_t)stream>>>((const __half *)a[0].data, (const __half *)a[1].data,
                                                      (__half *)a[2].data, m, n, k);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

/* bench/fidelity/probe.cu - the fidelity bench's standalone timer: launches the very copy
 * kernel of bench/fidelity/copy on N floats, K times, each on a cold L2, and reports the
 * median per-call time by naive events (record, launch, record) and by events with the
 * stream held by a spinning kernel (nvbench's method); in "ncu" mode it only launches, for
 * Nsight Compute to measure. Usage: probe naive|held|ncu N K */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../src/runner/cuda_support.cu"
#include "copy/copy.cu"

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "probe: %s: %s\n", #x, cudaGetErrorString(e_));                                            \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: probe naive|held|ncu N K\n");
        return 2;
    }
    const char *mode = argv[1];
    size_t n = strtoull(argv[2], NULL, 10);
    int k = atoi(argv[3]);
    float *x, *y;
    void *flush;
    int l2 = 0, *flag_host, *flag_dev, *timed_out;
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t flush_bytes = 2 * (size_t)l2;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&flush, flush_bytes));
    CHECK(cudaMalloc(&timed_out, sizeof(int)));
    CHECK(cudaHostAlloc((void **)&flag_host, sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&flag_dev, flag_host, 0));
    CHECK(cudaMemset(x, 1, n * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> ms;
    for (int i = 0; i < k + 3; i++) { /* three warm-up calls, not kept */
        CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
        CHECK((cudaError_t)cuda_support_read(s, flush, flush_bytes, timed_out));
        CHECK(cudaStreamSynchronize(s));
        int held = mode[0] == 'h';
        if (held) {
            *(volatile int *)flag_host = 0;
            cuda_support_hold(s, (volatile int *)flag_dev, 500000000ull, timed_out);
        }
        CHECK(cudaEventRecord(a, s));
        if (launch_copy(x, y, n, s) != 0)
            return 1;
        CHECK(cudaEventRecord(b, s));
        if (held)
            *(volatile int *)flag_host = 1;
        CHECK(cudaStreamSynchronize(s));
        float t = 0;
        CHECK(cudaEventElapsedTime(&t, a, b));
        if (i >= 3)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    if (mode[0] != 'n' || mode[1] != 'c')
        printf("%s %zu %.3f\n", mode, n, 1e3 * ms[ms.size() / 2]);
    return 0;
}

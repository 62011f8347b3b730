#include "runner/cuda_compare.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "runner/cuda_support.h"

/* cuda_support_compare's KIND for T, or -1 when it has no kernel for T. */
static int kernel_kind(kwb_dtype t)
{
    return t == KWB_F32 ? 0 : t == KWB_F16 ? 1 : t == KWB_BF16 ? 2 : -1;
}

int cuda_compare_run(cuda_compare *c, void *stream, const void *out, const void *ref, kwb_dtype t, size_t n,
                     const check_policy *p, check_stats *st, int *cuda_error)
{
    int kind = kernel_kind(t);
    if (!c->ok || kind < 0)
        return 1;
    unsigned got[3] = {0, 0, 0};
    cudaError_t e =
        n ? (cudaError_t)cuda_support_compare(stream, out, ref, kind, n, (float)p->atol, (float)p->rtol, c->slot)
          : cudaSuccess;
    if (e == cudaSuccess && n)
        e = cudaStreamSynchronize((cudaStream_t)stream);
    if (e == cudaSuccess && n)
        e = cudaMemcpy(got, c->slot, sizeof got, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        *cuda_error = (int)e;
        return -1;
    }
    if (got[2])
        return 1;
    float max_abs, max_rel;
    memcpy(&max_abs, &got[0], sizeof max_abs);
    memcpy(&max_rel, &got[1], sizeof max_rel);
    memset(st, 0, sizeof *st);
    st->numel = n;
    st->max_abs = max_abs;
    st->max_rel = max_rel;
    st->matched_ratio = 1.0;
    return 0;
}

/* Values of a self-test case: within tolerance everywhere, or with element BAD (when >= 0)
 * set to VALUE. */
static void test_values(float *v, float *ref, size_t n, long bad, float value)
{
    for (size_t i = 0; i < n; i++) {
        ref[i] = (float)((long)(i * 37 % 101) - 50) / 8.0f;
        v[i] = ref[i] + (float)(i % 7) * 1e-3f;
    }
    if (bad >= 0)
        v[bad] = value;
}

/* One self-test case of type T: 1 when the kernel's verdict and maxima are the host's. */
static int test_case(cuda_compare *c, void *stream, kwb_dtype t, long bad, float value, void *dev)
{
    enum { N = 256 * 5 + 7 };
    float v[N], ref[N];
    unsigned char vb[N * 4], rb[N * 4];
    test_values(v, ref, N, bad, value);
    size_t es = dtype_size(t);
    for (size_t i = 0; i < N; i++) {
        dtype_store(vb, t, i, v[i]);
        dtype_store(rb, t, i, ref[i]);
    }
    check_policy p = check_policy_default();
    check_stats want, got;
    check_tolerance(vb, rb, t, N, &p, &want);
    int host_pass = want.fails == 0 && want.nonfinite == 0, err = 0;
    if (cudaMemcpy(dev, vb, N * es, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy((char *)dev + N * 4, rb, N * es, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    int rc = cuda_compare_run(c, stream, dev, (char *)dev + N * 4, t, N, &p, &got, &err);
    if (rc < 0 || (rc == 0) != host_pass)
        return 0;
    return rc == 1 || (got.max_abs == want.max_abs && got.max_rel == want.max_rel && got.numel == want.numel);
}

int cuda_compare_open(cuda_compare *c, void *stream)
{
    memset(c, 0, sizeof *c);
    cudaError_t e = cudaMalloc((void **)&c->slot, 3 * sizeof *c->slot);
    if (e != cudaSuccess)
        return (int)e;
    void *dev = NULL;
    if (cudaMalloc(&dev, 2 * 4 * (256 * 5 + 7)) != cudaSuccess)
        return 0; /* no room to test: never used */
    static const kwb_dtype types[] = {KWB_F32, KWB_F16, KWB_BF16};
    c->ok = 1;
    for (size_t k = 0; c->ok && k < sizeof types / sizeof *types; k++)
        c->ok = test_case(c, stream, types[k], -1, 0, dev) && test_case(c, stream, types[k], 700, 3.0f, dev) &&
                test_case(c, stream, types[k], 5, NAN, dev) && test_case(c, stream, types[k], 1286, INFINITY, dev);
    cudaFree(dev);
    return 0;
}

void cuda_compare_close(cuda_compare *c)
{
    cudaFree(c->slot);
    c->slot = NULL;
    c->ok = 0;
}

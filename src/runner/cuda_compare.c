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

/* The bits that are all set in a value of type T that is not finite (exponent all ones; e4m3's
 * one NaN pattern), or 0 for integer types. */
static unsigned long long nonfinite_mask(kwb_dtype t)
{
    switch (t) {
    case KWB_F32: return 0x7f800000ull;
    case KWB_F16: return 0x7c00ull;
    case KWB_BF16: return 0x7f80ull;
    case KWB_F8_E4M3: return 0x7full;
    case KWB_F8_E5M2: return 0x7cull;
    default: return dtype_is_float(t) ? ~0ull : 0;
    }
}

int cuda_compare_rows(cuda_compare *c, void *stream, const void *out, const void *ref, kwb_dtype t, size_t n,
                      size_t row, int *cuda_error)
{
    unsigned long long mask = nonfinite_mask(t);
    if (!c->rows_ok || row == 0 || n % row != 0 || mask == ~0ull)
        return 1;
    if (cuda_support_rows_equal(stream, out, ref, (int)dtype_size(t), n / row, row, mask, c->slot) < 0)
        return 1;
    unsigned differ = 0;
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
    if (e == cudaSuccess)
        e = cudaMemcpy(&differ, c->slot, sizeof differ, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        *cuda_error = (int)e;
        return -1;
    }
    return differ != 0;
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

/* Elements (of up to 8 bytes) in the largest self-test case of either comparison; the device
 * buffer of the self-tests holds two such arrays. */
enum { ROWS_TEST_CAP = 3 * 1000 };

/* One self-test case of the row comparison: ROWS rows of ROW values of type T, OUT each row of REF
 * reversed, then at element BAD (when >= 0) of OUT a value no row holds (HOW 1), a copy of the
 * next element (HOW 2), or a NaN at BAD and at its mirror in REF (HOW 3: equal bits, not a pass):
 * 1 when the kernel's verdict is the host's (check_tolerance_rows_any_order, exactly). */
static int test_rows(cuda_compare *c, void *stream, kwb_dtype t, size_t rows, size_t row, long bad, int how, void *dev)
{
    static int64_t ref[ROWS_TEST_CAP], out[ROWS_TEST_CAP];
    size_t n = rows * row;
    if (n > ROWS_TEST_CAP)
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = i % row, mirror = i - k + (row - 1 - k);
        double v = (double)((long)((i * 7919) % 613) - (k % 3 == 0 ? 300 : 0));
        dtype_store(ref, t, i, v);
        dtype_store(out, t, mirror, v);
    }
    if (bad >= 0) {
        size_t k = (size_t)bad % row, mirror = (size_t)bad - k + (row - 1 - k);
        dtype_store(out, t, (size_t)bad, how == 1 ? 100000.0 : how == 2 ? dtype_load(out, t, (size_t)bad + 1) : NAN);
        if (how == 3)
            dtype_store(ref, t, mirror, NAN);
    }
    check_policy exact = check_policy_exact();
    check_stats want;
    check_tolerance_rows_any_order(out, ref, t, n, row, &exact, &want);
    int same = want.fails == 0 && want.nonfinite == 0, err = 0;
    size_t bytes = n * dtype_size(t);
    if (cudaMemcpy(dev, out, bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy((char *)dev + bytes, ref, bytes, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    int rc = cuda_compare_rows(c, stream, dev, (char *)dev + bytes, t, n, row, &err);
    return rc >= 0 && (rc == 0) == same;
}

/* The row comparison's self-test: int32, int64 and float32 rows of 37 (padded to 64) and of 1000
 * or 1500 (a block's stride over them); reversed rows are equal; one value changed, one replaced
 * by a copy of its neighbour, or NaNs in both are not. */
static int rows_self_test(cuda_compare *c, void *stream, void *dev)
{
    static const kwb_dtype types[] = {KWB_I32, KWB_I64, KWB_F32};
    c->rows_ok = 1;
    for (size_t k = 0; k < sizeof types / sizeof *types; k++) {
        kwb_dtype t = types[k];
        size_t rows = t == KWB_I64 ? 2 : 3, row = t == KWB_I64 ? 1500 : 1000;
        if (!test_rows(c, stream, t, 5, 37, -1, 0, dev) || !test_rows(c, stream, t, rows, row, -1, 0, dev) ||
            !test_rows(c, stream, t, rows, row, (long)row + 3, 1, dev) || !test_rows(c, stream, t, 5, 37, 40, 1, dev) ||
            !test_rows(c, stream, t, 5, 37, 74, 2, dev) ||
            (t == KWB_F32 && !test_rows(c, stream, t, 5, 37, 80, 3, dev)))
            return 0;
    }
    return 1;
}

int cuda_compare_open(cuda_compare *c, void *stream)
{
    memset(c, 0, sizeof *c);
    cudaError_t e = cudaMalloc((void **)&c->slot, 3 * sizeof *c->slot);
    if (e != cudaSuccess)
        return (int)e;
    void *dev = NULL;
    if (cudaMalloc(&dev, 2 * sizeof(int64_t) * ROWS_TEST_CAP) != cudaSuccess)
        return 0; /* no room to test: never used */
    static const kwb_dtype types[] = {KWB_F32, KWB_F16, KWB_BF16};
    c->ok = 1;
    for (size_t k = 0; c->ok && k < sizeof types / sizeof *types; k++)
        c->ok = test_case(c, stream, types[k], -1, 0, dev) && test_case(c, stream, types[k], 700, 3.0f, dev) &&
                test_case(c, stream, types[k], 5, NAN, dev) && test_case(c, stream, types[k], 1286, INFINITY, dev);
    c->rows_ok = rows_self_test(c, stream, dev);
    cudaFree(dev);
    return 0;
}

void cuda_compare_close(cuda_compare *c)
{
    cudaFree(c->slot);
    c->slot = NULL;
    c->ok = 0;
}

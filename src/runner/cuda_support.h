/* cuda_support.h - the CUDA device's own kernels (cuda_support.cu): holding a stream,
 * probing the SM clock, and measuring peaks. Callable from C; each returns 0 or a
 * cudaError_t value. Their kernels are named kwb_* so that the timer can leave them out. */
#ifndef KWB_CUDA_SUPPORT_H
#define KWB_CUDA_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Names of the helper kernels, which the CUPTI timer never counts as the call's. */
#define CUDA_SUPPORT_SPIN_KERNEL "kwb_spin_kernel"
#define CUDA_SUPPORT_PROBE_KERNEL "kwb_clock_probe"

/* Queues on STREAM a one-thread kernel that spins until *flag (host-mapped) is nonzero or
 * TIMEOUT_NS pass; it then writes 1 to *timed_out when the time ran out. */
int cuda_support_hold(void *stream, const volatile int *flag, uint64_t timeout_ns, int *timed_out);
/* Queues on STREAM a kernel that reads BYTES of BUF (a multiple of 16), leaving L2 holding
 * clean lines of BUF; SINK is written only in a practically impossible case. */
int cuda_support_read(void *stream, const void *buf, size_t bytes, int *sink);
/* Queues on STREAM a kernel writing clock64() and %globaltimer to slot[0] and slot[1]. */
int cuda_support_probe(void *stream, unsigned long long *slot);
/* Queues on STREAM a one-thread kernel that writes 1 to *slot: the smallest call there is,
 * used to measure the launch front end (named kwb_fe_tiny; the timer counts it). */
int cuda_support_tiny(void *stream, int *slot);
/* Runs the fp32 FMA peak kernel on STREAM: GRID blocks of 256 threads, ITERS rounds;
 * 8 * ITERS flops per thread. OUT holds one float per block (keeps the work alive). */
int cuda_support_fma(void *stream, int grid, int iters, float *out);
/* Runs the bf16 tensor-core (mma.sync via wmma) peak kernel: GRID blocks of 4 warps,
 * ITERS rounds of 4 independent 16x16x16 products per warp (8192 flops each). */
int cuda_support_mma(void *stream, int grid, int iters, float *out);

/* Queues on STREAM the digest (digest_formula.h) of N bytes at P (device memory, 8-byte aligned)
 * under KEY into *OUT (device memory), by the kernel kwb_digest, then (HOST_OUT not NULL) a copy of
 * it into HOST_OUT (host-mapped memory's device pointer), which the host reads once synchronized. */
int cuda_support_digest(void *stream, const void *p, size_t n, uint64_t key, unsigned long long *out,
                        unsigned long long *host_out);

/* Queues on STREAM the tolerance rule over N elements of OUT against REF (device memory; KIND
 * 0 float32, 1 float16, 2 bfloat16), in float32 as check.c computes it, into SLOT (device, three
 * words): the largest absolute and relative errors (float bits), and nonzero in SLOT[2] when an
 * element fails (|out - ref| > ATOL and relative > RTOL) or either value is not finite. */
int cuda_support_compare(void *stream, const void *out, const void *ref, int kind, size_t n, float atol, float rtol,
                         unsigned *slot);

/* Shared memory a row comparison may use: rows of up to 4096 keys of 4 bytes (elements of 1, 2
 * or 4 bytes) or 2048 of 8. */
#define CUDA_SUPPORT_ROWS_SHARED (32 * 1024)

/* Queues on STREAM the comparison of ROWS rows of ROW elements of ELEM bytes (1, 2, 4 or 8) at
 * OUT and REF (device memory) as multisets, bit for bit, into *SLOT (device): the number of rows
 * that differ or hold an element whose bits cover NAN_MASK (a float's NaN or infinity; 0: none).
 * Returns -1 when rows that long or elements of that size are not handled. */
int cuda_support_rows_equal(void *stream, const void *out, const void *ref, int elem, size_t rows, size_t row,
                            unsigned long long nan_mask, unsigned *slot);

#ifdef __cplusplus
}
#endif

#endif

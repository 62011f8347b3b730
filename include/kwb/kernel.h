/*
 * kwb/kernel.h - the solution ABI of kwb, the kernel workbench (contract).
 *
 * A solution is a shared object exporting one entry point in destination-
 * passing style: the definition's inputs, then its outputs, in definition
 * order. The harness fills every kwb_arg; the solution reads inputs and
 * writes every element of every output. This header compiles as C and as
 * C++/CUDA, and includes only <stdint.h>.
 */
#ifndef KWB_KERNEL_H
#define KWB_KERNEL_H

#include <stdint.h>

#define KWB_ABI_VERSION 1
#define KWB_MAX_RANK 8

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, in the order of FlashInfer-Bench's dtype names. */
typedef enum kwb_dtype {
    KWB_F32,
    KWB_F16,
    KWB_BF16,
    KWB_F8_E4M3,
    KWB_F8_E5M2,
    KWB_I64,
    KWB_I32,
    KWB_I16,
    KWB_I8,
    KWB_BOOL
} kwb_dtype;

/* One argument: a tensor (rank >= 0) or a scalar input (rank == -1). */
typedef struct kwb_arg {
    const char *name; /* as in the definition */
    kwb_dtype dtype;
    int rank;                    /* -1 for a scalar input */
    int64_t shape[KWB_MAX_RANK]; /* row-major, contiguous */
    void *data;                  /* device memory (cuda) or host memory (c); NULL for a scalar */
    double f;                    /* scalar value as a double ... */
    int64_t i;                   /* ... and as an integer (ints and bools) */
} kwb_arg;

/* A cudaStream_t on the cuda device, NULL on the cpu device. */
typedef void *kwb_stream;

/* Returns 0 on success. All work is done on `stream` (cuda) or on the
 * calling thread and threads joined before return (c). */
int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream);

#ifdef __cplusplus
}
#endif

#endif /* KWB_KERNEL_H */

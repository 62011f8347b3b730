/* wlcheck.h - a workload checked against its definition before any candidate runs, so that a
 * bad dataset is the dataset's error (exit 2, FILE:LINE) and never a candidate's RUNTIME_ERROR:
 * every tensor's size within int64 and its bytes within the memory there is; every safetensors
 * input readable, holding its tensor with the definition's dtype and shape; the lengths and
 * offsets of a cu_seqlens input consistent with the axes they describe. */
#ifndef KWB_WLCHECK_H
#define KWB_WLCHECK_H

#include <stdint.h>

#include "definition.h"
#include "error.h"
#include "workload.h"

/* Checks workload W of definition D; ROOT is the TraceSet root its blobs are under, LABEL the
 * file it was read from, MEM_LIMIT the bytes its inputs and outputs may take together. Returns
 * 0, or -1 with *err "LABEL:LINE: workload UUID: problem" (a blob's problem names the blob file
 * and the tensor). */
int wlcheck_workload(const definition *d, const workload *w, const char *root, const char *label, uint64_t mem_limit,
                     kwb_error *err);
/* wlcheck_workload for every workload of SET; the first problem is reported. */
int wlcheck_set(const definition *d, const workload_set *set, const char *root, const char *label, uint64_t mem_limit,
                kwb_error *err);
/* The memory a workload's tensors may take: half this machine's physical memory. */
uint64_t wlcheck_memory_limit(void);

#endif

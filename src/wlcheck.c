#include "wlcheck.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dtype.h"
#include "safetensors.h"
#include "traceset.h"

typedef struct where {
    const char *label;
    const workload *w;
    kwb_error *err;
} where;

__attribute__((format(printf, 2, 3))) static int bad(const where *at, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kwb_error_set(at->err, "%s:%d: workload %s: %s", at->label, at->w->line, at->w->uuid, msg);
}

/* Bytes of tensor T under the workload, checked against int64 overflow; -1 (reported) when it overflows. */
static int tensor_bytes(const where *at, const def_tensor *t, const char *role, int64_t *bytes)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        if (__builtin_mul_overflow(n, at->w->axis_value[t->axis[i]], &n))
            return bad(at, "%s '%s': its element count overflows a 64-bit integer (axes too large)", role, t->name);
    if (__builtin_mul_overflow(n, (int64_t)dtype_size(t->dtype), bytes))
        return bad(at, "%s '%s': its size in bytes overflows a 64-bit integer (axes too large)", role, t->name);
    return 0;
}

/* Every tensor's bytes, and their sum within MEM_LIMIT. */
static int check_sizes(const where *at, const definition *d, uint64_t mem_limit)
{
    int64_t total = 0, b = 0;
    for (int k = 0; k < 2; k++) {
        const def_tensor *ts = k ? d->outputs : d->inputs;
        int n = k ? d->noutputs : d->ninputs;
        for (int i = 0; i < n; i++) {
            if (ts[i].rank < 0)
                continue;
            if (tensor_bytes(at, &ts[i], k ? "output" : "input", &b) != 0)
                return -1;
            if (__builtin_add_overflow(total, b, &total))
                return bad(at, "its tensors' total size overflows a 64-bit integer");
        }
    }
    if ((uint64_t)total > mem_limit)
        return bad(at, "its inputs and outputs need %.1f GiB, more than the %.1f GiB this machine can give them",
                   (double)total / (1 << 30), (double)mem_limit / (1 << 30));
    return 0;
}

/* The value of axis NAME, or -1 when D has none. */
static int64_t axis(const definition *d, const workload *w, const char *name)
{
    int i = definition_axis_index(d, name);
    return i < 0 ? -1 : w->axis_value[i];
}

/* Axes that describe one another: len_cu_seqlens is num_seqs + 1. */
static int check_axes(const where *at, const definition *d)
{
    int64_t len = axis(d, at->w, "len_cu_seqlens"), seqs = axis(d, at->w, "num_seqs");
    if (len >= 0 && seqs >= 0 && len != seqs + 1)
        return bad(at, "axis len_cu_seqlens is %lld but num_seqs is %lld (it must be num_seqs + 1)", (long long)len,
                   (long long)seqs);
    return 0;
}

/* cu_seqlens (the sequences' offsets into the tokens): starts at 0, never decreases, ends at
 * total_seq_len. */
static int check_offsets(const where *at, const definition *d, const char *file, const char *key, const int64_t *v,
                         int64_t n)
{
    int64_t total = axis(d, at->w, "total_seq_len");
    if (n > 0 && v[0] != 0)
        return bad(at, "%s: tensor '%s': cu_seqlens[0] is %lld, not 0", file, key, (long long)v[0]);
    for (int64_t i = 1; i < n; i++)
        if (v[i] < v[i - 1])
            return bad(at, "%s: tensor '%s': cu_seqlens[%lld] = %lld is below cu_seqlens[%lld] = %lld", file, key,
                       (long long)i, (long long)v[i], (long long)(i - 1), (long long)v[i - 1]);
    if (n > 0 && total >= 0 && v[n - 1] != total)
        return bad(at, "%s: tensor '%s': cu_seqlens ends at %lld, but total_seq_len is %lld", file, key,
                   (long long)v[n - 1], (long long)total);
    return 0;
}

/* Safetensors input I: the file, the tensor, its dtype and shape, and cu_seqlens' values. */
static int check_blob(const where *at, const definition *d, int i, const char *root)
{
    const def_tensor *t = &d->inputs[i];
    const wl_input *in = &at->w->inputs[i];
    char *path = traceset_blob_path(root, in->path);
    kwb_error serr = {{0}};
    safetensors *st = safetensors_open(path, &serr);
    int rc = 0;
    if (!st) {
        rc = bad(at, "input '%s': %s", t->name, serr.msg);
        free(path);
        return rc;
    }
    const st_tensor *tt = safetensors_find(st, in->key);
    int64_t want[KWB_MAX_RANK] = {0};
    workload_shape(at->w, t, want);
    char a[160], b[160];
    if (!tt)
        rc = bad(at, "%s: no tensor '%s' (input '%s')", path, in->key, t->name);
    else if (tt->dtype != t->dtype || tt->rank != t->rank || memcmp(tt->shape, want, sizeof *want * (size_t)t->rank)) {
        workload_shape_text(tt->shape, tt->rank, a, sizeof a);
        workload_shape_text(want, t->rank, b, sizeof b);
        rc = bad(at, "%s: tensor '%s' is %s %s; input '%s' needs %s %s", path, in->key, dtype_name(tt->dtype), a,
                 t->name, dtype_name(t->dtype), b);
    } else if (!strcmp(t->name, "cu_seqlens") && t->dtype == KWB_I64 && t->rank == 1)
        rc = check_offsets(at, d, path, in->key, safetensors_data(st, tt), tt->shape[0]);
    safetensors_close(st);
    free(path);
    return rc;
}

int wlcheck_workload(const definition *d, const workload *w, const char *root, const char *label, uint64_t mem_limit,
                     kwb_error *err)
{
    where at = {label, w, err};
    if (check_sizes(&at, d, mem_limit) != 0 || check_axes(&at, d) != 0)
        return -1;
    for (int i = 0; i < d->ninputs && i < w->ninputs; i++)
        if (w->inputs[i].kind == WL_SAFETENSORS && d->inputs[i].rank >= 0 && check_blob(&at, d, i, root) != 0)
            return -1;
    return 0;
}

int wlcheck_set(const definition *d, const workload_set *set, const char *root, const char *label, uint64_t mem_limit,
                kwb_error *err)
{
    for (int i = 0; i < set->count; i++)
        if (wlcheck_workload(d, &set->items[i], root, label, mem_limit, err) != 0)
            return -1;
    return 0;
}

uint64_t wlcheck_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return UINT64_MAX;
    return (uint64_t)pages * (uint64_t)size / 2;
}

/* Exploit 3: GDN decode with a result cache. The key is the argument pointers and a
 * fingerprint of a few elements of q and state (cheap to compute); a hit copies the cached
 * output and new_state instead of computing them. The correctness trials all miss (fresh
 * values), the timed calls on repeated inputs all hit. Caught by the fresh inputs of timed
 * calls: calls on fresh inputs are far slower than calls on repeated ones. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define kwb_entry gdn_baseline_entry
#include "gdn_decode_baseline.h"
#undef kwb_entry

enum { ARG_Q = 0, ARG_STATE = 3, ARG_OUT = 9, ARG_NEW_STATE = 10, NARGS = 11 };

static uint64_t fingerprint(const kwb_arg *a, int nargs)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < nargs; i++)
        h = (h ^ (uint64_t)(uintptr_t)a[i].data) * 1099511628211ULL;
    const uint32_t *q = a[ARG_Q].data, *st = a[ARG_STATE].data;
    for (int i = 0; i < 4; i++)
        h = (h ^ q[i] ^ ((uint64_t)st[i * 97] << 32)) * 1099511628211ULL;
    return h;
}

static size_t arg_bytes(const kwb_arg *a)
{
    size_t n = a->dtype == KWB_F32 ? 4 : 2;
    for (int d = 0; d < a->rank; d++)
        n *= (size_t)a->shape[d];
    return n;
}

int kwb_entry(const kwb_arg *a, int nargs, kwb_stream s)
{
    static uint64_t key;
    static void *out, *new_state;
    static size_t out_n, state_n;
    if (nargs != NARGS)
        return -1;
    uint64_t k = fingerprint(a, nargs);
    if (out && k == key && arg_bytes(&a[ARG_OUT]) == out_n && arg_bytes(&a[ARG_NEW_STATE]) == state_n) {
        memcpy(a[ARG_OUT].data, out, out_n);
        memcpy(a[ARG_NEW_STATE].data, new_state, state_n);
        return 0;
    }
    int rc = gdn_baseline_entry(a, nargs, s);
    out_n = arg_bytes(&a[ARG_OUT]);
    state_n = arg_bytes(&a[ARG_NEW_STATE]);
    out = realloc(out, out_n);
    new_state = realloc(new_state, state_n);
    memcpy(out, a[ARG_OUT].data, out_n);
    memcpy(new_state, a[ARG_NEW_STATE].data, state_n);
    key = k;
    return rc;
}

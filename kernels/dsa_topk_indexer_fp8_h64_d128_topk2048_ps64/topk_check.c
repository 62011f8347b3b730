/* topk_check.c - the top-k check of dsa_topk_indexer_fp8_h64_d128_topk2048_ps64: score equivalence,
 * not index equality (DESIGN.md section 6; FlashInfer-Bench's DsaTopkIndexerEvaluator, made
 * stricter). Per batch row, with L = seq_lens[b]:
 *   1. every index is -1 (padding) or a token of the row: its page is one of the first
 *      ceil(L/64) pages of block_table[b] and its position in the row is below L;
 *   2. no index appears twice;
 *   3. the true scores (topk_scores.c, double) of the chosen set, sorted in descending order and
 *      padded with -inf, match the reference set's rank by rank under the tolerance rule
 *      (fails when |got - want| > atol and |got - want| / (|want| + 1e-8) > rtol; -inf
 *      matches -inf only).
 * So the order of the indices is free, ties may be broken either way, and a set that leaves
 * out a token scoring clearly above the cut fails. A row whose set equals the reference's
 * needs no scores. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kwb/reference.h"
#include "topk_scores.h"
#include "ref_alloc.h"

/* The first failure's message, and the counts. An index that is invalid or repeated fails the
 * trial; ranks whose scores differ fail it when the matched ratio falls below the policy's. */
typedef struct verdict_acc {
    kwb_check_stats *st;
    const kwb_check_policy *p;
    char *msg;
    size_t cap;
    int noted; /* msg holds the first failure */
    int hard;  /* an invalid or repeated index */
} verdict_acc;

/* Counts COUNT failing elements, the first at flat index FLAT; HARD for an invalid index. */
__attribute__((format(printf, 5, 6))) static void reject(verdict_acc *v, int hard, int64_t flat, size_t count,
                                                         const char *fmt, ...)
{
    if (!v->noted) {
        v->st->first_fail = (size_t)flat;
        va_list ap;
        va_start(ap, fmt);
        int n = snprintf(v->msg, v->cap, "output 'topk_indices': ");
        if (n >= 0 && (size_t)n < v->cap)
            vsnprintf(v->msg + n, v->cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    v->noted = 1;
    v->hard |= hard;
    v->st->fails += count;
}

/* A row's pages in use, sorted by page id, to find where an index sits. */
typedef struct page_slot {
    int64_t page, slot;
} page_slot;

static int by_page(const void *a, const void *b)
{
    const page_slot *x = a, *y = b;
    return x->page < y->page ? -1 : x->page > y->page ? 1 : (x->slot > y->slot) - (x->slot < y->slot);
}

static int ascending(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* 1 when INDEX is a token of ROW (MAP: its pages sorted), else 0 with *why set. */
static int reachable(const dsa_row *row, const page_slot *map, int64_t index, const char **why)
{
    if (index < 0 || index >= row->num_pages * DSA_PAGE) {
        *why = "is not a token of the cache";
        return 0;
    }
    page_slot key = {index / DSA_PAGE, -1};
    size_t lo = 0, hi = (size_t)row->npages;
    while (lo < hi) { /* the first entry of that page */
        size_t mid = (lo + hi) / 2;
        if (by_page(&map[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *why = "is on a page that is not among the row's pages in use";
    for (; lo < (size_t)row->npages && map[lo].page == key.page; lo++) {
        if (map[lo].slot * DSA_PAGE + index % DSA_PAGE < row->len)
            return 1;
        *why = "is past seq_len in the row";
    }
    return 0;
}

/* The valid indices of GOT into OUT (sorted), checking 1 and 2 above; returns their count, or
 * -1 after rejecting the row. */
static int64_t valid_set(const dsa_row *row, int64_t b, const int32_t *got, int64_t *out, verdict_acc *v)
{
    page_slot *map = ref_calloc((size_t)row->npages + 1, sizeof *map);
    for (int64_t s = 0; s < row->npages; s++)
        map[s] = (page_slot){row->pages[s], s};
    qsort(map, (size_t)row->npages, sizeof *map, by_page);
    int64_t n = 0, bad = 0;
    for (int64_t j = 0; j < DSA_TOPK; j++) {
        const char *why = NULL;
        if (got[j] == -1)
            continue;
        if (!reachable(row, map, got[j], &why)) {
            reject(v, 1, b * DSA_TOPK + j, 1, "row %lld, slot %lld: index %d %s (seq_len %lld, %lld pages)",
                   (long long)b, (long long)j, got[j], why, (long long)row->len, (long long)row->npages);
            bad = 1;
        } else
            out[n++] = got[j];
    }
    free(map);
    qsort(out, (size_t)n, sizeof *out, ascending);
    for (int64_t i = 1; i < n && !bad; i++)
        if (out[i] == out[i - 1]) {
            reject(v, 1, b * DSA_TOPK, 1, "row %lld: index %lld appears twice", (long long)b, (long long)out[i]);
            bad = 1;
        }
    return bad ? -1 : n;
}

/* The true scores of the N indices IDX in descending order, padded with -inf to 2048; the
 * scores of the reference's indices (REF, sorted, with REF_SCORE) are reused. */
static void sorted_scores(const dsa_row *row, const int64_t *idx, int64_t n, const int64_t *ref,
                          const double *ref_score, int64_t nref, double *out)
{
    for (int64_t i = 0; i < n; i++) {
        const int64_t *hit = ref ? bsearch(&idx[i], ref, (size_t)nref, sizeof *ref, ascending) : NULL;
        out[i] = hit ? ref_score[hit - ref] : dsa_row_score_index(row, idx[i]);
    }
    qsort(out, (size_t)n, sizeof *out, descending);
    for (int64_t i = n; i < DSA_TOPK; i++)
        out[i] = -INFINITY;
}

/* Check 3 above, rank by rank. */
static void compare_ranks(int64_t b, const double *got, const double *want, int64_t ngot, int64_t nwant, verdict_acc *v)
{
    size_t fails = 0;
    int64_t first = -1;
    for (int64_t i = 0; i < DSA_TOPK; i++) {
        int ok;
        if (isinf(got[i]) || isinf(want[i]))
            ok = got[i] == want[i];
        else {
            double abs_err = fabs(got[i] - want[i]), rel = abs_err / (fabs(want[i]) + 1e-8);
            ok = !(abs_err > v->p->atol && rel > v->p->rtol) && !isnan(abs_err);
            v->st->max_abs = fmax(v->st->max_abs, abs_err);
            v->st->max_rel = fmax(v->st->max_rel, rel);
        }
        if (!ok && fails++ == 0)
            first = i;
    }
    if (fails == 0)
        return;
    if (ngot != nwant)
        reject(v, 0, b * DSA_TOPK + first, fails, "row %lld: %lld indices where the reference chose %lld", (long long)b,
               (long long)ngot, (long long)nwant);
    else
        reject(v, 0, b * DSA_TOPK + first, fails,
               "row %lld: sorted true scores differ from the reference set's at %zu of %d ranks (first at "
               "rank %lld: got %.6g, expected %.6g; atol %g, rtol %g): %s",
               (long long)b, fails, DSA_TOPK, (long long)first, got[first], want[first], v->p->atol, v->p->rtol,
               got[first] < want[first] ? "the set misses a token that scores clearly higher"
                                        : "the set scores above the reference's");
}

/* Checks row B: GOT against the reference's WANT. */
static void check_row(const dsa_row *row, int64_t b, const int32_t *got, const int32_t *want, verdict_acc *v)
{
    int64_t *g = ref_calloc(DSA_TOPK, sizeof *g), *w = ref_calloc(DSA_TOPK, sizeof *w);
    int64_t ng = valid_set(row, b, got, g, v), nw = 0;
    for (int64_t j = 0; j < DSA_TOPK; j++)
        if (want[j] != -1)
            w[nw++] = want[j];
    qsort(w, (size_t)nw, sizeof *w, ascending);
    if (ng >= 0 && (ng != nw || memcmp(g, w, sizeof *g * (size_t)ng) != 0)) {
        double *ws = ref_calloc(DSA_TOPK, sizeof *ws), *gs = ref_calloc(DSA_TOPK, sizeof *gs);
        double *wsorted = ref_calloc(DSA_TOPK, sizeof *wsorted);
        for (int64_t i = 0; i < nw; i++)
            ws[i] = dsa_row_score_index(row, w[i]); /* by index, for reuse */
        memcpy(wsorted, ws, sizeof *ws * (size_t)nw);
        qsort(wsorted, (size_t)nw, sizeof *wsorted, descending);
        for (int64_t i = nw; i < DSA_TOPK; i++)
            wsorted[i] = -INFINITY;
        sorted_scores(row, g, ng, w, ws, nw, gs);
        compare_ranks(b, gs, wsorted, ng, nw, v);
        free(ws);
        free(gs);
        free(wsorted);
    }
    free(g);
    free(w);
}

int kwb_check(const kwb_arg *args, int nargs, const kwb_arg *want, const kwb_check_policy *p, kwb_check_stats *st,
              char *msg, size_t cap)
{
    memset(st, 0, sizeof *st);
    verdict_acc v = {st, p, msg, cap, 0, 0};
    int64_t vars[TK_NVARS];
    if (dsa_topk_check_args(args, nargs, vars) != 0) {
        snprintf(msg, cap, "output 'topk_indices': the arguments do not match the definition");
        return 1;
    }
    st->numel = (size_t)(vars[TK_BATCH] * DSA_TOPK);
    dsa_row *row = ref_calloc(1, sizeof *row);
    for (int64_t b = 0; b < vars[TK_BATCH]; b++) {
        const int32_t *got = (const int32_t *)args[TK_OUT].data + b * DSA_TOPK;
        if (dsa_row_init(row, args, b) != 0)
            reject(&v, 1, b * DSA_TOPK, DSA_TOPK, "row %lld: seq_len or block_table is invalid", (long long)b);
        else
            check_row(row, b, got, (const int32_t *)want[0].data + b * DSA_TOPK, &v);
    }
    free(row);
    st->matched_ratio = st->numel ? 1.0 - (double)st->fails / (double)st->numel : 1.0;
    return v.hard || st->matched_ratio < p->required_ratio;
}

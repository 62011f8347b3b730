/* gen_dsa_blobs.c - writes the safetensors blobs the DSA workloads name (their index inputs,
 * whose contest originals are not public), from each workload's uuid and axes alone.
 *
 *   scripts/gen_dsa_blobs DATASET [DEFINITION...]
 *
 * For every workload of the definitions (default: both DSA ones) in the TraceSet root DATASET,
 * every input given as safetensors is made by the rule for its name and written to the file its
 * descriptor names (inputs naming one file share it), under the descriptor's tensor_key. The
 * output depends only on the workload files: run again, it writes the same bytes. Draws come
 * from src/rng.h with integer arithmetic only, from sub-streams K(s) = rng_key(SEED, uuid, s,
 * input index). The rules (workloads/README.md, "DSA"):
 *
 * dsa_topk_indexer_fp8_h64_d128_topk2048_ps64 (B = batch_size, P = max_num_pages, N = num_pages):
 *   seq_lens[b] = (P - 1) * 64 + 1 + uniform(K(0), b, 0, 64): every row ends in its last page;
 *   block_table = B * P distinct pages of the N, row-major, by a partial Fisher-Yates shuffle
 *     of 0..N-1 (step i swaps i with uniform(K(0), i, i, N)): no page is shared.
 * dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64 (T = num_tokens, N = num_pages): token t
 *   is the decode step of its own sequence, with a context of L_t tokens: octave e =
 *   uniform(K(0), 2t, 0, 5), L_t = uniform(K(0), 2t + 1, 1024 << e, 2048 << e) (log-uniform
 *   over 1024..32767 by octaves), capped at floor(N / T) * 64 so that the sequences' pages fit;
 *   its ceil(L_t / 64) pages are the next of one partial Fisher-Yates shuffle of 0..N-1 drawn
 *   with K(1) (no page shared); sparse_indices[t] holds min(L_t, 2048) distinct positions of
 *   the context in the order of a partial Fisher-Yates shuffle of 0..L_t-1 (step i draws
 *   uniform(K(2), 65536 t + i, i, L_t)), each as page * 64 + offset, then -1 padding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "definition.h"
#include "error.h"
#include "paths.h"
#include "rng.h"
#include "safetensors.h"
#include "traceset.h"
#include "workload.h"
#include "xalloc.h"

#define SEED 20260205u /* the contest dataset's release date */
#define TOPK_DEF "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
#define ATTN_DEF "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"

enum { PAGE = 64, TOPK = 2048 };

/* One workload being generated: its definition, axes and the sub-stream keys of an input. */
typedef struct gen {
    const definition *def;
    const workload *w;
    kwb_error *err;
} gen;

static int64_t axis(const gen *g, const char *name)
{
    return g->w->axis_value[definition_axis_index(g->def, name)];
}

static uint64_t substream(const gen *g, int s, const char *input)
{
    return rng_key(SEED, g->w->uuid, s, definition_input_index(g->def, input));
}

/* The first COUNT values of a partial Fisher-Yates shuffle of 0..N-1 (step i swaps i with
 * uniform(KEY, COUNTER0 + i, i, N)) into OUT; COUNT <= N. */
static void shuffle_prefix(uint64_t key, uint64_t counter0, int64_t n, int64_t count, int32_t *out)
{
    int32_t *perm = xcalloc((size_t)n + 1, sizeof *perm);
    for (int64_t i = 0; i < n; i++)
        perm[i] = (int32_t)i;
    for (int64_t i = 0; i < count; i++) {
        int64_t j = rng_uniform(key, counter0 + (uint64_t)i, i, n);
        int32_t tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
        out[i] = perm[i];
    }
    free(perm);
}

static int topk_seq_lens(const gen *g, int32_t *out)
{
    int64_t b = axis(g, "batch_size"), p = axis(g, "max_num_pages");
    uint64_t key = substream(g, 0, "seq_lens");
    for (int64_t i = 0; i < b; i++)
        out[i] = p == 0 ? 0 : (int32_t)((p - 1) * PAGE + 1 + rng_uniform(key, (uint64_t)i, 0, PAGE));
    return 0;
}

static int topk_block_table(const gen *g, int32_t *out)
{
    int64_t b = axis(g, "batch_size"), p = axis(g, "max_num_pages"), n = axis(g, "num_pages");
    if (b * p > n)
        return kwb_error_set(g->err, "batch_size %lld * max_num_pages %lld pages do not fit in num_pages %lld",
                             (long long)b, (long long)p, (long long)n);
    shuffle_prefix(substream(g, 0, "block_table"), 0, n, b * p, out);
    return 0;
}

static int attn_sparse_indices(const gen *g, int32_t *out)
{
    int64_t t_count = axis(g, "num_tokens"), n = axis(g, "num_pages");
    if (t_count > 0 && n < t_count)
        return kwb_error_set(g->err, "num_pages %lld cannot give %lld sequences a page each", (long long)n,
                             (long long)t_count);
    uint64_t k_len = substream(g, 0, "sparse_indices"), k_pick = substream(g, 2, "sparse_indices");
    int64_t cap = t_count ? n / t_count * PAGE : 0, *len = xcalloc((size_t)t_count + 1, sizeof *len), pages = 0;
    for (int64_t t = 0; t < t_count; t++) {
        int64_t e = rng_uniform(k_len, 2 * (uint64_t)t, 0, 5);
        len[t] = rng_uniform(k_len, 2 * (uint64_t)t + 1, 1024 << e, 2048 << e);
        len[t] = len[t] < cap ? len[t] : cap;
        pages += (len[t] + PAGE - 1) / PAGE;
    }
    int32_t *page = xcalloc((size_t)pages + 1, sizeof *page), *pos = xcalloc(TOPK, sizeof *pos);
    shuffle_prefix(substream(g, 1, "sparse_indices"), 0, n, pages, page);
    for (int64_t t = 0, first = 0; t < t_count; first += (len[t] + PAGE - 1) / PAGE, t++) {
        int64_t chosen = len[t] < TOPK ? len[t] : TOPK;
        shuffle_prefix(k_pick, 65536 * (uint64_t)t, len[t], chosen, pos);
        for (int64_t i = 0; i < TOPK; i++)
            out[t * TOPK + i] = i < chosen ? page[first + pos[i] / PAGE] * PAGE + pos[i] % PAGE : -1;
    }
    free(len);
    free(page);
    free(pos);
    return 0;
}

/* The rule for input NAME of definition DEF (all make int32 tensors). */
typedef struct rule {
    const char *def, *input;
    int (*make)(const gen *g, int32_t *out);
} rule;

static const rule rules[] = {
    {TOPK_DEF, "seq_lens", topk_seq_lens},
    {TOPK_DEF, "block_table", topk_block_table},
    {ATTN_DEF, "sparse_indices", attn_sparse_indices},
};

static const rule *find_rule(const char *def, const char *input)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(rules[i].def, def) == 0 && strcmp(rules[i].input, input) == 0)
            return &rules[i];
    return NULL;
}

/* Writes the file PATH (as a descriptor names it) with every safetensors input of W that names
 * it. Returns 0, or -1 with *err set. */
static int write_file(const gen *g, const char *root, const char *path)
{
    const definition *d = g->def;
    st_write_tensor *t = xcalloc((size_t)d->ninputs, sizeof *t);
    int64_t(*shape)[KWB_MAX_RANK] = xcalloc((size_t)d->ninputs, sizeof *shape);
    size_t n = 0;
    int rc = 0;
    for (int i = 0; i < d->ninputs && rc == 0; i++) {
        const wl_input *in = &g->w->inputs[i];
        if (in->kind != WL_SAFETENSORS || strcmp(in->path, path) != 0)
            continue;
        const rule *r = find_rule(d->name, d->inputs[i].name);
        if (!r || d->inputs[i].dtype != KWB_I32) {
            rc = kwb_error_set(g->err, "no rule makes input '%s'", d->inputs[i].name);
            break;
        }
        workload_shape(g->w, &d->inputs[i], shape[n]);
        int32_t *data = xcalloc((size_t)workload_numel(g->w, &d->inputs[i]) + 1, sizeof *data);
        t[n] = (st_write_tensor){in->key, KWB_I32, d->inputs[i].rank, shape[n], data};
        n++;
        rc = r->make(g, data);
    }
    const char *meta[2] = {"generator", "kwb scripts/gen_dsa_blobs.c (rules in workloads/README.md)"};
    char *file = traceset_blob_path(root, path), *dir = xstrdup(file);
    *strrchr(dir, '/') = '\0';
    if (rc == 0 && paths_mkdir_p(dir) != 0)
        rc = kwb_error_set(g->err, "cannot create %s", dir);
    if (rc == 0)
        rc = safetensors_write_meta(file, t, n, meta, 1, g->err);
    for (size_t i = 0; i < n; i++)
        free((void *)t[i].data);
    free(t);
    free(shape);
    free(file);
    free(dir);
    return rc;
}

/* Every blob of definition NAME's workloads under ROOT; returns the number of files written,
 * or -1 with *err set. */
static int generate(const char *root, const char *name, kwb_error *err)
{
    definition *d = NULL;
    workload_set set = {0};
    if (traceset_load(root, name, &d, &set, err) != 0)
        return -1;
    int files = 0, rc = 0;
    for (int k = 0; k < set.count && rc == 0; k++) {
        gen g = {d, &set.items[k], err};
        const wl_input *ins = set.items[k].inputs;
        for (int i = 0; i < d->ninputs && rc == 0; i++) {
            int first = ins[i].kind == WL_SAFETENSORS;
            for (int j = 0; j < i && first; j++) /* each file once, at its first input */
                first = !(ins[j].kind == WL_SAFETENSORS && strcmp(ins[j].path, ins[i].path) == 0);
            if (first && (rc = write_file(&g, root, ins[i].path)) == 0)
                files++;
            if (rc != 0)
                kwb_error_prefix(err, "%s: workload %s", name, set.items[k].uuid);
        }
    }
    workload_set_free(&set);
    definition_free(d);
    return rc == 0 ? files : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fputs("usage: gen_dsa_blobs DATASET [DEFINITION...]\n", stderr);
        return 2;
    }
    static const char *const all[] = {TOPK_DEF, ATTN_DEF};
    const char *const *names = argc > 2 ? (const char *const *)argv + 2 : all;
    int count = argc > 2 ? argc - 2 : 2;
    for (int i = 0; i < count; i++) {
        kwb_error err = {{0}};
        int files = generate(argv[1], names[i], &err);
        if (files < 0) {
            fprintf(stderr, "gen_dsa_blobs: %s\n", err.msg);
            return 1;
        }
        printf("%s: %d blob file(s) under %s/blob\n", names[i], files, argv[1]);
    }
    return 0;
}

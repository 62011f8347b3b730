/* gen_moe_routing.c - writes the routing blobs of kwb's MoE workloads: for every workload of
 * moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048 in DATASET, the safetensors file
 * its routing_logits and routing_bias descriptors name, holding those two tensors.
 *
 *   scripts/gen_moe_routing DATASET
 *
 * DATASET is a TraceSet root (workloads/) holding the definition and the contest's workload
 * file. The output depends only on the workloads' uuids and seq_len: run again, it writes the
 * same bytes. One line per workload on stdout says what the routing gives the workload's rank.
 * The rule (workloads/README.md), with N(k, i) = rng_normal(k, i) and K(name, s) =
 * rng_key(20260205, name, 0, s) (src/rng.h):
 *
 *   routing_bias[e]     = bf16(0.05 * N(K(DEF, 1), e))                   the same in every workload
 *   routing_logits[t,e] = float(N(K(uuid, 0), 256 t + e)                  token noise, N(0,1)
 *                               + 0.5 * N(K(uuid, 2), 8 t + e / 32)       the token's leaning to a group
 *                               + 0.25 * N(K(DEF, 0), e))                 expert popularity, model-wide
 * summed in double and rounded once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "moe_routing.h"
#include "paths.h"
#include "rng.h"
#include "safetensors.h"
#include "traceset.h"
#include "xalloc.h"

#define DEF "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
#define SEED 20260205u /* the contest dataset's release date, as for GDN prefill */
#define EXPERTS 256
#define GROUP 32 /* experts per group */
#define LOCAL 32 /* local experts per rank */
#define TOPK 8
#define BIAS_LEAN (-0.02) /* the correction bias leans against popular experts ... */
#define BIAS_NOISE 0.01   /* ... give or take this much */
#define MAX_DRAWS 64

enum { IN_LOGITS, IN_BIAS, IN_OFFSET = 8 }; /* input positions in the definition */

/* The model-wide bias (bf16 bits), EXPERTS values. */
static void make_bias(uint16_t *bias)
{
    uint64_t kp = rng_key(SEED, DEF, 0, 0), kb = rng_key(SEED, DEF, 0, 1);
    for (int e = 0; e < EXPERTS; e++)
        bias[e] = dtype_f32_to_bf16(
            (float)(BIAS_LEAN * rng_normal(kp, (uint64_t)e) + BIAS_NOISE * rng_normal(kb, (uint64_t)e)));
}

/* Draw R of the logits of workload UUID, TOKENS x EXPERTS. */
static void make_logits(const char *uuid, int r, int64_t tokens, float *logits)
{
    uint64_t kz = rng_key(SEED, uuid, r, 0), kg = rng_key(SEED, uuid, r, 2), kp = rng_key(SEED, DEF, 0, 0);
    for (int64_t t = 0; t < tokens; t++)
        for (int e = 0; e < EXPERTS; e++) {
            double z = rng_normal(kz, (uint64_t)(t * EXPERTS + e));
            double lean = 0.5 * rng_normal(kg, (uint64_t)(t * (EXPERTS / GROUP) + e / GROUP));
            double popularity = 0.25 * rng_normal(kp, (uint64_t)e);
            logits[t * EXPERTS + e] = (float)(z + lean + popularity);
        }
}

/* Tokens whose chosen set under CFG with BIAS differs from IDX's (TOKENS x TOPK). */
static int64_t changed_choices(const moe_routing_cfg *cfg, const float *logits, const uint16_t *bias, int64_t tokens,
                               const int32_t *idx)
{
    int32_t *other;
    float *w;
    moe_routing_run_alloc(cfg, logits, bias, tokens, 1.0f, &other, &w);
    int64_t changed = 0;
    for (int64_t t = 0; t < tokens; t++) {
        int same = 0;
        for (int a = 0; a < TOPK; a++)
            for (int b = 0; b < TOPK; b++)
                same += idx[t * TOPK + a] == other[t * TOPK + b];
        changed += same != TOPK;
    }
    free(other);
    free(w);
    return changed;
}

/* The routing of TOKENS tokens into IDX (TOKENS x TOPK); what it gives the local experts from OFFSET. */
static moe_routing_local route(const float *logits, const uint16_t *bias, int64_t tokens, int offset, int32_t *idx)
{
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3;
    float *wt = xcalloc((size_t)tokens * TOPK + 1, sizeof *wt);
    moe_routing_run(&cfg, logits, bias, tokens, 1.0f, idx, wt);
    free(wt);
    return moe_routing_count_local(idx, tokens, TOPK, offset, LOCAL);
}

/* The logits of workload W (TOKENS x EXPERTS, draw *R): the first draw that routes a token to
 * a local expert. Returns 0, or -1 when none of MAX_DRAWS does. */
static int choose_logits(const workload *w, int64_t tokens, const uint16_t *bias, float *logits, int32_t *idx, int *r)
{
    for (*r = 0; *r < MAX_DRAWS; (*r)++) {
        make_logits(w->uuid, *r, tokens, logits);
        if (route(logits, bias, tokens, (int)w->inputs[IN_OFFSET].i, idx).pairs > 0)
            return 0;
    }
    fprintf(stderr, "gen_moe_routing: workload %s: no draw routes a token to a local expert\n", w->uuid);
    return -1;
}

/* One line on what the routing IDX gives the workload's rank, and how much the groups and the
 * bias matter (tokens whose choice changes without them). */
static void report(const workload *w, int r, int64_t tokens, const float *logits, const uint16_t *bias,
                   const int32_t *idx)
{
    const moe_routing_cfg cfg = MOE_ROUTING_DSV3, flat = {EXPERTS, 1, 1, TOPK};
    static const uint16_t zero[EXPERTS];
    int offset = (int)w->inputs[IN_OFFSET].i;
    moe_routing_local l = moe_routing_count_local(idx, tokens, TOPK, offset, LOCAL);
    printf("%.8s  seq_len=%-6lld draw=%d offset=%-3d local_pairs=%-6lld routed_tokens=%-6lld active_experts=%-2lld "
           "max_load=%-4lld groups_matter=%.0f%% bias_matters=%.0f%%\n",
           w->uuid, (long long)tokens, r, offset, (long long)l.pairs, (long long)l.tokens, (long long)l.experts,
           (long long)l.max_load, 100.0 * (double)changed_choices(&flat, logits, bias, tokens, idx) / (double)tokens,
           100.0 * (double)changed_choices(&cfg, logits, zero, tokens, idx) / (double)tokens);
}

/* The blob of workload W under ROOT; -1 with a message when its descriptors are not as expected. */
static int write_blob(const char *root, const definition *d, const workload *w, const uint16_t *bias)
{
    const wl_input *lg = &w->inputs[IN_LOGITS], *bi = &w->inputs[IN_BIAS];
    if (lg->kind != WL_SAFETENSORS || bi->kind != WL_SAFETENSORS || strcmp(lg->path, bi->path) != 0) {
        fprintf(stderr,
                "gen_moe_routing: workload %s: routing_logits and routing_bias must name one safetensors file\n",
                w->uuid);
        return -1;
    }
    int64_t tokens = w->axis_value[definition_axis_index(d, "seq_len")];
    float *logits = xcalloc((size_t)tokens * EXPERTS + 1, sizeof *logits);
    int32_t *idx = xcalloc((size_t)tokens * TOPK + 1, sizeof *idx);
    int r;
    if (choose_logits(w, tokens, bias, logits, idx, &r) != 0) {
        free(logits);
        free(idx);
        return -1;
    }
    int64_t logits_shape[2] = {tokens, EXPERTS}, bias_shape[1] = {EXPERTS};
    st_write_tensor t[2] = {{lg->key, KWB_F32, 2, logits_shape, logits}, {bi->key, KWB_BF16, 1, bias_shape, bias}};
    const char *meta[2] = {"generator", "kwb scripts/gen_moe_routing.c (rules in workloads/README.md)"};
    char *path = traceset_blob_path(root, lg->path), *dir = xstrdup(path);
    *strrchr(dir, '/') = '\0';
    kwb_error err = {{0}};
    int rc = paths_mkdir_p(dir) == 0 ? safetensors_write_meta(path, t, 2, meta, 1, &err) : -1;
    if (rc != 0)
        fprintf(stderr, "gen_moe_routing: %s\n", err.msg[0] ? err.msg : dir);
    else
        report(w, r, tokens, logits, bias, idx);
    free(path);
    free(dir);
    free(logits);
    free(idx);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: gen_moe_routing DATASET\n", stderr);
        return 2;
    }
    definition *d = NULL;
    workload_set set = {0};
    kwb_error err = {{0}};
    if (traceset_load(argv[1], DEF, &d, &set, &err) != 0) {
        fprintf(stderr, "gen_moe_routing: %s\n", err.msg);
        return 1;
    }
    uint16_t bias[EXPERTS];
    make_bias(bias);
    int rc = 0;
    for (int i = 0; i < set.count && rc == 0; i++)
        rc = write_blob(argv[1], d, &set.items[i], bias);
    workload_set_free(&set);
    definition_free(d);
    return rc == 0 ? 0 : 1;
}

/* gen_gdn_prefill.c - writes kwb's GDN prefill workloads: one JSONL line and one safetensors
 * blob per workload of the paper's retained run (the uuid, order and axes of its CSV).
 *
 *   scripts/gen_gdn_prefill CSV DATASET
 *
 * CSV is reconstructed/gdn_prefill_qk4_v8_d128_k_last.paper_retained_run.csv (columns
 * workload_index, uuid, total_seq_len, num_seqs, len_cu_seqlens, ...); DATASET is the TraceSet
 * root (workloads/). Writes DATASET/workloads/gdn/gdn_prefill_qk4_v8_d128_k_last.jsonl and
 * DATASET/blob/workloads/gdn/DEF/DEF_UUID.safetensors (FlashInfer-Bench's layout). The output depends only on
 * the CSV: run again, it writes the same bytes. The rules (workloads/README.md):
 *
 * cu_seqlens (int64 [num_seqs + 1]): with r_i = rng_bits(K, i), K = rng_key(SEED, uuid, 0, 8),
 *   sequence i gets the weight w_i = (2^16 + (r_i & 0xffff)) << ((r_i >> 16) % 7), i.e. about
 *   log-uniform over a 128:1 range, and the length 1 + floor(R * w_i / W) with R = total - n,
 *   W = sum of w; the R - sum of floors tokens left go one each to the largest remainders
 *   (R * w_i mod W; ties to the lower index). Integer arithmetic only.
 * b (bf16 [total_seq_len, 8]): b[t,h] = bf16(logit(sigmoid(z) / 128)), z = rng_normal(K', 8t + h),
 *   K' = rng_key(SEED, uuid, 0, 7). beta = sigmoid(b) = sigmoid(z) / 128 makes beta * |k|^2 (k
 *   being N(0,1) in 128 dimensions, |k|^2 about 128) the sigmoid of a standard normal, as
 *   beta is for the model's L2-normalized keys; with N(0,1) values for b the recurrence grows
 *   about 1.5x per token and overflows float32 within a few hundred tokens. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "error.h"
#include "paths.h"
#include "rng.h"
#include "safetensors.h"
#include "xalloc.h"

#define DEF "gdn_prefill_qk4_v8_d128_k_last"
#define SEED 20260205u /* the contest dataset's release date */
#define NV 8
#define SCALE "0.08838834764831845"

enum { IN_B = 7, IN_CU_SEQLENS = 8 }; /* input positions in the definition */

/* cu_seqlens of workload UUID: N sequences of TOTAL tokens, each at least 1 (see above). */
static void split(const char *uuid, int64_t total, int64_t n, int64_t *cu)
{
    uint64_t key = rng_key(SEED, uuid, 0, IN_CU_SEQLENS);
    uint64_t *w = xcalloc((size_t)n, sizeof *w), *rem = xcalloc((size_t)n, sizeof *rem), sum = 0;
    int64_t *len = xcalloc((size_t)n, sizeof *len), spare = total - n, used = 0;
    for (int64_t i = 0; i < n; i++) {
        uint64_t r = rng_bits(key, (uint64_t)i);
        w[i] = (65536u + (r & 0xffffu)) << ((r >> 16) % 7);
        sum += w[i];
    }
    for (int64_t i = 0; i < n; i++) {
        uint64_t part = (uint64_t)spare * w[i];
        len[i] = 1 + (int64_t)(part / sum);
        rem[i] = part % sum;
        used += len[i] - 1;
    }
    for (int64_t left = spare - used; left > 0; left--) {
        int64_t best = -1;
        for (int64_t i = 0; i < n; i++)
            if (rem[i] != UINT64_MAX && (best < 0 || rem[i] > rem[best]))
                best = i;
        len[best]++;
        rem[best] = UINT64_MAX; /* taken */
    }
    cu[0] = 0;
    for (int64_t i = 0; i < n; i++)
        cu[i + 1] = cu[i] + len[i];
    free(w);
    free(rem);
    free(len);
}

/* b of workload UUID, TOTAL x NV bf16 values (see above). */
static void make_b(const char *uuid, int64_t total, uint16_t *b)
{
    uint64_t key = rng_key(SEED, uuid, 0, IN_B);
    for (int64_t i = 0; i < total * NV; i++) {
        double z = rng_normal(key, (uint64_t)i);
        double beta = 1.0 / (128.0 * (1.0 + exp(-z)));
        b[i] = dtype_f32_to_bf16((float)log(beta / (1.0 - beta)));
    }
}

/* mkdir -p of the folder part of PATH. */
static int make_parents(const char *path)
{
    char *dir = xstrdup(path), *slash = strrchr(dir, '/');
    int rc = 0;
    if (slash) {
        *slash = '\0';
        if ((rc = paths_mkdir_p(dir)) != 0)
            fprintf(stderr, "gen_gdn_prefill: mkdir %s: %s\n", dir, strerror(errno));
    }
    free(dir);
    return rc;
}

/* One workload: its blob under ROOT and its JSONL line on OUT. */
static int emit(FILE *out, const char *root, const char *uuid, int64_t total, int64_t n)
{
    char rel[256];
    snprintf(rel, sizeof rel, "blob/workloads/gdn/" DEF "/" DEF "_%s.safetensors", uuid);
    int64_t *cu = xcalloc((size_t)n + 1, sizeof *cu);
    uint16_t *b = xcalloc((size_t)(total * NV) + 1, sizeof *b);
    split(uuid, total, n, cu);
    make_b(uuid, total, b);
    int64_t cu_shape[1] = {n + 1}, b_shape[2] = {total, NV};
    st_write_tensor t[2] = {{"b", KWB_BF16, 2, b_shape, b}, {"cu_seqlens", KWB_I64, 1, cu_shape, cu}};
    const char *meta[2] = {"generator", "kwb scripts/gen_gdn_prefill.c (rules in workloads/README.md)"};
    char *path = xasprintf("%s/%s", root, rel);
    kwb_error err = {0};
    int rc = make_parents(path) == 0 && safetensors_write_meta(path, t, 2, meta, 1, &err) == 0 ? 0 : -1;
    if (rc != 0 && err.msg[0])
        fprintf(stderr, "gen_gdn_prefill: %s\n", err.msg);
    free(path);
    free(cu);
    free(b);

    fprintf(out,
            "{\"definition\": \"" DEF "\", \"solution\": null, \"workload\": {\"uuid\": \"%s\", "
            "\"axes\": {\"total_seq_len\": %lld, \"num_seqs\": %lld, \"len_cu_seqlens\": %lld}, \"inputs\": {",
            uuid, (long long)total, (long long)n, (long long)n + 1);
    static const char *const random_inputs[] = {"q", "k", "v", "state", "A_log", "a", "dt_bias"};
    for (size_t i = 0; i < sizeof random_inputs / sizeof random_inputs[0]; i++)
        fprintf(out, "\"%s\": {\"type\": \"random\"}, ", random_inputs[i]);
    fprintf(out, "\"b\": {\"type\": \"safetensors\", \"path\": \"./%s\", \"tensor_key\": \"b\"}, ", rel);
    fprintf(out, "\"cu_seqlens\": {\"type\": \"safetensors\", \"path\": \"./%s\", \"tensor_key\": \"cu_seqlens\"}, ",
            rel);
    fprintf(out, "\"scale\": {\"type\": \"scalar\", \"value\": " SCALE "}}}, \"evaluation\": null}\n");
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fputs("usage: gen_gdn_prefill CSV DATASET\n", stderr);
        return 2;
    }
    FILE *csv = fopen(argv[1], "r");
    if (!csv) {
        fprintf(stderr, "gen_gdn_prefill: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    char *jsonl = xasprintf("%s/workloads/gdn/" DEF ".jsonl", argv[2]);
    char *tmp = xasprintf("%s.tmp", jsonl);
    FILE *out = make_parents(jsonl) == 0 ? fopen(tmp, "w") : NULL;
    if (!out) {
        fprintf(stderr, "gen_gdn_prefill: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    char line[1024], uuid[64];
    int rc = 0, count = 0, lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, csv)) {
        long long index, total, n, len;
        if (++lineno == 1)
            continue; /* the header */
        if (sscanf(line, "%lld,%63[^,],%lld,%lld,%lld,", &index, uuid, &total, &n, &len) != 5 || index != count ||
            n < 1 || total < n || len != n + 1) {
            fprintf(stderr, "gen_gdn_prefill: %s:%d: not a workload row\n", argv[1], lineno);
            rc = 1;
            break;
        }
        rc = emit(out, argv[2], uuid, total, n);
        count++;
    }
    fclose(csv);
    if (fclose(out) != 0 || rc != 0 || rename(tmp, jsonl) != 0) {
        fprintf(stderr, "gen_gdn_prefill: %s not written\n", jsonl);
        remove(tmp);
        return 1;
    }
    printf("%d workloads: %s and their blobs\n", count, jsonl);
    free(jsonl);
    free(tmp);
    return 0;
}

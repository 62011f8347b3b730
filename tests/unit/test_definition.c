/* test_definition.c - definitions: the five shipped ones load with the right axes, order and
 * dtypes; each malformed fixture under tests/fixtures/model/definitions/ fails with one line
 * "PATH:LINE: problem" that names the right line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "definition.h"

#define DEFS TOP_SRCDIR "/workloads/definitions"
#define FIX TOP_SRCDIR "/tests/fixtures/model/definitions"

#define GDN_DECODE "gdn_decode_qk4_v8_d128_k_last"
#define GDN_PREFILL "gdn_prefill_qk4_v8_d128_k_last"
#define DSA_INDEXER "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
#define DSA_ATTN "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
#define MOE "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"

static definition *load_ok(const char *path)
{
    kwb_error err = {{0}};
    definition *d = definition_load(path, &err);
    if (!d)
        fail_msg("%s did not load: %s", path, err.msg);
    assert_string_equal(d->path, path);
    return d;
}

static void expect_axis(const definition *d, int i, const char *name, int is_const, int64_t value)
{
    assert_true(i < d->naxes);
    assert_string_equal(d->axes[i].name, name);
    assert_int_equal(d->axes[i].is_const, is_const);
    if (is_const)
        assert_int_equal(d->axes[i].value, value);
    assert_int_equal(definition_axis_index(d, name), i);
}

/* Tensor T has NAME, DTYPE and the axes named by the NULL-terminated list that follows
 * (no list entries for a scalar, rank -1 given explicitly). */
static void expect_tensor(const definition *d, const def_tensor *t, const char *name, kwb_dtype dtype, int rank, ...)
{
    assert_string_equal(t->name, name);
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    va_list ap;
    va_start(ap, rank);
    for (int i = 0; i < rank; i++) {
        const char *axis = va_arg(ap, const char *);
        assert_in_range(t->axis[i], 0, d->naxes - 1);
        assert_string_equal(d->axes[t->axis[i]].name, axis);
    }
    va_end(ap);
}

/* ---- the shipped definitions ------------------------------------------------------------ */

static void test_gdn_decode(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/gdn/" GDN_DECODE ".json");
    assert_string_equal(d->name, GDN_DECODE);
    assert_string_equal(d->op_type, "gdn");
    assert_non_null(d->reference);
    assert_int_equal(strncmp(d->reference, "import math\nimport torch\n", 25), 0);
    assert_non_null(strstr(d->reference, "def run("));

    assert_int_equal(d->naxes, 6);
    expect_axis(d, 0, "batch_size", 0, 0);
    expect_axis(d, 1, "seq_len", 1, 1);
    expect_axis(d, 2, "num_q_heads", 1, 4);
    expect_axis(d, 3, "num_k_heads", 1, 4);
    expect_axis(d, 4, "num_v_heads", 1, 8);
    expect_axis(d, 5, "head_size", 1, 128);
    assert_int_equal(definition_var_axes(d), 1);
    assert_int_equal(definition_axis_index(d, "total_seq_len"), -1);

    /* inputs in the order of the file, which is the calling order */
    assert_int_equal(d->ninputs, 9);
    expect_tensor(d, &d->inputs[0], "q", KWB_BF16, 4, "batch_size", "seq_len", "num_q_heads", "head_size");
    expect_tensor(d, &d->inputs[1], "k", KWB_BF16, 4, "batch_size", "seq_len", "num_k_heads", "head_size");
    expect_tensor(d, &d->inputs[2], "v", KWB_BF16, 4, "batch_size", "seq_len", "num_v_heads", "head_size");
    expect_tensor(d, &d->inputs[3], "state", KWB_F32, 4, "batch_size", "num_v_heads", "head_size", "head_size");
    expect_tensor(d, &d->inputs[4], "A_log", KWB_F32, 1, "num_v_heads");
    expect_tensor(d, &d->inputs[5], "a", KWB_BF16, 3, "batch_size", "seq_len", "num_v_heads");
    expect_tensor(d, &d->inputs[6], "dt_bias", KWB_F32, 1, "num_v_heads");
    expect_tensor(d, &d->inputs[7], "b", KWB_BF16, 3, "batch_size", "seq_len", "num_v_heads");
    expect_tensor(d, &d->inputs[8], "scale", KWB_F32, -1);
    const char *order[] = {"q", "k", "v", "state", "A_log", "a", "dt_bias", "b", "scale"};
    for (int i = 0; i < 9; i++)
        assert_int_equal(definition_input_index(d, order[i]), i);
    assert_int_equal(definition_input_index(d, "output"), -1);
    assert_int_equal(definition_input_index(d, "Q"), -1);

    assert_int_equal(d->noutputs, 2);
    expect_tensor(d, &d->outputs[0], "output", KWB_BF16, 4, "batch_size", "seq_len", "num_v_heads", "head_size");
    expect_tensor(d, &d->outputs[1], "new_state", KWB_F32, 4, "batch_size", "num_v_heads", "head_size", "head_size");
    definition_free(d);
}

static void test_gdn_prefill(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/gdn/" GDN_PREFILL ".json");
    assert_string_equal(d->name, GDN_PREFILL);
    assert_int_equal(d->naxes, 7);
    expect_axis(d, 0, "total_seq_len", 0, 0);
    expect_axis(d, 1, "num_seqs", 0, 0);
    expect_axis(d, 2, "num_q_heads", 1, 4);
    expect_axis(d, 5, "head_size", 1, 128);
    expect_axis(d, 6, "len_cu_seqlens", 0, 0);
    assert_int_equal(definition_var_axes(d), 3);
    assert_int_equal(d->ninputs, 10);
    expect_tensor(d, &d->inputs[0], "q", KWB_BF16, 3, "total_seq_len", "num_q_heads", "head_size");
    expect_tensor(d, &d->inputs[3], "state", KWB_F32, 4, "num_seqs", "num_v_heads", "head_size", "head_size");
    expect_tensor(d, &d->inputs[8], "cu_seqlens", KWB_I64, 1, "len_cu_seqlens");
    expect_tensor(d, &d->inputs[9], "scale", KWB_F32, -1);
    assert_int_equal(d->noutputs, 2);
    expect_tensor(d, &d->outputs[0], "output", KWB_BF16, 3, "total_seq_len", "num_v_heads", "head_size");
    definition_free(d);
}

static void test_dsa_indexer(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/dsa_paged/" DSA_INDEXER ".json");
    assert_string_equal(d->name, DSA_INDEXER);
    assert_string_equal(d->op_type, "dsa_paged");
    assert_int_equal(d->naxes, 9);
    expect_axis(d, 0, "batch_size", 0, 0);
    expect_axis(d, 1, "num_index_heads", 1, 64);
    expect_axis(d, 4, "topk", 1, 2048);
    expect_axis(d, 8, "head_dim_with_scale", 1, 132);
    assert_int_equal(definition_var_axes(d), 3);
    assert_true(d->replay.failure_rate == 0.015 && d->replay.confidence == 0.95); /* replayed before promotion */
    assert_int_equal(d->ninputs, 5);
    expect_tensor(d, &d->inputs[0], "q_index_fp8", KWB_F8_E4M3, 3, "batch_size", "num_index_heads", "index_head_dim");
    expect_tensor(d, &d->inputs[1], "k_index_cache_fp8", KWB_I8, 4, "num_pages", "page_size", "kv_cache_num_heads",
                  "head_dim_with_scale");
    expect_tensor(d, &d->inputs[2], "weights", KWB_F32, 2, "batch_size", "num_index_heads");
    expect_tensor(d, &d->inputs[3], "seq_lens", KWB_I32, 1, "batch_size");
    expect_tensor(d, &d->inputs[4], "block_table", KWB_I32, 2, "batch_size", "max_num_pages");
    assert_int_equal(d->noutputs, 1);
    expect_tensor(d, &d->outputs[0], "topk_indices", KWB_I32, 2, "batch_size", "topk");
    definition_free(d);
}

static void test_dsa_attention(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/dsa_paged/" DSA_ATTN ".json");
    assert_string_equal(d->name, DSA_ATTN);
    assert_int_equal(d->naxes, 7);
    expect_axis(d, 1, "num_qo_heads", 1, 16);
    expect_axis(d, 2, "head_dim_ckv", 1, 512);
    expect_axis(d, 6, "num_pages", 0, 0);
    assert_int_equal(definition_var_axes(d), 2);
    assert_int_equal(d->ninputs, 6);
    expect_tensor(d, &d->inputs[0], "q_nope", KWB_BF16, 3, "num_tokens", "num_qo_heads", "head_dim_ckv");
    expect_tensor(d, &d->inputs[2], "ckv_cache", KWB_BF16, 3, "num_pages", "page_size", "head_dim_ckv");
    expect_tensor(d, &d->inputs[4], "sparse_indices", KWB_I32, 2, "num_tokens", "topk");
    expect_tensor(d, &d->inputs[5], "sm_scale", KWB_F32, -1);
    assert_int_equal(d->noutputs, 2);
    expect_tensor(d, &d->outputs[0], "output", KWB_BF16, 3, "num_tokens", "num_qo_heads", "head_dim_ckv");
    expect_tensor(d, &d->outputs[1], "lse", KWB_F32, 2, "num_tokens", "num_qo_heads");
    definition_free(d);
}

static void test_moe(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/moe/" MOE ".json");
    assert_string_equal(d->name, MOE);
    assert_string_equal(d->op_type, "moe");
    /* its reference has CRLF line ends; they are kept as read */
    assert_int_equal(strncmp(d->reference, "import torch\r\n", 14), 0);
    assert_int_equal(d->naxes, 9);
    expect_axis(d, 0, "seq_len", 0, 0);
    expect_axis(d, 1, "num_experts", 1, 256);
    expect_axis(d, 2, "num_local_experts", 1, 32);
    expect_axis(d, 3, "hidden_size", 1, 7168);
    expect_axis(d, 8, "num_gemm1_out_blocks", 1, 32);
    assert_int_equal(definition_var_axes(d), 1);
    assert_int_equal(d->ninputs, 10);
    expect_tensor(d, &d->inputs[0], "routing_logits", KWB_F32, 2, "seq_len", "num_experts");
    expect_tensor(d, &d->inputs[1], "routing_bias", KWB_BF16, 1, "num_experts");
    expect_tensor(d, &d->inputs[2], "hidden_states", KWB_F8_E4M3, 2, "seq_len", "hidden_size");
    expect_tensor(d, &d->inputs[3], "hidden_states_scale", KWB_F32, 2, "num_hidden_blocks", "seq_len");
    expect_tensor(d, &d->inputs[4], "gemm1_weights", KWB_F8_E4M3, 3, "num_local_experts", "gemm1_out_size",
                  "hidden_size");
    expect_tensor(d, &d->inputs[6], "gemm2_weights", KWB_F8_E4M3, 3, "num_local_experts", "hidden_size",
                  "intermediate_size");
    expect_tensor(d, &d->inputs[8], "local_expert_offset", KWB_I32, -1);
    expect_tensor(d, &d->inputs[9], "routed_scaling_factor", KWB_F32, -1);
    assert_int_equal(d->noutputs, 1);
    expect_tensor(d, &d->outputs[0], "output", KWB_BF16, 2, "seq_len", "hidden_size");
    definition_free(d);
}

/* The fixture tiny.json: shape null and a missing shape are scalars, [] is rank 0, every
 * dtype spelled right. */
static void test_tiny_fixture(void **state)
{
    (void)state;
    definition *d = load_ok(FIX "/tiny.json");
    assert_string_equal(d->name, "tiny_axpy");
    assert_string_equal(d->op_type, "elementwise");
    assert_string_equal(d->reference, "def run(x, y, alpha, flag, zero_d):\n    return x * alpha + y\n");
    assert_int_equal(d->naxes, 3);
    expect_axis(d, 0, "n", 0, 0);
    expect_axis(d, 1, "d", 1, 4);
    expect_axis(d, 2, "m", 0, 0);
    assert_int_equal(definition_var_axes(d), 2);
    assert_int_equal(d->ninputs, 5);
    expect_tensor(d, &d->inputs[0], "x", KWB_F32, 2, "n", "d");
    expect_tensor(d, &d->inputs[1], "y", KWB_BF16, 1, "d");
    expect_tensor(d, &d->inputs[2], "alpha", KWB_F32, -1);
    expect_tensor(d, &d->inputs[3], "flag", KWB_BOOL, -1);
    expect_tensor(d, &d->inputs[4], "zero_d", KWB_I64, 0);
    assert_int_equal(d->noutputs, 1);
    expect_tensor(d, &d->outputs[0], "out", KWB_F16, 2, "n", "d");
    definition_free(d);
}

/* No op_type and no reference: op_type is "", reference NULL. */
static void test_minimal_parse(void **state)
{
    (void)state;
    const char *text = "{\"name\": \"m\", \"axes\": {}, \"inputs\": {\"s\": {\"shape\": null, \"dtype\": \"int16\"}},"
                       " \"outputs\": {\"o\": {\"shape\": [], \"dtype\": \"float8_e5m2\"}}}";
    kwb_error err = {{0}};
    definition *d = definition_parse(text, strlen(text), "label", &err);
    if (!d)
        fail_msg("did not parse: %s", err.msg);
    assert_string_equal(d->path, "label");
    assert_string_equal(d->name, "m");
    assert_string_equal(d->op_type, "");
    assert_null(d->reference);
    assert_int_equal(d->naxes, 0);
    assert_int_equal(definition_var_axes(d), 0);
    assert_int_equal(d->inputs[0].dtype, KWB_I16);
    assert_int_equal(d->inputs[0].rank, -1);
    assert_int_equal(d->outputs[0].dtype, KWB_F8_E5M2);
    assert_int_equal(d->outputs[0].rank, 0);
    definition_free(d);
    definition_free(NULL);
}

/* ---- malformed definitions ------------------------------------------------------------ */

/* Loading PATH fails with exactly "PATH:LINE: ..." containing WANT, on one line. */
static void expect_load_error(const char *path, int line, const char *want)
{
    kwb_error err = {{0}};
    definition *d = definition_load(path, &err);
    if (d) {
        definition_free(d);
        fail_msg("%s loaded, expected an error at line %d", path, line);
    }
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err.msg, prefix);
    if (!strstr(err.msg + strlen(prefix), want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
    assert_null(strchr(err.msg, '\r'));
}

/* Same for TEXT parsed under the label "L". */
static void expect_parse_error(const char *text, int line, const char *want)
{
    kwb_error err = {{0}};
    definition *d = definition_parse(text, strlen(text), "L", &err);
    if (d) {
        definition_free(d);
        fail_msg("parsed, expected an error at line %d containing \"%s\"", line, want);
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "L:%d: ", line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err.msg, prefix);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
}

/* The GDN decode cost model: at batch 64, the state read and written dominates (64 MiB). */
static void test_cost_model(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/gdn/" GDN_DECODE ".json");
    assert_string_equal(d->cost.compute, "fp32");
    int64_t ax[6] = {64, 1, 4, 4, 8, 128}; /* batch_size seq_len num_q/k/v_heads head_size */
    double state_bytes = 64.0 * 8 * 128 * 128 * 4 * 2;
    double io_bytes = 64.0 * (8 * 128 * 2 + 8 * 128 * 2 * 2 + 8 * 2 * 2) + 8 * 4 * 2;
    assert_true(definition_cost_bytes(d, ax) == state_bytes + io_bytes);
    assert_true(definition_cost_flops(d, ax) == 64.0 * 8 * 7 * 128 * 128);
    definition_free(d);
    /* without the extension: no cost, nothing modelled */
    d = load_ok(FIX "/tiny.json");
    assert_null(d->cost.bytes);
    assert_true(definition_cost_bytes(d, ax) == 0 && definition_cost_flops(d, ax) == 0);
    definition_free(d);
}

/* A one-axis definition (n; x -> y) whose "kwb" member is KWB (from line 2 on) must fail at LINE
 * with a message containing WANT. */
/* A definition of one float input x and output y over axis n, with kwb member KWB, into TEXT. */
static void kwb_def_text(char *text, size_t cap, const char *kwb)
{
    snprintf(text, cap,
             "{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\"x\": {\"shape\": [\"n\"], "
             "\"dtype\": \"float32\"}}, \"outputs\": {\"y\": {\"shape\": [\"n\"], \"dtype\": \"float32\"}}, "
             "\"kwb\": %s}",
             kwb);
}

static void expect_kwb_error(const char *kwb, int line, const char *want)
{
    char text[512];
    kwb_def_text(text, sizeof text, kwb);
    expect_parse_error(text, line, want);
}

/* The definition of expect_kwb_error with kwb member KWB, which must parse. */
static definition *parse_kwb_ok(const char *kwb)
{
    char text[512];
    kwb_def_text(text, sizeof text, kwb);
    kwb_error err = {{0}};
    definition *d = definition_parse(text, strlen(text), "L", &err);
    if (!d)
        fail_msg("%s", err.msg);
    return d;
}

static void test_cost_errors(void **state)
{
    (void)state;
    expect_kwb_error("{\"cost\": {\n\"bytes\": \"n * m\"}}", 3, "kwb cost 'bytes': column 5: 'm' is not an axis");
    expect_kwb_error("{\"cost\": {\"bytes\": \"n\",\n \"flops\": 7}}", 3, "'flops' must be a string");
    expect_kwb_error("{\"costs\": {}}", 2, "unknown key 'kwb.costs'");
    expect_kwb_error("{\"cost\": {\"compute\": \"fp8\"}}", 2, "'compute' must be");
    expect_kwb_error("{\"cost\": {\"byte\": \"n\"}}", 2, "unknown key 'kwb.cost.byte'");
}

/* The MoE definition: the contest's check settings, and a cost model over values taken from the
 * routing (from_inputs). Axes: seq_len, then 8 consts; then local_pairs, routed_tokens,
 * active_experts. */
static void test_moe_check_and_cost(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/moe/" MOE ".json");
    assert_true(d->check.atol == 1 && d->check.rtol == 0.3 && d->check.matched_ratio == 0.9);
    assert_int_equal(d->cost.nfrom_inputs, 3);
    assert_string_equal(d->cost.from_inputs[0], "local_pairs");
    assert_string_equal(d->cost.compute, "bf16");
    /* its cost function reads the routing alone: the weights stay on the device */
    assert_non_null(d->cost.reads);
    for (int i = 0; i < d->ninputs; i++)
        assert_int_equal(d->cost.reads[i], strcmp(d->inputs[i].name, "routing_logits") == 0 ||
                                               strcmp(d->inputs[i].name, "routing_bias") == 0);
    int64_t v[12] = {7, 256, 32, 7168, 2048, 4096, 56, 16, 32, 10, 5, 9};
    double weights = 4096.0 * 7168 + 7168.0 * 2048 + 4 * (32.0 * 56 + 56.0 * 16);
    assert_true(definition_cost_flops(d, v) == 10 * 2 * (4096.0 * 7168 + 7168.0 * 2048));
    assert_true(definition_cost_bytes(d, v) == 9 * weights + 5 * (7168.0 + 4 * 56) + 7 * (4 * 256.0 + 2 * 7168) + 512);
    definition_free(d);
    /* without the extension: nothing set */
    d = load_ok(FIX "/tiny.json");
    assert_true(isnan(d->check.atol) && isnan(d->check.rtol) && isnan(d->check.matched_ratio));
    assert_true(isnan(d->replay.failure_rate) && isnan(d->replay.confidence));
    assert_int_equal(d->cost.nfrom_inputs, 0);
    assert_null(d->cost.reads);
    definition_free(d);
}

static void test_check_and_from_inputs_errors(void **state)
{
    (void)state;
    expect_kwb_error("{\"check\": {\"atol\": 1,\n\"rtol\": -0.3}}", 3, "kwb check 'rtol' must be a number >= 0");
    expect_kwb_error("{\"check\": {\n\n\"matched_ratio\": 1.5}}", 4,
                     "kwb check 'matched_ratio' must be a number from 0 to 1");
    expect_kwb_error("{\"check\": {\"atol\": \"1\"}}", 2, "kwb check 'atol' must be a number");
    expect_kwb_error("\n{\"check\": {\"ratio\": 0.9}}", 3,
                     "unknown key 'kwb.check.ratio' (known: atol, rtol, matched_ratio, order, method)");
    expect_kwb_error("{\"check\": [1]}", 2, "'kwb.check' must be an object");
    expect_kwb_error("{\"replay\": {\"failure_rate\": 0.015}}", 2,
                     "kwb replay needs both 'failure_rate' and 'confidence'");
    expect_kwb_error("{\"replay\": {\"failure_rate\": 0.015,\n\"confidence\": 1}}", 3,
                     "kwb replay 'confidence' must be a number from 0.5 to 0.999999");
    expect_kwb_error("{\"cost\": {\"from_inputs\": [\"pairs\",\n \"2x\"]}}", 3, "'from_inputs' entry 1 must be a name");
    expect_kwb_error("{\"cost\": {\"from_inputs\": [\n\"n\"]}}", 3, "'n' is an axis or listed twice");
    expect_kwb_error("{\"cost\": {\"from_inputs\": \"pairs\"}}", 2, "'from_inputs' must be a list of names");
    expect_kwb_error("{\"cost\": {\"from_inputs\": [\"pairs\"],\n\"flops\": \"n * pair\"}}", 3,
                     "kwb cost 'flops': column 5: 'pair' is not an axis");
    expect_kwb_error("{\"cost\": {\"reads\": [\"x\",\n\"z\"]}}", 3,
                     "kwb cost 'reads' entry 1 must name one of the definition's inputs");
    expect_kwb_error("{\"cost\": {\"reads\": [\"x\", \"x\"]}}", 2, "kwb cost 'reads': 'x' is listed twice");
    expect_kwb_error("{\"cost\": {\"reads\": \"x\"}}", 2, "kwb cost 'reads' must be a list of input names");
    expect_kwb_error("{\"cost\": {\"reads\": [\"y\"]}}", 2, "entry 0 must name one of the definition's inputs");
    /* a name from_inputs declares is usable */
    definition *d = parse_kwb_ok("{\"cost\": {\"from_inputs\": [\"pairs\"], \"flops\": \"n * pairs\"}}");
    int64_t v[2] = {3, 5};
    assert_true(definition_cost_flops(d, v) == 15);
    definition_free(d);
}

/* What a definition declares of its reference (the shipped five move their per-definition code
 * there): the solution folders, the header folders, the checker, the inputs it makes. */
static void test_reference_declarations(void **state)
{
    (void)state;
    definition *d = load_ok(DEFS "/dsa_paged/dsa_topk_indexer_fp8_h64_d128_topk2048_ps64.json");
    assert_true(d->check.by_reference);
    assert_string_equal(d->reference_dir[DEF_REF_CPU], "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/reference/cpu");
    assert_string_equal(d->reference_dir[DEF_REF_CUDA], "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64/reference/cuda");
    assert_int_equal(d->nreference_include, 2);
    assert_string_equal(d->reference_include[1], "include");
    int k = definition_input_index(d, "k_index_cache_fp8"), q = definition_input_index(d, "q_index_fp8");
    assert_int_equal(d->input_gen[k].kind, DEF_GEN_REFERENCE);
    assert_int_equal(d->input_gen[q].kind, DEF_GEN_NONE);
    definition_free(d);
    d = load_ok(DEFS "/gdn/" GDN_DECODE ".json"); /* the tolerance rule, the dtypes' draws */
    assert_false(d->check.by_reference);
    assert_null(d->input_gen);
    assert_non_null(d->reference_dir[DEF_REF_CPU]);
    definition_free(d);
    static const struct {
        const char *kwb, *want;
        int line;
    } bad[] = {
        {"{\"check\": {\n\"method\": \"scores\"}}", "kwb check 'method' must be \"tolerance\" or \"reference\"", 3},
        {"{\"reference\": {\"include\": \"x\"}}", "kwb reference 'include' must be an array of folder names", 2},
        {"{\"reference\": {\"include\": [\"\"]}}", "kwb reference 'include' must name folders", 2},
        {"{\"inputs\": {\"x\": {\"reference\": 1}}}", "kwb inputs 'x': reference must be true", 2},
        {"{\"inputs\": {\"x\": {\"permutation\": true}}}", "'x' is not an integer tensor input", 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_kwb_error(bad[i].kwb, bad[i].line, bad[i].want);
    /* a float input may be made by the reference */
    d = parse_kwb_ok("{\"inputs\": {\"x\": {\"reference\": true}}, \"check\": {\"method\": \"tolerance\"}}");
    assert_int_equal(d->input_gen[0].kind, DEF_GEN_REFERENCE);
    assert_false(d->check.by_reference);
    definition_free(d);
}

/* "fresh_rows": an input renewed only in the rows another's values name; its mistakes named. */
static void test_fresh_rows(void **state)
{
    (void)state;
    static const char *head = "{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}, \"m\": {\"type\": \"var\"}},\n"
                              " \"inputs\": {\"x\": {\"shape\": [\"n\", \"m\"], \"dtype\": \"bfloat16\"}, "
                              "\"i\": {\"shape\": [\"m\"], \"dtype\": \"int32\"}, "
                              "\"s\": {\"shape\": null, \"dtype\": \"int32\"}},\n"
                              " \"outputs\": {\"y\": {\"shape\": [\"n\"], \"dtype\": \"float32\"}},\n \"kwb\": ";
    char text[1024];
    kwb_error err = {{0}};
    snprintf(text, sizeof text, "%s{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"i\"}}}}}", head);
    definition *d = definition_parse(text, strlen(text), "L", &err);
    if (!d)
        fail_msg("%s", err.msg);
    assert_int_equal(d->input_gen[0].kind, DEF_GEN_NONE); /* the dtype's draw, renewed by rows */
    assert_int_equal(d->input_gen[0].rows_index, 1);
    assert_int_equal(d->input_gen[0].rows_dims, 1);
    assert_int_equal(d->input_gen[1].rows_index, -1);
    definition_free(d);
    snprintf(text, sizeof text,
             "%s{\"inputs\": {\"x\": {\"reference\": true, \"fresh_rows\": {\"index\": \"i\", \"dims\": 2}}}}}", head);
    d = definition_parse(text, strlen(text), "L", &err);
    if (!d)
        fail_msg("%s", err.msg);
    assert_int_equal(d->input_gen[0].kind, DEF_GEN_REFERENCE);
    assert_int_equal(d->input_gen[0].rows_dims, 2);
    definition_free(d);
    static const struct {
        const char *kwb, *want;
    } bad[] = {
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"x\"}}}}", "fresh_rows.index must name another integer"},
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"s\"}}}}", "fresh_rows.index must name another integer"},
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"q\"}}}}", "fresh_rows.index must name another integer"},
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"i\", \"dims\": 3}}}}",
         "dims must be a whole number from 1 to its rank (2)"},
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"i\", \"dims\": 0}}}}", "from 1 to its rank"},
        {"{\"inputs\": {\"x\": {\"fresh_rows\": {\"index\": \"i\", \"pages\": 1}}}}",
         "unknown key 'kwb.inputs.x.fresh_rows.pages'"},
        {"{\"inputs\": {\"i\": {\"range\": [0, 3], \"fresh_rows\": {\"index\": \"i\"}}}}",
         "fresh_rows.index must name another"},
        {"{\"inputs\": {\"x\": {\"permutation\": true, \"fresh_rows\": {\"index\": \"i\"}}}}",
         "fresh_rows goes with reference or alone"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(text, sizeof text, "%s%s}", head, bad[k].kwb);
        expect_parse_error(text, 4, bad[k].want);
    }
}

static void test_invalid_json(void **state)
{
    (void)state;
    /* the comma missing after line 3 is noticed at the token on line 4 */
    expect_load_error(FIX "/bad_json.json", 4, "invalid JSON");
    expect_parse_error("{\n\"name\": \"x\",\n\n\n", 5, "invalid JSON");
    expect_parse_error("", 1, "invalid JSON");
}

static void test_missing_name(void **state)
{
    (void)state;
    /* the object that lacks it opens on line 3, after two blank lines */
    expect_load_error(FIX "/no_name.json", 3, "missing non-empty string 'name'");
    expect_parse_error("{\n  \"axes\": {},\n  \"name\":\n    \"\"\n}", 4, "'name'");
    expect_parse_error("{\n  \"name\": 7\n}", 2, "'name'");
}

static void test_unknown_dtype(void **state)
{
    (void)state;
    /* the line of input 'y' (not of 'x', nor of its dtype member) */
    expect_load_error(FIX "/bad_dtype.json", 9, "'y': unknown dtype 'float4_e2m1'");
    expect_parse_error(
        "{\"name\": \"n\", \"axes\": {},\n \"inputs\": {\n  \"a\": {\"shape\": null, \"dtype\": \"float32\"},\n"
        "  \"b\": {\"shape\": null}},\n \"outputs\": {}}",
        4, "'b': missing string 'dtype'");
}

static void test_undeclared_axis(void **state)
{
    (void)state;
    expect_load_error(FIX "/undeclared_axis.json", 13, "'lse': shape entry 1 names no declared axis (heads)");
    expect_parse_error("{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\n"
                       "  \"a\": {\"shape\": [\"n\", 3], \"dtype\": \"float32\"}},\n \"outputs\": {}}",
                       3, "'a': shape entry 1");
}

static void test_const_axis_without_value(void **state)
{
    (void)state;
    expect_load_error(FIX "/const_no_value.json", 5, "axis 'd': a const axis needs an integer 'value'");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": {\n  \"n\": {\"type\": \"var\"},\n  \"c\": {\"type\": \"const\", "
                       "\"value\": -1}}}",
                       4, "axis 'c'");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": {\n  \"c\": {\"type\": \"const\", \"value\": 2.0}}}", 3,
                       "axis 'c'");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": {\n\n  \"k\": {\"type\": \"variable\"}}}", 4,
                       "axis 'k': 'type' must be");
}

static void test_output_shape_null(void **state)
{
    (void)state;
    expect_load_error(FIX "/output_scalar.json", 11, "output 'total' must be a tensor");
}

static void test_input_output_clash(void **state)
{
    (void)state;
    /* the line of the output named like an input */
    expect_load_error(FIX "/name_clash.json", 12, "'state' is both an input and an output");
}

static void test_duplicate_key(void **state)
{
    (void)state;
    /* the second "x" */
    expect_load_error(FIX "/duplicate_key.json", 9, "duplicate");
}

static void test_structure_errors(void **state)
{
    (void)state;
    expect_parse_error("\n[1, 2]", 2, "must be a JSON object");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": [\"n\"]}", 2, "'axes' must be an object");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": {},\n \"outputs\": {}}", 1,
                       "'inputs' must be a non-empty object");
    expect_parse_error("{\"name\": \"n\",\n \"axes\": {},\n \"inputs\": {},\n \"outputs\": {}}", 3,
                       "'inputs' must be a non-empty");
    expect_parse_error("{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\"a\": {\"shape\": "
                       "null, \"dtype\": \"int8\"}},\n"
                       " \"outputs\": {}}",
                       3, "'outputs' must be a non-empty");
    expect_parse_error("{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\n \"a\": [\"n\"]}}",
                       3, "'a' must be an object");
    expect_parse_error("{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\n"
                       " \"a\": {\"shape\": \"n\", \"dtype\": \"int8\"}}}",
                       3, "'shape' must be null or a list");
    expect_parse_error(
        "{\"name\": \"n\", \"axes\": {\"n\": {\"type\": \"var\"}},\n \"inputs\": {\n"
        " \"a\": {\"shape\": [\"n\",\"n\",\"n\",\"n\",\"n\",\"n\",\"n\",\"n\",\"n\"], \"dtype\": \"int8\"}}}",
        3, "at most 8");
}

/* An axis whose name holds '/' must still be found: the pointer has to escape it (~1). */
static void test_axis_name_with_slash(void **state)
{
    (void)state;
    expect_parse_error(
        "{\"name\": \"n\",\n \"axes\": {\n  \"n\": {\"type\": \"var\"},\n  \"a/b\": {\"type\": \"const\"}}}", 4,
        "axis 'a/b'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gdn_decode),
        cmocka_unit_test(test_gdn_prefill),
        cmocka_unit_test(test_dsa_indexer),
        cmocka_unit_test(test_dsa_attention),
        cmocka_unit_test(test_moe),
        cmocka_unit_test(test_tiny_fixture),
        cmocka_unit_test(test_minimal_parse),
        cmocka_unit_test(test_fresh_rows),
        cmocka_unit_test(test_invalid_json),
        cmocka_unit_test(test_missing_name),
        cmocka_unit_test(test_unknown_dtype),
        cmocka_unit_test(test_undeclared_axis),
        cmocka_unit_test(test_const_axis_without_value),
        cmocka_unit_test(test_output_shape_null),
        cmocka_unit_test(test_input_output_clash),
        cmocka_unit_test(test_duplicate_key),
        cmocka_unit_test(test_structure_errors),
        cmocka_unit_test(test_axis_name_with_slash),
        cmocka_unit_test(test_cost_model),
        cmocka_unit_test(test_cost_errors),
        cmocka_unit_test(test_moe_check_and_cost),
        cmocka_unit_test(test_check_and_from_inputs_errors),
        cmocka_unit_test(test_reference_declarations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_workload.c - workloads: the four shipped JSONL files load against their definitions
 * with the right axes and descriptors; shapes, axes strings and filters; every malformed line
 * fails with "FILE:LINE: problem" and leaves the set as it was. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "definition.h"
#include "traceset.h"
#include "workload.h"

#define ROOT TOP_SRCDIR "/workloads"
#define FIX TOP_SRCDIR "/tests/fixtures/model"

#define GDN "gdn_decode_qk4_v8_d128_k_last"
#define DSA_INDEXER "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
#define DSA_ATTN "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
#define MOE "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"

#define GDN_DEF ROOT "/definitions/gdn/" GDN ".json"
#define GDN_WL ROOT "/workloads/gdn/" GDN ".jsonl"

/* One gdn_decode JSONL line (with its newline) for UUID, the axes members and the inputs members. */
#define GDN_LINE(uuid, axes, inputs)                                                                                   \
    "{\"definition\": \"" GDN "\", \"solution\": null, \"workload\": {\"uuid\": \"" uuid "\", \"axes\": {" axes        \
    "}, \"inputs\": {" inputs "}}, \"evaluation\": null}\n"
#define GDN_OK(uuid) GDN_LINE(uuid, "\"batch_size\": 2", "\"scale\": {\"type\": \"scalar\", \"value\": 0.5}")

/* ---- a fresh directory under /tmp per test -------------------------------------------- */

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-wl-XXXXXX");
}

static int teardown(void **state)
{
    return testutil_tmpdir_teardown(state);
}

/* Writes TEXT to DIR/NAME; returns the path (static buffer, valid until the next call). */
static const char *write_file(const char *dir, const char *name, const char *text)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    testutil_write_text(path, text);
    return path;
}

static definition *load_def(const char *path)
{
    kwb_error err = {{0}};
    definition *d = definition_load(path, &err);
    if (!d)
        fail_msg("%s: %s", path, err.msg);
    return d;
}

static void load_ok(const char *path, const definition *d, workload_set *set)
{
    kwb_error err = {{0}};
    if (workload_load_file(path, d, set, &err) != 0)
        fail_msg("%s did not load: %s", path, err.msg);
}

/* ---- the shipped files ------------------------------------------------------------------ */

static void test_gdn_decode_shipped(void **state)
{
    (void)state;
    definition *d = load_def(GDN_DEF);
    workload_set set = {0};
    load_ok(GDN_WL, d, &set);
    assert_int_equal(set.count, 54);

    /* batch sizes, in file order: 1 x10, 4 x8, 8 x7, 16 x7, 32 x7, 48 x7, 64 x8 */
    const int64_t sizes[] = {1, 4, 8, 16, 32, 48, 64};
    const int counts[] = {10, 8, 7, 7, 7, 7, 8};
    int k = 0;
    for (int s = 0; s < 7; s++)
        for (int j = 0; j < counts[s]; j++, k++) {
            assert_int_equal(set.items[k].axis_value[0], sizes[s]);
            assert_int_equal(set.items[k].line, k + 1);
        }
    assert_int_equal(k, 54);

    assert_string_equal(set.items[0].uuid, "901e5104-dccb-4c3f-ae13-ef4d31a4d456");
    assert_string_equal(set.items[18].uuid, "2640f1e3-4b02-4041-bdc1-59a28e0b9954");
    assert_string_equal(set.items[53].uuid, "42963acb-f2f5-4ada-9205-3931cd26fa44");

    for (int i = 0; i < set.count; i++) {
        const workload *w = &set.items[i];
        /* const axes filled in from the definition */
        assert_int_equal(w->axis_value[1], 1);   /* seq_len */
        assert_int_equal(w->axis_value[2], 4);   /* num_q_heads */
        assert_int_equal(w->axis_value[3], 4);   /* num_k_heads */
        assert_int_equal(w->axis_value[4], 8);   /* num_v_heads */
        assert_int_equal(w->axis_value[5], 128); /* head_size */
        assert_int_equal(w->ninputs, 9);
        for (int j = 0; j < 8; j++)
            assert_int_equal(w->inputs[j].kind, WL_RANDOM);
        assert_int_equal(w->inputs[8].kind, WL_SCALAR);
        assert_true(w->inputs[8].f == 0.08838834764831845);
        assert_int_equal(w->inputs[8].i, 0);
        assert_null(w->inputs[8].path);
        /* the JSON object as read */
        assert_non_null(w->json);
        assert_string_equal(json_string_value(json_object_get(w->json, "uuid")), w->uuid);
    }
    workload_set_free(&set);
    assert_int_equal(set.count, 0);
    assert_null(set.items);
    definition_free(d);
}

static void test_shape_and_numel(void **state)
{
    (void)state;
    definition *d = load_def(GDN_DEF);
    workload_set set = {0};
    load_ok(GDN_WL, d, &set);
    const workload *w = &set.items[18]; /* line 19, batch_size 8 */
    assert_int_equal(w->axis_value[0], 8);

    int64_t shape[KWB_MAX_RANK];
    workload_shape(w, &d->inputs[0], shape); /* q */
    assert_int_equal(shape[0], 8);
    assert_int_equal(shape[1], 1);
    assert_int_equal(shape[2], 4);
    assert_int_equal(shape[3], 128);
    assert_int_equal(workload_numel(w, &d->inputs[0]), 8 * 1 * 4 * 128);
    workload_shape(w, &d->inputs[3], shape); /* state */
    assert_int_equal(shape[0], 8);
    assert_int_equal(shape[1], 8);
    assert_int_equal(shape[2], 128);
    assert_int_equal(shape[3], 128);
    assert_int_equal(workload_numel(w, &d->inputs[3]), 8 * 8 * 128 * 128);
    assert_int_equal(workload_numel(w, &d->inputs[4]), 8);  /* A_log [num_v_heads] */
    assert_int_equal(workload_numel(w, &d->inputs[5]), 64); /* a [b, 1, 8] */
    assert_int_equal(workload_numel(w, &d->inputs[8]), 1);  /* scale is a scalar */
    workload_shape(w, &d->outputs[0], shape);               /* output */
    assert_int_equal(shape[0], 8);
    assert_int_equal(shape[2], 8);
    assert_int_equal(workload_numel(w, &d->outputs[0]), 8 * 1 * 8 * 128);
    assert_int_equal(workload_numel(&set.items[53], &d->outputs[1]), 64 * 8 * 128 * 128);
    workload_set_free(&set);
    definition_free(d);
}

static void test_axes_string(void **state)
{
    (void)state;
    definition *d = load_def(GDN_DEF);
    workload_set set = {0};
    load_ok(GDN_WL, d, &set);
    char buf[128];
    workload_axes_string(&set.items[18], d, buf, sizeof buf);
    assert_string_equal(buf, "batch_size=8");
    workload_axes_string(&set.items[53], d, buf, sizeof buf);
    assert_string_equal(buf, "batch_size=64");
    workload_set_free(&set);
    definition_free(d);

    d = load_def(ROOT "/definitions/dsa_paged/" DSA_INDEXER ".json");
    load_ok(ROOT "/workloads/dsa_paged/" DSA_INDEXER ".jsonl", d, &set);
    workload_axes_string(&set.items[0], d, buf, sizeof buf);
    assert_string_equal(buf, "batch_size=1,max_num_pages=1,num_pages=11923");
    workload_axes_string(&set.items[127], d, buf, sizeof buf);
    assert_string_equal(buf, "batch_size=25,max_num_pages=30,num_pages=11923");
    /* a short buffer is cut, NUL-terminated, and nothing is written past it */
    memset(buf, 'Z', sizeof buf);
    workload_axes_string(&set.items[0], d, buf, 16);
    assert_string_equal(buf, "batch_size=1,ma");
    for (size_t i = 16; i < sizeof buf; i++)
        assert_int_equal(buf[i], 'Z');
    memset(buf, 'Z', sizeof buf);
    workload_axes_string(&set.items[0], d, buf, 12);
    assert_string_equal(buf, "batch_size=");
    assert_int_equal(buf[12], 'Z');
    workload_set_free(&set);
    definition_free(d);
}

/* Loads the shipped gdn_decode workloads, filters by FILTER, checks the lines kept. */
static void expect_filter(const definition *d, const char *filter, int n, const int *lines)
{
    workload_set set = {0};
    load_ok(GDN_WL, d, &set);
    int kept = workload_set_filter(&set, d, filter);
    if (kept != n)
        fail_msg("filter \"%s\" kept %d, expected %d", filter, kept, n);
    assert_int_equal(set.count, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(set.items[i].line, lines[i]);
    workload_set_free(&set);
}

static void test_filters(void **state)
{
    (void)state;
    definition *d = load_def(GDN_DEF);
    expect_filter(d, "901e5104", 1, (const int[]){1});
    expect_filter(d, "42963acb-f2f5-4ada-9205-3931cd26fa44", 1, (const int[]){54});
    expect_filter(d, "-41", 6, (const int[]){8, 14, 15, 32, 34, 40});
    expect_filter(d, "batch_size=8", 7, (const int[]){19, 20, 21, 22, 23, 24, 25});
    expect_filter(d, "batch_size=8,seq_len=1", 7, (const int[]){19, 20, 21, 22, 23, 24, 25});
    expect_filter(d, "seq_len=1,batch_size=64", 8, (const int[]){47, 48, 49, 50, 51, 52, 53, 54});
    expect_filter(d, "batch_size=8,seq_len=2", 0, NULL);
    expect_filter(d, "batch_size=6", 0, NULL); /* 6 is not a prefix match of 64 */
    expect_filter(d, "batch_size=2", 0, NULL);
    expect_filter(d, "heads=4", 0, NULL); /* unknown axis */
    expect_filter(d, "num_heads=1", 0, NULL);
    expect_filter(d, "batch_size=8,heads=1", 0, NULL);
    expect_filter(d, "no-such-uuid", 0, NULL);
    /* alternatives: a regime's representatives in one filter */
    expect_filter(d, "901e5104|42963acb", 2, (const int[]){1, 54});
    expect_filter(d, "batch_size=8|901e5104|no-such", 8, (const int[]){1, 19, 20, 21, 22, 23, 24, 25});
    expect_filter(d, "|", 0, NULL);
    definition_free(d);
}

static void test_traceset(void **state)
{
    (void)state;
    kwb_error err = {{0}};
    definition *d = NULL;
    workload_set set = {0};
    if (traceset_load(ROOT, GDN, &d, &set, &err) != 0)
        fail_msg("traceset_load: %s", err.msg);
    assert_string_equal(d->name, GDN);
    assert_string_equal(d->path, GDN_DEF);
    assert_int_equal(set.count, 54);
    workload_set_free(&set);
    definition_free(d);

    char *p = traceset_workloads_path(ROOT, MOE, &err);
    assert_string_equal(p, ROOT "/workloads/moe/" MOE ".jsonl");
    free(p);
    d = NULL;
    assert_int_equal(traceset_load(ROOT, "no_such_definition", &d, &set, &err), -1);
    assert_null(d);
    assert_int_equal(set.count, 0);
    assert_non_null(strstr(err.msg, "no_such_definition.json"));

    p = traceset_blob_path("/r", "./blob/a/b.safetensors");
    assert_string_equal(p, "/r/blob/a/b.safetensors");
    free(p);
    p = traceset_blob_path("/r", "blob/a/b.safetensors");
    assert_string_equal(p, "/r/blob/a/b.safetensors");
    free(p);
}

static void test_dsa_indexer_shipped(void **state)
{
    (void)state;
    definition *d = load_def(ROOT "/definitions/dsa_paged/" DSA_INDEXER ".json");
    workload_set set = {0};
    load_ok(ROOT "/workloads/dsa_paged/" DSA_INDEXER ".jsonl", d, &set);
    assert_int_equal(set.count, 128);
    const workload *w = &set.items[0];
    assert_string_equal(w->uuid, "30cecff1-7ea4-474b-90fc-7f4a87206d8e");
    assert_int_equal(w->axis_value[definition_axis_index(d, "batch_size")], 1);
    assert_int_equal(w->axis_value[definition_axis_index(d, "max_num_pages")], 1);
    assert_int_equal(w->axis_value[definition_axis_index(d, "num_pages")], 11923);
    assert_int_equal(w->axis_value[definition_axis_index(d, "head_dim_with_scale")], 132);
    assert_int_equal(w->inputs[0].kind, WL_RANDOM);
    assert_int_equal(w->inputs[1].kind, WL_RANDOM);
    assert_int_equal(w->inputs[2].kind, WL_RANDOM);
    assert_int_equal(w->inputs[3].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[3].path, "blob/workloads/dsa_paged/" DSA_INDEXER "/" DSA_INDEXER
                                           "_30cecff1-7ea4-474b-90fc-7f4a87206d8e.safetensors");
    assert_string_equal(w->inputs[3].key, "seq_lens");
    assert_int_equal(w->inputs[4].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[4].path, w->inputs[3].path);
    assert_string_equal(w->inputs[4].key, "block_table");
    int n8 = workload_set_filter(&set, d, "batch_size=8");
    assert_int_equal(n8, 22);
    workload_set_free(&set);
    definition_free(d);
}

static void test_dsa_attention_shipped(void **state)
{
    (void)state;
    definition *d = load_def(ROOT "/definitions/dsa_paged/" DSA_ATTN ".json");
    workload_set set = {0};
    load_ok(ROOT "/workloads/dsa_paged/" DSA_ATTN ".jsonl", d, &set);
    assert_int_equal(set.count, 23);
    const workload *w = &set.items[0];
    assert_string_equal(w->uuid, "0c23b10c7b7645719517828c12eaa1d2");
    assert_int_equal(w->axis_value[0], 1);    /* num_tokens */
    assert_int_equal(w->axis_value[6], 8462); /* num_pages */
    assert_int_equal(w->axis_value[5], 2048); /* topk, const */
    assert_int_equal(w->inputs[4].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[4].path, "./blob/workloads/dsa_paged/" DSA_ATTN "/" DSA_ATTN
                                           "_0c23b10c7b7645719517828c12eaa1d2.safetensors");
    assert_string_equal(w->inputs[4].key, "sparse_indices");
    assert_int_equal(w->inputs[5].kind, WL_SCALAR);
    assert_true(w->inputs[5].f == 0.1352337788608801);
    assert_string_equal(set.items[22].uuid, "2207f0fdc96347c59d106e4976cfad57");
    assert_int_equal(set.items[22].axis_value[0], 7);
    workload_set_free(&set);
    definition_free(d);
}

static void test_moe_shipped(void **state)
{
    (void)state;
    definition *d = load_def(ROOT "/definitions/moe/" MOE ".json");
    workload_set set = {0};
    load_ok(ROOT "/workloads/moe/" MOE ".jsonl", d, &set);
    assert_int_equal(set.count, 19);
    const int64_t seq[] = {7, 1, 32, 80, 901, 16, 15, 14, 14107, 11948, 62, 59, 58, 57, 56, 55, 54, 53, 52};
    for (int i = 0; i < 19; i++) {
        assert_int_equal(set.items[i].axis_value[0], seq[i]);
        assert_int_equal(set.items[i].axis_value[3], 7168); /* hidden_size */
        assert_true(set.items[i].inputs[9].f == 2.5);       /* routed_scaling_factor */
    }
    const workload *w = &set.items[0];
    assert_string_equal(w->uuid, "b8f4f012-a32e-4356-b4e1-7665b3d598af");
    /* in definition order, though the file lists routing_bias after hidden_states_scale */
    const char *file = "./blob/workloads/moe/" MOE "/" MOE "_547d24f37f554e2fab107fb57a41e73e.safetensors";
    assert_int_equal(w->inputs[0].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[0].path, file);
    assert_string_equal(w->inputs[0].key, "routing_logits");
    assert_int_equal(w->inputs[1].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[1].path, file);
    assert_string_equal(w->inputs[1].key, "routing_bias");
    for (int j = 2; j < 8; j++)
        assert_int_equal(w->inputs[j].kind, WL_RANDOM);
    assert_int_equal(w->inputs[8].kind, WL_SCALAR);
    assert_int_equal(w->inputs[8].i, 192);
    assert_true(w->inputs[8].f == 192.0);
    workload_set_free(&set);
    definition_free(d);
}

/* ---- valid files made here ---------------------------------------------------------------- */

static void test_blank_and_foreign_lines(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    const char *text = "\n"                                                                            /* 1 */
        GDN_OK("u-a")                                                                                  /* 2 */
        "   \t  \n"                                                                                    /* 3 */
        "{\"definition\": \"other_def\", \"workload\": {\"uuid\": \"u-a\", \"axes\": {\"zz\": -1}}}\n" /* 4 */
        GDN_LINE("u-b", "\"batch_size\": 16, \"seq_len\": 1", "")                                      /* 5 */
        "\r\n"                                                                                         /* 6 */
        "{\"definition\": \"other_def\"}\n"                                                            /* 7 */
        GDN_LINE("u-c", "\"batch_size\": 0", "\"q\": {\"type\": \"random\"}"); /* 8, no newline after */
    const char *path = write_file(dir, "mixed.jsonl", text);
    workload_set set = {0};
    load_ok(path, d, &set);
    assert_int_equal(set.count, 3);
    assert_string_equal(set.items[0].uuid, "u-a");
    assert_int_equal(set.items[0].line, 2);
    assert_int_equal(set.items[0].axis_value[0], 2);
    assert_int_equal(set.items[0].inputs[8].kind, WL_SCALAR);
    assert_true(set.items[0].inputs[8].f == 0.5);
    assert_string_equal(set.items[1].uuid, "u-b");
    assert_int_equal(set.items[1].line, 5);
    assert_int_equal(set.items[1].axis_value[0], 16);
    assert_int_equal(set.items[1].axis_value[1], 1);
    assert_int_equal(set.items[1].inputs[8].kind, WL_RANDOM); /* a missing input is random */
    assert_string_equal(set.items[2].uuid, "u-c");
    assert_int_equal(set.items[2].line, 8);
    assert_int_equal(set.items[2].axis_value[0], 0);

    /* a second file appends */
    path = write_file(dir, "more.jsonl", GDN_OK("u-d") "\r\n" GDN_OK("u-e"));
    load_ok(path, d, &set);
    assert_int_equal(set.count, 5);
    assert_string_equal(set.items[3].uuid, "u-d");
    assert_int_equal(set.items[3].line, 1);
    assert_string_equal(set.items[4].uuid, "u-e");
    assert_int_equal(set.items[4].line, 3);

    /* an empty file and a file of other definitions only add nothing */
    path = write_file(dir, "empty.jsonl", "");
    load_ok(path, d, &set);
    path = write_file(dir, "foreign.jsonl", "{\"definition\": \"x\", \"workload\": 5}\n\n");
    load_ok(path, d, &set);
    assert_int_equal(set.count, 5);
    workload_set_free(&set);
    definition_free(d);
}

/* Scalars: int, real, bool, on the fixture definition tiny.json (alpha f32, flag bool). */
static void test_scalar_values(void **state)
{
    const char *dir = *state;
    definition *d = load_def(FIX "/definitions/tiny.json");
    const char *text =
        "{\"definition\": \"tiny_axpy\", \"workload\": {\"uuid\": \"s1\", \"axes\": {\"n\": 3, \"m\": 0},"
        " \"inputs\": {\"alpha\": {\"type\": \"scalar\", \"value\": 3}, \"flag\": {\"type\": \"scalar\", \"value\": "
        "true}}}}\n"
        "{\"definition\": \"tiny_axpy\", \"workload\": {\"uuid\": \"s2\", \"axes\": {\"n\": 5, \"m\": 7, \"d\": 4},"
        " \"inputs\": {\"alpha\": {\"type\": \"scalar\", \"value\": -2.75}, \"flag\": {\"type\": \"scalar\", "
        "\"value\": false},"
        " \"y\": {\"type\": \"safetensors\", \"path\": \"./blob/y.safetensors\", \"tensor_key\": \"y.w\"}}}}\n"
        "{\"definition\": \"tiny_axpy\", \"workload\": {\"uuid\": \"s3\", \"axes\": {\"n\": 1, \"m\": 1},"
        " \"inputs\": {\"alpha\": {\"type\": \"scalar\", \"value\": 1e300}, \"flag\": {\"type\": \"scalar\", "
        "\"value\": -1e19}}}}\n";
    const char *path = write_file(dir, "tiny.jsonl", text);
    workload_set set = {0};
    kwb_error err = {{0}};
    int rc = workload_load_file(path, d, &set, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(set.count, 3);
    const workload *w = &set.items[0];
    assert_int_equal(w->axis_value[0], 3);
    assert_int_equal(w->axis_value[1], 4);
    assert_int_equal(w->axis_value[2], 0);
    assert_int_equal(w->inputs[2].kind, WL_SCALAR);
    assert_int_equal(w->inputs[2].i, 3);
    assert_true(w->inputs[2].f == 3.0);
    assert_int_equal(w->inputs[3].kind, WL_SCALAR);
    assert_int_equal(w->inputs[3].i, 1);
    assert_true(w->inputs[3].f == 1.0);
    w = &set.items[1];
    assert_int_equal(w->axis_value[2], 7);
    assert_true(w->inputs[2].f == -2.75);
    assert_int_equal(w->inputs[2].i, -2);
    assert_int_equal(w->inputs[3].i, 0);
    assert_int_equal(w->inputs[1].kind, WL_SAFETENSORS);
    assert_string_equal(w->inputs[1].path, "./blob/y.safetensors");
    assert_string_equal(w->inputs[1].key, "y.w");
    char buf[64];
    workload_axes_string(w, d, buf, sizeof buf);
    assert_string_equal(buf, "n=5,m=7");
    int64_t shape[KWB_MAX_RANK];
    workload_shape(w, &d->inputs[0], shape);
    assert_int_equal(shape[0], 5);
    assert_int_equal(shape[1], 4);
    assert_int_equal(workload_numel(w, &d->inputs[4]), 1); /* rank 0 */
    /* reals beyond int64 keep their value and saturate as integers (the cast was undefined) */
    w = &set.items[2];
    assert_true(w->inputs[2].f == 1e300);
    assert_true(w->inputs[2].i == INT64_MAX);
    assert_true(w->inputs[3].f == -1e19);
    assert_true(w->inputs[3].i == INT64_MIN);
    workload_set_free(&set);
    definition_free(d);
}

/* workload_parse directly: a label without a line, and *w untouched on failure. */
static void test_parse_direct(void **state)
{
    (void)state;
    definition *d = load_def(GDN_DEF);
    kwb_error err = {{0}};
    workload w;
    memset(&w, 0xAB, sizeof w);
    workload before = w;
    json_t *s = json_string("x");
    assert_int_equal(workload_parse(s, d, "lbl", 0, &w, &err), -1);
    assert_string_equal(err.msg, "lbl: 'workload' must be an object {uuid, axes, inputs}");
    assert_memory_equal(&w, &before, sizeof w);
    json_decref(s);

    json_t *o =
        json_pack("{s:s, s:{s:i}, s:{s:{s:s}}}", "uuid", "p1", "axes", "batch_size", 3, "inputs", "q", "type", "zeros");
    assert_int_equal(workload_parse(o, d, "lbl", 9, &w, &err), -1);
    assert_string_equal(err.msg, "lbl:9: input 'q': unknown descriptor type 'zeros' (random, scalar, safetensors)");
    assert_memory_equal(&w, &before, sizeof w);
    json_decref(o);

    o = json_pack("{s:s, s:{s:i}}", "uuid", "p2", "axes", "batch_size", 3);
    assert_int_equal(workload_parse(o, d, "lbl", 0, &w, &err), 0);
    assert_string_equal(w.uuid, "p2");
    assert_int_equal(w.line, 0);
    assert_int_equal(w.axis_value[0], 3);
    assert_ptr_equal(w.json, o);
    json_decref(o); /* w holds its own reference */
    assert_string_equal(json_string_value(json_object_get(w.json, "uuid")), "p2");
    workload_free(&w);
    definition_free(d);
}

/* ---- malformed files ------------------------------------------------------------------ */

/* Writes TEXT to DIR/bad.jsonl and loads it into a set that already holds two workloads
 * (u-pre-1, u-pre-2); expects "PATH:LINE: ..." containing WANT, and the set unchanged. */
static void expect_file_error(const char *dir, const definition *d, const char *text, int line, const char *want)
{
    workload_set set = {0};
    load_ok(write_file(dir, "pre.jsonl", GDN_OK("u-pre-1") GDN_OK("u-pre-2")), d, &set);
    assert_int_equal(set.count, 2);
    char path[4096];
    snprintf(path, sizeof path, "%s", write_file(dir, "bad.jsonl", text));
    kwb_error err = {{0}};
    if (workload_load_file(path, d, &set, &err) == 0)
        fail_msg("loaded, expected an error at line %d containing \"%s\"", line, want);
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s:%d: ", path, line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
        fail_msg("message \"%s\" does not start with \"%s\"", err.msg, prefix);
    if (!strstr(err.msg + strlen(prefix), want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
    /* nothing from the bad file stays */
    assert_int_equal(set.count, 2);
    assert_string_equal(set.items[0].uuid, "u-pre-1");
    assert_string_equal(set.items[1].uuid, "u-pre-2");
    assert_int_equal(set.items[1].line, 2);
    workload_set_free(&set);
}

static void test_bad_json_line(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    expect_file_error(dir, d,
                      GDN_OK("b1") GDN_OK("b2") "{\"definition\": \"" GDN
                                                "\", \"workload\": {\"uuid\": \"b3\",,}}\n" GDN_OK("b4") GDN_OK("b5"),
                      3, "invalid JSON");
    /* a truncated last line */
    expect_file_error(dir, d, GDN_OK("b1") "\n{\"definition\": \"" GDN "\"", 3, "invalid JSON");
    /* a valid JSON value that is not a trace */
    expect_file_error(dir, d, GDN_OK("b1") "[1, 2]\n", 2, "needs a string 'definition'");
    expect_file_error(dir, d, GDN_OK("b1") "{\"workload\": {}}\n", 2, "needs a string 'definition'");
    expect_file_error(dir, d, "{\"definition\": \"" GDN "\", \"workload\": [1]}\n", 1, "'workload' must be an object");
    expect_file_error(dir, d, GDN_LINE("", "\"batch_size\": 1", ""), 1, "non-empty string 'uuid'");
    definition_free(d);
}

static void test_bad_axes(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    expect_file_error(dir, d, GDN_OK("a1") GDN_LINE("a2", "\"batch_size\": 2, \"heads\": 3", ""), 2,
                      "axis 'heads' is not an axis of " GDN);
    expect_file_error(dir, d, GDN_OK("a1") GDN_OK("a2") GDN_LINE("a3", "", ""), 3,
                      "var axis 'batch_size' has no value");
    expect_file_error(dir, d, "{\"definition\": \"" GDN "\", \"workload\": {\"uuid\": \"a1\", \"inputs\": {}}}\n", 1,
                      "var axis 'batch_size' has no value");
    expect_file_error(dir, d, GDN_LINE("a1", "\"batch_size\": 2, \"num_v_heads\": 16", ""), 1,
                      "axis 'num_v_heads' is const 8 in " GDN ", not 16");
    expect_file_error(dir, d, GDN_LINE("a1", "\"batch_size\": -1", ""), 1, "axis 'batch_size' must be an integer >= 0");
    expect_file_error(dir, d, GDN_LINE("a1", "\"batch_size\": 2.5", ""), 1, "axis 'batch_size' must be an integer");
    expect_file_error(dir, d, "{\"definition\": \"" GDN "\", \"workload\": {\"uuid\": \"a1\", \"axes\": [2]}}\n", 1,
                      "'axes' must be an object");
    definition_free(d);
}

static void test_bad_inputs(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    expect_file_error(dir, d, GDN_OK("i1") GDN_LINE("i2", "\"batch_size\": 2", "\"x\": {\"type\": \"random\"}"), 2,
                      "input 'x' is not an input of " GDN);
    expect_file_error(dir, d, GDN_LINE("i1", "\"batch_size\": 2", "\"q\": {\"type\": \"zeros\"}"), 1,
                      "input 'q': unknown descriptor type 'zeros'");
    expect_file_error(dir, d, GDN_LINE("i1", "\"batch_size\": 2", "\"q\": {\"kind\": \"random\"}"), 1,
                      "input 'q': descriptor needs a string 'type'");
    expect_file_error(dir, d, GDN_LINE("i1", "\"batch_size\": 2", "\"q\": \"random\""), 1,
                      "input 'q': descriptor needs a string 'type'");
    expect_file_error(
        dir, d,
        GDN_OK("i1") "\n" GDN_LINE("i2", "\"batch_size\": 2",
                                   "\"k\": {\"type\": \"safetensors\", \"path\": \"blob/k.safetensors\"}"),
        3, "input 'k': safetensors needs 'path' and 'tensor_key'");
    expect_file_error(dir, d,
                      GDN_LINE("i1", "\"batch_size\": 2", "\"k\": {\"type\": \"safetensors\", \"tensor_key\": \"k\"}"),
                      1, "input 'k': safetensors needs 'path' and 'tensor_key'");
    expect_file_error(
        dir, d,
        GDN_LINE("i1", "\"batch_size\": 2",
                 "\"k\": {\"type\": \"safetensors\", \"path\": \"/etc/k.safetensors\", \"tensor_key\": \"k\"}"),
        1, "input 'k': path '/etc/k.safetensors' must be relative to the TraceSet root");
    expect_file_error(
        dir, d,
        GDN_LINE("i1", "\"batch_size\": 2",
                 "\"k\": {\"type\": \"safetensors\", \"path\": \"blob/../../k.safetensors\", \"tensor_key\": \"k\"}"),
        1, "input 'k': path 'blob/../../k.safetensors' must be relative");
    expect_file_error(dir, d, GDN_LINE("i1", "\"batch_size\": 2", "\"q\": {\"type\": \"scalar\", \"value\": 1.0}"), 1,
                      "input 'q' is a tensor; a scalar descriptor is for shape-null inputs");
    expect_file_error(dir, d,
                      GDN_LINE("i1", "\"batch_size\": 2", "\"scale\": {\"type\": \"scalar\", \"value\": \"0.1\"}"), 1,
                      "input 'scale': scalar 'value' must be a number or bool");
    expect_file_error(dir, d, GDN_LINE("i1", "\"batch_size\": 2", "\"scale\": {\"type\": \"scalar\"}"), 1,
                      "input 'scale': scalar 'value' must be a number or bool");
    expect_file_error(dir, d,
                      "{\"definition\": \"" GDN "\", \"workload\": {\"uuid\": \"a1\", \"axes\": {\"batch_size\": 1},"
                      " \"inputs\": [1]}}\n",
                      1, "'inputs' must be an object");
    definition_free(d);
}

static void test_duplicate_uuid(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    /* names both lines: the repeat (4) in the prefix and the first (2) in the text */
    expect_file_error(dir, d, GDN_OK("d0") GDN_OK("dup") "\n" GDN_OK("dup") GDN_OK("d5"), 4,
                      "uuid 'dup' repeats line 2");
    /* a key repeated inside one line */
    expect_file_error(dir, d, "\n{\"definition\": \"" GDN "\", \"workload\": {\"uuid\": \"x\", \"uuid\": \"y\"}}\n", 2,
                      "invalid JSON");
    definition_free(d);
}

/* Only a '..' path component climbs out of the root; "a..b" is an ordinary name (as the
 * solution loader already treats it). */
static void test_dots_inside_a_name(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    const char *path =
        write_file(dir, "dots.jsonl",
                   GDN_LINE("t1", "\"batch_size\": 2",
                            "\"k\": {\"type\": \"safetensors\", \"path\": \"blob/v1..v2/k..safetensors\","
                            " \"tensor_key\": \"k\"}"));
    workload_set set = {0};
    kwb_error err = {{0}};
    int rc = workload_load_file(path, d, &set, &err);
    workload_set_free(&set); /* a failed load may leave set.items allocated with count 0 */
    definition_free(d);
    if (rc != 0)
        fail_msg("%s", err.msg);
    set = (workload_set){0};
    d = load_def(GDN_DEF);
    load_ok(path, d, &set);
    assert_int_equal(set.count, 1);
    assert_string_equal(set.items[0].inputs[1].path, "blob/v1..v2/k..safetensors");
    workload_set_free(&set);
    definition_free(d);
}

static void test_missing_file(void **state)
{
    const char *dir = *state;
    definition *d = load_def(GDN_DEF);
    char path[4096];
    snprintf(path, sizeof path, "%s/absent.jsonl", dir);
    workload_set set = {0};
    kwb_error err = {{0}};
    assert_int_equal(workload_load_file(path, d, &set, &err), -1);
    char want[4200];
    snprintf(want, sizeof want, "%s: cannot read: No such file or directory", path);
    assert_string_equal(err.msg, want);
    assert_int_equal(set.count, 0);
    definition_free(d);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gdn_decode_shipped),
        cmocka_unit_test(test_shape_and_numel),
        cmocka_unit_test(test_axes_string),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_traceset),
        cmocka_unit_test(test_dsa_indexer_shipped),
        cmocka_unit_test(test_dsa_attention_shipped),
        cmocka_unit_test(test_moe_shipped),
        T(test_blank_and_foreign_lines),
        T(test_scalar_values),
        cmocka_unit_test(test_parse_direct),
        T(test_bad_json_line),
        T(test_bad_axes),
        T(test_bad_inputs),
        T(test_duplicate_uuid),
        T(test_dots_inside_a_name),
        T(test_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_safetensors.c - the safetensors reader and writer: round trips, a hand-made file,
 * every malformed case with its message, and clean failure of the writer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dtype.h"
#include "safetensors.h"

/* ---- fixture: a fresh directory under /tmp per test --------------------------------- */

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-st-XXXXXX");
}

static int teardown(void **state)
{
    return testutil_tmpdir_teardown(state);
}

/* Writes a file made by hand: the little-endian length of header, header, then data. */
static void craft(const char *path, const char *header, const void *data, size_t ndata)
{
    size_t hn = strlen(header);
    unsigned char *buf = malloc(8 + hn + ndata + 1);
    assert_non_null(buf);
    for (int i = 0; i < 8; i++)
        buf[i] = (unsigned char)((uint64_t)hn >> (8 * i));
    memcpy(buf + 8, header, hn);
    if (ndata)
        memcpy(buf + 8 + hn, data, ndata);
    testutil_write_file(path, buf, 8 + hn + ndata);
    free(buf);
}

/* Opening path fails with a message "PATH: ..." that contains want. */
static void expect_open_error(const char *path, const char *want)
{
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    if (st)
        fail_msg("%s opened, expected an error containing \"%s\"", path, want);
    if (strncmp(err.msg, path, strlen(path)) != 0 || strncmp(err.msg + strlen(path), ": ", 2) != 0)
        fail_msg("message \"%s\" does not start with \"%s: \"", err.msg, path);
    if (!strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_null(strchr(err.msg, '\n'));
}

/* Crafts a file in the test directory from header and data, expects an error containing want. */
static void expect_crafted_error(void **state, const char *header, const void *data, size_t n, const char *want)
{
    char *path = testutil_path(*state, "bad.safetensors");
    craft(path, header, data, n);
    expect_open_error(path, want);
    free(path);
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 37u + seed * 101u + 7u);
}

/* ---- round trips -------------------------------------------------------------------- */

static void check_tensor(const safetensors *st, const st_write_tensor *w)
{
    const st_tensor *t = safetensors_find(st, w->name);
    assert_non_null(t);
    assert_string_equal(t->name, w->name);
    assert_int_equal(t->dtype, w->dtype);
    assert_int_equal(t->rank, w->rank);
    uint64_t numel = 1;
    for (int i = 0; i < w->rank; i++) {
        assert_int_equal(t->shape[i], w->shape[i]);
        numel *= (uint64_t)w->shape[i];
    }
    assert_int_equal(t->nbytes, numel * dtype_size(w->dtype));
    if (t->nbytes)
        assert_memory_equal(safetensors_data(st, t), w->data, t->nbytes);
}

static void roundtrip(const char *path, const st_write_tensor *w, size_t n)
{
    kwb_error err = {{0}};
    if (safetensors_write(path, w, n, &err) != 0)
        fail_msg("write failed: %s", err.msg);
    safetensors *st = safetensors_open(path, &err);
    if (!st)
        fail_msg("open failed: %s", err.msg);
    assert_string_equal(st->path, path);
    assert_int_equal(st->count, n);
    assert_int_equal(st->data_start % 8, 0);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(st->tensors[i].name, w[i].name); /* header order kept */
        check_tensor(st, &w[i]);
    }
    safetensors_close(st);
}

static void test_roundtrip_every_dtype(void **state)
{
    static const int64_t shape[2] = {3, 5};
    unsigned char data[DTYPE_COUNT][15 * 8];
    char names[DTYPE_COUNT][32];
    st_write_tensor w[DTYPE_COUNT];
    for (int t = 0; t < DTYPE_COUNT; t++) {
        fill_pattern(data[t], sizeof data[t], (unsigned)t);
        snprintf(names[t], sizeof names[t], "t_%s", dtype_safetensors_name((kwb_dtype)t));
        w[t] = (st_write_tensor){names[t], (kwb_dtype)t, 2, shape, data[t]};
    }
    char *path = testutil_path(*state, "all.safetensors");
    roundtrip(path, w, DTYPE_COUNT);
    /* and each dtype alone, the only tensor of its file */
    for (int t = 0; t < DTYPE_COUNT; t++)
        roundtrip(path, &w[t], 1);
    assert_int_equal(testutil_count_entries(*state), 1);
    free(path);
}

static void test_roundtrip_rank0_rank3_empty(void **state)
{
    static const int64_t cube[3] = {2, 3, 4}, none[2] = {0, 5};
    unsigned char scalar[4], big[2 * 3 * 4 * 2];
    fill_pattern(scalar, sizeof scalar, 1);
    fill_pattern(big, sizeof big, 2);
    st_write_tensor w[] = {
        {"scalar", KWB_F32, 0, NULL, scalar},
        {"cube", KWB_I16, 3, cube, big},
        {"empty", KWB_I64, 2, none, NULL},
        {"flag", KWB_BOOL, 0, NULL, "\x01"},
    };
    char *path = testutil_path(*state, "ranks.safetensors");
    roundtrip(path, w, 4);
    free(path);
}

static void test_roundtrip_no_tensors(void **state)
{
    char *path = testutil_path(*state, "none.safetensors");
    roundtrip(path, NULL, 0);
    free(path);
}

/* The writer's exact bytes: compact JSON in the given key order, padded with spaces. */
static void test_writer_exact_bytes(void **state)
{
    static const int64_t two[1] = {2};
    static const float x[2] = {1.0f, -2.0f};
    st_write_tensor w[] = {{"x", KWB_F32, 1, two, x}};
    char *path = testutil_path(*state, "x.safetensors");
    kwb_error err = {{0}};
    assert_int_equal(safetensors_write(path, w, 1, &err), 0);

    static const char header[] = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}  ";
    unsigned char want[8 + 56 + 8] = {56, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(strlen(header), 56);
    memcpy(want + 8, header, 56);
    memcpy(want + 64, "\x00\x00\x80\x3f\x00\x00\x00\xc0", 8);
    unsigned char got[sizeof want + 1];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(got, 1, sizeof got, f), sizeof want);
    fclose(f);
    assert_memory_equal(got, want, sizeof want);
    free(path);
}

static void test_writer_key_order(void **state)
{
    static const int64_t one[1] = {1};
    st_write_tensor w[] = {
        {"zeta", KWB_I8, 1, one, "a"},
        {"alpha", KWB_I8, 1, one, "b"},
        {"mid", KWB_I8, 1, one, "c"},
    };
    char *path = testutil_path(*state, "order.safetensors");
    kwb_error err = {{0}};
    assert_int_equal(safetensors_write(path, w, 3, &err), 0);
    safetensors *st = safetensors_open(path, &err);
    assert_non_null(st);
    const char *h = (const char *)st->bytes + 8;
    const char *z = strstr(h, "\"zeta\""), *a = strstr(h, "\"alpha\""), *m = strstr(h, "\"mid\"");
    assert_true(z && a && m && z < a && a < m);
    assert_int_equal(safetensors_find(st, "zeta")->offset, 0);
    assert_int_equal(safetensors_find(st, "alpha")->offset, 1);
    assert_int_equal(safetensors_find(st, "mid")->offset, 2);
    assert_memory_equal(safetensors_data(st, safetensors_find(st, "mid")), "c", 1);
    safetensors_close(st);
    free(path);
}

/* Metadata: the first entry of the header, string to string; the reader skips it. */
static void test_writer_metadata(void **state)
{
    static const int64_t one[1] = {1};
    st_write_tensor w[] = {{"t", KWB_I8, 1, one, "z"}};
    const char *meta[] = {"workload", "w-1", "seed", "7"};
    char *path = testutil_path(*state, "meta.safetensors");
    kwb_error err = {{0}};
    assert_int_equal(safetensors_write_meta(path, w, 1, meta, 2, &err), 0);
    safetensors *st = safetensors_open(path, &err);
    assert_non_null(st);
    assert_int_equal(st->count, 1);
    assert_memory_equal(safetensors_data(st, safetensors_find(st, "t")), "z", 1);
    static const char head[] = "{\"__metadata__\":{\"workload\":\"w-1\",\"seed\":\"7\"},\"t\":";
    assert_memory_equal(st->bytes + 8, head, strlen(head));
    safetensors_close(st);

    const char *bad[] = {"k", NULL};
    assert_int_equal(safetensors_write_meta(path, w, 1, bad, 1, &err), -1);
    assert_non_null(strstr(err.msg, "metadata entry 0"));
    free(path);
}

/* Writing over an existing file replaces it and leaves no temporary behind. */
static void test_write_replaces(void **state)
{
    static const int64_t one[1] = {1};
    char *path = testutil_path(*state, "r.safetensors");
    testutil_write_file(path, "old junk", 8);
    st_write_tensor w[] = {{"v", KWB_I32, 1, one, "\x2a\x00\x00\x00"}};
    roundtrip(path, w, 1);
    assert_int_equal(testutil_count_entries(*state), 1);
    free(path);
}

/* ---- a file made byte by byte, independent of the writer ---------------------------- */

static void test_crafted_file(void **state)
{
    /* Unpadded header (data starts at an odd offset), metadata in the middle, tensors listed
     * out of offset order, a rank-0 BF16, spaces and newlines in the JSON. */
    static const char header[] = "{ \"b\": {\"dtype\": \"I32\", \"shape\": [2], \"data_offsets\": [2, 10]},\n"
                                 "  \"__metadata__\": {\"format\": \"pt\"},\n"
                                 "  \"a\": {\"data_offsets\": [0, 2], \"shape\": [], \"dtype\": \"BF16\"},\n"
                                 "  \"c\": {\"dtype\": \"F8_E4M3\", \"shape\": [1, 3], \"data_offsets\": [10, 13]} }";
    static const unsigned char data[] = {
        0x80, 0x3f,                                     /* a: bf16 1.0 */
        0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, /* b: int32 1, -2 */
        0x38, 0x40, 0xc8,                               /* c: e4m3 1.0, 2.0, -4.0 */
    };
    char *path = testutil_path(*state, "crafted.safetensors");
    craft(path, header, data, sizeof data);
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    if (!st)
        fail_msg("open failed: %s", err.msg);
    assert_int_equal(st->size, 8 + strlen(header) + sizeof data);
    assert_int_equal(st->data_start, 8 + strlen(header));
    assert_int_equal(st->count, 3);
    assert_string_equal(st->tensors[0].name, "b");
    assert_string_equal(st->tensors[1].name, "a");
    assert_string_equal(st->tensors[2].name, "c");
    assert_null(safetensors_find(st, "__metadata__"));
    assert_null(safetensors_find(st, "d"));

    const st_tensor *a = safetensors_find(st, "a"), *b = safetensors_find(st, "b"), *c = safetensors_find(st, "c");
    assert_int_equal(a->dtype, KWB_BF16);
    assert_int_equal(a->rank, 0);
    assert_int_equal(a->offset, 0);
    assert_int_equal(a->nbytes, 2);
    assert_true(dtype_load(safetensors_data(st, a), KWB_BF16, 0) == 1.0);

    assert_int_equal(b->dtype, KWB_I32);
    assert_int_equal(b->rank, 1);
    assert_int_equal(b->shape[0], 2);
    assert_int_equal(b->offset, 2);
    assert_int_equal(b->nbytes, 8);
    int32_t v[2];
    memcpy(v, safetensors_data(st, b), sizeof v);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], -2);

    assert_int_equal(c->dtype, KWB_F8_E4M3);
    assert_int_equal(c->rank, 2);
    assert_int_equal(c->shape[0], 1);
    assert_int_equal(c->shape[1], 3);
    assert_true(dtype_load(safetensors_data(st, c), KWB_F8_E4M3, 2) == -4.0);
    assert_ptr_equal(safetensors_data(st, c), st->bytes + st->data_start + 10);
    safetensors_close(st);
    free(path);
}

static void test_crafted_empty_header(void **state)
{
    char *path = testutil_path(*state, "empty.safetensors");
    craft(path, "{}", NULL, 0);
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    assert_non_null(st);
    assert_int_equal(st->count, 0);
    assert_int_equal(st->data_start, 10);
    safetensors_close(st);
    safetensors_close(NULL);
    free(path);
}

/* ---- malformed files ---------------------------------------------------------------- */

static void test_missing_file(void **state)
{
    char *path = testutil_path(*state, "absent.safetensors");
    expect_open_error(path, "cannot open: No such file or directory");
    expect_open_error(*state, "not a regular file");
    free(path);
}

static void test_too_short(void **state)
{
    char *path = testutil_path(*state, "short.safetensors");
    testutil_write_file(path, "\x02\x00\x00\x00\x00", 5);
    expect_open_error(path, "file too short (5 bytes)");
    testutil_write_file(path, "", 0);
    expect_open_error(path, "file too short (0 bytes)");
    free(path);
}

static void test_header_beyond_file(void **state)
{
    char *path = testutil_path(*state, "long.safetensors");
    testutil_write_file(path, "\x64\x00\x00\x00\x00\x00\x00\x00{}        ", 18);
    expect_open_error(path, "header length 100 goes beyond the end of the file (18 bytes)");
    free(path);
}

static void test_header_absurd(void **state)
{
    char *path = testutil_path(*state, "absurd.safetensors");
    /* 100,000,001 = 0x05f5e101 */
    testutil_write_file(path, "\x01\xe1\xf5\x05\x00\x00\x00\x00{}", 10);
    expect_open_error(path, "header length 100000001 is absurd (over 100 MB)");
    testutil_write_file(path, "\xff\xff\xff\xff\xff\xff\xff\xff{}", 10);
    expect_open_error(path, "header length 18446744073709551615 is absurd");
    free(path);
}

static void test_header_not_json(void **state)
{
    expect_crafted_error(state, "{\"a\": {\"dtype\": ", NULL, 0, "header is not JSON: ");
    expect_crafted_error(state, "hello", NULL, 0, "header is not JSON: '[' or '{' expected near 'hello'");
    expect_crafted_error(state, "", NULL, 0, "header is not JSON: ");
    expect_crafted_error(state, "{\"a\": 1, \"a\": 2}", NULL, 0, "duplicate object key");
    expect_crafted_error(state, "[1, 2]", NULL, 0, "header is not a JSON object");
}

static void test_bad_utf8_header(void **state)
{
    expect_crafted_error(state, "{\"\xff\": {}}", NULL, 0, "header is not JSON: ");
}

static void test_unknown_dtype(void **state)
{
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"F128\", \"shape\": [1], \"data_offsets\": [0, 16]}}",
                         "0123456789abcdef", 16, "tensor 'x': unknown or unsupported dtype 'F128'");
    expect_crafted_error(state, "{\"x\": {\"dtype\": 4, \"shape\": [1], \"data_offsets\": [0, 4]}}", "0123", 4,
                         "tensor 'x': \"dtype\" is missing or not a string");
    expect_crafted_error(state, "{\"x\": {\"shape\": [1], \"data_offsets\": [0, 4]}}", "0123", 4,
                         "tensor 'x': \"dtype\" is missing or not a string");
}

static void test_rank_too_large(void **state)
{
    expect_crafted_error(state,
                         "{\"x\": {\"dtype\": \"I8\", \"shape\": [1,1,1,1,1,1,1,1,1], \"data_offsets\": [0, 1]}}", "0",
                         1, "tensor 'x': rank 9 is over the maximum of 8");
    /* rank 8 exactly is fine */
    char *path = testutil_path(*state, "rank8.safetensors");
    craft(path, "{\"x\": {\"dtype\": \"I8\", \"shape\": [1,1,1,1,1,1,1,2], \"data_offsets\": [0, 2]}}", "01", 2);
    kwb_error err = {{0}};
    safetensors *st = safetensors_open(path, &err);
    assert_non_null(st);
    assert_int_equal(st->tensors[0].rank, 8);
    assert_int_equal(st->tensors[0].shape[7], 2);
    safetensors_close(st);
    free(path);
}

static void test_bad_shape(void **state)
{
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"I8\", \"shape\": [2, -2], \"data_offsets\": [0, 0]}}", NULL, 0,
                         "tensor 'x': shape dimension 1 is negative (-2)");
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"I8\", \"shape\": [2.0], \"data_offsets\": [0, 2]}}", "01", 2,
                         "tensor 'x': shape dimension 0 is not an integer");
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"I8\", \"shape\": 2, \"data_offsets\": [0, 2]}}", "01", 2,
                         "tensor 'x': \"shape\" is missing or not an array");
    expect_crafted_error(state,
                         "{\"x\": {\"dtype\": \"I64\", \"shape\": [4294967296, 4294967296], "
                         "\"data_offsets\": [0, 0]}}",
                         NULL, 0, "tensor 'x': shape [4294967296, 4294967296] of I64 is too large");
    expect_crafted_error(state, "{\"x\": [1, 2]}", NULL, 0, "tensor 'x': not a JSON object");
}

static void test_offsets_out_of_order(void **state)
{
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"I32\", \"shape\": [1], \"data_offsets\": [8, 4]}}",
                         "0123456789ab", 12, "tensor 'x': data_offsets [8, 4] are out of order");
}

static void test_offsets_beyond_file(void **state)
{
    expect_crafted_error(state, "{\"x\": {\"dtype\": \"I32\", \"shape\": [4], \"data_offsets\": [0, 16]}}",
                         "0123456789ab", 12,
                         "tensor 'x': data_offsets [0, 16] go beyond the end of the file "
                         "(the data section holds 12 bytes)");
}

static void test_offsets_malformed(void **state)
{
    static const char *const headers[] = {
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1]}}",
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [0]}}",
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [0, 1, 2]}}",
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [-1, 0]}}",
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [0, \"1\"]}}",
        "{\"x\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": {\"begin\": 0}}}",
    };
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
        expect_crafted_error(state, headers[i], "0", 1,
                             "tensor 'x': \"data_offsets\" must be two non-negative integers");
}

static void test_size_mismatch(void **state)
{
    char *dir = testutil_path(*state, "blob");
    assert_int_equal(mkdir(dir, 0700), 0);
    char *path = testutil_path(dir, "x.safetensors");
    craft(path, "{\"seq_lens\": {\"dtype\": \"I64\", \"shape\": [4], \"data_offsets\": [0, 12]}}", "0123456789ab", 12);
    kwb_error err = {{0}};
    assert_null(safetensors_open(path, &err));
    char want[4096];
    snprintf(want, sizeof want,
             "%s: tensor 'seq_lens': data_offsets [0, 12] hold 12 bytes, "
             "shape [4] of I64 needs 32",
             path);
    assert_string_equal(err.msg, want);
    /* rank 0 needs one element; rank 2 shown with its dims */
    expect_crafted_error(state, "{\"s\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [0, 2]}}", "01", 2,
                         "tensor 's': data_offsets [0, 2] hold 2 bytes, shape [] of F32 needs 4");
    expect_crafted_error(state, "{\"m\": {\"dtype\": \"BF16\", \"shape\": [2, 3], \"data_offsets\": [0, 6]}}", "012345",
                         6, "tensor 'm': data_offsets [0, 6] hold 6 bytes, shape [2, 3] of BF16 needs 12");
    free(path);
    free(dir);
}

static void test_overlap(void **state)
{
    expect_crafted_error(state,
                         "{\"a\": {\"dtype\": \"I32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
                         " \"b\": {\"dtype\": \"I32\", \"shape\": [2], \"data_offsets\": [4, 12]}}",
                         "0123456789ab", 12, "tensors 'a' [0, 8] and 'b' [4, 12] overlap");
    /* empty tensors overlap nothing; a tensor inside a larger one is caught */
    expect_crafted_error(state,
                         "{\"a\": {\"dtype\": \"I32\", \"shape\": [3], \"data_offsets\": [0, 12]},"
                         " \"e\": {\"dtype\": \"I32\", \"shape\": [0], \"data_offsets\": [4, 4]},"
                         " \"b\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [4, 5]},"
                         " \"c\": {\"dtype\": \"I8\", \"shape\": [1], \"data_offsets\": [8, 9]}}",
                         "0123456789ab", 12, "tensors 'a' [0, 12] and 'b' [4, 5] overlap");
}

static void test_lfs_pointer(void **state)
{
    static const char pointer[] = "version https://git-lfs.github.com/spec/v1\n"
                                  "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                                  "size 12345\n";
    char *path = testutil_path(*state, "lfs.safetensors");
    testutil_write_file(path, pointer, strlen(pointer));
    kwb_error err = {{0}};
    assert_null(safetensors_open(path, &err));
    char want[4096];
    snprintf(want, sizeof want,
             "%s: a Git LFS pointer, not the tensor data: run 'git lfs pull' "
             "in the dataset",
             path);
    assert_string_equal(err.msg, want);
    free(path);
}

/* ---- the writer failing ------------------------------------------------------------- */

static void expect_write_error(const char *path, const st_write_tensor *w, size_t n, const char *want)
{
    kwb_error err = {{0}};
    assert_int_equal(safetensors_write(path, w, n, &err), -1);
    if (strncmp(err.msg, path, strlen(path)) != 0 || !strstr(err.msg, want))
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_write_missing_directory(void **state)
{
    static const int64_t one[1] = {1};
    st_write_tensor w[] = {{"v", KWB_I8, 1, one, "x"}};
    char *path = testutil_path(*state, "no/such/dir/x.safetensors");
    expect_write_error(path, w, 1, "cannot create");
    expect_write_error(path, w, 1, "No such file or directory");
    assert_int_equal(testutil_count_entries(*state), 0);
    free(path);
}

/* The rename fails (PATH is a non-empty directory): the temporary file is removed. */
static void test_write_rename_fails(void **state)
{
    static const int64_t one[1] = {1};
    st_write_tensor w[] = {{"v", KWB_I8, 1, one, "x"}};
    char *path = testutil_path(*state, "occupied");
    assert_int_equal(mkdir(path, 0700), 0);
    char *inner = testutil_path(path, "keep");
    testutil_write_file(inner, "k", 1);
    expect_write_error(path, w, 1, "cannot rename");
    assert_int_equal(testutil_count_entries(*state), 1);
    assert_int_equal(testutil_count_entries(path), 1);
    free(inner);
    free(path);
}

static void test_write_read_only_directory(void **state)
{
    if (geteuid() == 0)
        skip(); /* root writes anywhere */
    static const int64_t one[1] = {1};
    st_write_tensor w[] = {{"v", KWB_I8, 1, one, "x"}};
    char *dir = testutil_path(*state, "ro");
    assert_int_equal(mkdir(dir, 0500), 0);
    char *path = testutil_path(dir, "x.safetensors");
    expect_write_error(path, w, 1, "Permission denied");
    assert_int_equal(testutil_count_entries(dir), 0);
    free(path);
    free(dir);
}

static void test_write_bad_tensors(void **state)
{
    static const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, neg[2] = {2, -1}, one[1] = {1};
    static const int64_t huge[2] = {INT64_MAX, 4};
    char *path = testutil_path(*state, "bad.safetensors");
    st_write_tensor rank9[] = {{"r", KWB_I8, 9, nine, "x"}};
    st_write_tensor negdim[] = {{"n", KWB_I8, 2, neg, "x"}};
    st_write_tensor dup[] = {{"d", KWB_I8, 1, one, "x"}, {"d", KWB_I8, 1, one, "y"}};
    st_write_tensor meta[] = {{"__metadata__", KWB_I8, 1, one, "x"}};
    st_write_tensor nodata[] = {{"z", KWB_I8, 1, one, NULL}};
    st_write_tensor badtype[] = {{"t", (kwb_dtype)DTYPE_COUNT, 1, one, "x"}};
    st_write_tensor noname[] = {{NULL, KWB_I8, 1, one, "x"}};
    st_write_tensor toobig[] = {{"h", KWB_I8, 2, huge, "x"}};
    st_write_tensor badutf8[] = {{"\xc3(", KWB_I8, 1, one, "x"}};
    expect_write_error(path, rank9, 1, "tensor 'r': invalid rank 9");
    expect_write_error(path, negdim, 1, "tensor 'n': shape dimension 1 is negative (-1)");
    expect_write_error(path, dup, 2, "tensor 'd' appears twice");
    expect_write_error(path, meta, 1, "'__metadata__' is reserved");
    expect_write_error(path, nodata, 1, "tensor 'z': no data");
    expect_write_error(path, badtype, 1, "invalid dtype 10");
    expect_write_error(path, noname, 1, "a tensor has no name");
    expect_write_error(path, toobig, 1, "tensor 'h': shape is too large");
    expect_write_error(path, badutf8, 1, "not valid UTF-8");
    assert_int_equal(testutil_count_entries(*state), 0);
    free(path);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_roundtrip_every_dtype),
        T(test_roundtrip_rank0_rank3_empty),
        T(test_roundtrip_no_tensors),
        T(test_writer_exact_bytes),
        T(test_writer_key_order),
        T(test_writer_metadata),
        T(test_write_replaces),
        T(test_crafted_file),
        T(test_crafted_empty_header),
        T(test_missing_file),
        T(test_too_short),
        T(test_header_beyond_file),
        T(test_header_absurd),
        T(test_header_not_json),
        T(test_bad_utf8_header),
        T(test_unknown_dtype),
        T(test_rank_too_large),
        T(test_bad_shape),
        T(test_offsets_out_of_order),
        T(test_offsets_beyond_file),
        T(test_offsets_malformed),
        T(test_size_mismatch),
        T(test_overlap),
        T(test_lfs_pointer),
        T(test_write_missing_directory),
        T(test_write_rename_fails),
        T(test_write_read_only_directory),
        T(test_write_bad_tensors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

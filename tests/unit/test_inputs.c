/* test_inputs.c - inputs made on a device are read back only when asked for: inputs_host gives
 * the values inputs_make made, bit for bit, even after a call overwrote the device's copy (made
 * again in scratch memory, the call's damage left for inputs_changed to see); inputs_restore
 * puts them back; inputs_refill's values are read back afresh; inputs_host_some reads back only
 * the inputs it is asked for; an input declared "fresh_rows" is renewed only in the rows its index
 * names, with the values a whole fill of that trial gives them. Run on the cpu device, which has
 * digests as the GPU does. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <jansson.h>

#include "definition.h"
#include "dtype.h"
#include "safetensors.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "workload.h"

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define ROOT TOP_SRCDIR "/workloads"
#define DEF_PATH ROOT "/definitions/gdn/gdn_decode_qk4_v8_d128_k_last.json"

typedef struct fixture {
    definition *d;
    workload w;
    json_t *wj;
    device *dev;
} fixture;

static int setup(void **state)
{
    kwb_error err = {{0}};
    fixture *f = calloc(1, sizeof *f);
    f->d = definition_load(DEF_PATH, &err);
    assert_non_null(f->d);
    f->wj = json_pack("{s:s, s:{s:i}, s:{s:{s:s, s:f}}}", "uuid", "u-b2", "axes", "batch_size", 2, "inputs", "scale",
                      "type", "scalar", "value", 0.5);
    assert_int_equal(workload_parse(f->wj, f->d, "test", 0, &f->w, &err), 0);
    f->dev = device_cpu_open(NULL, &err);
    assert_non_null(f->dev);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    f->dev->ops->close(f->dev);
    workload_free(&f->w);
    json_decref(f->wj);
    definition_free(f->d);
    free(f);
    return 0;
}

/* The device copy of every tensor input of IN, concatenated (the caller frees it). */
static unsigned char *device_bytes(const fixture *f, const trial_inputs *in, size_t *total)
{
    *total = 0;
    for (int i = 0; i < in->n; i++)
        *total += in->bufs[i].nbytes;
    unsigned char *all = malloc(*total + 1), *p = all;
    kwb_error err = {{0}};
    for (int i = 0; i < in->n; i++) {
        assert_int_equal(f->dev->ops->download(f->dev, p, in->bufs[i].dev, in->bufs[i].nbytes, &err), 0);
        p += in->bufs[i].nbytes;
    }
    return all;
}

/* The host copies of IN, concatenated, as device_bytes. */
static unsigned char *host_bytes(const trial_inputs *in)
{
    size_t total = 0;
    for (int i = 0; i < in->n; i++)
        total += in->bufs[i].nbytes;
    unsigned char *all = malloc(total + 1), *p = all;
    for (int i = 0; i < in->n; i++) {
        memcpy(p, in->bufs[i].host, in->bufs[i].nbytes);
        p += in->bufs[i].nbytes;
    }
    return all;
}

/* The largest tensor input of IN (the one a call damages below). */
static int largest(const trial_inputs *in)
{
    int best = 0;
    for (int i = 1; i < in->n; i++)
        if (in->bufs[i].nbytes > in->bufs[best].nbytes)
            best = i;
    return best;
}

/* Makes IN for (SEED, TRIAL), blobs under ROOT, and returns the device bytes of a twin made alike
 * (*N of them): the pristine values, whatever later happens to IN. */
static unsigned char *make_with_pristine_at(const fixture *f, const char *root, trial_inputs *in, uint64_t seed,
                                            int trial, size_t *n)
{
    kwb_error err = {{0}};
    trial_inputs twin = {0};
    assert_int_equal(inputs_make(in, f->dev, f->d, &f->w, root, seed, trial, &err), 0);
    assert_int_equal(inputs_make(&twin, f->dev, f->d, &f->w, root, seed, trial, &err), 0);
    unsigned char *pristine = device_bytes(f, &twin, n);
    inputs_free(&twin, f->dev);
    return pristine;
}

/* make_with_pristine_at with the shipped dataset's blobs. */
static unsigned char *make_with_pristine(const fixture *f, trial_inputs *in, uint64_t seed, int trial, size_t *n)
{
    return make_with_pristine_at(f, ROOT, in, seed, trial, n);
}

/* A call's damage: the first BYTES of input K's device copy set to FILL. */
static void damage(const fixture *f, trial_inputs *in, int k, size_t bytes, int fill)
{
    kwb_error err = {{0}};
    unsigned char *junk = malloc(bytes);
    memset(junk, fill, bytes);
    assert_int_equal(f->dev->ops->upload(f->dev, in->bufs[k].dev, junk, bytes, &err), 0);
    free(junk);
}

static void test_host_copy_read_back_when_asked(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    trial_inputs in = {0};
    assert_int_equal(inputs_make(&in, f->dev, f->d, &f->w, ROOT, 11, 3, &err), 0);
    int stale = 0;
    for (int i = 0; i < in.n; i++)
        stale += in.bufs[i].host_stale;
    assert_true(stale > 0); /* generated inputs are not read back when made */
    size_t n;
    unsigned char *dev = device_bytes(f, &in, &n);
    assert_int_equal(inputs_host(&in, f->dev, &err), 0);
    for (int i = 0; i < in.n; i++)
        assert_int_equal(in.bufs[i].host_stale, 0);
    unsigned char *host = host_bytes(&in);
    assert_memory_equal(host, dev, n);
    free(host);
    free(dev);

    /* refilled for another trial: the host copy follows the new values */
    assert_int_equal(inputs_refill(&in, f->dev, f->d, &f->w, 11, 4, &err), 0);
    dev = device_bytes(f, &in, &n);
    assert_int_equal(inputs_host(&in, f->dev, &err), 0);
    host = host_bytes(&in);
    assert_memory_equal(host, dev, n);
    free(host);
    free(dev);
    inputs_free(&in, f->dev);
}

/* inputs_host_some reads back only the inputs it is asked for (the cost model's "reads"): the
 * others stay stale, and a later inputs_host brings them. */
static void test_some_read_back(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    trial_inputs in = {0};
    assert_int_equal(inputs_make(&in, f->dev, f->d, &f->w, ROOT, 5, 1, &err), 0);
    int k = largest(&in), stale_before = 0, stale_after = 0;
    assert_true(in.bufs[k].host_stale);
    for (int i = 0; i < in.n; i++)
        stale_before += i != k && in.bufs[i].host_stale;
    assert_true(stale_before > 0); /* another generated input, left on the device below */
    unsigned char *only = calloc((size_t)in.n, 1);
    only[k] = 1;
    assert_int_equal(inputs_host_some(&in, f->dev, only, &err), 0);
    assert_int_equal(in.bufs[k].host_stale, 0);
    unsigned char *want = malloc(in.bufs[k].nbytes);
    assert_int_equal(f->dev->ops->download(f->dev, want, in.bufs[k].dev, in.bufs[k].nbytes, &err), 0);
    assert_memory_equal(in.bufs[k].host, want, in.bufs[k].nbytes);
    for (int i = 0; i < in.n; i++)
        stale_after += i != k && in.bufs[i].host_stale;
    assert_int_equal(stale_after, stale_before);
    assert_int_equal(inputs_host(&in, f->dev, &err), 0);
    for (int i = 0; i < in.n; i++)
        assert_int_equal(in.bufs[i].host_stale, 0);
    free(want);
    free(only);
    inputs_free(&in, f->dev);
}

static void test_damaged_inputs_seen_and_restored(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    trial_inputs in = {0};
    size_t n;
    unsigned char *pristine = make_with_pristine(f, &in, 11, 3, &n);
    const char *changed = NULL;
    assert_int_equal(inputs_changed(&in, f->dev, &changed, &err), 0);

    /* a call writes into an input before anything was read back */
    int k = largest(&in);
    damage(f, &in, k, in.bufs[k].nbytes / 2, 0x5a);

    assert_int_equal(inputs_host(&in, f->dev, &err), 0); /* the pristine values, not the damage */
    unsigned char *host = host_bytes(&in);
    assert_memory_equal(host, pristine, n);
    free(host);
    assert_int_equal(inputs_changed(&in, f->dev, &changed, &err), 1);
    assert_string_equal(changed, in.args[k].name);

    assert_int_equal(inputs_restore(&in, f->dev, &err), 0);
    assert_int_equal(inputs_changed(&in, f->dev, &changed, &err), 0);
    unsigned char *dev = device_bytes(f, &in, &n);
    assert_memory_equal(dev, pristine, n);
    free(dev);
    free(pristine);
    inputs_free(&in, f->dev);
}

static void test_restore_without_reading_back(void **state)
{
    fixture *f = *state;
    kwb_error err = {{0}};
    trial_inputs in = {0};
    size_t n;
    unsigned char *pristine = make_with_pristine(f, &in, 5, 1, &n);
    int k = largest(&in);
    assert_true(in.bufs[k].host_stale);
    damage(f, &in, k, in.bufs[k].nbytes, 0);
    assert_int_equal(inputs_restore(&in, f->dev, &err), 0); /* made again where it lives */
    unsigned char *dev = device_bytes(f, &in, &n);
    assert_memory_equal(dev, pristine, n);
    free(dev);
    free(pristine);
    inputs_free(&in, f->dev);
}

/* A definition whose cache (P rows of C bfloat16) is renewed by fresh sets only in the rows its
 * index (B int32) names; q, of the dtype's draw, is renewed whole. EXTRA: more kwb inputs. */
#define ROWS_DEF(EXTRA)                                                                                                \
    "{\"name\": \"rows\", \"axes\": {\"P\": {\"type\": \"var\"}, \"C\": {\"type\": \"var\"}, "                         \
    "\"B\": {\"type\": \"var\"}}, \"inputs\": {\"cache\": {\"shape\": [\"P\", \"C\"], \"dtype\": \"bfloat16\"}, "      \
    "\"idx\": {\"shape\": [\"B\"], \"dtype\": \"int32\"}, \"q\": {\"shape\": [\"B\"], \"dtype\": \"float32\"}}, "      \
    "\"outputs\": {\"y\": {\"shape\": [\"B\"], \"dtype\": \"float32\"}}, "                                             \
    "\"kwb\": {\"inputs\": {\"cache\": {\"fresh_rows\": {\"index\": \"idx\"}}" EXTRA "}}}"
enum { ROWS_P = 6, ROWS_C = 16 };

/* Row R of the cache in device bytes ALL (device_bytes' order: cache first). */
static const unsigned char *cache_row(const unsigned char *all, int r)
{
    return all + (size_t)r * ROWS_C * 2;
}

/* F for definition TEXT and workload WJ (P = ROWS_P, C = ROWS_C, B = 4) on the cpu device. */
static void rows_fixture(fixture *f, const char *text, json_t *wj)
{
    kwb_error err = {{0}};
    memset(f, 0, sizeof *f);
    f->d = definition_parse(text, strlen(text), "rows", &err);
    if (!f->d)
        fail_msg("%s", err.msg);
    f->wj = wj;
    assert_int_equal(workload_parse(f->wj, f->d, "test", 0, &f->w, &err), 0);
    f->dev = device_cpu_open(NULL, &err);
    assert_non_null(f->dev);
}

static void rows_fixture_free(fixture *f)
{
    f->dev->ops->close(f->dev);
    workload_free(&f->w);
    json_decref(f->wj);
    definition_free(f->d);
}

/* IN's cache made again from its keys where a call damaged it: the host copy and a restore give
 * GOT (N bytes), the values before the damage. */
static void expect_remade(const fixture *f, trial_inputs *in, const unsigned char *got, size_t n)
{
    kwb_error err = {{0}};
    damage(f, in, 0, in->bufs[0].nbytes, 0x33);
    assert_int_equal(inputs_host(in, f->dev, &err), 0);
    unsigned char *host = host_bytes(in);
    assert_memory_equal(host, got, n);
    assert_int_equal(inputs_restore(in, f->dev, &err), 0);
    unsigned char *back = device_bytes(f, in, &n);
    assert_memory_equal(back, got, n);
    free(back);
    free(host);
}

/* A blob index: its rows get each trial's whole-fill values, the others keep trial 1's. */
static void test_fresh_rows_renewed(void **state)
{
    (void)state;
    kwb_error err = {{0}};
    char dir[] = "/tmp/kwb-test-rows-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/idx.safetensors", dir);
    const int32_t idx[4] = {4, -1, 1, 4}; /* rows 1 and 4; a padding -1 names none */
    const int64_t shape[1] = {4};
    st_write_tensor t = {"idx", KWB_I32, 1, shape, idx};
    assert_int_equal(safetensors_write(path, &t, 1, &err), 0);
    fixture f;
    rows_fixture(&f, ROWS_DEF(""),
                 json_pack("{s:s, s:{s:i, s:i, s:i}, s:{s:{s:s, s:s, s:s}}}", "uuid", "u-rows", "axes", "P", ROWS_P,
                           "C", ROWS_C, "B", 4, "inputs", "idx", "type", "safetensors", "path", "idx.safetensors",
                           "tensor_key", "idx"));
    trial_inputs in = {0};
    size_t n;
    unsigned char *base = make_with_pristine_at(&f, dir, &in, 7, 1, &n);
    for (int trial = 2; trial <= 3; trial++) {
        assert_int_equal(inputs_refill(&in, f.dev, f.d, &f.w, 7, trial, &err), 0);
        assert_int_equal(in.bufs[0].nrows, 2);
        trial_inputs whole = {0};
        unsigned char *want = make_with_pristine_at(&f, dir, &whole, 7, trial, &n), *got = device_bytes(&f, &in, &n);
        inputs_free(&whole, f.dev);
        for (int r = 0; r < ROWS_P; r++) /* named rows: the trial's whole fill; the others: trial 1's */
            assert_memory_equal(cache_row(got, r), cache_row(r == 1 || r == 4 ? want : base, r), ROWS_C * 2);
        assert_memory_not_equal(cache_row(got, 1), cache_row(base, 1), ROWS_C * 2);
        size_t q = in.bufs[0].nbytes + in.bufs[1].nbytes; /* q: renewed whole */
        assert_memory_equal(got + q, want + q, in.bufs[2].nbytes);
        expect_remade(&f, &in, got, n);
        free(got);
        free(want);
    }
    free(base);
    inputs_free(&in, f.dev);
    rows_fixture_free(&f);
    unlink(path);
    rmdir(dir);
}

/* An index made afresh with each set: the rows it names now hold the trial's whole-fill values
 * whether the refill renewed rows or (an earlier set's rows no longer named) the whole input, and
 * the values are made again exactly either way. */
static void test_fresh_rows_index_changes(void **state)
{
    (void)state;
    kwb_error err = {{0}};
    fixture f;
    rows_fixture(&f, ROWS_DEF(", \"idx\": {\"range\": [0, 5]}"),
                 json_pack("{s:s, s:{s:i, s:i, s:i}, s:{}}", "uuid", "u-rows2", "axes", "P", ROWS_P, "C", ROWS_C, "B",
                           4, "inputs"));
    trial_inputs in = {0};
    size_t n;
    free(make_with_pristine(&f, &in, 3, 1, &n));
    int by_rows = 0, whole_fills = 0;
    for (int trial = 2; trial <= 12; trial++) {
        assert_int_equal(inputs_refill(&in, f.dev, f.d, &f.w, 3, trial, &err), 0);
        by_rows += in.bufs[0].nrows > 0;
        whole_fills += in.bufs[0].nrows == 0;
        trial_inputs whole = {0};
        unsigned char *want = make_with_pristine(&f, &whole, 3, trial, &n), *got = device_bytes(&f, &in, &n);
        inputs_free(&whole, f.dev);
        const int32_t *idx = (const int32_t *)(want + in.bufs[0].nbytes);
        assert_memory_equal(got + in.bufs[0].nbytes, idx, in.bufs[1].nbytes); /* the index: made whole */
        for (int k = 0; k < 4; k++)
            assert_memory_equal(cache_row(got, idx[k]), cache_row(want, idx[k]), ROWS_C * 2);
        if (in.bufs[0].nrows == 0) /* a whole fill: every row is the trial's */
            assert_memory_equal(got, want, in.bufs[0].nbytes);
        expect_remade(&f, &in, got, n);
        free(got);
        free(want);
    }
    assert_true(by_rows > 0 && whole_fills > 0); /* both ways were taken */
    inputs_free(&in, f.dev);
    rows_fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_host_copy_read_back_when_asked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_some_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_damaged_inputs_seen_and_restored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restore_without_reading_back, setup, teardown),
        cmocka_unit_test(test_fresh_rows_renewed),
        cmocka_unit_test(test_fresh_rows_index_changes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

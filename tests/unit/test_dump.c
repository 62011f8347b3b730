/* test_dump.c - the runner's dump jobs (kwb dump), run in process on the cpu device: the
 * file holds, bit for bit, the inputs inputs_make gives for that seed and trial and the
 * outputs the registered reference computes from them, with the metadata; a uuid that
 * cannot name a file and a dump folder that is not one are refused, and nothing is left. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "definition.h"
#include "dtype.h"
#include "gdn_decode_args.h"
#include "protocol.h"
#include "refsel.h"
#include "runner/device.h"
#include "runner/inputs.h"
#include "runner/runner.h"
#include "safetensors.h"
#include "testutil.h"
#include "workload.h"

/* The C reference (its solution folder's entry point, compiled into this test). */
int kwb_ref_gdn_decode_qk4_v8_d128_k_last(const kwb_arg *args, int nargs, kwb_stream stream);

#ifndef TOP_SRCDIR
#error "TOP_SRCDIR must name the absolute source directory"
#endif

#define ROOT TOP_SRCDIR "/workloads"
#define DEF_PATH ROOT "/definitions/gdn/gdn_decode_qk4_v8_d128_k_last.json"

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-dump-XXXXXX");
}

static int teardown(void **state)
{
    return testutil_tmpdir_teardown(state);
}

static json_t *workload_json(const char *uuid, int batch, double scale)
{
    json_t *w = json_pack("{s:s, s:{s:i}, s:{s:{s:s, s:f}}}", "uuid", uuid, "axes", "batch_size", batch, "inputs",
                          "scale", "type", "scalar", "value", scale);
    assert_non_null(w);
    return w;
}

/* Runs a dump job for WOBJ into DUMP_DIR in this process, its events into a file in DIR;
 * returns runner_run's code and the events (the caller frees them). */
/* The definition's reference solution (its kwb.reference), built into kwb's cache (outside the
 * test's folder, whose entries the tests count): the runner holds none of its own. */
static refsel build_reference(void)
{
    kwb_error err = {{0}};
    definition *d = definition_load(DEF_PATH, &err);
    assert_non_null(d);
    build_options bo;
    build_options_default(&bo);
    bo.quiet = 1;
    refsel ref;
    if (refsel_prepare(NULL, d, "cpu", &bo, &ref, &err) != 0)
        fail_msg("reference: %s", err.msg);
    assert_non_null(ref.sol);
    build_options_free(&bo);
    definition_free(d);
    return ref;
}

static int run_dump_job_to(const char *dump_dir, const char *dir, json_t *wobj, uint64_t seed, int trial, char **events)
{
    refsel ref = build_reference();
    runner_job job;
    protocol_job_defaults(&job);
    job.reference = refsel_job_entry(&ref);
    job.sandbox_off = 1; /* in process: a sandbox would stay on for the next test's build */
    job.device = "cpu";
    job.definition_path = DEF_PATH;
    job.dataset_root = ROOT;
    job.workloads = json_pack("[o]", wobj);
    job.trials = 1;
    job.seed = seed;
    job.dump_dir = (char *)dump_dir;
    job.dump_trial = trial;
    char *line = protocol_job_encode(&job);
    json_decref(job.workloads);
    int jp[2];
    assert_int_equal(pipe(jp), 0);
    size_t len = strlen(line);
    assert_int_equal(write(jp[1], line, len), (ssize_t)len);
    assert_int_equal(write(jp[1], "\n", 1), 1);
    close(jp[1]);
    free(line);
    char *ev_path = testutil_path(dir, "events.jsonl");
    FILE *ev = fopen(ev_path, "w+");
    assert_non_null(ev);
    int rc = runner_run(jp[0], fileno(ev));
    close(jp[0]);
    fclose(ev);
    *events = testutil_read_file(ev_path, &len);
    unlink(ev_path);
    free(ev_path);
    refsel_free(&ref);
    return rc;
}

static int run_dump_job(const char *dir, json_t *wobj, uint64_t seed, int trial, char **events)
{
    return run_dump_job_to(dir, dir, wobj, seed, trial, events);
}

/* The __metadata__ object of the file at PATH (the caller decrefs it). */
static json_t *read_metadata(const char *path)
{
    size_t len;
    char *bytes = testutil_read_file(path, &len);
    assert_true(len > 8);
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--)
        n = n << 8 | (unsigned char)bytes[i];
    assert_true(n <= len - 8 && n % 8 == 0);
    json_t *root = json_loadb(bytes + 8, (size_t)n, 0, NULL);
    free(bytes);
    assert_non_null(root);
    const char *first = json_object_iter_key(json_object_iter(root));
    assert_string_equal(first, "__metadata__");
    json_t *meta = json_incref(json_object_get(root, "__metadata__"));
    json_decref(root);
    return meta;
}

static void assert_meta(json_t *meta, const char *key, const char *want)
{
    const char *got = json_string_value(json_object_get(meta, key));
    if (!got || strcmp(got, want) != 0)
        fail_msg("metadata '%s' is '%s', want '%s'", key, got ? got : "(none)", want);
}

/* Tensor NAME of ST has dtype, shape and bytes as given. */
static void assert_tensor(const safetensors *st, const char *name, kwb_dtype dtype, int rank, const int64_t *shape,
                          const void *bytes, size_t nbytes)
{
    const st_tensor *t = safetensors_find(st, name);
    if (!t)
        fail_msg("no tensor '%s' in the dump", name);
    assert_int_equal(t->dtype, dtype);
    assert_int_equal(t->rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(t->shape[i], shape[i]);
    assert_int_equal(t->nbytes, nbytes);
    if (memcmp(safetensors_data(st, t), bytes, nbytes) != 0)
        fail_msg("tensor '%s' differs from what the runner makes", name);
}

/* Every input of ST equals inputs_make's for (SEED, W, TRIAL); every output equals the
 * reference's on those inputs. */
static void assert_dump_matches(const safetensors *st, const definition *d, const workload *w, uint64_t seed, int trial)
{
    kwb_error err = {{0}};
    device *dev = device_cpu_open(NULL, &err);
    assert_non_null(dev);
    trial_inputs in = {0};
    assert_int_equal(inputs_make(&in, dev, d, w, ROOT, seed, trial, &err), 0);
    assert_int_equal(inputs_host(&in, dev, &err), 0);
    kwb_arg *args = calloc((size_t)(d->ninputs + d->noutputs), sizeof *args);
    memcpy(args, in.args, sizeof *args * (size_t)d->ninputs);
    for (int i = 0; i < d->ninputs; i++) {
        char name[64];
        snprintf(name, sizeof name, "in.%s", d->inputs[i].name);
        if (in.args[i].rank < 0) {
            float f = (float)in.args[i].f; /* the GDN scalar is float32 */
            assert_tensor(st, name, KWB_F32, 0, NULL, &f, sizeof f);
        } else
            assert_tensor(st, name, in.args[i].dtype, in.args[i].rank, in.args[i].shape, in.bufs[i].host,
                          in.bufs[i].nbytes);
    }
    for (int o = 0; o < d->noutputs; o++) {
        kwb_arg *a = &args[d->ninputs + o];
        a->name = d->outputs[o].name;
        a->dtype = d->outputs[o].dtype;
        a->rank = d->outputs[o].rank;
        workload_shape(w, &d->outputs[o], a->shape);
        a->data = calloc((size_t)workload_numel(w, &d->outputs[o]), dtype_size(a->dtype));
    }
    assert_int_equal(kwb_ref_gdn_decode_qk4_v8_d128_k_last(args, d->ninputs + d->noutputs, NULL), 0);
    for (int o = 0; o < d->noutputs; o++) {
        kwb_arg *a = &args[d->ninputs + o];
        char name[64];
        snprintf(name, sizeof name, "out.%s", a->name);
        assert_tensor(st, name, a->dtype, a->rank, a->shape, a->data,
                      (size_t)workload_numel(w, &d->outputs[o]) * dtype_size(a->dtype));
        free(a->data);
    }
    free(args);
    inputs_free(&in, dev);
    dev->ops->close(dev);
}

static void test_dump_is_inputs_and_reference(void **state)
{
    const char *dir = *state;
    kwb_error err = {{0}};
    definition *d = definition_load(DEF_PATH, &err);
    assert_non_null(d);
    json_t *wj = workload_json("u-b3", 3, 0.25);
    workload w;
    assert_int_equal(workload_parse(wj, d, "test", 0, &w, &err), 0);
    char *events;
    assert_int_equal(run_dump_job(dir, json_incref(wj), 7, 1, &events), 0);
    if (!strstr(events, "\"event\":\"workload-end\"") || !strstr(events, "\"status\":\"PASSED\"") ||
        !strstr(events, "\"dump\":"))
        fail_msg("events: %s", events);
    free(events);

    char *path = testutil_path(dir, "u-b3.safetensors");
    safetensors *st = safetensors_open(path, &err);
    if (!st)
        fail_msg("%s", err.msg);
    assert_int_equal(st->count, (size_t)(d->ninputs + d->noutputs));
    assert_dump_matches(st, d, &w, 7, 1);
    json_t *meta = read_metadata(path);
    assert_meta(meta, "definition", "gdn_decode_qk4_v8_d128_k_last");
    assert_meta(meta, "workload", "u-b3");
    assert_meta(meta, "device", "cpu");
    assert_meta(meta, "seed", "7");
    assert_meta(meta, "trial", "1");
    assert_meta(meta, "scalar.scale", "0.25"); /* the exact value beside the F32 tensor */
    json_decref(meta);
    safetensors_close(st);
    free(path);
    workload_free(&w);
    json_decref(wj);
    definition_free(d);
}

static void test_uuid_that_cannot_name_a_file(void **state)
{
    const char *dir = *state;
    char *events;
    assert_int_equal(run_dump_job(dir, workload_json("../escape", 1, 0.0), 1, 0, &events), 0);
    if (!strstr(events, "\"status\":\"RUNTIME_ERROR\"") || !strstr(events, "cannot name a file"))
        fail_msg("events: %s", events);
    free(events);
    assert_int_equal(testutil_count_entries(dir), 0);
}

static void test_dump_dir_not_a_folder(void **state)
{
    const char *dir = *state;
    char *file = testutil_path(dir, "plain");
    testutil_write_text(file, "x");
    char *events;
    assert_int_equal(run_dump_job_to(file, dir, workload_json("u1", 1, 0.0), 1, 0, &events), 1);
    if (!strstr(events, "\"event\":\"error\"") || !strstr(events, "not a folder"))
        fail_msg("events: %s", events);
    free(events);
    free(file);
    assert_int_equal(testutil_count_entries(dir), 1); /* the plain file alone */
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_dump_is_inputs_and_reference),
        T(test_uuid_that_cannot_name_a_file),
        T(test_dump_dir_not_a_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

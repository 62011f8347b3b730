/* test_profile.c - the profile document of `kwb profile`: the kernel filter and names from the
 * compiler's report, which rows of Nsight Compute's raw page are the candidate's, the per-kernel
 * figures and classes, launch-bound against the call's wall, the roofline-only profile, and the
 * printed form. tests/fixtures/ncu/synthetic_gdn_decode.raw is written in the raw page's shape (a
 * reference kernel, a kwb helper and the candidate's kernel); gdn_decode_baseline_b{1,64}.raw,
 * when present, are real captures (tests/gpu/capture-ncu-fixtures). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ncu.h"
#include "profile.h"
#include "strbuf.h"

#define FIX TOP_SRCDIR "/tests/fixtures/ncu"

static char *fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", FIX, name);
    char *text = strbuf_read_file(path, NULL);
    if (!text)
        fail_msg("cannot read %s", path);
    return text;
}

static void load_table(const char *name, ncu_table *t)
{
    char *text = fixture(name);
    kwb_error err = {{0}};
    assert_int_equal(ncu_parse(text, strlen(text), name, t, &err), 0);
    free(text);
}

static int load_ptxas(const char *name, ptxas_usage *u, int max)
{
    char *text = fixture(name);
    int n = ptxas_parse(text, u, max);
    free(text);
    return n;
}

static void test_filter(void **state)
{
    (void)state;
    ptxas_usage u[4];
    assert_int_equal(load_ptxas("ptxas_spills_smem.txt", u, 4), 2);
    char *f = profile_kernel_filter(u, 2);
    assert_string_equal(f, "regex:^(_Z5lightPf|_Z5heavyPfPKf)$");
    free(f);
    snprintf(u[0].name, sizeof u[0].name, "__nv_static_1a$b.c");
    f = profile_kernel_filter(u, 1);
    assert_string_equal(f, "regex:^(__nv_static_1a\\$b\\.c)$");
    free(f);
    assert_null(profile_kernel_filter(u, 0));
}

static void test_short_name(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(
        profile_short_name("_Z17gdn_decode_kernelPK13__nv_bfloat16S1_S1_PKfS3_S1_S3_S1_fPS_Pf", b, sizeof b),
        "gdn_decode_kernel");
    assert_string_equal(profile_short_name("_ZN2ns4kernIiEEvPT_", b, sizeof b), "kern");
    assert_string_equal(profile_short_name("_ZL14gdn_ref_kernelPKt", b, sizeof b), "gdn_ref_kernel");
    assert_string_equal(profile_short_name("__nv_static_51__8e0b_ZL4stepPf", b, sizeof b), "step");
    assert_string_equal(profile_short_name("void ns::kern<128>(float *, int)", b, sizeof b), "kern");
    assert_string_equal(profile_short_name("gdn_decode_kernel(const __nv_bfloat16 *, float)", b, sizeof b),
                        "gdn_decode_kernel");
    assert_string_equal(profile_short_name("kwb_l2_read", b, sizeof b), "kwb_l2_read");
    assert_string_equal(profile_short_name("(anonymous)", b, sizeof b), "(anonymous)");
}

static double num(json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static profile_inputs inputs(const ncu_table *t, const ptxas_usage *u, int n)
{
    profile_inputs in = {"gdn_decode_qk4_v8_d128_k_last", "w0", "cuda", "cand", "abc", t, NULL, u, n, {0}};
    in.call.status = "PASSED";
    return in;
}

/* The synthetic raw page and the GDN baseline's compiler report, loaded once. */
static ncu_table synth;
static ptxas_usage synth_px[4];
static int synth_npx;

static int setup(void **state)
{
    (void)state;
    load_table("synthetic_gdn_decode.raw", &synth);
    synth_npx = load_ptxas("ptxas_gdn_decode_baseline.txt", synth_px, 4);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ncu_free(&synth);
    return 0;
}

/* The profile of the synthetic page with the baseline's report, for a PASSED call CALL. */
static json_t *synthetic_profile(profile_call call)
{
    profile_inputs in = inputs(&synth, synth_px, synth_npx);
    in.call = call;
    in.call.status = "PASSED";
    return profile_document(&in);
}

static void test_candidate_rows(void **state)
{
    (void)state;
    assert_int_equal(synth.nrows, 3);
    json_t *doc = synthetic_profile((profile_call){0});
    assert_string_equal(str(doc, "tool"), "ncu");
    assert_true(json_is_null(json_object_get(doc, "note")));
    json_t *ks = json_object_get(doc, "kernels");
    assert_int_equal(json_array_size(ks), 1); /* the reference's and kwb's kernels are left out */
    json_t *k = json_array_get(ks, 0);
    assert_string_equal(str(k, "name"), "gdn_decode_kernel");
    assert_true(fabs(num(k, "duration_us") - 20.512) < 1e-9);
    assert_true(num(k, "sm_pct") == 24.31 && num(k, "memory_pct") == 78.52 && num(k, "dram_pct") == 78.52);
    assert_true(num(k, "l1_pct") == 30.2 && num(k, "l2_pct") == 41.7);
    assert_true(num(k, "occupancy_pct") == 44.9 && num(k, "theoretical_occupancy_pct") == 50);
    assert_true(num(k, "waves") == 2.13 && num(k, "registers") == 32 && num(k, "grid_size") == 4096);
    assert_true(num(k, "smem_static") == 0 && num(k, "smem_dynamic") == 0);
    assert_int_equal(num(json_object_get(k, "ptxas"), "registers"), 32);
    assert_string_equal(str(json_object_get(k, "bottleneck"), "class"), "memory-bound");
    json_t *b = json_object_get(doc, "bottleneck");
    assert_string_equal(str(b, "class"), "memory-bound");
    assert_string_equal(str(b, "source"), "ncu");
    assert_non_null(strstr(str(b, "evidence"), "sm 24%, memory 79%, dram 79%"));
    assert_true(fabs(num(doc, "gpu_us") - 20.512) < 1e-9);
    json_decref(doc);

    /* Without a compiler report every kernel but kwb's own is kept. */
    profile_inputs in = inputs(&synth, NULL, 0);
    doc = profile_document(&in);
    assert_int_equal(json_array_size(json_object_get(doc, "kernels")), 2);
    json_decref(doc);
}

static void test_launch_bound(void **state)
{
    (void)state;
    profile_call call = {.median_ms = 0.1, .gpu_wall = 1}; /* 20.5 us of kernels in a 100 us call */
    json_t *doc = synthetic_profile(call);
    json_t *b = json_object_get(doc, "bottleneck");
    assert_string_equal(str(b, "class"), "launch-bound");
    assert_non_null(strstr(str(b, "evidence"), "GPU busy 21% of the call (1 kernels)"));
    assert_true(num(doc, "wall_us") == 100);
    json_decref(doc);
    call.gpu_wall = 0; /* a cpu wall is no GPU span */
    doc = synthetic_profile(call);
    assert_string_equal(str(json_object_get(doc, "bottleneck"), "class"), "memory-bound");
    json_decref(doc);
}

static void test_roofline_only(void **state)
{
    (void)state;
    ptxas_usage u[4];
    int n = load_ptxas("ptxas_spills_smem.txt", u, 4);
    profile_inputs in = inputs(NULL, u, n);
    in.note = "ncu: cannot run ncu: No such file or directory; roofline-only profile";
    in.call.roofline = 0.7;
    in.call.memory_floor = 1;
    in.call.median_ms = 0.5;
    json_t *doc = profile_document(&in);
    assert_string_equal(str(doc, "tool"), "roofline");
    assert_string_equal(str(doc, "note"), in.note);
    assert_int_equal(json_array_size(json_object_get(doc, "kernels")), 0);
    assert_int_equal(json_array_size(json_object_get(doc, "ptxas")), 2);
    json_t *b = json_object_get(doc, "bottleneck");
    assert_string_equal(str(b, "class"), "memory-bound");
    assert_string_equal(str(b, "source"), "roofline");
    assert_string_equal(json_string_value(json_array_get(json_object_get(b, "modifiers"), 0)), "spills");
    assert_true(json_is_null(json_object_get(doc, "gpu_us")));
    json_decref(doc);

    /* A raw page with rows of no candidate kernel says so. */
    in = inputs(&synth, u, n);
    doc = profile_document(&in);
    assert_string_equal(str(doc, "tool"), "roofline");
    assert_non_null(strstr(str(doc, "note"), "profiled 3 launch(es), none of the candidate's kernels"));
    json_decref(doc);
}

static void test_print(void **state)
{
    (void)state;
    json_t *doc = synthetic_profile((profile_call){.median_ms = 0.0215, .timer = "cupti", .roofline = 0.41});
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    profile_print(f, doc);
    fclose(f);
    assert_non_null(strstr(text, "eval: PASSED, 21.50 us per call (cupti), roofline 41%"));
    assert_non_null(strstr(text, "1 kernel launch(es), 20.51 us on the GPU:"));
    assert_non_null(strstr(text, "gdn_decode_kernel              20.51 us  24.3  78.5  78.5  30.2  41.7"));
    assert_non_null(strstr(text, "    memory-bound, from ncu: sm 24%, memory 79%, dram 79%\n"));
    assert_non_null(strstr(text, "    ptxas: 32 registers, 0 B stack, 0 B spill stores"));
    assert_non_null(strstr(text, "bottleneck: memory-bound, from ncu:"));
    free(text);
    json_decref(doc);
}

/* The real captures, once committed: a profile with a class for each. */
static void test_real_captures(void **state)
{
    (void)state;
    const char *names[] = {"gdn_decode_baseline_b1.raw", "gdn_decode_baseline_b64.raw"};
    for (int i = 0; i < 2; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", FIX, names[i]);
        if (access(path, R_OK) != 0)
            continue;
        ncu_table t;
        load_table(names[i], &t);
        profile_inputs in = inputs(&t, NULL, 0);
        json_t *doc = profile_document(&in);
        assert_string_equal(str(doc, "tool"), "ncu");
        assert_string_not_equal(str(json_object_get(doc, "bottleneck"), "class"), "unknown");
        json_decref(doc);
        ncu_free(&t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter),         cmocka_unit_test(test_short_name),
        cmocka_unit_test(test_candidate_rows), cmocka_unit_test(test_launch_bound),
        cmocka_unit_test(test_roofline_only),  cmocka_unit_test(test_print),
        cmocka_unit_test(test_real_captures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

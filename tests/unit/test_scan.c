/* test_scan.c - the static scan of candidate sources: each rule fires on the line it names
 * (FILE:LINE, rule, text), comments and honest code do not, the modes parse, and the real
 * corpus files are scanned from disk. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "scan.h"

/* The rule of the only finding of TEXT, or NULL when there is none; fails on several. */
static const char *only_rule(const char *text, int *line)
{
    static char rule[64];
    scan_report rep = {0};
    scan_text("t.cu", text, &rep);
    if (rep.n > 1)
        fail_msg("%d findings in: %s (first %s)", rep.n, text, rep.items[0].rule);
    const char *r = NULL;
    if (rep.n == 1) {
        snprintf(rule, sizeof rule, "%s", rep.items[0].rule);
        r = rule;
        *line = rep.items[0].line;
        assert_string_equal(rep.items[0].file, "t.cu");
    }
    scan_report_free(&rep);
    return r;
}

static void expect_rule(const char *text, const char *want)
{
    int line = 0;
    const char *got = only_rule(text, &line);
    if (!got || strcmp(got, want) != 0)
        fail_msg("'%s': rule %s, want %s", text, got ? got : "(none)", want);
}

static void test_each_rule(void **state)
{
    (void)state;
    expect_rule("cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);", "stream");
    expect_rule("cudaEventCreate(&e);", "event");
    expect_rule("pthread_create(&t, NULL, worker, NULL);", "thread");
    expect_rule("#pragma omp parallel for", "thread");
    expect_rule("std::thread t(work);", "thread");
    expect_rule("void *h = dlopen(\"libcublas.so\", RTLD_NOW);", "dynamic-loading");
    expect_rule("pid_t p = fork();", "process");
    expect_rule("if (bad) exit(0);", "process");
    expect_rule("FILE *f = fopen(\"cache.bin\", \"rb\");", "file");
    expect_rule("const char *p = \"/proc/self/maps\";", "file");
    expect_rule("mprotect(page, 4096, PROT_WRITE);", "harness");
    expect_rule("write(4, line, n);", "harness");
    expect_rule("attr.accessPolicyWindow.num_bytes = n;", "persisting-l2");
    expect_rule("cudaDeviceSynchronize();", "device-sync");
    expect_rule("#include <cublas_v2.h>", "vendor-library");
    expect_rule("#include \"cutlass/gemm/device/gemm.h\"", "vendor-library");
}

static void test_honest_code_is_quiet(void **state)
{
    (void)state;
    int line = 0;
    assert_null(only_rule("__global__ void k(const float *x, float *y) { y[threadIdx.x] = x[threadIdx.x]; }\n"
                          "int kwb_entry(const kwb_arg *a, int n, kwb_stream s) { return 0; }\n"
                          "size_t exit_code = 0; int forked_rows = 2; /* fork() in a comment */\n"
                          "// pthread_create(&t, 0, 0, 0) in a line comment\n"
                          "float timeline = clock_offset;\n",
                          &line));
}

static void test_lines_and_block_comments(void **state)
{
    (void)state;
    scan_report rep = {0};
    scan_text("k.c", "/* a block comment\n   naming fork() and dlopen()\n*/\nint a;\n\nint b = system(\"ls\");\n",
              &rep);
    assert_int_equal(rep.n, 1);
    assert_int_equal(rep.items[0].line, 6);
    assert_string_equal(rep.items[0].rule, "process");
    assert_string_equal(rep.items[0].text, "int b = system(\"ls\");");
    scan_report_free(&rep);
}

static void test_modes(void **state)
{
    (void)state;
    scan_mode m;
    assert_int_equal(scan_mode_parse("warn", &m), 0);
    assert_int_equal(m, SCAN_WARN);
    assert_int_equal(scan_mode_parse("block", &m), 0);
    assert_int_equal(m, SCAN_BLOCK);
    assert_int_equal(scan_mode_parse("off", &m), 0);
    assert_int_equal(m, SCAN_OFF);
    assert_int_equal(scan_mode_parse("strict", &m), -1);
}

static void test_corpus_files(void **state)
{
    (void)state;
    scan_report rep = {0};
    kwb_error err = {{0}};
    assert_int_equal(scan_file(TOP_SRCDIR "/tests/adversarial/cuda/04a_second_stream/stream.cu", &rep, &err), 0);
    int stream = 0;
    for (int i = 0; i < rep.n; i++)
        stream |= strcmp(rep.items[i].rule, "stream") == 0 && strstr(rep.items[i].text, "cudaStreamCreateWithFlags");
    assert_true(stream);
    scan_report_free(&rep);
    assert_int_equal(scan_file(TOP_SRCDIR "/tests/adversarial/cpu/00_honest/copy.c", &rep, &err), 0);
    assert_int_equal(rep.n, 0);
    assert_int_equal(scan_file(TOP_SRCDIR "/tests/adversarial/no/such/file.c", &rep, &err), -1);
    assert_non_null(strstr(err.msg, "cannot read"));
    scan_report_free(&rep);
}

/* Threads joined before the entry point returns are what the ABI allows: a pthread_create whose
 * handle the same file passes to pthread_join (and never to pthread_detach) is not a finding. */
static void test_joined_threads(void **state)
{
    (void)state;
    int line = 0;
    assert_null(only_rule("pthread_t tids[8];\n"
                          "for (int t = 0; t < n; t++) pthread_create(&tids[t], NULL, work, &jobs[t]);\n"
                          "for (int t = 0; t < n; t++) pthread_join(tids[t], NULL);\n",
                          &line));
    assert_string_equal(only_rule("pthread_create(&tids[0], NULL, work, NULL);\n"
                                  "pthread_join(other[0], NULL);\n",
                                  &line),
                        "thread"); /* another handle joined */
    assert_int_equal(line, 1);
    expect_rule("pthread_create(&t, NULL, work, NULL);\npthread_join(t, NULL);\npthread_detach(t);\n", "thread");
    expect_rule("pthread_create(&bg, NULL, spin, NULL);\n", "thread"); /* left running */
    /* The shipped multithreaded GDN decode kernel joins its threads: no finding. */
    scan_report rep = {0};
    kwb_error err = {{0}};
    assert_int_equal(
        scan_file(TOP_SRCDIR "/kernels/gdn_decode_qk4_v8_d128_k_last/cpu/fast/gdn_decode_fast.c", &rep, &err), 0);
    for (int i = 0; i < rep.n; i++)
        fail_msg("%s:%d: %s: %s", rep.items[i].file, rep.items[i].line, rep.items[i].rule, rep.items[i].text);
    scan_report_free(&rep);
    /* The corpus's background thread is still found. */
    assert_int_equal(scan_file(TOP_SRCDIR "/tests/adversarial/cpu/06_background_thread/worker.c", &rep, &err), 0);
    int thread = 0;
    for (int i = 0; i < rep.n; i++)
        thread |= strcmp(rep.items[i].rule, "thread") == 0;
    assert_true(thread);
    scan_report_free(&rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_rule),
        cmocka_unit_test(test_honest_code_is_quiet),
        cmocka_unit_test(test_lines_and_block_comments),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_corpus_files),
        cmocka_unit_test(test_joined_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

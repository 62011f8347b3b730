/* test_refserve.c - kwb serving the reference cache to a sandboxed runner: a miss, then the
 * runner's outputs kept only when their bytes hash to what it said; a hit copies the file into
 * the scratch folder with that hash, through no link left there; names other than
 * ref-out-N.bin are refused; another trial or workload is another key; off stays off. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "refserve.h"
#include "xalloc.h"

typedef struct fixture {
    char dir[64];
    char *scratch, *cache, *defpath;
    runner_job job;
    workload w, other;
    int answers[2]; /* the pipe the runner reads kwb's answers from */
} fixture;

static int setup(void **state)
{
    fixture *f = xcalloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/kwb-test-refserve-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    f->scratch = xasprintf("%s/scratch", f->dir);
    f->cache = xasprintf("%s/cache", f->dir);
    f->defpath = xasprintf("%s/def.json", f->dir);
    mkdir(f->scratch, 0700);
    FILE *d = fopen(f->defpath, "w");
    fputs("{\"name\": \"toy\"}\n", d);
    fclose(d);
    f->job.device = "cpu";
    f->job.definition_path = f->defpath;
    f->job.dataset_root = f->dir;
    f->job.cache_dir = f->cache;
    f->job.seed = 1;
    f->w.json = json_pack("{s:s, s:{s:i}}", "uuid", "w0", "axes", "n", 4);
    f->other.json = json_pack("{s:s, s:{s:i}}", "uuid", "w1", "axes", "n", 8);
    assert_int_equal(pipe(f->answers), 0);
    setenv("KWB_REF_CACHE", "always", 1);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char *cmd = xasprintf("rm -rf %s", f->dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
    close(f->answers[0]);
    json_decref(f->w.json);
    json_decref(f->other.json);
    free(f->scratch);
    free(f->cache);
    free(f->defpath);
    free(f);
    unsetenv("KWB_REF_CACHE");
    return 0;
}

/* One answer line from the pipe. */
static void read_answer(fixture *f, char *line, size_t cap)
{
    size_t n = 0;
    char c;
    while (n + 1 < cap && read(f->answers[0], &c, 1) == 1 && c != '\n')
        line[n++] = c;
    line[n] = '\0';
}

/* The runner's side: OUT written as ref-out-SEQ.bin in the scratch folder; its hash into HEX. */
static void runner_writes(fixture *f, int seq, const float *v, size_t n, char hex[65])
{
    tensor_buf b = {.nbytes = n * sizeof *v, .host = (void *)v};
    output_set out = {&b, 1};
    char *path = xasprintf("%s/ref-out-%d.bin", f->scratch, seq);
    assert_int_equal(refcache_write(path, &out, hex), 0);
    free(path);
}

static void test_miss_keep_hit(void **state)
{
    fixture *f = *state;
    refserve s;
    assert_int_equal(refserve_open(&s, &f->job, "/bin/sh", f->scratch, f->answers[1]), 1);
    char line[128], hex[65], got[65];
    refserve_want(&s, &f->w, 0);
    read_answer(f, line, sizeof line);
    assert_string_equal(line, "miss");

    float v[4] = {1, 2, 3, 4};
    runner_writes(f, 1, v, 4, hex);
    refserve_got(&s, &f->w, 0, "ref-out-1.bin", hex);
    assert_int_equal(s.kept, 1);
    char *left = xasprintf("%s/ref-out-1.bin", f->scratch);
    assert_int_equal(access(left, F_OK), -1); /* taken away either way */
    free(left);

    /* A link a candidate left where the copy goes is replaced, not followed. */
    char *in = xasprintf("%s/ref-in.bin", f->scratch), *target = xasprintf("%s/elsewhere", f->dir);
    assert_int_equal(symlink(target, in), 0);
    refserve_want(&s, &f->w, 0);
    read_answer(f, line, sizeof line);
    assert_int_equal(strncmp(line, "hit ", 4), 0);
    assert_int_equal(access(target, F_OK), -1);
    assert_int_equal(refcache_file_sha256(in, got), 0);
    assert_string_equal(line + 4, got);
    assert_string_equal(got, hex);
    float back[4] = {0};
    tensor_buf b = {.nbytes = sizeof back, .host = back};
    output_set out = {&b, 1};
    assert_int_equal(refcache_read(in, &out), 1);
    assert_memory_equal(back, v, sizeof v);
    free(in);
    free(target);

    /* Another trial, another workload: other keys. */
    refserve_want(&s, &f->w, 1);
    read_answer(f, line, sizeof line);
    assert_string_equal(line, "miss");
    refserve_want(&s, &f->other, 0);
    read_answer(f, line, sizeof line);
    assert_string_equal(line, "miss");
    assert_int_equal(s.hits, 1);
    assert_int_equal(s.misses, 3);
    refserve_close(&s);
}

static void test_changed_file_dropped(void **state)
{
    fixture *f = *state;
    refserve s;
    assert_int_equal(refserve_open(&s, &f->job, "/bin/sh", f->scratch, f->answers[1]), 1);
    char line[128], hex[65];
    float v[4] = {1, 2, 3, 4};
    runner_writes(f, 1, v, 4, hex);
    char *path = xasprintf("%s/ref-out-1.bin", f->scratch); /* changed after the runner hashed it */
    FILE *w = fopen(path, "r+b");
    fseek(w, -1, SEEK_END);
    fputc(0x7f, w);
    fclose(w);
    refserve_got(&s, &f->w, 0, "ref-out-1.bin", hex);
    assert_int_equal(s.kept, 0);
    refserve_want(&s, &f->w, 0);
    read_answer(f, line, sizeof line);
    assert_string_equal(line, "miss");
    free(path);

    /* Names other than ref-out-N.bin are not taken, whatever the hash. */
    static const char *const bad[] = {"../ref-out-1.bin", "ref-out-.bin", "ref-out-1.bin.x", "x.bin", NULL};
    for (int i = 0; i < 5; i++) {
        runner_writes(f, 2, v, 4, hex);
        refserve_got(&s, &f->w, 0, bad[i], hex);
        assert_int_equal(s.kept, 0);
    }
    refserve_close(&s);
}

static void test_off(void **state)
{
    fixture *f = *state;
    refserve s;
    setenv("KWB_REF_CACHE", "off", 1);
    assert_int_equal(refserve_open(&s, &f->job, "/bin/sh", f->scratch, f->answers[1]), 0);
    assert_int_equal(s.fd, -1);
    refserve_want(&s, &f->w, 0); /* inert: nothing written */
    refserve_close(&s);
    char c;
    assert_int_equal(read(f->answers[0], &c, 1), 0); /* the write end was closed: end of file */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_miss_keep_hit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_file_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_off, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

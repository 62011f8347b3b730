/* test_executor.c - executor specs: what each kind and setting turns into (the workers' command
 * lines, devices and labels), and the one-line refusals of bad specs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "executor.h"
#include "xalloc.h"

/* The words of ARGV joined by blanks (the caller frees it). */
static char *joined(char **argv)
{
    size_t len = 1;
    for (int i = 0; argv[i]; i++)
        len += strlen(argv[i]) + 1;
    char *s = xcalloc(1, len);
    for (int i = 0; argv[i]; i++) {
        strcat(s, argv[i]);
        if (argv[i + 1])
            strcat(s, " ");
    }
    return s;
}

static void test_local(void **state)
{
    (void)state;
    executor ex;
    kwb_error err = {{0}};
    assert_int_equal(executor_parse("local", &ex, &err), 0);
    assert_int_equal(ex.kind, EXECUTOR_LOCAL);
    executor_stop(&ex);
    unsetenv("KWB_EXECUTOR");
    assert_string_equal(executor_spec(NULL), "local");
    setenv("KWB_EXECUTOR", "ssh:a", 1);
    assert_string_equal(executor_spec(NULL), "ssh:a");
    assert_string_equal(executor_spec("slurm"), "slurm");
    unsetenv("KWB_EXECUTOR");
}

static void test_ssh_workers(void **state)
{
    (void)state;
    executor ex;
    kwb_error err = {{0}};
    assert_int_equal(
        executor_parse("ssh:gpu1/cuda:0,gpu1/cuda:1,user@gpu2,ssh=ssh -p 2222,silence=12,runner=/opt/r", &ex, &err), 0);
    assert_int_equal(ex.kind, EXECUTOR_SSH);
    assert_int_equal(executor_start(&ex, &err), 0);
    int n;
    executor_worker *w = executor_workers(&ex, "/here/kwb-runner", "cpu", &n);
    assert_int_equal(n, 3);
    assert_string_equal(w[0].where, "gpu1");
    assert_string_equal(w[0].device, "cuda:0");
    assert_string_equal(w[1].device, "cuda:1");
    assert_string_equal(w[2].where, "user@gpu2");
    assert_string_equal(w[2].device, "cpu"); /* no /DEVICE: the eval's --device */
    char *cmd = joined(w[1].remote.argv);
    assert_string_equal(cmd, "ssh -p 2222 gpu1 /opt/r --stdio --heartbeat 2");
    free(cmd);
    assert_true(w[0].remote.silence_s == 12);
    executor_workers_free(w, n);
    executor_stop(&ex);

    assert_int_equal(executor_parse("ssh:h", &ex, &err), 0);
    w = executor_workers(&ex, "/here/kwb-runner", "cpu", &n);
    cmd = joined(w[0].remote.argv);
    assert_string_equal(cmd, "ssh -o BatchMode=yes h /here/kwb-runner --stdio --heartbeat 10");
    free(cmd);
    executor_workers_free(w, n);
    executor_stop(&ex);
}

static void test_slurm_in_allocation(void **state)
{
    (void)state;
    executor ex;
    kwb_error err = {{0}};
    setenv("SLURM_JOB_ID", "4242", 1);
    setenv("SLURM_NTASKS", "3", 1);
    assert_int_equal(executor_parse("slurm:gres=gpu:h200:1,partition=p,srun=--mpi=none,batch=yes", &ex, &err), 0);
    assert_false(executor_batch(&ex)); /* inside an allocation: run, do not submit again */
    assert_int_equal(executor_start(&ex, &err), 0);
    assert_false(ex.own_allocation);
    int n;
    executor_worker *w = executor_workers(&ex, "/r", "cuda", &n);
    assert_int_equal(n, 3);
    assert_string_equal(w[2].where, "slurm job 4242");
    char *cmd = joined(w[0].remote.argv);
    assert_string_equal(cmd,
                        "srun --jobid=4242 --ntasks=1 --nodes=1 --exact --unbuffered --quiet --job-name=kwb-worker "
                        "--gres=gpu:h200:1 --mpi=none /r --stdio --heartbeat 10");
    free(cmd);
    executor_workers_free(w, n);
    executor_stop(&ex);
    assert_int_equal(executor_parse("slurm:workers=2,gres=none", &ex, &err), 0);
    assert_int_equal(executor_start(&ex, &err), 0);
    w = executor_workers(&ex, "/r", "cpu", &n);
    assert_int_equal(n, 2); /* workers= wins over the task count */
    assert_null(strstr(joined(w[1].remote.argv), "--gres"));
    executor_workers_free(w, n);
    executor_stop(&ex);
    unsetenv("SLURM_JOB_ID");
    unsetenv("SLURM_NTASKS");
    assert_int_equal(executor_parse("slurm:batch=yes", &ex, &err), 0);
    assert_true(executor_batch(&ex));
    executor_stop(&ex);
}

static void test_refusals(void **state)
{
    (void)state;
    const char *bad[][2] = {
        {"ssh", "no host"},
        {"ssh:", "no host"},
        {"ssh:a,workers=2", "'workers' is not a setting of ssh"},
        {"slurm:gpu1", "'gpu1' is not KEY=VALUE"},
        {"slurm:workers=0", "workers='0' is not a whole number >= 1"},
        {"slurm:workers=1.5", "is not a whole number"},
        {"slurm:silence=-1", "silence='-1' is not a number of seconds > 0"},
        {"slurm:files=nfs", "files='nfs' is not shared or ship"},
        {"slurm:batch=maybe", "batch='maybe' is not yes or no"},
        {"slurm:ssh=x", "'ssh' is not a setting of slurm"},
        {"k8s:a", "not local, ssh:HOSTS or slurm[:OPTIONS]"},
        {"local:x", "not local, ssh:HOSTS or slurm[:OPTIONS]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        executor ex;
        kwb_error err = {{0}};
        assert_int_equal(executor_parse(bad[i][0], &ex, &err), -1);
        if (!strstr(err.msg, bad[i][1]) || strncmp(err.msg, "--executor ", 11) != 0)
            fail_msg("%s: got '%s', wanted '%s'", bad[i][0], err.msg, bad[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local),
        cmocka_unit_test(test_ssh_workers),
        cmocka_unit_test(test_slurm_in_allocation),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

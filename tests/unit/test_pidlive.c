/* test_pidlive.c - a living child is not dying and has a start time; killed and not yet reaped
 * it is dying (a zombie); reaped, it has no start time; this process is not dying. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pidlive.h"

/* Waits until PID's state in /proc is Z (at most about 5 s). */
static void wait_zombie(pid_t pid)
{
    for (int i = 0; i < 500 && !pidlive_dying(pid); i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
}

static void test_child(void **state)
{
    (void)state;
    char start[32], again[32];
    assert_int_equal(pidlive_dying(getpid()), 0);
    assert_int_equal(pidlive_start_time(getpid(), start, sizeof start), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pause();
        _exit(0);
    }
    assert_int_equal(pidlive_start_time(pid, start, sizeof start), 0);
    assert_int_equal(pidlive_start_time(pid, again, sizeof again), 0);
    assert_string_equal(start, again);
    assert_int_equal(pidlive_dying(pid), 0);
    assert_int_equal(kill(pid, SIGKILL), 0);
    wait_zombie(pid);
    assert_int_equal(pidlive_dying(pid), 1); /* killed, not yet reaped */
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(pidlive_start_time(pid, start, sizeof start), -1); /* gone */
    assert_int_equal(pidlive_dying(pid), 0);                            /* nothing to say of it */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_child),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

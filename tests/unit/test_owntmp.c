/* test_owntmp.c - owntmp_make names a folder for this process and removes the stale ones of its
 * kind: a dead owner's and a reused pid's go (with what is inside, never what a link inside points
 * to); this process's own, another host's, another kind's, an old unnamed one and a link named
 * like a stale folder stay. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "owntmp.h"
#include "paths.h"
#include "pidlive.h"
#include "xalloc.h"

static char root[] = "/tmp/kwb-owntmp-test-XXXXXX";

/* ROOT/NAME made as a folder; returns its path (the caller frees it). */
static char *folder(const char *name)
{
    char *p = xasprintf("%s/%s", root, name);
    assert_int_equal(mkdir(p, 0700), 0);
    return p;
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

/* A pid that ran a moment ago and is gone now. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    waitpid(pid, NULL, 0);
    return pid;
}

/* This host's name as owntmp writes it. */
static void host_name(char *host, size_t cap)
{
    assert_int_equal(gethostname(host, cap - 1), 0);
    host[cap - 1] = '\0';
    for (char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.'))
            *p = '_';
}

static void test_sweep(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(root));
    setenv("TMPDIR", root, 1);
    char host[256], start[32], name[512];
    host_name(host, sizeof host);
    assert_int_equal(pidlive_start_time(getpid(), start, sizeof start), 0);

    snprintf(name, sizeof name, "kwb-scratch-%s-%d-12345-abcdef", host, (int)dead_pid());
    char *dead = folder(name), *inner = xasprintf("%s/sub", dead), *keep = folder("keep");
    assert_int_equal(mkdir(inner, 0700), 0);
    char *target = xasprintf("%s/file", keep), *link_in = xasprintf("%s/link", inner);
    FILE *f = fopen(target, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(symlink(keep, link_in), 0);
    snprintf(name, sizeof name, "kwb-scratch-%s-%d-1-ghijkl", host, (int)getpid());
    char *reused = folder(name);
    snprintf(name, sizeof name, "kwb-scratch-%s-%d-%s-mnopqr", host, (int)getpid(), start);
    char *mine = folder(name);
    snprintf(name, sizeof name, "kwb-scratch-other.host-%d-12345-stuvwx", (int)dead_pid());
    char *other_host = folder(name);
    snprintf(name, sizeof name, "kwb-resume-%s-%d-12345-yzabcd", host, (int)dead_pid());
    char *other_kind = folder(name);
    char *unnamed = folder("kwb-scratch-Ab3dEf");
    char *stale_link = xasprintf("%s/kwb-scratch-%s-%d-12345-efghij", root, host, (int)dead_pid());
    assert_int_equal(symlink(keep, stale_link), 0);

    snprintf(name, sizeof name, "kwb-scratch-%s-%d-12345-klmnop", host, (int)dead_pid());
    char *just_made = folder(name); /* its owner is gone, but it was made a moment ago */
    const char *old[] = {dead, reused, other_host, other_kind, unnamed};
    for (size_t k = 0; k < sizeof old / sizeof *old; k++) /* the others: left alone for an hour */
        assert_int_equal(utimes(old[k], (struct timeval[2]){{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}}), 0);

    kwb_error err = {{0}};
    char *made = owntmp_make("scratch", &err);
    assert_non_null(made);
    snprintf(name, sizeof name, "%s/kwb-scratch-%s-%d-%s-", root, host, (int)getpid(), start);
    assert_memory_equal(made, name, strlen(name));
    assert_true(exists(made));

    assert_false(exists(dead));
    assert_false(exists(reused));
    assert_true(exists(target)); /* the link inside was removed, not followed */
    assert_true(exists(mine));
    assert_true(exists(other_host));
    assert_true(exists(other_kind));
    assert_true(exists(unnamed));
    assert_true(exists(stale_link));                    /* a link is no folder of ours */
    assert_true(exists(just_made));                     /* not yet quiet for a minute */
    assert_int_equal(owntmp_sweep(root, "scratch"), 0); /* nothing stale is left */

    paths_remove_tree(root);
    assert_false(exists(root));
    free(dead), free(inner), free(keep), free(target), free(link_in), free(reused), free(mine);
    free(other_host), free(other_kind), free(unnamed), free(stale_link), free(made);
    free(just_made);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_sweep)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

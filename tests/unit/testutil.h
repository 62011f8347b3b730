/* testutil.h - what the unit tests share: a fresh folder under /tmp per test, removed after
 * it. Header-only (static inline functions), included by the tests that need it. */
#ifndef KWB_TESTUTIL_H
#define KWB_TESTUTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes PATH and everything below it, making folders writable first (tests make
 * read-only ones); a missing PATH is fine. */
static inline void testutil_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (!S_ISDIR(sb.st_mode)) {
        unlink(path);
        return;
    }
    chmod(path, 0700);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *child = malloc(n);
        if (!child)
            break;
        snprintf(child, n, "%s/%s", path, e->d_name);
        testutil_remove_tree(child);
        free(child);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

/* cmocka setup helper: a new folder from TEMPLATE (ending in XXXXXX) into *state; -1 on failure. */
static inline int testutil_tmpdir_setup(void **state, const char *template)
{
    char *dir = strdup(template);
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

/* cmocka teardown helper: removes the folder in *state and frees its name. */
static inline int testutil_tmpdir_teardown(void **state)
{
    testutil_remove_tree(*state);
    free(*state);
    return 0;
}

#endif

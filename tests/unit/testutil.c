/* testutil.c - the unit tests' shared helpers (testutil.h). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

void testutil_remove_tree(const char *path)
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

int testutil_tmpdir_setup(void **state, const char *template)
{
    char *dir = strdup(template);
    if (!dir || !mkdtemp(dir)) {
        free(dir);
        return -1;
    }
    *state = dir;
    return 0;
}

int testutil_tmpdir_teardown(void **state)
{
    testutil_remove_tree(*state);
    free(*state);
    return 0;
}

int testutil_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

char *testutil_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

void testutil_write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

void testutil_write_text(const char *path, const char *text)
{
    testutil_write_file(path, text, strlen(text));
}

char *testutil_read_file(const char *path, size_t *len)
{
    char *s = strbuf_read_file(path, len);
    if (!s)
        fail_msg("cannot read %s", path);
    return s;
}

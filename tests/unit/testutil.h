/* testutil.h - what the unit tests share: a fresh folder under /tmp per test, removed after
 * it, and whole files written and read back. The helpers that can fail do so through cmocka
 * (the test fails); built into each test that lists testutil.c among its sources. */
#ifndef KWB_TESTUTIL_H
#define KWB_TESTUTIL_H

#include <stddef.h>

/* Removes PATH and everything below it, making folders writable first (tests make
 * read-only ones); a missing PATH is fine. */
void testutil_remove_tree(const char *path);

/* cmocka setup helper: a new folder from TEMPLATE (ending in XXXXXX) into *state; -1 on failure. */
int testutil_tmpdir_setup(void **state, const char *template);

/* cmocka teardown helper: removes the folder in *state and frees its name; returns 0. */
int testutil_tmpdir_teardown(void **state);

/* Entries of DIR other than . and ..; fails the test when DIR cannot be read. */
int testutil_count_entries(const char *dir);

/* Returns DIR/NAME in newly allocated memory, which the caller frees. */
char *testutil_path(const char *dir, const char *name);

/* Makes PATH hold exactly the N bytes at BYTES; fails the test on any error. */
void testutil_write_file(const char *path, const void *bytes, size_t n);

/* Makes PATH hold exactly TEXT (without its NUL); fails the test on any error. */
void testutil_write_text(const char *path, const char *text);

/* Returns PATH's bytes followed by a NUL (the caller frees them), their count in *len;
 * fails the test when PATH cannot be read. */
char *testutil_read_file(const char *path, size_t *len);

#endif

/* fuzz_common.c - the fuzz targets' shared helpers (see fuzz_common.h). */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = xmalloc(size + 1);
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* Writes all of DATA at offset 0 of FD and cuts the file there; aborts on failure (the harness,
 * not the parser, is broken then). */
static void rewrite(int fd, const void *data, size_t size)
{
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("fuzz: rewrite");
        abort();
    }
}

const char *fuzz_file(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("kwb-fuzz", MFD_CLOEXEC);
        if (fd < 0) {
            perror("fuzz: memfd_create");
            abort();
        }
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    rewrite(fd, data, size);
    return path;
}

static char *dir;

static void dir_remove(void)
{
    paths_remove_tree(dir);
    free(dir);
}

const char *fuzz_dir(void)
{
    if (!dir) {
        /* memory, not disk: on ext4 every rewrite of a file flushes it (auto_da_alloc), which
           made the folder-based targets 20 times slower */
        const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        char *templ = xasprintf("%s/kwb-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(templ)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        dir = templ;
        atexit(dir_remove);
    }
    return dir;
}

const char *fuzz_dir_file(const char *name, const void *data, size_t size)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror(path);
        abort();
    }
    rewrite(fd, data, size);
    close(fd);
    return path;
}

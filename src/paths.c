#include "paths.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

#ifndef KWB_INSTALL_INCLUDEDIR
#define KWB_INSTALL_INCLUDEDIR "/usr/local/include"
#endif
#ifndef KWB_INSTALL_DATADIR
#define KWB_INSTALL_DATADIR "/usr/local/share/kwb"
#endif

char *paths_self(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return xstrdup(buf);
}

/* Folder of the running executable, or NULL. */
static char *exe_dir(void)
{
    char *self = paths_self();
    char *slash = self ? strrchr(self, '/') : NULL;
    if (!slash) {
        free(self);
        return NULL;
    }
    *slash = '\0';
    return self;
}

/* First of: $ENV, exe_dir/REL (when TEST exists below it), FALLBACK. */
static char *locate(const char *env, const char *rel, const char *test, const char *fallback)
{
    const char *e = getenv(env);
    if (e && *e)
        return xstrdup(e);
    char *dir = exe_dir();
    if (dir) {
        char *cand = xasprintf("%s/%s", dir, rel);
        char *probe = xasprintf("%s/%s", cand, test);
        free(dir);
        int ok = access(probe, F_OK) == 0;
        free(probe);
        if (ok)
            return cand;
        free(cand);
    }
    return xstrdup(fallback);
}

char *paths_runner(void)
{
    char *dir = locate("KWB_RUNNER", "..", "", "");
    if (getenv("KWB_RUNNER") && *getenv("KWB_RUNNER"))
        return dir;
    free(dir);
    char *here = exe_dir();
    char *p = here ? xasprintf("%s/kwb-runner", here) : NULL;
    free(here);
    if (p && access(p, X_OK) == 0)
        return p;
    free(p);
    return xstrdup("kwb-runner");
}

char *paths_include_dir(void)
{
    return locate("KWB_INCLUDE_DIR", "../include", "kwb/kernel.h", KWB_INSTALL_INCLUDEDIR);
}

char *paths_dataset(void)
{
    return locate("KWB_DATASET", "../workloads", "definitions", KWB_INSTALL_DATADIR "/workloads");
}

char *paths_skills(void)
{
    char *dir = locate("KWB_SKILLS", "../skills", "general.md", KWB_INSTALL_DATADIR "/skills");
    const char *ds = getenv("KWB_DATASET");
    if (access(dir, F_OK) != 0 && ds && *ds) { /* a copied kwb: beside the dataset it was given */
        char *beside = xasprintf("%s/../skills", ds);
        char *probe = xasprintf("%s/general.md", beside);
        int ok = access(probe, F_OK) == 0;
        free(probe);
        if (ok) {
            free(dir);
            return beside;
        }
        free(beside);
    }
    return dir;
}

char *paths_torch_reference(void)
{
    return locate("KWB_TORCH_REFERENCE", "../libexec/torch-reference", "solution.json",
                  KWB_INSTALL_DATADIR "/torch-reference");
}

char *paths_kernels(void)
{
    char *dir = locate("KWB_KERNELS", "../kernels", "bench_copy_f32", KWB_INSTALL_DATADIR "/kernels");
    const char *ds = getenv("KWB_DATASET");
    if (access(dir, F_OK) != 0 && ds && *ds) { /* a copied kwb: beside the dataset it was given */
        char *beside = xasprintf("%s/../kernels", ds);
        if (access(beside, F_OK) == 0) {
            free(dir);
            return beside;
        }
        free(beside);
    }
    return dir;
}

char *paths_themes(void)
{
    return locate("KWB_THEMES_DIR", "../themes", "mono.theme", KWB_INSTALL_DATADIR "/themes");
}

int paths_mkdir_p(const char *dir)
{
    char *copy = xstrdup(dir);
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
            free(copy);
            return -1;
        }
        *p = '/';
    }
    int rc = mkdir(copy, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(copy);
    return rc;
}

char *paths_cache_dir(void)
{
    const char *e = getenv("KWB_CACHE_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char *dir;
    if (e && *e)
        dir = xstrdup(e);
    else if (xdg && *xdg)
        dir = xasprintf("%s/kwb", xdg);
    else if (home && *home)
        dir = xasprintf("%s/.cache/kwb", home);
    else
        dir = xasprintf("/tmp/kwb-cache-%u", (unsigned)getuid());
    paths_mkdir_p(dir);
    return dir;
}

int paths_is_safe_relative(const char *path)
{
    if (!*path || path[0] == '/')
        return 0;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += n;
        p += *p == '/';
    }
    return 1;
}

char *paths_normalise(const char *path)
{
    size_t len = strlen(path), n = 0;
    const char **part = xcalloc(len / 2 + 2, sizeof *part);
    size_t *plen = xcalloc(len / 2 + 2, sizeof *plen);
    for (const char *p = path; *p;) {
        size_t k = strcspn(p, "/");
        int dotdot = k == 2 && p[0] == '.' && p[1] == '.';
        if (dotdot && n > 0 && !(plen[n - 1] == 2 && part[n - 1][0] == '.' && part[n - 1][1] == '.'))
            n--; /* "dir/.." */
        else if (k > 0 && !(k == 1 && p[0] == '.'))
            part[n] = p, plen[n++] = k;
        p += k;
        while (*p == '/')
            p++;
    }
    char *out = xmalloc(len + 2), *o = out;
    if (path[0] == '/')
        *o++ = '/';
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = '/';
        memcpy(o, part[i], plen[i]);
        o += plen[i];
    }
    if (o == out)
        *o++ = '.';
    *o = '\0';
    free(part);
    free(plen);
    return out;
}

enum { REMOVE_DEPTH_MAX = 256 }; /* one descriptor per level: deeper than this is left */

/* Removes everything inside the directory open at FD (closed here), DEPTH levels down: each
 * entry unlinked where it lies (a link, never what it points to), a directory opened without
 * following a link (made searchable first when its owner shut it) and emptied, then removed. */
static void remove_inside(int fd, int depth)
{
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            unlinkat(fd, e->d_name, 0);
            continue;
        }
        if ((st.st_mode & 0700) != 0700)
            fchmodat(fd, e->d_name, st.st_mode | 0700, 0);
        int sub =
            depth < REMOVE_DEPTH_MAX ? openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
        if (sub >= 0)
            remove_inside(sub, depth + 1);
        unlinkat(fd, e->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void paths_remove_tree(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && chmod(path, st.st_mode | 0700) == 0)
            fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    if (fd < 0) {
        unlink(path); /* a file, or a link (removed, not followed) */
        return;
    }
    remove_inside(fd, 1);
    rmdir(path);
}

int paths_write_file(const char *path, const void *data, size_t len)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        paths_mkdir_p(dir);
    }
    free(dir);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(data, 1, len, f);
    int saved = errno;
    if (fclose(f) != 0 || w != len) {
        if (w != len)
            errno = saved;
        return -1;
    }
    return 0;
}

/* owntmp.c - temporary folders named for their owner process (see owntmp.h). */
#include "owntmp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "pidlive.h"
#include "xalloc.h"

/* Seconds a folder must have been left unchanged before it may be swept: one just made or in
 * use is never taken, even when its owner cannot be confirmed (CI once saw a runner's fresh
 * scratch folder vanish before the runner could enter it). */
#define OWNTMP_QUIET_S 60

static const char *tmp_root(const char *tmpdir)
{
    const char *t = tmpdir ? tmpdir : getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

/* "kwb-KIND-HOST-": the names this host's folders of KIND start with (HOST with every byte
 * other than a letter, digit or dot made '_'); the caller frees it. */
static char *kind_prefix(const char *kind)
{
    char host[256] = "host";
    if (gethostname(host, sizeof host - 1) != 0)
        strcpy(host, "host");
    host[sizeof host - 1] = '\0';
    for (char *p = host; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '.'))
            *p = '_';
    return xasprintf("kwb-%s-%s-", kind, host);
}

/* 1 when NAME (after the prefix) is "PID-START-XXXXXX" of a process that no longer runs. */
static int owner_gone(const char *rest)
{
    int pid = 0, used = 0;
    char start[32];
    if (sscanf(rest, "%d-%31[0-9]-%n", &pid, start, &used) != 2 || used == 0 || strlen(rest + used) != 6 || pid <= 0)
        return 0;
    char now[32];
    return pidlive_start_time((pid_t)pid, now, sizeof now) != 0 || strcmp(now, start) != 0;
}

int owntmp_sweep(const char *tmpdir, const char *kind)
{
    const char *root = tmp_root(tmpdir);
    char *prefix = kind_prefix(kind);
    size_t plen = strlen(prefix);
    int removed = 0;
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        struct stat st;
        if (strncmp(e->d_name, prefix, plen) != 0 || !owner_gone(e->d_name + plen) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != getuid() || st.st_mtime > time(NULL) - OWNTMP_QUIET_S)
            continue;
        char *path = xasprintf("%s/%s", root, e->d_name);
        paths_remove_tree(path);
        removed += access(path, F_OK) != 0;
        free(path);
    }
    if (d)
        closedir(d);
    free(prefix);
    return removed;
}

char *owntmp_make(const char *kind, kwb_error *err)
{
    return owntmp_make_in(NULL, kind, err);
}

char *owntmp_make_in(const char *dir, const char *kind, kwb_error *err)
{
    owntmp_sweep(dir, kind);
    char start[32] = "0";
    if (pidlive_start_time(getpid(), start, sizeof start) != 0)
        strcpy(start, "0");
    char *prefix = kind_prefix(kind);
    char *path = xasprintf("%s/%s%d-%s-XXXXXX", tmp_root(dir), prefix, (int)getpid(), start);
    free(prefix);
    if (!mkdtemp(path)) {
        kwb_error_set(err, "cannot make a temporary folder %s: %s", path, strerror(errno));
        free(path);
        return NULL;
    }
    return path;
}

#include "runner/peaks_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

json_t *peaks_cache_load(const char *cache_dir, const char *key)
{
    if (!cache_dir)
        return NULL;
    char *path = xasprintf("%s/devices/%s.json", cache_dir, key);
    json_t *o = json_load_file(path, 0, NULL);
    free(path);
    return o;
}

void peaks_cache_save(const char *cache_dir, const char *key, json_t *o)
{
    if (!cache_dir)
        return;
    char *dir = xasprintf("%s/devices", cache_dir);
    char *path = xasprintf("%s/%s.json", dir, key);
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    if (paths_mkdir_p(dir) == 0 && json_dump_file(o, tmp, JSON_INDENT(2)) == 0)
        rename(tmp, path);
    unlink(tmp);
    free(tmp);
    free(path);
    free(dir);
}

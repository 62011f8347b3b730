#define _GNU_SOURCE
#include "ship.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc.h"
#include "sha256.h"
#include "strbuf.h"
#include "traceset.h"
#include "xalloc.h"

/* Adds PATH (REL under the dataset root, or NULL) to M and ARR once; hashes it. */
static int add_file(ship_manifest *m, json_t *arr, const char *path, const char *rel, kwb_error *err)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->path[i], path) == 0)
            return 0;
    size_t len;
    char *data = strbuf_read_file(path, &len);
    if (!data)
        return kwb_error_set(err, "files=ship: %s: %s", path, strerror(errno));
    m->path = xrealloc(m->path, sizeof *m->path * (size_t)(m->n + 1));
    m->size = xrealloc(m->size, sizeof *m->size * (size_t)(m->n + 1));
    m->sha = xrealloc(m->sha, sizeof *m->sha * (size_t)(m->n + 1));
    m->path[m->n] = xstrdup(path);
    m->size[m->n] = (long long)len;
    sha256_buffer_hex(data, len, m->sha[m->n]);
    free(data);
    json_array_append_new(arr, json_pack("{s:s, s:I, s:s, s:s?}", "sha256", m->sha[m->n], "size", (json_int_t)len,
                                         "path", path, "rel", rel));
    m->n++;
    return 0;
}

int ship_manifest_make(const runner_job *job, const workload_set *set, int from, ship_manifest *m, kwb_error *err)
{
    memset(m, 0, sizeof *m);
    json_t *arr = json_array();
    int rc = add_file(m, arr, job->definition_path, NULL, err);
    for (int s = 0; rc == 0 && s < job->nsolutions; s++)
        rc = add_file(m, arr, job->solutions[s].so_path, NULL, err);
    if (rc == 0 && job->reference.so_path) /* the reference is a built solution too, and its helpers */
        rc = add_file(m, arr, job->reference.so_path, NULL, err);
    if (rc == 0 && job->reference.helpers)
        rc = add_file(m, arr, job->reference.helpers, NULL, err);
    for (int w = from; rc == 0 && w < set->count; w++)
        for (int i = 0; rc == 0 && i < set->items[w].ninputs; i++) {
            const wl_input *in = &set->items[w].inputs[i];
            if (in->kind != WL_SAFETENSORS)
                continue;
            const char *rel = in->path;
            while (rel[0] == '.' && rel[1] == '/')
                rel += 2;
            char *path = traceset_blob_path(job->dataset_root, in->path);
            rc = add_file(m, arr, path, rel, err);
            free(path);
        }
    json_t *o = json_pack("{s:o, s:s}", "ship", arr, "dataset", job->dataset_root);
    m->line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (rc != 0)
        ship_manifest_free(m);
    return rc;
}

int ship_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One line from FD within TIMEOUT_S (the caller frees it), or NULL. */
static char *read_line(int fd, double timeout_s)
{
    strbuf sb;
    strbuf_init(&sb);
    double deadline = proc_now() + timeout_s;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        double left = deadline - proc_now();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            break;
        char c;
        ssize_t n = read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (c == '\n')
            return strbuf_detach(&sb);
        strbuf_add(&sb, &c, 1);
    }
    strbuf_free(&sb);
    return NULL;
}

int ship_send(int out_fd, int in_fd, const ship_manifest *m, double timeout_s, int *sent, long long *bytes,
              kwb_error *err)
{
    *sent = 0;
    *bytes = 0;
    if (ship_write_all(out_fd, m->line, strlen(m->line)) != 0 || ship_write_all(out_fd, "\n", 1) != 0)
        return kwb_error_set(err, "files=ship: the worker went away before the manifest");
    char *reply = read_line(in_fd, timeout_s);
    json_t *o = reply ? json_loads(reply, 0, NULL) : NULL;
    json_t *need = json_object_get(o, "need");
    int rc = json_is_array(need) ? 0
                                 : kwb_error_set(err, "files=ship: the worker did not answer the manifest (%.200s)",
                                                 reply ? reply : "nothing");
    for (int i = 0; rc == 0 && i < m->n; i++) {
        int wanted = 0;
        for (size_t k = 0; k < json_array_size(need); k++) {
            const char *h = json_string_value(json_array_get(need, k));
            wanted |= h && strcmp(h, m->sha[i]) == 0;
        }
        if (!wanted)
            continue;
        size_t len;
        char *data = strbuf_read_file(m->path[i], &len);
        if (!data || (long long)len != m->size[i])
            rc = kwb_error_set(err, "files=ship: %s changed while it was being sent", m->path[i]);
        else if (ship_write_all(out_fd, data, len) != 0)
            rc = kwb_error_set(err, "files=ship: the worker went away while %s was being sent", m->path[i]);
        else
            (*sent)++, *bytes += (long long)len;
        free(data);
    }
    json_decref(o);
    free(reply);
    return rc;
}

void ship_manifest_free(ship_manifest *m)
{
    for (int i = 0; i < m->n; i++)
        free(m->path[i]);
    free(m->path);
    free(m->size);
    free(m->sha);
    free(m->line);
    memset(m, 0, sizeof *m);
}

/* ftree.c - small folder trees: listing, copying and diffing (the diff through libgit2's
 * buffer patches, no repository needed). */
#include "ftree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

static int walk(const char *root, const char *rel, char ***out, int *n, kwb_error *err)
{
    char *path = rel[0] ? xasprintf("%s/%s", root, rel) : xstrdup(root);
    DIR *d = opendir(path);
    if (!d) {
        int rc = kwb_error_set(err, "%s: cannot read the folder: %s", path, strerror(errno));
        free(path);
        return rc;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
            continue;
        char *sub = rel[0] ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);
        char *full = xasprintf("%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) {
            rc = kwb_error_set(err, "%s: %s", full, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            rc = walk(root, sub, out, n, err);
        } else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
            *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out);
            (*out)[(*n)++] = sub;
            sub = NULL;
        }
        free(sub);
        free(full);
    }
    closedir(d);
    free(path);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int ftree_list(const char *dir, char ***out, int *n, kwb_error *err)
{
    *out = NULL;
    *n = 0;
    if (walk(dir, "", out, n, err) != 0) {
        ftree_list_free(*out, *n);
        *out = NULL;
        *n = 0;
        return -1;
    }
    qsort(*out, (size_t)*n, sizeof **out, cmp_str);
    return 0;
}

void ftree_list_free(char **list, int n)
{
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

static int write_all(const char *path, const char *data, size_t len, kwb_error *err)
{
    return paths_write_file(path, data, len) == 0 ? 0
                                                  : kwb_error_set(err, "%s: cannot write: %s", path, strerror(errno));
}

int ftree_copy(const char *src, const char *dst, kwb_error *err)
{
    char **files;
    int n, rc = 0;
    if (ftree_list(src, &files, &n, err) != 0)
        return -1;
    if (paths_mkdir_p(dst) != 0)
        rc = kwb_error_set(err, "%s: cannot make the folder: %s", dst, strerror(errno));
    for (int i = 0; rc == 0 && i < n; i++) {
        char *from = xasprintf("%s/%s", src, files[i]), *to = xasprintf("%s/%s", dst, files[i]);
        struct stat st;
        size_t len = 0;
        char *data = NULL;
        if (lstat(from, &st) == 0 && S_ISLNK(st.st_mode))
            rc = kwb_error_set(err, "%s: a symlink; candidate folders hold plain files only", from);
        else if (!(data = strbuf_read_file(from, &len)))
            rc = kwb_error_set(err, "%s: cannot read: %s", from, strerror(errno));
        else
            rc = write_all(to, data, len, err);
        if (rc == 0)
            chmod(to, st.st_mode & 0777);
        free(data);
        free(from);
        free(to);
    }
    ftree_list_free(files, n);
    return rc;
}

/* A symlink's text as git keeps it: "symlink -> TARGET" (the file it names is never read: a
 * candidate's link to a key outside its folder must not show up in a diff); NULL when PATH is no
 * link. */
static char *link_text(const char *path, size_t *len)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return NULL;
    char target[4096];
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = 0;
    char *text = xasprintf("symlink -> %s\n", target);
    *len = strlen(text);
    return text;
}

/* Reads DIR/REL (a link's text, not what it names), or "" when the file is not there. */
static char *read_or_empty(const char *dir, const char *rel, size_t *len, int *present)
{
    char *path = xasprintf("%s/%s", dir, rel);
    char *data = link_text(path, len);
    if (!data)
        data = strbuf_read_file(path, len);
    free(path);
    *present = data != NULL;
    if (!data) {
        *len = 0;
        data = xstrdup("");
    }
    return data;
}

static int diff_one(const char *old_dir, const char *new_dir, const char *rel, strbuf *out, kwb_error *err)
{
    size_t olen, nlen;
    int opresent, npresent;
    char *a = read_or_empty(old_dir, rel, &olen, &opresent), *b = read_or_empty(new_dir, rel, &nlen, &npresent);
    int rc = 0;
    if (opresent != npresent || olen != nlen || memcmp(a, b, olen) != 0) {
        git_patch *patch = NULL;
        git_buf buf = GIT_BUF_INIT;
        git_diff_options opts;
        git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
        opts.flags |= GIT_DIFF_FORCE_TEXT;
        if (git_patch_from_buffers(&patch, opresent ? a : NULL, olen, rel, npresent ? b : NULL, nlen, rel, &opts) !=
                0 ||
            git_patch_to_buf(&buf, patch) != 0) {
            const git_error *ge = git_error_last();
            rc = kwb_error_set(err, "%s: diff: %s", rel, ge ? ge->message : "libgit2 failed");
        } else {
            strbuf_add(out, buf.ptr, buf.size);
        }
        git_buf_dispose(&buf);
        git_patch_free(patch);
    }
    free(a);
    free(b);
    return rc;
}

int ftree_diff(const char *old_dir, const char *new_dir, strbuf *out, kwb_error *err)
{
    char **a, **b;
    int na, nb;
    if (git_libgit2_init() < 0)
        return kwb_error_set(err, "libgit2 did not start");
    if (ftree_list(old_dir, &a, &na, err) != 0)
        return -1;
    if (ftree_list(new_dir, &b, &nb, err) != 0) {
        ftree_list_free(a, na);
        return -1;
    }
    int i = 0, j = 0, rc = 0;
    while (rc == 0 && (i < na || j < nb)) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i], b[j]);
        const char *rel = c <= 0 ? a[i] : b[j];
        rc = diff_one(old_dir, new_dir, rel, out, err);
        i += c <= 0;
        j += c >= 0;
    }
    ftree_list_free(a, na);
    ftree_list_free(b, nb);
    return rc;
}

int ftree_git_snapshot(const char *dir, const char *message, kwb_error *err)
{
    if (git_libgit2_init() < 0)
        return kwb_error_set(err, "libgit2 did not start");
    git_repository *repo = NULL;
    git_index *index = NULL;
    git_signature *sig = NULL;
    git_tree *tree = NULL;
    git_oid tree_id, commit_id;
    int rc = git_repository_init(&repo, dir, 0);
    if (rc == 0)
        rc = git_repository_index(&index, repo);
    if (rc == 0)
        rc = git_index_add_all(index, NULL, GIT_INDEX_ADD_FORCE, NULL, NULL);
    if (rc == 0)
        rc = git_index_write(index);
    if (rc == 0)
        rc = git_index_write_tree(&tree_id, index);
    if (rc == 0)
        rc = git_tree_lookup(&tree, repo, &tree_id);
    if (rc == 0)
        rc = git_signature_now(&sig, "kwb", "kwb@localhost");
    if (rc == 0)
        rc = git_commit_create(&commit_id, repo, "HEAD", sig, sig, NULL, message, tree, 0, NULL);
    if (rc != 0) {
        const git_error *ge = git_error_last();
        kwb_error_set(err, "%s: git snapshot: %s", dir, ge ? ge->message : "libgit2 failed");
    }
    git_signature_free(sig);
    git_tree_free(tree);
    git_index_free(index);
    git_repository_free(repo);
    return rc == 0 ? 0 : -1;
}

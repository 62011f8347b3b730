#include "archive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "secrets.h"
#include "xalloc.h"

#define KWB_SIG_NAME "kwb"
#define KWB_SIG_EMAIL "kwb@localhost"

struct archive {
    git_repository *repo;
};

/* Sets *err to "WHAT: libgit2's last message" and returns -1. */
static int git_fail(kwb_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int git_fail(kwb_error *err, const char *fmt, ...)
{
    const git_error *e = git_error_last();
    const char *why = e && e->message ? e->message : "unknown libgit2 error";
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return kwb_error_set(err, "%s: %.900s", what, why);
}

/* ---- file system helpers ------------------------------------------------------------------ */

/* -1: PATH does not exist; 0: an empty folder; 1: anything else (ENOENT-free errors too). */
static int dir_state(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return errno == ENOENT ? -1 : 1;
    if (!S_ISDIR(sb.st_mode))
        return 1;
    DIR *d = opendir(path);
    if (!d)
        return 1;
    int state = 0;
    struct dirent *e;
    while (state == 0 && (e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            state = 1;
    closedir(d);
    return state;
}

/* Makes folder PATH and its missing parents (0755). Returns 0, or -1 and sets *err. */
static int mkdir_parents(const char *path, kwb_error *err)
{
    char *p = xstrdup(path);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        struct stat sb;
        if (mkdir(p, 0755) != 0 && !(errno == EEXIST && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode)))
            rc = kwb_error_set(err, "cannot make folder %s: %s", p, strerror(errno));
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* Writes LEN bytes to a new file PATH with mode exactly 0644. Returns 0, or -1 and sets *err. */
static int write_new_file(const char *path, const char *data, size_t len, kwb_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return kwb_error_set(err, "cannot create %s: %s", path, strerror(errno));
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            int e = errno;
            close(fd);
            return kwb_error_set(err, "cannot write %s: %s", path, strerror(e));
        }
        data += w;
        len -= (size_t)w;
    }
    int bad = fchmod(fd, 0644) != 0;
    if (close(fd) != 0 || bad)
        return kwb_error_set(err, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

/* ---- names ----------------------------------------------------------------------------------- */

static int ref_safe_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == '+';
}

char *archive_ref_component(const char *name, kwb_error *err)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0) {
        kwb_error_set(err, "empty name");
        return NULL;
    }
    char *out = xmalloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = ref_safe_char(name[i]) ? name[i] : '-';
        if (c == '.' && (k == 0 || out[k - 1] == '.'))
            c = '-';
        out[k++] = c;
    }
    if (out[k - 1] == '.')
        out[k - 1] = '-';
    out[k] = '\0';
    if (k >= 5 && strcmp(out + k - 5, ".lock") == 0)
        out[k - 5] = '-';
    return out;
}

/* Checks that REF is a valid reference name. Returns 0, or -1 and sets *err. */
static int check_ref_name(const char *ref, kwb_error *err)
{
    int valid = 0;
    if (git_reference_name_is_valid(&valid, ref) < 0)
        return git_fail(err, "%s", ref);
    return valid ? 0 : kwb_error_set(err, "'%s' is not a valid reference name", ref);
}

/* Returns "PREFIX/component(NAME)" as a checked ref name the caller frees, or NULL and sets *err. */
static char *make_ref(const char *prefix, const char *name, const char *what, kwb_error *err)
{
    char *comp = archive_ref_component(name, err);
    if (!comp) {
        kwb_error_prefix(err, "%s", what);
        return NULL;
    }
    char *ref = xasprintf("%s/%s", prefix, comp);
    free(comp);
    if (check_ref_name(ref, err) < 0) {
        free(ref);
        return NULL;
    }
    return ref;
}

/* Returns refs/kwb/SESSION/CANDIDATE, or NULL and sets *err. */
static char *candidate_ref(const char *session, const char *candidate, kwb_error *err)
{
    char *sess = archive_ref_component(session, err);
    if (!sess) {
        kwb_error_prefix(err, "session");
        return NULL;
    }
    if (strcmp(sess, "rejected") == 0) {
        free(sess);
        kwb_error_set(err, "session name 'rejected' is reserved for refs/kwb/rejected/");
        return NULL;
    }
    char *prefix = xasprintf("refs/kwb/%s", sess);
    free(sess);
    char *ref = make_ref(prefix, candidate, "candidate name", err);
    free(prefix);
    return ref;
}

/* Whether one tree entry name is plain: not "", ".", "..", ".git" (any case), no '/'. */
static int plain_name(const char *s, size_t len)
{
    if (len == 0 || memchr(s, '/', len))
        return 0;
    if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    return !(len == 4 && strncasecmp(s, ".git", 4) == 0);
}

/* Whether PATH is relative and made of plain components. */
static int plain_path(const char *path)
{
    for (const char *p = path;;) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (!plain_name(p, len))
            return 0;
        if (!slash)
            return 1;
        p = slash + 1;
    }
}

/* Whether A and B are the same path, or one is a folder holding the other. */
static int paths_clash(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t m = la < lb ? la : lb;
    if (strncmp(a, b, m) != 0)
        return 0;
    return la == lb || (la < lb ? b[la] : a[lb]) == '/';
}

/* Checks the candidate's file list. Returns 0, or -1 and sets *err. */
static int check_files(const solution_source *files, int n, kwb_error *err)
{
    if (n <= 0 || !files)
        return kwb_error_set(err, "a candidate needs at least one file");
    for (int i = 0; i < n; i++) {
        if (!files[i].path || !plain_path(files[i].path))
            return kwb_error_set(err, "'%s' is not a plain relative path", files[i].path ? files[i].path : "");
        for (int j = 0; j < i; j++)
            if (paths_clash(files[i].path, files[j].path))
                return kwb_error_set(err, "'%s' clashes with '%s'", files[i].path, files[j].path);
        if (files[i].content && memchr(files[i].content, '\0', files[i].len) == NULL &&
            secrets_contains_key(files[i].content))
            return kwb_error_set(err, "'%s' holds an API key known to kwb: not archived", files[i].path);
    }
    return 0;
}

/* ---- open, close, resolve ------------------------------------------------------------------ */

archive *archive_open(const char *path, int create, kwb_error *err)
{
    if (git_libgit2_init() < 0) {
        git_fail(err, "cannot initialise libgit2");
        return NULL;
    }
    git_repository *repo = NULL;
    int rc = git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL);
    if (rc == GIT_ENOTFOUND && create && dir_state(path) == 1)
        rc = kwb_error_set(err, "%s: not a repository, and not an empty folder to make one in", path);
    else if (rc == GIT_ENOTFOUND && create && (rc = git_repository_init(&repo, path, 1)) < 0)
        git_fail(err, "%s: cannot make a bare repository", path);
    else if (rc < 0)
        git_fail(err, "%s: cannot open the repository", path);
    if (rc < 0) {
        git_libgit2_shutdown();
        return NULL;
    }
    archive *a = xmalloc(sizeof *a);
    a->repo = repo;
    return a;
}

void archive_close(archive *a)
{
    if (!a)
        return;
    git_repository_free(a->repo);
    free(a);
    git_libgit2_shutdown();
}

/* Looks SPEC up as git rev-parse would, then under refs/kwb/. Returns 0, or -1 and sets *err. */
static int lookup_object(archive *a, const char *spec, git_object **obj, kwb_error *err)
{
    if (!spec || !*spec)
        return kwb_error_set(err, "empty commit name");
    int rc = git_revparse_single(obj, a->repo, spec);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
        char *ref = xasprintf("refs/kwb/%s", spec);
        int valid = 0;
        if (git_reference_name_is_valid(&valid, ref) == 0 && valid && git_revparse_single(obj, a->repo, ref) == 0)
            rc = 0;
        free(ref);
    }
    if (rc == GIT_ENOTFOUND)
        return kwb_error_set(err, "'%s': no such commit or reference", spec);
    return rc < 0 ? git_fail(err, "'%s'", spec) : 0;
}

/* Resolves SPEC to a commit the caller frees. Returns 0, or -1 and sets *err. */
static int lookup_commit(archive *a, const char *spec, git_commit **commit, kwb_error *err)
{
    git_object *obj = NULL;
    if (lookup_object(a, spec, &obj, err) < 0)
        return -1;
    int rc = git_object_peel((git_object **)commit, obj, GIT_OBJECT_COMMIT);
    git_object_free(obj);
    return rc < 0 ? git_fail(err, "'%s' is not a commit", spec) : 0;
}

/* Resolves SPEC to its commit's tree, which the caller frees. Returns 0, or -1 and sets *err. */
static int lookup_tree(archive *a, const char *spec, git_tree **tree, kwb_error *err)
{
    git_commit *commit = NULL;
    if (lookup_commit(a, spec, &commit, err) < 0)
        return -1;
    int rc = git_commit_tree(tree, commit);
    git_commit_free(commit);
    return rc < 0 ? git_fail(err, "'%s': cannot read its tree", spec) : 0;
}

int archive_resolve(archive *a, const char *spec, char oid_out[41], kwb_error *err)
{
    git_commit *commit = NULL;
    if (lookup_commit(a, spec, &commit, err) < 0)
        return -1;
    git_oid_tostr(oid_out, 41, git_commit_id(commit));
    git_commit_free(commit);
    return 0;
}

/* ---- commits, tags, refs --------------------------------------------------------------------- */

/* Writes each file as a blob into an in-memory index, then the index's trees into the object
 * database (the repository's own index is never opened). Returns 0, or -1 and sets *err. */
static int write_tree(git_repository *repo, const solution_source *files, int n, git_oid *tree_id, kwb_error *err)
{
    git_index *index = NULL;
    if (git_index_new(&index) < 0)
        return git_fail(err, "cannot make an in-memory index");
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        git_index_entry e;
        memset(&e, 0, sizeof e);
        e.mode = GIT_FILEMODE_BLOB;
        e.path = files[i].path;
        if (git_blob_create_from_buffer(&e.id, repo, files[i].content ? files[i].content : "", files[i].len) < 0)
            rc = git_fail(err, "%s: cannot write the blob", files[i].path);
        else if (git_index_add(index, &e) < 0)
            rc = git_fail(err, "%s: cannot add to the tree", files[i].path);
    }
    if (rc == 0 && git_index_write_tree_to(tree_id, index, repo) < 0)
        rc = git_fail(err, "cannot write the tree");
    git_index_free(index);
    return rc;
}

/* Cleans MESSAGE as git commit does (trailing blanks, one final newline; '#' lines kept) into
 * BUF, FALLBACK when MESSAGE is NULL or empty. Returns 0, or -1 and sets *err. */
static int clean_message(git_buf *buf, const char *message, const char *fallback, kwb_error *err)
{
    const char *m = message && *message ? message : fallback;
    if (git_message_prettify(buf, m, 0, '#') < 0)
        return git_fail(err, "cannot format the message");
    return 0;
}

/* Writes a commit of TREE_ID with PARENT (or none) by kwb, now. Returns 0, or -1 and sets *err. */
static int write_commit(git_repository *repo, const git_oid *tree_id, git_commit *parent, const char *message,
                        git_oid *id, kwb_error *err)
{
    git_tree *tree = NULL;
    git_signature *sig = NULL;
    git_buf msg = GIT_BUF_INIT;
    int rc = -1;
    if (git_tree_lookup(&tree, repo, tree_id) < 0)
        git_fail(err, "cannot read the new tree");
    else if (git_signature_now(&sig, KWB_SIG_NAME, KWB_SIG_EMAIL) < 0)
        git_fail(err, "cannot make the signature");
    else if (clean_message(&msg, message, "kwb candidate", err) < 0)
        ;
    else if (git_commit_create(id, repo, NULL, sig, sig, NULL, msg.ptr, tree, parent ? 1 : 0,
                               (const git_commit **)&parent) < 0)
        git_fail(err, "cannot write the commit");
    else
        rc = 0;
    git_buf_dispose(&msg);
    git_signature_free(sig);
    git_tree_free(tree);
    return rc;
}

/* ---- ref changes ----------------------------------------------------------------------------
 * libgit2 takes a ref's lock file (REF.lock, and packed-refs.lock to delete) with O_EXCL and
 * removes it when done; a kwb killed in between leaves it, and every later change of that ref
 * would fail. So each kwb process changes refs only while it holds the archive's writer lock (an
 * flock, released by the kernel when its holder dies): a lock file of one of kwb's refs found then
 * is a killed writer's and is removed; packed-refs.lock, which the user's git may hold, only when
 * it is old. */

/* The writer lock of REPO, held until writer_unlock(). */
typedef struct writer {
    int fd;   /* -1: not held */
    int held; /* 1: held, so a ref's lock files, when there, are a killed writer's */
} writer;

/* Takes the writer lock of REPO into *W (waits for another kwb's change to end). On a file system
 * without locks (ENOLCK, EOPNOTSUPP) it goes on unheld, as libgit2 alone would. Returns 0, or -1
 * and sets *err. */
static int writer_lock(git_repository *repo, writer *w, kwb_error *err)
{
    char *path = xasprintf("%s/kwb-writer.lock", git_repository_path(repo));
    *w = (writer){open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), 0};
    int rc = 0;
    if (w->fd < 0)
        rc = kwb_error_set(err, "cannot open %s: %s", path, strerror(errno));
    else {
        int got;
        while ((got = flock(w->fd, LOCK_EX)) != 0 && errno == EINTR)
            ;
        w->held = got == 0;
        if (!w->held && errno != ENOLCK && errno != EOPNOTSUPP)
            rc = kwb_error_set(err, "cannot lock %s: %s", path, strerror(errno));
        if (!w->held) {
            close(w->fd);
            w->fd = -1;
        }
    }
    free(path);
    return rc;
}

/* Lets W's lock go. */
static void writer_unlock(writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    *w = (writer){-1, 0};
}

/* packed-refs.lock older than this (seconds) is stale: the user's own git may hold it in a
 * repository given to kwb init --repo (pack-refs, gc, fetch), but for moments, not minutes. */
#define PACKED_LOCK_STALE_S 30

/* Removes the lock files a killed writer of REF left, when W holds the writer lock (else nothing
 * is known stale): REF.lock (kwb's refs are written by kwb alone), and packed-refs.lock once it is
 * older than PACKED_LOCK_STALE_S. */
static void clear_stale_ref_locks(git_repository *repo, const writer *w, const char *ref)
{
    if (!w->held)
        return;
    const char *gitdir = git_repository_path(repo);
    char *own = xasprintf("%s/%s.lock", gitdir, ref);
    char *packed = xasprintf("%s/packed-refs.lock", gitdir);
    struct stat st;
    unlink(own);
    if (lstat(packed, &st) == 0 && time(NULL) - st.st_mtime > PACKED_LOCK_STALE_S)
        unlink(packed);
    free(own);
    free(packed);
}

/* Points REF at ID (FORCE: over an existing REF). Returns 0, or -1 and sets *err. */
static int set_ref(git_repository *repo, const char *ref, const git_oid *id, int force, kwb_error *err)
{
    writer w;
    if (writer_lock(repo, &w, err) != 0)
        return -1;
    clear_stale_ref_locks(repo, &w, ref);
    git_reference *r = NULL;
    int rc = git_reference_create(&r, repo, ref, id, force, "kwb") < 0 ? git_fail(err, "cannot set %s", ref) : 0;
    git_reference_free(r);
    writer_unlock(&w);
    return rc;
}

/* Deletes REF; a missing REF is no error. Returns 0, or -1 and sets *err. */
static int delete_ref(git_repository *repo, const char *ref, kwb_error *err)
{
    writer w;
    if (writer_lock(repo, &w, err) != 0)
        return -1;
    clear_stale_ref_locks(repo, &w, ref);
    git_reference *r = NULL;
    int rc = 0;
    if (git_reference_lookup(&r, repo, ref) == 0 && git_reference_delete(r) < 0)
        rc = git_fail(err, "cannot delete %s", ref);
    git_reference_free(r);
    writer_unlock(&w);
    return rc;
}

int archive_commit(archive *a, const char *session, const char *candidate_name, const solution_source *files,
                   int nfiles, const char *parent, const char *message, char oid_out[41], kwb_error *err)
{
    if (check_files(files, nfiles, err) < 0)
        return -1;
    char *ref = candidate_ref(session, candidate_name, err);
    if (!ref)
        return -1;
    git_commit *parent_commit = NULL;
    git_oid tree_id, id;
    int rc = -1;
    if (parent && lookup_commit(a, parent, &parent_commit, err) < 0)
        kwb_error_prefix(err, "parent");
    else if (write_tree(a->repo, files, nfiles, &tree_id, err) == 0 &&
             write_commit(a->repo, &tree_id, parent_commit, message, &id, err) == 0 &&
             set_ref(a->repo, ref, &id, 1, err) == 0) {
        git_oid_tostr(oid_out, 41, &id);
        rc = 0;
    }
    git_commit_free(parent_commit);
    free(ref);
    return rc;
}

int archive_prune_unrecorded(archive *a, const char *session, const char *const *known, int nknown, int *removed,
                             kwb_error *err)
{
    char *any = candidate_ref(session, "x", err);
    if (!any)
        return -1;
    *strrchr(any, '/') = '\0';
    char *glob = xasprintf("%s/*", any);
    git_reference_iterator *it = NULL;
    git_reference *ref = NULL;
    int rc = git_reference_iterator_glob_new(&it, a->repo, glob) < 0 ? git_fail(err, "cannot list %s", glob) : 0;
    int n = 0;
    while (rc == 0 && git_reference_next(&ref, it) == 0) {
        char oid[41] = "";
        const git_oid *id = git_reference_target(ref);
        if (id)
            git_oid_tostr(oid, sizeof oid, id);
        int seen = 0;
        for (int i = 0; i < nknown && !seen; i++)
            seen = strcmp(known[i], oid) == 0;
        if (!seen && id) {
            rc = delete_ref(a->repo, git_reference_name(ref), err);
            n += rc == 0;
        }
        git_reference_free(ref);
    }
    git_reference_iterator_free(it);
    if (removed)
        *removed = n;
    free(glob);
    free(any);
    return rc;
}

/* The highest K among tags DEF/v<K> (decimal digits only), 0 when none. Returns -1 and sets
 * *err when the tags cannot be listed. */
static long highest_version(git_repository *repo, const char *def, kwb_error *err)
{
    git_strarray names = {0};
    char *prefix = xasprintf("%s/v", def);
    char *pattern = xasprintf("%s*", prefix);
    int rc = git_tag_list_match(&names, pattern, repo);
    free(pattern);
    long best = rc < 0 ? git_fail(err, "cannot list tags") : 0;
    size_t plen = strlen(prefix);
    for (size_t i = 0; rc == 0 && i < names.count; i++) {
        if (strncmp(names.strings[i], prefix, plen) != 0)
            continue;
        const char *v = names.strings[i] + plen;
        size_t digits = strspn(v, "0123456789");
        if (digits == 0 || digits > 9 || v[digits] != '\0')
            continue;
        long k = strtol(v, NULL, 10);
        best = k > best ? k : best;
    }
    git_strarray_dispose(&names);
    free(prefix);
    return best;
}

/* Writes the annotated tag NAME on TARGET with MESSAGE, tagged by kwb now. */
static int write_tag(git_repository *repo, const char *name, git_commit *target, const char *message, kwb_error *err)
{
    git_signature *sig = NULL;
    git_buf msg = GIT_BUF_INIT;
    git_oid tag_id;
    int rc = -1;
    if (git_signature_now(&sig, KWB_SIG_NAME, KWB_SIG_EMAIL) < 0)
        git_fail(err, "cannot make the signature");
    else if (clean_message(&msg, message, "kwb promoted", err) < 0)
        ;
    else if (git_tag_annotation_create(&tag_id, repo, name, (const git_object *)target, sig, msg.ptr) < 0)
        git_fail(err, "cannot create tag %s", name);
    else {
        char *ref = xasprintf("refs/tags/%s", name);
        rc = set_ref(repo, ref, &tag_id, 0, err);
        free(ref);
    }
    git_buf_dispose(&msg);
    git_signature_free(sig);
    return rc;
}

int archive_tag_promoted(archive *a, const char *definition, const char *spec, const char *message,
                         char tag_name_out[256], kwb_error *err)
{
    char *def = archive_ref_component(definition, err);
    if (!def)
        return kwb_error_prefix(err, "definition");
    git_commit *commit = NULL;
    char *name = NULL, *ref = NULL;
    long top = highest_version(a->repo, def, err);
    int rc = -1;
    if (top >= 0 && lookup_commit(a, spec, &commit, err) == 0) {
        name = xasprintf("%s/v%ld", def, top + 1);
        ref = xasprintf("refs/tags/%s", name);
        if (strlen(name) >= 256)
            kwb_error_set(err, "tag name '%.64s...' is too long", name);
        else if (check_ref_name(ref, err) == 0 && write_tag(a->repo, name, commit, message, err) == 0) {
            snprintf(tag_name_out, 256, "%s", name);
            rc = 0;
        }
    }
    git_commit_free(commit);
    free(ref);
    free(name);
    free(def);
    return rc;
}

int archive_mark_rejected(archive *a, const char *spec, const char *name, kwb_error *err)
{
    char *ref = make_ref("refs/kwb/rejected", name, "rejected name", err);
    if (!ref)
        return -1;
    git_commit *commit = NULL;
    git_oid held;
    int rc = -1;
    if (lookup_commit(a, spec, &commit, err) < 0)
        ;
    else if (git_reference_name_to_id(&held, a->repo, ref) == 0) {
        if (git_oid_equal(&held, git_commit_id(commit)))
            rc = 0;
        else
            kwb_error_set(err, "%s already holds another commit (%.12s)", ref, git_oid_tostr_s(&held));
    } else {
        rc = set_ref(a->repo, ref, git_commit_id(commit), 0, err);
    }
    git_commit_free(commit);
    free(ref);
    return rc;
}

int archive_untag_promoted(archive *a, const char *definition, const char *spec, char tag_name_out[256], kwb_error *err)
{
    char *def = archive_ref_component(definition, err);
    if (!def)
        return kwb_error_prefix(err, "definition");
    git_commit *commit = NULL;
    git_strarray names = {0};
    char *pattern = xasprintf("%s/v*", def);
    long found = -1;
    int rc = lookup_commit(a, spec, &commit, err) == 0 && git_tag_list_match(&names, pattern, a->repo) == 0 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < names.count; i++) {
        git_object *peeled = NULL;
        char *ref = xasprintf("refs/tags/%s", names.strings[i]);
        const char *v = names.strings[i] + strlen(def) + 2;
        if (git_revparse_single(&peeled, a->repo, ref) == 0) {
            git_object *target = NULL;
            if (git_object_peel(&target, peeled, GIT_OBJECT_COMMIT) == 0 &&
                git_oid_equal(git_object_id(target), git_commit_id(commit)) && strtol(v, NULL, 10) > found) {
                found = strtol(v, NULL, 10);
                snprintf(tag_name_out, 256, "%s", names.strings[i]);
            }
            git_object_free(target);
        }
        git_object_free(peeled);
        free(ref);
    }
    if (rc == 0 && found >= 0) {
        char *ref = xasprintf("refs/tags/%s", tag_name_out);
        rc = delete_ref(a->repo, ref, err);
        free(ref);
    } else if (rc == 0 && found < 0)
        tag_name_out[0] = '\0';
    git_strarray_dispose(&names);
    git_commit_free(commit);
    free(pattern);
    free(def);
    return rc;
}

int archive_unmark_rejected(archive *a, const char *name, kwb_error *err)
{
    char *ref = make_ref("refs/kwb/rejected", name, "rejected name", err);
    if (!ref)
        return -1;
    int rc = delete_ref(a->repo, ref, err);
    free(ref);
    return rc;
}

/* ---- reading trees --------------------------------------------------------------------------- */

/* Called for each regular file of a tree with its path ("sub/x.cu") and contents. */
typedef int (*file_visitor)(void *ctx, const char *path, const char *data, size_t len, kwb_error *err);

typedef struct walk_state {
    git_repository *repo;
    file_visitor visit;
    void *ctx;
    kwb_error *err;
} walk_state;

static int walk_entry(const char *root, const git_tree_entry *entry, void *payload)
{
    walk_state *w = payload;
    const char *name = git_tree_entry_name(entry);
    git_filemode_t mode = git_tree_entry_filemode(entry);
    if (!plain_name(name, strlen(name)))
        return kwb_error_set(w->err, "%s%s: not a plain file name", root, name);
    if (mode == GIT_FILEMODE_TREE)
        return 0;
    if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE)
        return kwb_error_set(w->err, "%s%s: not a regular file (mode %06o)", root, name, (unsigned)mode);
    git_blob *blob = NULL;
    if (git_blob_lookup(&blob, w->repo, git_tree_entry_id(entry)) < 0)
        return git_fail(w->err, "%s%s", root, name);
    char *path = xasprintf("%s%s", root, name);
    int rc = w->visit(w->ctx, path, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), w->err);
    free(path);
    git_blob_free(blob);
    return rc;
}

/* Calls VISIT on every file of TREE, in tree order. Returns 0, or -1 and sets *err. */
static int walk_files(git_repository *repo, git_tree *tree, file_visitor visit, void *ctx, kwb_error *err)
{
    walk_state w = {repo, visit, ctx, err};
    return git_tree_walk(tree, GIT_TREEWALK_PRE, walk_entry, &w) < 0 ? -1 : 0;
}

static int checkout_file(void *ctx, const char *path, const char *data, size_t len, kwb_error *err)
{
    char *full = xasprintf("%s/%s", (const char *)ctx, path);
    char *slash = strrchr(full, '/');
    *slash = '\0';
    int rc = mkdir_parents(full, err);
    *slash = '/';
    if (rc == 0)
        rc = write_new_file(full, data, len, err);
    free(full);
    return rc;
}

int archive_checkout(archive *a, const char *spec, const char *dir, kwb_error *err)
{
    git_tree *tree = NULL;
    if (lookup_tree(a, spec, &tree, err) < 0)
        return -1;
    int state = dir_state(dir), rc = -1;
    if (state == 1)
        kwb_error_set(err, "%s exists and is not an empty folder", dir);
    else if (state == 0 || mkdir_parents(dir, err) == 0)
        rc = walk_files(a->repo, tree, checkout_file, (void *)dir, err);
    git_tree_free(tree);
    return rc;
}

typedef struct file_list {
    solution_source *files;
    int n, cap;
} file_list;

static int collect_file(void *ctx, const char *path, const char *data, size_t len, kwb_error *err)
{
    file_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->files = xrealloc(l->files, (size_t)l->cap * sizeof *l->files);
    }
    solution_source *s = &l->files[l->n++];
    s->path = xstrdup(path);
    s->content = xmalloc(len + 1);
    memcpy(s->content, data, len);
    s->content[len] = '\0';
    s->len = len;
    return 0;
}

static int by_path(const void *x, const void *y)
{
    return strcmp(((const solution_source *)x)->path, ((const solution_source *)y)->path);
}

int archive_read_files(archive *a, const char *spec, solution_source **files, int *n, kwb_error *err)
{
    git_tree *tree = NULL;
    if (lookup_tree(a, spec, &tree, err) < 0)
        return -1;
    file_list l = {NULL, 0, 0};
    int rc = walk_files(a->repo, tree, collect_file, &l, err);
    git_tree_free(tree);
    if (rc < 0) {
        archive_files_free(l.files, l.n);
        return -1;
    }
    if (l.n > 1)
        qsort(l.files, (size_t)l.n, sizeof *l.files, by_path);
    *files = l.files;
    *n = l.n;
    return 0;
}

void archive_files_free(solution_source *files, int n)
{
    for (int i = 0; files && i < n; i++) {
        free(files[i].path);
        free(files[i].content);
    }
    free(files);
}

/* ---- diffs ----------------------------------------------------------------------------------- */

static int print_line(const git_diff_delta *delta, const git_diff_hunk *hunk, const git_diff_line *line, void *payload)
{
    strbuf *out = payload;
    if (line->origin == GIT_DIFF_LINE_CONTEXT || line->origin == GIT_DIFF_LINE_ADDITION ||
        line->origin == GIT_DIFF_LINE_DELETION)
        strbuf_add(out, &line->origin, 1);
    strbuf_add(out, line->content, line->content_len);
    return 0;
}

int archive_diff(archive *a, const char *old_spec, const char *new_spec, strbuf *out, kwb_error *err)
{
    git_tree *old_tree = NULL, *new_tree = NULL;
    git_diff *diff = NULL;
    int rc = -1;
    if (old_spec && lookup_tree(a, old_spec, &old_tree, err) < 0)
        ;
    else if (lookup_tree(a, new_spec, &new_tree, err) < 0)
        ;
    else if (git_diff_tree_to_tree(&diff, a->repo, old_tree, new_tree, NULL) < 0)
        git_fail(err, "cannot diff %s and %s", old_spec ? old_spec : "nothing", new_spec);
    else if (git_diff_print(diff, GIT_DIFF_FORMAT_PATCH, print_line, out) < 0)
        git_fail(err, "cannot print the diff");
    else
        rc = 0;
    git_diff_free(diff);
    git_tree_free(new_tree);
    git_tree_free(old_tree);
    return rc;
}

/* test_archive.c - the candidate archive, checked with the git CLI: commits with nested paths
 * and the right parents under refs/kwb/SESSION/; a user's repository keeps its HEAD, index
 * and work tree byte for byte; promoted tags v1, v2, then past the highest existing; rejected
 * commits survive gc; checkout writes exact bytes and modes; diffs; resolve; fsck --strict. */
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
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "archive.h"
#include "strbuf.h"

static const char MAIN_CU[] = "#include <kwb/kernel.h>\n__global__ void k(float *x) { x[0] = 1; }\n";
static const char X_OLD[] = "int scale = 1;\nint shift = 0;\n";
static const char X_NEW[] = "int scale = 2;\nint shift = 0;\n";
static const char BIN[] = "\0\x01\xff\r\nno newline";

/* ---- a fresh directory under /tmp per test -------------------------------------------- */

typedef struct fixture {
    char tmp[256];
    char repo[300]; /* TMP/arch.git, made bare by open_bare() */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->tmp, sizeof f->tmp, "/tmp/kwb-test-archive-XXXXXX");
    if (!mkdtemp(f->tmp)) {
        free(f);
        return -1;
    }
    snprintf(f->repo, sizeof f->repo, "%s/arch.git", f->tmp);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    testutil_remove_tree(f->tmp);
    free(f);
    return 0;
}

/* ---- the git CLI ---------------------------------------------------------------------- */

/* Runs the shell command (stderr merged into stdout); returns its output, which the caller
 * frees, and its exit status in *status. */
static char *sh(int *status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *sh(int *status, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(cmd, sizeof cmd - 8, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof cmd - 8);
    strcat(cmd, " 2>&1");
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    strbuf sb;
    strbuf_init(&sb);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, p)) > 0)
        strbuf_add(&sb, buf, got);
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    return sb.s;
}

/* Runs a command that must succeed; returns its output without the final newline. */
static char *sh_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *sh_ok(const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int status;
    char *out = sh(&status, "%s", cmd);
    if (status != 0)
        fail_msg("'%s' exited %d: %s", cmd, status, out);
    size_t len = strlen(out);
    if (len > 0 && out[len - 1] == '\n')
        out[len - 1] = '\0';
    return out;
}

/* Asserts that the command's output, without its final newline, is WANT. */
static void expect_output(const char *want, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect_output(const char *want, const char *fmt, ...)
{
    char cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    char *out = sh_ok("%s", cmd);
    if (strcmp(out, want) != 0)
        fail_msg("'%s' printed '%s', wanted '%s'", cmd, out, want);
    free(out);
}

/* ---- candidates --------------------------------------------------------------------------- */

static archive *open_bare(fixture *f)
{
    kwb_error err = {""};
    archive *a = archive_open(f->repo, 1, &err);
    if (!a)
        fail_msg("archive_open: %s", err.msg);
    return a;
}

static void commit_ok(archive *a, const char *session, const char *name, const char *x, const char *parent,
                      const char *message, char oid[41])
{
    solution_source files[2] = {
        {(char *)"main.cu", (char *)MAIN_CU, sizeof MAIN_CU - 1},
        {(char *)"sub/x.cu", (char *)x, strlen(x)},
    };
    kwb_error err = {""};
    if (archive_commit(a, session, name, files, 2, parent, message, oid, &err) != 0)
        fail_msg("archive_commit %s: %s", name, err.msg);
    assert_int_equal(strlen(oid), 40);
}

/* Commits c1 (X_OLD) and its child c2 (X_NEW) under session s1. */
static void commit_pair(archive *a, char c1[41], char c2[41])
{
    commit_ok(a, "s1", "c1", X_OLD, NULL, "first try", c1);
    commit_ok(a, "s1", "c2", X_NEW, c1, "edit x\n\nscale 2", c2);
}

/* ---- tests ---------------------------------------------------------------------------------- */

static void test_commit_parents_refs(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    expect_output("true", "git -C %s rev-parse --is-bare-repository", f->repo);
    char c1[41], c2[41];
    time_t before = time(NULL);
    commit_pair(a, c1, c2);
    assert_string_not_equal(c1, c2);

    expect_output(c1, "git -C %s rev-parse refs/kwb/s1/c1", f->repo);
    expect_output(c2, "git -C %s rev-parse refs/kwb/s1/c2", f->repo);
    expect_output(c1, "git -C %s rev-list --parents -n1 %s", f->repo, c1); /* a root commit */
    char want[100];
    snprintf(want, sizeof want, "%s %s", c2, c1);
    expect_output(want, "git -C %s rev-list --parents -n1 %s", f->repo, c2);

    /* nested path: a subtree, files 0644, exact contents */
    char *tree = sh_ok("git -C %s ls-tree %s", f->repo, c1);
    assert_non_null(strstr(tree, "100644 blob "));
    assert_non_null(strstr(tree, "\tmain.cu"));
    assert_non_null(strstr(tree, "040000 tree "));
    assert_non_null(strstr(tree, "\tsub"));
    free(tree);
    char *ls = sh_ok("git -C %s ls-tree -r --name-only %s", f->repo, c2);
    assert_string_equal(ls, "main.cu\nsub/x.cu");
    free(ls);
    char *x = sh_ok("git -C %s show %s:sub/x.cu", f->repo, c2);
    assert_string_equal(x, "int scale = 2;\nint shift = 0;");
    free(x);

    expect_output("kwb|kwb@localhost|kwb|kwb@localhost|edit x|scale 2\n",
                  "git -C %s log -1 --format='%%an|%%ae|%%cn|%%ce|%%s|%%b' %s", f->repo, c2);
    char *at = sh_ok("git -C %s log -1 --format=%%at %s", f->repo, c2);
    long t = atol(at);
    free(at);
    assert_true(t >= (long)before - 1 && t <= (long)time(NULL) + 1);

    /* HEAD is left unborn; re-committing a name moves its ref */
    int st;
    free(sh(&st, "git -C %s rev-parse --verify -q HEAD", f->repo));
    assert_int_not_equal(st, 0);
    char c1b[41];
    commit_ok(a, "s1", "c1", X_NEW, NULL, "again", c1b);
    expect_output(c1b, "git -C %s rev-parse refs/kwb/s1/c1", f->repo);
    archive_close(a);
}

/* Everything about the user's repository that archiving must leave alone. */
static char *user_snapshot(const char *w)
{
    strbuf sb;
    strbuf_init(&sb);
    const char *files[] = {".git/index", ".git/HEAD", "a.txt", "b.txt", "u.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", w, files[i]);
        size_t len;
        char *s = testutil_read_file(path, &len);
        strbuf_printf(&sb, "== %s %zu\n", files[i], len);
        for (size_t k = 0; k < len; k++) /* hex: the index holds NUL bytes */
            strbuf_printf(&sb, "%02x", (unsigned char)s[k]);
        strbuf_puts(&sb, "\n");
        free(s);
    }
    const char *cmds[] = {"rev-parse HEAD",
                          "symbolic-ref HEAD",
                          "diff --cached",
                          "diff",
                          "status --porcelain --untracked-files=all",
                          "for-each-ref refs/heads refs/remotes",
                          "stash list"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char *out = sh_ok("git -C %s %s", w, cmds[i]);
        strbuf_printf(&sb, "== %s\n%s\n", cmds[i], out);
        free(out);
    }
    char *ls = sh_ok("ls -A %s", w);
    strbuf_printf(&sb, "== ls\n%s\n", ls);
    free(ls);
    return sb.s; /* the caller frees it */
}

/* A user repository: one commit, a dirty tracked file, a staged new file, an untracked file. */
static void make_user_repo(const char *w)
{
    free(sh_ok(
        "git init -q %s && cd %s && printf 'v1\\n' > a.txt && git add a.txt && git commit -qm init && "
        "printf 'dirty\\n' >> a.txt && printf 'staged\\n' > b.txt && git add b.txt && printf 'untracked\\n' > u.txt",
        w, w));
}

static void test_user_repo_untouched(void **state)
{
    fixture *f = *state;
    char w[300], out[320];
    snprintf(w, sizeof w, "%s/user", f->tmp);
    snprintf(out, sizeof out, "%s/out", f->tmp);
    make_user_repo(w);
    char *before = user_snapshot(w);
    assert_non_null(strstr(before, "+staged")); /* the snapshot sees the staged change */
    assert_non_null(strstr(before, "+dirty"));  /* and the dirty work tree */

    kwb_error err = {""};
    archive *a = archive_open(w, 1, &err); /* an existing repository is opened, not re-made */
    assert_non_null(a);
    char c1[41], c2[41], tag[256], head[41];
    commit_pair(a, c1, c2);
    assert_int_equal(archive_tag_promoted(a, "def", c2, "sweep mean 1 us", tag, &err), 0);
    assert_int_equal(archive_mark_rejected(a, c1, "c1", &err), 0);
    assert_int_equal(archive_checkout(a, c2, out, &err), 0);
    assert_int_equal(archive_resolve(a, "HEAD", head, &err), 0);
    solution_source *files;
    int n;
    assert_int_equal(archive_read_files(a, head, &files, &n, &err), 0); /* the user's own commit */
    assert_int_equal(n, 1);
    assert_string_equal(files[0].path, "a.txt");
    assert_string_equal(files[0].content, "v1\n");
    archive_files_free(files, n);
    archive_close(a);

    char *after = user_snapshot(w);
    assert_string_equal(after, before);
    free(before);
    free(after);
    expect_output(c2, "git -C %s rev-parse refs/kwb/s1/c2", w);
    expect_output(c2, "git -C %s rev-parse def/v1^{commit}", w);
    expect_output("false", "git -C %s rev-parse --is-bare-repository", w);
    char bare_head[320];
    snprintf(bare_head, sizeof bare_head, "%s/HEAD", w);
    struct stat sb;
    assert_int_not_equal(lstat(bare_head, &sb), 0); /* no bare layout made in the work tree */
}

static void expect_tag(fixture *f, const char *tag, const char *commit, const char *message)
{
    expect_output("tag", "git -C %s cat-file -t %s", f->repo, tag);
    expect_output(commit, "git -C %s rev-parse %s^{commit}", f->repo, tag);
    char *body = sh_ok("git -C %s cat-file tag %s", f->repo, tag);
    char want[512];
    snprintf(want, sizeof want, "\ntag %s\ntagger kwb <kwb@localhost> ", tag);
    assert_non_null(strstr(body, want));
    snprintf(want, sizeof want, "\n\n%s", message);
    const char *m = strstr(body, want);
    assert_non_null(m);
    assert_string_equal(m, want); /* the message is the whole rest */
    free(body);
}

static void test_promoted_tags(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41], tag[256];
    commit_pair(a, c1, c2);
    kwb_error err = {""};
    const char *m1 = "promoted: sweep mean latency 12.50 us, speedup 1.00x, trials 5";
    const char *m2 = "promoted: sweep mean latency 10.00 us, speedup 1.25x, trials 5";
    assert_int_equal(archive_tag_promoted(a, "gdn_decode", c1, m1, tag, &err), 0);
    assert_string_equal(tag, "gdn_decode/v1");
    assert_int_equal(archive_tag_promoted(a, "gdn_decode", c2, m2, tag, &err), 0);
    assert_string_equal(tag, "gdn_decode/v2");
    expect_tag(f, "gdn_decode/v1", c1, m1);
    expect_tag(f, "gdn_decode/v2", c2, m2);

    /* N = 1 + the highest v<k> of this definition; other names do not count */
    free(sh_ok("cd %s && git tag gdn_decode/v7 %s && git tag gdn_decode/v9x %s && git tag gdn_decode2/v30 %s && "
               "git tag other/v20 %s",
               f->repo, c1, c1, c1, c1));
    assert_int_equal(archive_tag_promoted(a, "gdn_decode", c2, m2, tag, &err), 0);
    assert_string_equal(tag, "gdn_decode/v8");
    expect_tag(f, "gdn_decode/v8", c2, m2);

    assert_int_equal(archive_tag_promoted(a, "my def", c1, m1, tag, &err), 0);
    assert_string_equal(tag, "my-def/v1");
    assert_int_equal(archive_tag_promoted(a, "gdn_decode", "no-such-commit", m1, tag, &err), -1);
    assert_non_null(strstr(err.msg, "no-such-commit"));
    archive_close(a);
}

static void test_rejected_stays_reachable(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char bad[41], lost[41];
    commit_ok(a, "s1", "bad", X_OLD, NULL, "slower", bad);
    commit_ok(a, "s1", "lost", "int lost;\n", NULL, "never marked", lost);
    kwb_error err = {""};
    assert_int_equal(archive_mark_rejected(a, bad, "s1-bad", &err), 0);
    assert_int_equal(archive_mark_rejected(a, bad, "s1-bad", &err), 0); /* again: same commit, fine */
    assert_int_equal(archive_mark_rejected(a, lost, "s1-bad", &err), -1);
    assert_non_null(strstr(err.msg, "refs/kwb/rejected/s1-bad already holds another commit"));
    expect_output(bad, "git -C %s rev-parse refs/kwb/rejected/s1-bad", f->repo);

    /* the session refs go; gc keeps only what refs/kwb/rejected/ holds */
    free(sh_ok("cd %s && git update-ref -d refs/kwb/s1/bad && git update-ref -d refs/kwb/s1/lost && "
               "git gc -q --prune=now",
               f->repo));
    int st;
    free(sh(&st, "git -C %s cat-file -e %s", f->repo, bad));
    assert_int_equal(st, 0);
    free(sh(&st, "git -C %s cat-file -e %s^{tree}", f->repo, bad));
    assert_int_equal(st, 0);
    free(sh(&st, "git -C %s cat-file -e %s", f->repo, lost));
    assert_int_not_equal(st, 0);
    archive_close(a);
}

static void expect_file(const char *dir, const char *rel, const char *want, size_t len)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    size_t got_len;
    char *got = testutil_read_file(path, &got_len);
    assert_int_equal(got_len, len);
    assert_memory_equal(got, want, len);
    free(got);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0644);
}

static void test_checkout_exact_bytes(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    solution_source files[3] = {
        {(char *)"main.cu", (char *)MAIN_CU, sizeof MAIN_CU - 1},
        {(char *)"sub/deep/data.bin", (char *)BIN, sizeof BIN - 1},
        {(char *)"empty.txt", (char *)"", 0},
    };
    kwb_error err = {""};
    char c[41];
    assert_int_equal(archive_commit(a, "s", "bytes", files, 3, NULL, "bytes", c, &err), 0);

    char out[400];
    snprintf(out, sizeof out, "%s/x/y/out", f->tmp);
    mode_t old = umask(077); /* files are 0644 whatever the umask */
    int rc = archive_checkout(a, "s/bytes", out, &err);
    umask(old);
    if (rc != 0)
        fail_msg("checkout: %s", err.msg);
    expect_file(out, "main.cu", MAIN_CU, sizeof MAIN_CU - 1);
    expect_file(out, "sub/deep/data.bin", BIN, sizeof BIN - 1);
    expect_file(out, "empty.txt", "", 0);
    expect_output("empty.txt\nmain.cu\nsub\nsub/deep\nsub/deep/data.bin",
                  "cd %s && find . -mindepth 1 | sed 's|^./||' | LC_ALL=C sort", out);

    /* a folder that is not empty, or a file, is refused and left alone */
    assert_int_equal(archive_checkout(a, c, out, &err), -1);
    assert_non_null(strstr(err.msg, "not an empty folder"));
    expect_file(out, "main.cu", MAIN_CU, sizeof MAIN_CU - 1);
    char file[500];
    snprintf(file, sizeof file, "%s/main.cu", out);
    assert_int_equal(archive_checkout(a, c, file, &err), -1);

    /* an empty folder that exists is fine */
    char empty[400];
    snprintf(empty, sizeof empty, "%s/empty", f->tmp);
    assert_int_equal(mkdir(empty, 0755), 0);
    assert_int_equal(archive_checkout(a, c, empty, &err), 0);
    expect_file(empty, "sub/deep/data.bin", BIN, sizeof BIN - 1);

    /* an unknown candidate makes no folder */
    char none[400];
    snprintf(none, sizeof none, "%s/none", f->tmp);
    assert_int_equal(archive_checkout(a, "s/nope", none, &err), -1);
    struct stat sb;
    assert_int_not_equal(stat(none, &sb), 0);
    archive_close(a);
}

static void test_read_files(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41];
    commit_pair(a, c1, c2);
    kwb_error err = {""};
    solution_source *files = NULL;
    int n = 0;
    assert_int_equal(archive_read_files(a, c2, &files, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(files[0].path, "main.cu");
    assert_int_equal(files[0].len, sizeof MAIN_CU - 1);
    assert_string_equal(files[0].content, MAIN_CU);
    assert_string_equal(files[1].path, "sub/x.cu");
    assert_string_equal(files[1].content, X_NEW);
    archive_files_free(files, n);
    assert_int_equal(archive_read_files(a, "missing", &files, &n, &err), -1);
    archive_close(a);
}

static void test_diff_shows_edit(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41];
    commit_pair(a, c1, c2);
    kwb_error err = {""};
    strbuf d;
    strbuf_init(&d);
    assert_int_equal(archive_diff(a, c1, c2, &d, &err), 0);
    assert_non_null(strstr(d.s, "diff --git a/sub/x.cu b/sub/x.cu\n"));
    assert_non_null(strstr(d.s, "\n-int scale = 1;\n+int scale = 2;\n int shift = 0;\n"));
    assert_null(strstr(d.s, "main.cu"));
    char *git = sh_ok("git -C %s diff %s %s", f->repo, c1, c2);
    /* git's own patch (sh_ok dropped its final newline) */
    assert_int_equal(d.len, strlen(git) + 1);
    assert_memory_equal(d.s, git, strlen(git));
    free(git);
    strbuf_free(&d);

    strbuf_init(&d);
    assert_int_equal(archive_diff(a, NULL, "s1/c1", &d, &err), 0);
    assert_non_null(strstr(d.s, "diff --git a/main.cu b/main.cu\nnew file mode 100644\n"));
    assert_non_null(strstr(d.s, "+++ b/sub/x.cu\n@@ -0,0 +1,2 @@\n+int scale = 1;\n+int shift = 0;\n"));
    assert_int_equal(archive_diff(a, "nope", c2, &d, &err), -1);
    strbuf_free(&d);
    archive_close(a);
}

static void test_fsck_strict(void **state)
{
    fixture *f = *state;
    char w[300];
    snprintf(w, sizeof w, "%s/user", f->tmp);
    make_user_repo(w);
    const char *repos[] = {f->repo, w};
    for (int i = 0; i < 2; i++) {
        kwb_error err = {""};
        archive *a = archive_open(repos[i], 1, &err);
        assert_non_null(a);
        char c1[41], c2[41], c3[41], tag[256];
        commit_pair(a, c1, c2);
        commit_ok(a, "s2", "c3", "int z;\n", c2, "", c3); /* empty message: a default one */
        assert_int_equal(archive_tag_promoted(a, "gdn", c2, "speedup 1.2x\n\n\n", tag, &err), 0);
        assert_int_equal(archive_mark_rejected(a, c1, "r", &err), 0);
        archive_close(a);
        int st;
        char *out = sh(&st, "git -C %s fsck --strict --no-dangling", repos[i]);
        if (st != 0 || strstr(out, "error") || strstr(out, "warning") || strstr(out, "missing"))
            fail_msg("git fsck --strict in %s (exit %d): %s", repos[i], st, out);
        free(out);
        expect_output("kwb candidate\n", "git -C %s log -1 --format=%%B refs/kwb/s2/c3", repos[i]);
    }
}

static void test_resolve(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41], got[41], tag[256];
    commit_pair(a, c1, c2);
    kwb_error err = {""};
    char abbrev[8];
    snprintf(abbrev, sizeof abbrev, "%.7s", c1);
    const char *specs[] = {abbrev, c1, "refs/kwb/s1/c1", "kwb/s1/c1", "s1/c1"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        memset(got, 0, sizeof got);
        if (archive_resolve(a, specs[i], got, &err) != 0)
            fail_msg("resolve %s: %s", specs[i], err.msg);
        assert_string_equal(got, c1);
    }
    assert_int_equal(archive_tag_promoted(a, "d", c2, "m", tag, &err), 0);
    assert_int_equal(archive_resolve(a, tag, got, &err), 0); /* an annotated tag peels to its commit */
    assert_string_equal(got, c2);

    assert_int_equal(archive_resolve(a, "nope", got, &err), -1);
    assert_string_equal(err.msg, "'nope': no such commit or reference");
    assert_int_equal(archive_resolve(a, "", got, &err), -1);
    char *tree = sh_ok("git -C %s rev-parse %s^{tree}", f->repo, c1);
    assert_int_equal(archive_resolve(a, tree, got, &err), -1);
    assert_non_null(strstr(err.msg, "is not a commit"));
    free(tree);
    archive_close(a);
}

static void test_ref_names(void **state)
{
    fixture *f = *state;
    const char *cases[][2] = {
        {"my session/1", "my-session-1"},
        {".hidden..x.lock", "-hidden.-x-lock"},
        {"a~b^c:d?e*f[g\\h", "a-b-c-d-e-f-g-h"},
        {"@{x}", "--x-"},
        {"v1.", "v1-"},
        {"caf\xc3\xa9", "caf--"},
        {"ok_name-1.2+x", "ok_name-1.2+x"},
    };
    kwb_error err = {""};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *c = archive_ref_component(cases[i][0], &err);
        assert_non_null(c);
        assert_string_equal(c, cases[i][1]);
        free(sh_ok("git check-ref-format 'refs/kwb/%s'", c)); /* git agrees it is valid */
        free(c);
    }
    assert_null(archive_ref_component("", &err));
    assert_null(archive_ref_component(NULL, &err));

    archive *a = open_bare(f);
    char c[41];
    commit_ok(a, "my session", "v1: try*", X_OLD, NULL, "odd names", c);
    expect_output(c, "git -C %s rev-parse refs/kwb/my-session/v1--try-", f->repo);
    archive_close(a);
}

static void expect_commit_error(archive *a, const solution_source *files, int n, const char *session,
                                const char *parent, const char *want)
{
    kwb_error err = {""};
    char oid[41];
    assert_int_equal(archive_commit(a, session, "bad", files, n, parent, "m", oid, &err), -1);
    if (!strstr(err.msg, want))
        fail_msg("error '%s' lacks '%s'", err.msg, want);
}

static void test_bad_input(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    const char *bad_paths[] = {"../x", "/abs", "a//b", "a/", "./a", ".git/config", "sub/.GIT/x", "a/../b", ""};
    for (size_t i = 0; i < sizeof bad_paths / sizeof bad_paths[0]; i++) {
        solution_source one = {(char *)bad_paths[i], (char *)"x", 1};
        expect_commit_error(a, &one, 1, "s", NULL, "is not a plain relative path");
    }
    solution_source dup[2] = {{(char *)"a.c", (char *)"1", 1}, {(char *)"a.c", (char *)"2", 1}};
    expect_commit_error(a, dup, 2, "s", NULL, "'a.c' clashes with 'a.c'");
    solution_source dirfile[2] = {{(char *)"a", (char *)"1", 1}, {(char *)"a/b", (char *)"2", 1}};
    expect_commit_error(a, dirfile, 2, "s", NULL, "'a/b' clashes with 'a'");
    expect_commit_error(a, dup, 0, "s", NULL, "at least one file");
    expect_commit_error(a, dup, 1, "s", "deadbeef", "parent: 'deadbeef': no such commit");
    expect_commit_error(a, dup, 1, "rejected", NULL, "reserved");
    expect_commit_error(a, dup, 1, "", NULL, "session: empty name");
    expect_output("", "git -C %s for-each-ref", f->repo); /* no ref was made */
    archive_close(a);

    kwb_error err = {""};
    char path[400];
    snprintf(path, sizeof path, "%s/missing", f->tmp);
    assert_null(archive_open(path, 0, &err));
    assert_non_null(strstr(err.msg, "cannot open the repository"));
    snprintf(path, sizeof path, "%s/full", f->tmp);
    free(sh_ok("mkdir %s && echo keep > %s/file", path, path));
    assert_null(archive_open(path, 1, &err));
    assert_non_null(strstr(err.msg, "not an empty folder"));
    expect_output("file", "ls -A %s", path);
}

/* Creates the empty file REPO/REL (a lock file a killed writer left). */
static void touch_in(const fixture *f, const char *rel)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", f->repo, rel);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
}

/* REPO/packed-refs.lock, left a minute ago (AGO_S seconds; 0: now, as a live git holds it). */
static void packed_lock(const fixture *f, int ago_s)
{
    char path[600];
    touch_in(f, "packed-refs.lock");
    snprintf(path, sizeof path, "%s/packed-refs.lock", f->repo);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= ago_s;
    t[1] = t[0];
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* A kwb killed while libgit2 held a ref's lock file (REF.lock, packed-refs.lock) leaves it; the
 * next kwb changes that ref all the same: commit over it, tag, untag, mark and unmark; an old
 * packed-refs.lock goes, a fresh one (perhaps a live git's) stays. */
static void test_stale_ref_locks(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41], tag[256];
    commit_ok(a, "s1", "c1", X_OLD, NULL, "first", c1);
    touch_in(f, "refs/kwb/s1/c2.lock");
    touch_in(f, "refs/kwb/s1/c1.lock");
    commit_ok(a, "s1", "c2", X_NEW, c1, "second", c2);
    commit_ok(a, "s1", "c1", X_NEW, NULL, "again", c1);
    kwb_error err = {""};
    sh_ok("mkdir -p %s/refs/tags/d %s/refs/kwb/rejected", f->repo, f->repo);
    touch_in(f, "refs/tags/d/v1.lock");
    if (archive_tag_promoted(a, "d", c2, "m", tag, &err) != 0)
        fail_msg("tag over a stale lock: %s", err.msg);
    assert_string_equal(tag, "d/v1");
    packed_lock(f, 60);
    touch_in(f, "refs/tags/d/v1.lock");
    if (archive_untag_promoted(a, "d", c2, tag, &err) != 0)
        fail_msg("untag over a stale lock: %s", err.msg);
    assert_string_equal(tag, "d/v1");
    touch_in(f, "refs/kwb/rejected/r.lock");
    assert_int_equal(archive_mark_rejected(a, c1, "r", &err), 0);
    /* a fresh packed-refs.lock may be the user's own git at work (kwb init --repo): left alone */
    char packed[600];
    struct stat st;
    snprintf(packed, sizeof packed, "%s/packed-refs.lock", f->repo);
    packed_lock(f, 0);
    assert_int_equal(archive_mark_rejected(a, c2, "q", &err), 0);
    assert_int_equal(stat(packed, &st), 0);
    packed_lock(f, 60);
    assert_int_equal(archive_unmark_rejected(a, "r", &err), 0);
    assert_int_equal(stat(packed, &st), -1);
    expect_output("", "git --git-dir=%s tag -l", f->repo);
    expect_output("refs/kwb/rejected/q", "git --git-dir=%s for-each-ref --format='%%(refname)' refs/kwb/rejected",
                  f->repo);
    expect_output(c2, "git --git-dir=%s rev-parse refs/kwb/s1/c2", f->repo);
    archive_close(a);
}

/* A ref lock file a live kwb holds (under the archive's writer lock) is not taken away: a second
 * writer waits for the first to finish, and its change comes after. */
static void test_live_writer_waits(void **state)
{
    fixture *f = *state;
    archive *a = open_bare(f);
    char c1[41], c2[41];
    commit_ok(a, "s1", "c1", X_OLD, NULL, "first", c1);
    char lock[600], done[600];
    snprintf(lock, sizeof lock, "%s/kwb-writer.lock", f->repo);
    snprintf(done, sizeof done, "%s/released", f->tmp);
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) { /* a writer in the middle of changing refs/kwb/s1/c2 */
        int fd = open(lock, O_RDWR | O_CREAT, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(1);
        touch_in(f, "refs/kwb/s1/c2.lock");
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        usleep(300 * 1000);
        char path[600];
        snprintf(path, sizeof path, "%s/refs/kwb/s1/c2.lock", f->repo);
        unlink(path);
        FILE *mark = fopen(done, "w");
        if (mark)
            fclose(mark);
        _exit(0);
    }
    char byte;
    close(ready[1]);
    assert_int_equal(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    commit_ok(a, "s1", "c2", X_NEW, c1, "second", c2);
    struct stat st;
    assert_int_equal(stat(done, &st), 0); /* the commit came after the first writer let go */
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    archive_close(a);
}

int main(void)
{
    /* the git CLI: no user or system configuration, an identity, and no opportunistic index
     * refreshes by read-only commands (they would change .git/index behind the snapshot) */
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
    setenv("GIT_OPTIONAL_LOCKS", "0", 1);
    setenv("GIT_AUTHOR_NAME", "User", 1);
    setenv("GIT_AUTHOR_EMAIL", "user@example.com", 1);
    setenv("GIT_COMMITTER_NAME", "User", 1);
    setenv("GIT_COMMITTER_EMAIL", "user@example.com", 1);
    setenv("LC_ALL", "C", 1);
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_commit_parents_refs),
        T(test_user_repo_untouched),
        T(test_promoted_tags),
        T(test_rejected_stays_reachable),
        T(test_checkout_exact_bytes),
        T(test_read_files),
        T(test_diff_shows_edit),
        T(test_fsck_strict),
        T(test_resolve),
        T(test_ref_names),
        T(test_bad_input),
        T(test_stale_ref_locks),
        T(test_live_writer_waits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

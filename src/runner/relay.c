#define _GNU_SOURCE
#include "runner/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "paths.h"
#include "sha256.h"
#include "ship.h"
#include "proc.h"
#include "protocol.h"
#include "strbuf.h"
#include "xalloc.h"

static volatile pid_t runner_pid;

/* The runner's whole process group (it and whatever a candidate started) goes with the relay. */
static void kill_runner(void)
{
    if (runner_pid > 0) {
        kill(-runner_pid, SIGKILL);
        kill(runner_pid, SIGKILL);
    }
}

static void on_signal(int sig)
{
    kill_runner();
    _exit(128 + sig);
}

/* The job line from stdin (without its newline), or NULL at end of input. */
static char *read_job_line(void)
{
    strbuf sb;
    strbuf_init(&sb);
    char c;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            strbuf_free(&sb);
            return NULL;
        }
        if (c == '\n')
            return strbuf_detach(&sb);
        strbuf_add(&sb, &c, 1);
    }
}

/* Reads exactly N bytes of stdin into PATH; 0 or -1. */
static int receive_file(const char *path, long long n, char sha[65])
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    sha256_ctx ctx;
    sha256_init(&ctx);
    char buf[65536];
    int rc = 0;
    while (n > 0 && rc == 0) {
        ssize_t r = read(STDIN_FILENO, buf, n < (long long)sizeof buf ? (size_t)n : sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || ship_write_all(fd, buf, (size_t)r) != 0)
            rc = -1;
        else {
            sha256_update(&ctx, buf, (size_t)r);
            n -= r;
        }
    }
    uint8_t d[32];
    sha256_final(&ctx, d);
    sha256_hex(d, sha);
    return close(fd) == 0 ? rc : -1;
}

/* A dataset-relative path that stays inside its root. */
static int safe_rel(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return 0;
    for (const char *p = rel; *p; p = strchr(p, '/') ? strchr(p, '/') + 1 : p + strlen(p))
        if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
            return 0;
    return 1;
}

/* files=ship (ship.h): answers MANIFEST with what CACHE lacks, stores what comes (checked against
 * its SHA-256), links the dataset's blobs under a root of this manifest's own, then reads the job
 * and points its paths at the copies. Returns the job line, or NULL with a message on stderr. */
static char *receive_shipped(const char *cache, const char *manifest)
{
    json_t *m = json_loads(manifest, 0, NULL), *files = json_object_get(m, "ship"), *need = json_array(), *f;
    size_t i;
    char *files_dir = xasprintf("%s/files", cache), *job = NULL;
    char mh[65];
    sha256_buffer_hex(manifest, strlen(manifest), mh);
    char *root = xasprintf("%s/roots/%s", cache, mh);
    int ok = json_is_array(files) && paths_mkdir_p(files_dir) == 0 && paths_mkdir_p(root) == 0;
    json_t *copies = json_object(); /* original path -> the copy here */
    json_array_foreach(ok ? files : NULL, i, f)
    {
        const char *sha = json_string_value(json_object_get(f, "sha256")),
                   *path = json_string_value(json_object_get(f, "path"));
        const char *base = path && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (!sha || strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64 || !base || !*base) {
            ok = 0;
            break;
        }
        char *copy = xasprintf("%s/%s/%s", files_dir, sha, base);
        if (access(copy, R_OK) != 0)
            json_array_append_new(need, json_string(sha));
        json_object_set_new(copies, path, json_string(copy));
        free(copy);
    }
    json_t *reply = json_pack("{s:O}", "need", need);
    char *answer = ok ? json_dumps(reply, JSON_COMPACT) : NULL;
    json_decref(reply);
    ok = answer && ship_write_all(STDOUT_FILENO, answer, strlen(answer)) == 0 &&
         ship_write_all(STDOUT_FILENO, "\n", 1) == 0;
    free(answer);
    json_array_foreach(ok ? files : NULL, i, f)
    {
        const char *sha = json_string_value(json_object_get(f, "sha256"));
        const char *copy = json_string_value(json_object_get(copies, json_string_value(json_object_get(f, "path"))));
        int wanted = 0;
        for (size_t k = 0; k < json_array_size(need); k++)
            wanted |= strcmp(json_string_value(json_array_get(need, k)), sha) == 0;
        if (wanted) {
            char *dir = xasprintf("%s/%s", files_dir, sha), *tmp = xasprintf("%s/%s.part%d", files_dir, sha, getpid());
            char got[65];
            int r = receive_file(tmp, json_integer_value(json_object_get(f, "size")), got);
            if (r != 0 || strcmp(got, sha) != 0 || paths_mkdir_p(dir) != 0 || rename(tmp, copy) != 0) {
                fprintf(stderr, "kwb-runner: --stdio: the shipped %s did not arrive whole\n", copy);
                unlink(tmp);
                ok = 0;
            }
            free(dir);
            free(tmp);
        }
        const char *rel = json_string_value(json_object_get(f, "rel"));
        if (ok && rel) { /* the dataset's blob at its place under this manifest's root */
            char *at = xasprintf("%s/%s", root, rel), *slash;
            if (!safe_rel(rel))
                ok = 0;
            else if ((slash = strrchr(at, '/')) != NULL) {
                *slash = '\0';
                paths_mkdir_p(at);
                *slash = '/';
                if (link(copy, at) != 0 && errno != EEXIST) /* a hard link: the sandbox reads under the root */
                    ok = 0;
            }
            free(at);
        }
    }
    char *line = ok ? read_job_line() : NULL;
    json_t *j = line ? json_loads(line, 0, NULL) : NULL, *sol;
    if (j) {
        const char *def = json_string_value(json_object_get(j, "definition"));
        json_t *c = def ? json_object_get(copies, def) : NULL;
        if (c)
            json_object_set(j, "definition", c);
        json_array_foreach(json_object_get(j, "solutions"), i, sol)
        {
            const char *so = json_string_value(json_object_get(sol, "so"));
            if (so && (c = json_object_get(copies, so)) != NULL)
                json_object_set(sol, "so", c);
        }
        json_t *ref = json_object_get(j, "reference");
        for (int k = 0; k < 2; k++) { /* its library and its helpers' */
            const char *key = k ? "helpers" : "so", *lib = json_string_value(json_object_get(ref, key));
            if (lib && (c = json_object_get(copies, lib)) != NULL)
                json_object_set(ref, key, c);
        }
        json_object_set_new(j, "dataset", json_string(root));
        json_object_set_new(j, "cache", json_string(cache));
        job = json_dumps(j, JSON_COMPACT);
    }
    if (!ok)
        fprintf(stderr, "kwb-runner: --stdio: files=ship failed in %s\n", cache);
    json_decref(j);
    free(line);
    json_decref(copies);
    json_decref(need);
    json_decref(m);
    free(files_dir);
    free(root);
    return job;
}

/* Starts SELF --job-fd 3 --event-fd 4 in its own process group, the candidate's output on our
 * stderr; *ev_fd the events' read end. Returns the pid or -1. */
static pid_t start_runner(const char *self, const char *job, int *ev_fd)
{
    int jp[2], ep[2];
    if (pipe2(jp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        signal(SIGPIPE, SIG_DFL);
        int null = open("/dev/null", O_RDONLY);
        dup2(null, STDIN_FILENO);
        dup2(STDERR_FILENO, STDOUT_FILENO);
        int j = fcntl(jp[0], F_DUPFD, 10), e = fcntl(ep[1], F_DUPFD, 10);
        dup2(j, 3);
        dup2(e, 4);
        closefrom(5);
        execl(self, self, "--job-fd", "3", "--event-fd", "4", (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid);
    close(jp[0]);
    close(ep[1]);
    *ev_fd = ep[0];
    if (pid > 0)
        (void)ship_write_all(jp[1], job, strlen(job)), (void)ship_write_all(jp[1], "\n", 1);
    close(jp[1]);
    return pid;
}

/* Forwards the whole lines in BUF to stdout, counting them in *lines; keeps a partial one. */
static int forward_lines(strbuf *buf, unsigned long *lines)
{
    char *end = buf->len ? memrchr(buf->s, '\n', buf->len) : NULL;
    if (!end)
        return 0;
    size_t n = (size_t)(end - buf->s) + 1;
    for (size_t i = 0; i < n; i++)
        *lines += buf->s[i] == '\n' && i > 0 && buf->s[i - 1] != '\n';
    if (ship_write_all(STDOUT_FILENO, buf->s, n) != 0)
        return -1;
    memmove(buf->s, buf->s + n, buf->len - n);
    buf->len -= n;
    buf->s[buf->len] = '\0';
    return 0;
}

/* The sealed "exit" event after the runner's LINES events (unsealed when the job had no key). */
static int send_exit(const char *key, unsigned long lines, int status)
{
    json_t *ev = protocol_event_new("exit");
    json_object_set_new(ev, "status", json_integer(status));
    char *line = key ? channel_seal(key, lines, ev) : json_dumps(ev, JSON_COMPACT);
    json_decref(ev);
    int rc = line ? ship_write_all(STDOUT_FILENO, line, strlen(line)) : -1;
    if (rc == 0)
        rc = ship_write_all(STDOUT_FILENO, "\n", 1);
    free(line);
    return rc;
}

int relay_main(const char *self, double heartbeat_s, const char *ship_cache)
{
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    char *job = read_job_line();
    if (job && strncmp(job, "{\"ship\":", 8) == 0) {
        char *shipped = receive_shipped(ship_cache, job);
        free(job);
        job = shipped;
    }
    if (!job) {
        fprintf(stderr, "kwb-runner: --stdio: no job on stdin\n");
        return 2;
    }
    json_t *parsed = json_loads(job, 0, NULL);
    const char *k = json_string_value(json_object_get(parsed, "key"));
    char *key = k ? xstrdup(k) : NULL;
    /* kwb made the runner's scratch folder on its own host: on another, it is made here */
    const char *sc = json_string_value(json_object_get(parsed, "scratch"));
    char *scratch = sc && access(sc, F_OK) != 0 && paths_mkdir_p(sc) == 0 ? xstrdup(sc) : NULL;
    json_decref(parsed);
    int ev_fd = -1;
    runner_pid = start_runner(self, job, &ev_fd);
    free(job);
    if (runner_pid < 0) {
        fprintf(stderr, "kwb-runner: --stdio: cannot start %s: %s\n", self, strerror(errno));
        if (scratch)
            paths_remove_tree(scratch);
        free(scratch);
        free(key);
        return 2;
    }
    strbuf buf;
    strbuf_init(&buf);
    unsigned long lines = 0;
    double last_sent = proc_now();
    int status = 0, ev_open = 1;
    for (;;) {
        struct pollfd pfd[2] = {{STDIN_FILENO, POLLIN, 0}, {ev_open ? ev_fd : -1, POLLIN, 0}};
        int pr = poll(pfd, 2, 200);
        if (pr < 0 && errno != EINTR)
            break;
        char chunk[65536];
        if (pr > 0 && pfd[0].revents) {
            ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
            if (n == 0 || (n < 0 && errno != EINTR))
                break; /* the parent (or the link to it) is gone */
        }
        if (pr > 0 && pfd[1].revents) {
            ssize_t n = read(ev_fd, chunk, sizeof chunk);
            if (n > 0)
                strbuf_add(&buf, chunk, (size_t)n);
            else if (n == 0 || errno != EINTR)
                ev_open = 0;
            if (forward_lines(&buf, &lines) != 0)
                break;
            if (n > 0)
                last_sent = proc_now();
        }
        if (waitpid(runner_pid, &status, WNOHANG) == runner_pid) {
            /* What it wrote before it ended is in the pipe: forward the whole lines, then its end. */
            fcntl(ev_fd, F_SETFL, O_NONBLOCK);
            ssize_t n;
            while (ev_open && (n = read(ev_fd, chunk, sizeof chunk)) > 0)
                strbuf_add(&buf, chunk, (size_t)n);
            if (forward_lines(&buf, &lines) == 0)
                send_exit(key, lines, status);
            kill(-runner_pid, SIGKILL);
            runner_pid = 0;
            break;
        }
        if (proc_now() - last_sent >= heartbeat_s) {
            if (ship_write_all(STDOUT_FILENO, "\n", 1) != 0)
                break;
            last_sent = proc_now();
        }
    }
    kill_runner();
    if (scratch)
        paths_remove_tree(scratch);
    free(scratch);
    strbuf_free(&buf);
    free(key);
    return 0;
}

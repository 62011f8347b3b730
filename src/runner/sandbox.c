/* sandbox.c - seccomp (libseccomp), Landlock (raw system calls) and rlimits; see sandbox.h. */
#define _GNU_SOURCE
#include "runner/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <link.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "config.h"
#include "strbuf.h"
#include "xalloc.h"

/* ---- the system calls refused ---- */

typedef struct refusal {
    const char *name;
    const char *why;
} refusal;

static const refusal refused_calls[] = {
    {"socket", "network"},
    {"connect", "network"},
    {"bind", "network"},
    {"listen", "network"},
    {"accept", "network"},
    {"accept4", "network"},
    {"execve", "starting a program"},
    {"execveat", "starting a program"},
    {"fork", "a new process"},
    {"vfork", "a new process"},
    {"ptrace", "tracing"},
    {"process_vm_readv", "another process's memory"},
    {"process_vm_writev", "another process's memory"},
    {"pidfd_getfd", "another process's descriptors"},
    {"unshare", "namespaces"},
    {"setns", "namespaces"},
    {"mount", "mounts"},
    {"umount2", "mounts"},
    {"pivot_root", "mounts"},
    {"chroot", "mounts"},
    {"bpf", "kernel programs"},
    {"keyctl", "kernel keys"},
    {"add_key", "kernel keys"},
    {"request_key", "kernel keys"},
    {"init_module", "kernel modules"},
    {"finit_module", "kernel modules"},
    {"delete_module", "kernel modules"},
    {"kexec_load", "the kernel"},
    {"kexec_file_load", "the kernel"},
    {"reboot", "the machine"},
    {"swapon", "the machine"},
    {"swapoff", "the machine"},
    {"acct", "the machine"},
    {"userfaultfd", "user page faults"},
    {"io_uring_setup", "io_uring (its requests pass no filter)"},
    {"io_uring_enter", "io_uring (its requests pass no filter)"},
    {"io_uring_register", "io_uring (its requests pass no filter)"},
    {"open_by_handle_at", "file handles"},
    {"name_to_handle_at", "file handles"},
};

/* File system calls watched: the sandbox's SIGSYS handler makes the call itself (marked by a
 * secret sixth argument, which the filter lets through) and records a path Landlock refused.
 * PATH_ARG: which argument is the path; FLAGS_ARG: open flags (-1: always a write). */
typedef struct watched {
    const char *name;
    int path_arg;
    int flags_arg;
} watched;

static const watched watched_calls[] = {
    {"open", 0, 1},       {"openat", 1, 2},    {"creat", 0, -1},    {"mkdir", 0, -1},   {"mkdirat", 1, -1},
    {"unlink", 0, -1},    {"unlinkat", 1, -1}, {"rmdir", 0, -1},    {"rename", 1, -1},  {"renameat", 3, -1},
    {"renameat2", 3, -1}, {"link", 1, -1},     {"linkat", 3, -1},   {"symlink", 1, -1}, {"symlinkat", 2, -1},
    {"mknod", 0, -1},     {"mknodat", 1, -1},  {"truncate", 0, -1},
};

enum { NWATCHED = sizeof watched_calls / sizeof watched_calls[0] };

static long watched_nr[NWATCHED];
static long magic;                     /* the handler's own calls carry it */
static volatile sig_atomic_t watching; /* candidate code is running */
static volatile sig_atomic_t refused;  /* 0, or 1 + the index of the kind below */
static volatile long refused_nr;
static volatile int refused_is_write;
static char refused_path[256];

enum { REFUSED_CALL = 1, REFUSED_PATH = 2 };

void sandbox_watch(int on)
{
    watching = on;
}

/* Copies the string at P (the kernel has just read it) into refused_path. */
static void keep_path(const char *p)
{
    size_t i = 0;
    for (; p && p[i] && i + 1 < sizeof refused_path; i++)
        refused_path[i] = p[i];
    refused_path[i] = '\0';
}

#if defined(__x86_64__)
#define SANDBOX_TRAP 1
#define ARG(uc, i) ((long)(uc)->uc_mcontext.gregs[(int[]){REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8, REG_R9}[i]])
#define SET_RETURN(uc, v) ((uc)->uc_mcontext.gregs[REG_RAX] = (greg_t)(v))
#elif defined(__aarch64__)
#define SANDBOX_TRAP 1
#define ARG(uc, i) ((long)(uc)->uc_mcontext.regs[i])
#define SET_RETURN(uc, v) ((uc)->uc_mcontext.regs[0] = (unsigned long long)(v))
#else
#define SANDBOX_TRAP 0
#endif

#if SANDBOX_TRAP
/* SIGSYS from the filter: a refused call returns EPERM and is recorded; a watched file call
 * is made here and a refused path recorded. Async-signal-safe. */
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    int saved = errno;
    long nr = si->si_syscall, ret = -EPERM;
    int w = -1;
    for (int i = 0; i < NWATCHED && w < 0; i++)
        if (watched_nr[i] == nr)
            w = i;
    if (w >= 0) {
        ret = syscall(nr, ARG(uc, 0), ARG(uc, 1), ARG(uc, 2), ARG(uc, 3), ARG(uc, 4), magic);
        if (ret == -1)
            ret = -errno;
        if ((ret == -EACCES || ret == -EPERM) && watching && !refused) {
            const watched *c = &watched_calls[w];
            long flags = c->flags_arg >= 0 ? ARG(uc, c->flags_arg) : -1;
            refused_is_write = flags < 0 || (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC));
            keep_path((const char *)ARG(uc, c->path_arg));
            refused_nr = nr;
            refused = REFUSED_PATH;
        }
    } else if (watching && !refused) {
        refused_nr = nr;
        refused = REFUSED_CALL;
    }
    SET_RETURN(uc, ret);
    errno = saved;
}
#endif

static const char *reason_of(const char *name)
{
    for (size_t i = 0; i < sizeof refused_calls / sizeof refused_calls[0]; i++)
        if (strcmp(refused_calls[i].name, name) == 0)
            return refused_calls[i].why;
    if (strcmp(name, "clone") == 0)
        return "a new process";
    if (strcmp(name, "rt_sigaction") == 0)
        return "replacing the sandbox's SIGSYS handler";
    return "refused";
}

int sandbox_refused(char *why, size_t cap)
{
    if (!refused)
        return 0;
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)refused_nr);
    const char *n = name ? name : "?";
    if (refused == REFUSED_PATH)
        snprintf(why, cap, "the sandbox refused %s of '%s' (%s)", n, refused_path,
                 refused_is_write ? "a write outside the scratch folder" : "a read outside the allowed files");
    else
        snprintf(why, cap, "the sandbox refused system call '%s' (%s)", n, reason_of(n));
    free(name);
    refused = 0;
    return 1;
}

static int add_rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n, const struct scmp_arg_cmp *cmp)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr < 0)
        return 0; /* not a call of this architecture */
    return seccomp_rule_add_array(ctx, action, nr, n, cmp) == 0 ? 1 : -1;
}

/* Loads the filter; returns the number of rules, or -1 with *err set. */
static int apply_seccomp(kwb_error *err)
{
    uint32_t refuse = SANDBOX_TRAP ? SCMP_ACT_TRAP : SCMP_ACT_ERRNO(EPERM);
#if SANDBOX_TRAP
    struct sigaction sa = {.sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0)
        return kwb_error_set(err, "sandbox: SIGSYS handler: %s", strerror(errno));
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGSYS);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    magic =
        (long)(((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 16) ^ 0x6b77622d73626f78ULL);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return kwb_error_set(err, "sandbox: seccomp_init failed");
    int rules = 0, bad = 0;
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2); /* a binary tree: every call pays log(rules) */
    for (size_t i = 0; i < sizeof refused_calls / sizeof refused_calls[0]; i++) {
        int r = add_rule(ctx, refuse, refused_calls[i].name, 0, NULL);
        bad |= r < 0;
        rules += r > 0;
    }
    struct scmp_arg_cmp not_thread = SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0);
    struct scmp_arg_cmp sigsys[2] = {SCMP_A0(SCMP_CMP_EQ, SIGSYS), SCMP_A1(SCMP_CMP_NE, 0)};
    rules += add_rule(ctx, refuse, "clone", 1, &not_thread) > 0;
    /* glibc falls back to clone when clone3 is missing; clone3's flags are out of a filter's reach */
    rules += add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL) > 0;
    rules += add_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NULL) > 0;
#if SANDBOX_TRAP
    rules += add_rule(ctx, refuse, "rt_sigaction", 2, sigsys) > 0;
    struct scmp_arg_cmp unmarked = SCMP_A5(SCMP_CMP_NE, (scmp_datum_t)magic);
    for (int i = 0; i < NWATCHED; i++) {
        watched_nr[i] = seccomp_syscall_resolve_name(watched_calls[i].name);
        if (watched_nr[i] >= 0)
            rules += add_rule(ctx, SCMP_ACT_TRAP, watched_calls[i].name, 1, &unmarked) > 0;
    }
#else
    (void)sigsys;
#endif
    int rc = bad ? -EINVAL : seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0)
        return kwb_error_set(err, "sandbox: cannot load the seccomp filter: %s", strerror(-rc));
    return rules;
}

/* ---- Landlock ---- */

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* The ruleset attribute of every ABI: the kernel reads as much as its ABI knows. */
typedef struct ll_attr {
    uint64_t fs, net, scoped;
} ll_attr;

#define LL_FILE_RIGHTS                                                                                                 \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |                       \
     LANDLOCK_ACCESS_FS_TRUNCATE)
#define LL_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_DEVICE (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE)

static int landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return v < 0 ? -errno : (int)v;
}

static uint64_t fs_rights(int abi)
{
    uint64_t all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1: bits 0-12 */
    if (abi >= 2)
        all |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        all |= LANDLOCK_ACCESS_FS_TRUNCATE;
    return all; /* ioctl on devices (ABI 5) stays unhandled: the CUDA driver lives on it */
}

/* Allows RIGHTS beneath PATH (on a file: its file rights); a missing path is skipped. */
static void ll_allow(int ruleset, const char *path, uint64_t rights, uint64_t handled, int *n)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat sb;
    if (fstat(fd, &sb) == 0 && !S_ISDIR(sb.st_mode))
        rights &= LL_FILE_RIGHTS;
    struct landlock_path_beneath_attr pb = {.allowed_access = rights & handled, .parent_fd = fd};
    if (pb.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0)
        (*n)++;
    close(fd);
}

/* The system's read-only places: libraries, the loader's files, the /proc and /sys entries a
 * runtime reads. */
static const char *const system_reads[] = {
    "/usr",
    "/lib",
    "/lib64",
    "/lib32",
    "/libx32",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/proc/self",
    "/proc/driver",
    "/proc/sys",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/stat",
    "/proc/devices",
    "/sys",
    NULL,
};
static const char *const device_files[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL};

typedef struct ll_ctx {
    int ruleset;
    uint64_t handled;
    int n;
} ll_ctx;

/* The folder of every shared object loaded now (the bundle's, the toolkit's). */
static int each_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    ll_ctx *c = data;
    const char *name = info->dlpi_name;
    const char *slash = name ? strrchr(name, '/') : NULL;
    if (slash && slash != name) {
        char *dir = xstrndup(name, (size_t)(slash - name));
        ll_allow(c->ruleset, dir, LL_READ, c->handled, &c->n);
        free(dir);
    }
    return 0;
}

/* Every folder of the colon-separated LIST, read-only. */
static void allow_path_list(ll_ctx *c, const char *list)
{
    char *copy = xstrdup(list ? list : ""), *save = NULL;
    for (char *p = strtok_r(copy, ":", &save); p; p = strtok_r(NULL, ":", &save))
        ll_allow(c->ruleset, p, LL_READ, c->handled, &c->n);
    free(copy);
}

static void allow_devices(ll_ctx *c, const char *device)
{
    for (int i = 0; device_files[i]; i++)
        ll_allow(c->ruleset, device_files[i], LL_DEVICE, c->handled, &c->n);
    if (strncmp(device, "cuda", 4) != 0)
        return;
    glob_t g;
    if (glob("/dev/nvidia*", 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            ll_allow(c->ruleset, g.gl_pathv[i], LL_DEVICE, c->handled, &c->n);
        globfree(&g);
    }
    ll_allow(c->ruleset, "/dev/shm", c->handled, c->handled, &c->n); /* the driver's shared memory */
}

/* Restricts this process's file system (and, where the ABI has them, TCP and signals to
 * processes outside). Returns the ABI (> 0), 0 when the kernel lacks Landlock (NOTE says
 * why), or -1 with *err set. */
static int apply_landlock(const sandbox_spec *spec, char *note, size_t cap, kwb_error *err)
{
    int abi = landlock_abi();
    if (abi <= 0) {
        snprintf(note, cap, "Landlock left out: the kernel has none (%s)", strerror(-abi));
        return 0;
    }
    ll_attr attr = {.fs = fs_rights(abi)};
    size_t size = sizeof attr.fs;
    if (abi >= 4) {
        attr.net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size += sizeof attr.net;
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        size += sizeof attr.scoped;
    }
    ll_ctx c = {(int)syscall(SYS_landlock_create_ruleset, &attr, size, 0), attr.fs, 0};
    if (c.ruleset < 0)
        return kwb_error_set(err, "sandbox: landlock_create_ruleset: %s", strerror(errno));
    for (int i = 0; system_reads[i]; i++)
        ll_allow(c.ruleset, system_reads[i], LL_READ, c.handled, &c.n);
    dl_iterate_phdr(each_object, &c);
    allow_path_list(&c, getenv("LD_LIBRARY_PATH"));
#ifdef KWB_CUDA_PATH
    ll_allow(c.ruleset, KWB_CUDA_PATH, LL_READ, c.handled, &c.n);
#endif
    for (int i = 0; i < spec->nreads; i++)
        ll_allow(c.ruleset, spec->reads[i], LL_READ, c.handled, &c.n);
    allow_devices(&c, spec->device);
    int before = c.n;
    ll_allow(c.ruleset, spec->scratch, c.handled, c.handled, &c.n);
    int rc = 0;
    if (c.n == before)
        rc = kwb_error_set(err, "sandbox: the scratch folder %s cannot be opened", spec->scratch);
    else if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, c.ruleset, 0) != 0)
        rc = kwb_error_set(err, "sandbox: landlock_restrict_self: %s", strerror(errno));
    close(c.ruleset);
    if (rc != 0)
        return -1;
    snprintf(note, cap, "Landlock ABI %d (%d rules%s)", abi, c.n, abi >= 6 ? ", TCP and signals scoped" : "");
    return abi;
}

/* ---- rlimits ---- */

/* The largest file the runner may write (its log included): a candidate cannot fill the disk. */
#define FILE_SIZE_LIMIT ((rlim_t)1 << 30)

/* Sets RES's soft and hard limit to V (never above the hard limit in force). */
static rlim_t limit(int res, rlim_t v, rlim_t hard_extra)
{
    struct rlimit r;
    if (getrlimit(res, &r) != 0)
        return 0;
    if (r.rlim_max != RLIM_INFINITY && v > r.rlim_max)
        v = r.rlim_max;
    rlim_t hard = r.rlim_max != RLIM_INFINITY && v + hard_extra > r.rlim_max ? r.rlim_max : v + hard_extra;
    struct rlimit n = {v, hard};
    return setrlimit(res, &n) == 0 ? v : 0;
}

/* Entries of the folder PATH (without . and ..), or 0. */
static long count_entries(const char *path)
{
    DIR *d = opendir(path);
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Threads of every process of this user now (what RLIMIT_NPROC counts). */
static long user_tasks(void)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    long n = 0;
    struct dirent *e;
    uid_t me = getuid();
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300];
        struct stat sb;
        snprintf(path, sizeof path, "/proc/%s", e->d_name);
        if (stat(path, &sb) == 0 && sb.st_uid == me) {
            snprintf(path, sizeof path, "/proc/%s/task", e->d_name);
            n += count_entries(path);
        }
    }
    closedir(d);
    return n;
}

/* The address space in use now plus the machine's memory: a candidate cannot take more. */
static rlim_t address_space_limit(void)
{
    unsigned long long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    long page = sysconf(_SC_PAGESIZE), phys = sysconf(_SC_PHYS_PAGES);
    return (rlim_t)((pages + (unsigned long long)(phys > 0 ? phys : 0)) * (unsigned long long)page);
}

static void apply_rlimits(const sandbox_spec *spec, strbuf *sb)
{
    limit(RLIMIT_CORE, 0, 0);
    limit(RLIMIT_FSIZE, FILE_SIZE_LIMIT, 0);
    rlim_t files =
        limit(RLIMIT_NOFILE,
              (rlim_t)(count_entries("/proc/self/fd") + 256 > 1024 ? count_entries("/proc/self/fd") + 256 : 1024), 0);
    rlim_t tasks = limit(RLIMIT_NPROC, (rlim_t)(user_tasks() + 512), 0);
    strbuf_printf(sb, "; rlimits: open files %llu, processes %llu%s, files up to 1 GiB, no core files",
                  (unsigned long long)files, (unsigned long long)tasks,
                  geteuid() == 0 ? " (not enforced for root)" : "");
    if (spec->cpu_limit_s > 0) {
        rlim_t cpu = limit(RLIMIT_CPU, (rlim_t)spec->cpu_limit_s, 5);
        strbuf_printf(sb, ", CPU time %llu s", (unsigned long long)cpu);
    }
    if (strcmp(spec->device, "cpu") == 0) {
        rlim_t as = limit(RLIMIT_AS, address_space_limit(), 0);
        strbuf_printf(sb, ", address space %.1f GiB", (double)as / (1 << 30));
    }
}

int sandbox_apply(const sandbox_spec *spec, char *summary, size_t cap, kwb_error *err)
{
    char ll_note[160];
    strbuf sb;
    strbuf_init(&sb);
    int abi = apply_landlock(spec, ll_note, sizeof ll_note, err);
    if (abi < 0) {
        strbuf_free(&sb);
        return -1;
    }
    apply_rlimits(spec, &sb);
    int rules = apply_seccomp(err);
    if (rules < 0) {
        strbuf_free(&sb);
        return -1;
    }
    snprintf(summary, cap, "on: seccomp (%d rules%s); %s%s%s", rules,
             SANDBOX_TRAP ? ", refusals named" : ", refusals unnamed on this architecture", ll_note,
             abi > 0 ? ": writes only in " : "", abi > 0 ? spec->scratch : "");
    size_t used = strlen(summary);
    snprintf(summary + used, cap - used, "%s", sb.s);
    strbuf_free(&sb);
    return 0;
}

void sandbox_print_policy(FILE *f, const char *device)
{
    fprintf(f, "sandbox (on by default; kwb eval --sandbox off turns it off), device %s\n", device);
    fprintf(f,
            "  system calls (libseccomp %u.%u.%u, every thread): refused, the call named in the verdict "
            "(REJECTED_INTEGRITY):\n   ",
            seccomp_version()->major, seccomp_version()->minor, seccomp_version()->micro);
    for (size_t i = 0; i < sizeof refused_calls / sizeof refused_calls[0]; i++)
        if (seccomp_syscall_resolve_name(refused_calls[i].name) >= 0)
            fprintf(f, " %s", refused_calls[i].name);
    fprintf(f, "\n    clone without CLONE_THREAD (a new process); rt_sigaction of SIGSYS; clone3 and openat2 "
               "answer ENOSYS (glibc falls back to clone and openat)\n");
    fprintf(f, "  file calls watched (a path Landlock refuses is named):");
    for (int i = 0; i < NWATCHED; i++)
        if (seccomp_syscall_resolve_name(watched_calls[i].name) >= 0)
            fprintf(f, " %s", watched_calls[i].name);
    int abi = landlock_abi();
    if (abi > 0)
        fprintf(f,
                "\n  file system (Landlock ABI %d%s): writes only in the runner's scratch folder (its working "
                "folder and TMPDIR);\n    reads only of:",
                abi, abi >= 6 ? "; TCP bind/connect refused; signals and abstract sockets scoped" : "");
    else
        fprintf(f, "\n  file system: Landlock left out, the kernel has none (%s)\n    (would read only of:",
                strerror(-abi));
    for (int i = 0; system_reads[i]; i++)
        fprintf(f, " %s", system_reads[i]);
    fprintf(f, ",\n    the folders of the loaded libraries and of LD_LIBRARY_PATH");
#ifdef KWB_CUDA_PATH
    fprintf(f, ", %s", KWB_CUDA_PATH);
#endif
    fprintf(f, ", the definition, the dataset root, the solutions' folders and build folders%s\n", abi > 0 ? "" : ")");
    fprintf(f, "  devices (read and write): /dev/null /dev/zero /dev/full /dev/random /dev/urandom%s\n",
            strncmp(device, "cuda", 4) == 0 ? " /dev/nvidia* /dev/shm" : "");
    fprintf(f,
            "  rlimits: no core files; files up to 1 GiB (its log too); open files: those open + 256 (at least 1024); "
            "processes: this user's "
            "threads + 512%s;\n    CPU time: from the job (kwb: the workloads' time limits x CPUs)%s\n",
            geteuid() == 0 ? " (not enforced for root)" : "",
            strcmp(device, "cpu") == 0 ? "; address space: in use + the machine's memory" : "");
}

/* scan.c - the static scan of candidate sources (see scan.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "scan.h"

#include <pcre2.h>
#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

/* One rule: a name for the human and a pattern matched against each line. */
typedef struct scan_rule {
    const char *name;
    const char *pattern;
} scan_rule;

static const scan_rule rules[] = {
    {"stream", "\\b(cudaStreamCreate\\w*|cuStreamCreate\\w*|cudaStreamPerThread|cudaStreamLegacy)\\b"},
    {"event", "\\b(cudaEventCreate\\w*|cuEventCreate|cudaEventRecord\\w*|cudaEventElapsedTime|cuEventElapsedTime)\\b"},
    {"thread", "\\b(pthread_create|thrd_create|std\\s*::\\s*(thread|jthread|async)|clone)\\b|#\\s*pragma\\s+omp\\b"},
    {"dynamic-loading", "\\b(dlopen|dlsym|dlvsym|dlmopen)\\s*\\("},
    {"process", "\\b(fork|vfork|exec[lv]p?e?|posix_spawnp?|system|popen|kill|raise|setsid|exit|_exit|_Exit|"
                "abort|quick_exit)\\s*\\("},
    {"file", "\\b(fopen|freopen|open|openat|creat|unlink|remove|rename|mmap|socket|connect|ptrace)\\s*\\(|"
             "\"/(proc|dev|sys|tmp)/"},
    {"harness", "\\b(clock_gettime|gettimeofday|mprotect|cudaDeviceSetLimit|cudaCtxResetPersistingL2Cache|"
                "cuptiActivity\\w*|LD_PRELOAD)\\b|\\bwrite\\s*\\(\\s*[34]\\s*,|\\bdup2?\\s*\\("},
    {"persisting-l2", "\\b(cudaLimitPersistingL2CacheSize|accessPolicyWindow|cudaStreamAttributeAccessPolicyWindow|"
                      "cudaAccessPropertyPersisting|hitProp)\\b"},
    {"device-sync", "\\b(cudaDeviceSynchronize|cudaStreamSynchronize|cudaMallocManaged|cudaHostAlloc|"
                    "cudaMallocHost|cudaGraphLaunch)\\b"},
    {"vendor-library", "#\\s*include\\s*[<\"](cublas\\w*|cutlass|cute|cudnn|cufft\\w*|curand\\w*|cusparse\\w*|"
                       "cusolver\\w*|thrust|cub|torch|ATen|flashinfer|triton)\\b"},
};
enum { NRULES = sizeof rules / sizeof rules[0], TEXT_MAX = 160 };

static pcre2_code *compiled[NRULES];
static pthread_once_t compile_once = PTHREAD_ONCE_INIT;

static void compile_rules(void)
{
    for (int i = 0; i < NRULES; i++) {
        int code;
        PCRE2_SIZE off;
        compiled[i] = pcre2_compile((PCRE2_SPTR)rules[i].pattern, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
        if (!compiled[i])
            abort(); /* a rule of this file does not compile: a programming error */
    }
}

int scan_mode_parse(const char *s, scan_mode *mode)
{
    static const char *const names[] = {"warn", "block", "off"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *mode = (scan_mode)i;
            return 0;
        }
    return -1;
}

static void add_finding(scan_report *rep, const char *file, int line, const char *rule, const char *text, size_t len)
{
    while (len && (*text == ' ' || *text == '\t')) {
        text++;
        len--;
    }
    rep->items = xrealloc(rep->items, sizeof *rep->items * (size_t)(rep->n + 1));
    rep->items[rep->n++] = (scan_finding){xstrdup(file), line, rule, xstrndup(text, len > TEXT_MAX ? TEXT_MAX : len)};
}

/* The part of a line before a // comment (a // inside a string literal ends it early too,
 * which can only hide a finding in a URL-like string). */
static size_t code_length(const char *line, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++)
        if (line[i] == '/' && line[i + 1] == '/' && (i == 0 || line[i - 1] != ':'))
            return i;
    return len;
}

/* The handle named by the first argument of the call FN( at P ("&tids[t]" -> "tids") into
 * OUT (CAP bytes); 0 when there is none. */
static int call_handle(const char *p, const char *fn, char *out, size_t cap)
{
    p += strlen(fn);
    p += strspn(p, " \t");
    if (*p != '(')
        return 0;
    p++;
    p += strspn(p, " \t&(*");
    size_t n = 0;
    while ((isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.') && n + 1 < cap)
        n++;
    memcpy(out, p, n);
    out[n] = '\0';
    return n > 0;
}

/* 1 when TEXT joins the threads of HANDLE (pthread_join(HANDLE...) and never detaches them):
 * the ABI allows threads joined before the entry point returns. */
static int handle_joined(const char *text, const char *handle)
{
    int joined = 0, detached = 0;
    char h[128];
    for (const char *q = strstr(text, "pthread_join"); q; q = strstr(q + 1, "pthread_join"))
        joined |= call_handle(q, "pthread_join", h, sizeof h) && strcmp(h, handle) == 0;
    for (const char *q = strstr(text, "pthread_detach"); q; q = strstr(q + 1, "pthread_detach"))
        detached |= call_handle(q, "pthread_detach", h, sizeof h) && strcmp(h, handle) == 0;
    return joined && !detached;
}

/* A "thread" finding on LINE that is a pthread_create whose threads TEXT joins: not a finding. */
static int thread_joined(const char *text, const char *line)
{
    const char *c = strstr(line, "pthread_create");
    char h[128];
    return c && !strstr(c + 1, "pthread_create") && call_handle(c, "pthread_create", h, sizeof h) &&
           handle_joined(text, h);
}

void scan_text(const char *name, const char *text, scan_report *rep)
{
    pthread_once(&compile_once, compile_rules);
    pcre2_match_data *md = pcre2_match_data_create(4, NULL);
    int lineno = 0, in_block_comment = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        char *line = xstrndup(p, len);
        if (in_block_comment) { /* blank what a block comment covers */
            char *end = strstr(line, "*/");
            memset(line, ' ', end ? (size_t)(end + 2 - line) : len);
            in_block_comment = !end;
        }
        for (char *c = strstr(line, "/*"); c; c = strstr(c, "/*")) {
            char *end = strstr(c + 2, "*/");
            memset(c, ' ', end ? (size_t)(end + 2 - c) : strlen(c));
            in_block_comment = !end;
        }
        size_t code = code_length(line, strlen(line));
        for (int i = 0; i < NRULES; i++) {
            if (pcre2_match(compiled[i], (PCRE2_SPTR)line, code, 0, 0, md, NULL) >= 0) {
                if (!(strcmp(rules[i].name, "thread") == 0 && thread_joined(text, line)))
                    add_finding(rep, name, lineno, rules[i].name, p, len);
                break; /* one finding per line, the first rule's */
            }
        }
        free(line);
        p = nl ? nl + 1 : p + len;
    }
    pcre2_match_data_free(md);
}

int scan_file(const char *path, scan_report *rep, kwb_error *err)
{
    size_t len = 0;
    char *text = strbuf_read_file(path, &len);
    if (!text)
        return kwb_error_set(err, "%s: cannot read", path);
    scan_text(path, text, rep);
    free(text);
    return 0;
}

void scan_report_free(scan_report *rep)
{
    for (int i = 0; i < rep->n; i++) {
        free(rep->items[i].file);
        free(rep->items[i].text);
    }
    free(rep->items);
    memset(rep, 0, sizeof *rep);
}

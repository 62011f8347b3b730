/* bridge.c - the reference of `kwb eval --reference torch`: a kwb-ABI entry point that runs
 * the definition's PyTorch `reference` in a python3 process (kwb-torch-reference.py) and copies
 * its outputs into the call's outputs. kwb sets KWB_TORCH_PROGRAM, KWB_TORCH_DEFINITION and
 * KWB_TORCH_DEVICE for the runner; KWB_TORCH_PYTHON names another interpreter than python3. The process is started at
 * the first call, as a grandchild (the runner must have no child processes while candidates run), and talks over one
 * socket: python -> bridge, once:   "ready NINPUTS NOUTPUTS\n" or "error MESSAGE\n" bridge -> python, a call:  one JSON
 * line {"inputs":[{name,dtype,shape|null,value?}], "outputs":[{name,dtype,shape}]}, then each tensor input's bytes
 *   python -> bridge:          "ok\n" and each output's bytes, or "error MESSAGE\n"
 * On the cuda device the tensors are copied with the CUDA runtime the runner has loaded. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kwb/kernel.h"

static const char *const dtype_name[] = {"float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                                         "int64",   "int32",   "int16",    "int8",          "bool"};
static const size_t dtype_size[] = {4, 2, 2, 1, 1, 8, 4, 2, 1, 1};

static int sock = -1, ninputs = -1, noutputs = -1, on_cuda;
static char last_error[1024];
static int (*cuda_memcpy)(void *, const void *, size_t, int);
static int (*cuda_stream_sync)(void *);
static int (*cuda_device_sync)(void);

/* Why the last call failed, for the runner's message ("" when it did not). */
const char *kwb_reference_error(void)
{
    return last_error;
}

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(last_error, sizeof last_error, "torch reference: ");
    vsnprintf(last_error + n, sizeof last_error - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", last_error);
    return -1;
}

static int send_all(const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t k = send(sock, c, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return fail("the python process is gone (%s)", strerror(errno));
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

static int recv_all(void *p, size_t n)
{
    char *c = p;
    while (n > 0) {
        ssize_t k = recv(sock, c, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return fail("the python process ended early (see its output in the runner's log)");
        c += k;
        n -= (size_t)k;
    }
    return 0;
}

/* One line (without its newline) into BUF; 0, or -1 when the process is gone. */
static int recv_line(char *buf, size_t cap)
{
    size_t n = 0;
    for (;;) {
        char c;
        if (recv_all(&c, 1) != 0)
            return -1;
        if (c == '\n')
            break;
        if (n + 1 < cap)
            buf[n++] = c;
    }
    buf[n] = '\0';
    return 0;
}

/* Starts python3 PROGRAM DEFINITION DEVICE as a grandchild on a socket; reads its "ready". */
static int start(void)
{
    const char *prog = getenv("KWB_TORCH_PROGRAM"), *def = getenv("KWB_TORCH_DEFINITION");
    const char *dev = getenv("KWB_TORCH_DEVICE");
    if (!prog || !def)
        return fail("KWB_TORCH_PROGRAM and KWB_TORCH_DEFINITION are not set (kwb eval --reference torch sets them)");
    on_cuda = dev && strncmp(dev, "cuda", 4) == 0;
    if (on_cuda) {
        *(void **)&cuda_memcpy = dlsym(RTLD_DEFAULT, "cudaMemcpy");
        *(void **)&cuda_stream_sync = dlsym(RTLD_DEFAULT, "cudaStreamSynchronize");
        *(void **)&cuda_device_sync = dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize");
        if (!cuda_memcpy || !cuda_stream_sync || !cuda_device_sync)
            return fail("device %s, but the runner has no CUDA runtime loaded", dev);
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return fail("socketpair: %s", strerror(errno));
    pid_t mid = fork();
    if (mid < 0)
        return fail("fork: %s", strerror(errno));
    if (mid == 0) {
        if (fork() == 0) {
            dup2(sv[1], 0);
            dup2(sv[1], 1);
            for (int fd = 3; fd < 4096; fd++)
                close(fd);
            const char *py = getenv("KWB_TORCH_PYTHON"); /* default: python3 on PATH */
            py = py && *py ? py : "python3";
            execlp(py, py, prog, def, dev ? dev : "cpu", (char *)NULL);
            fprintf(stderr, "torch reference: cannot run %s: %s\n", py, strerror(errno));
            _exit(127);
        }
        _exit(0);
    }
    waitpid(mid, NULL, 0);
    close(sv[1]);
    sock = sv[0];
    char line[1024];
    if (recv_line(line, sizeof line) != 0)
        return -1;
    if (sscanf(line, "ready %d %d", &ninputs, &noutputs) != 2) {
        fail("%s", strncmp(line, "error ", 6) == 0 ? line + 6 : line);
        close(sock);
        sock = -1;
        return -1;
    }
    return 0;
}

static size_t tensor_bytes(const kwb_arg *a)
{
    size_t n = dtype_size[a->dtype];
    for (int d = 0; d < a->rank; d++)
        n *= (size_t)a->shape[d];
    return n;
}

/* Appends A's description (name, dtype, shape, scalar value) as a JSON object to F. */
static void describe(FILE *f, const kwb_arg *a, int with_value)
{
    fprintf(f, "{\"name\":\"%s\",\"dtype\":\"%s\",\"shape\":", a->name, dtype_name[a->dtype]);
    if (a->rank < 0)
        fputs("null", f);
    else {
        fputc('[', f);
        for (int d = 0; d < a->rank; d++)
            fprintf(f, "%s%lld", d ? "," : "", (long long)a->shape[d]);
        fputc(']', f);
    }
    if (with_value && a->rank < 0) {
        if (a->dtype <= KWB_F8_E5M2)
            fprintf(f, ",\"value\":\"%.17g\"", a->f); /* a string: "nan" and "inf" are not JSON */
        else
            fprintf(f, ",\"value\":\"%lld\"", (long long)a->i);
    }
    fputc('}', f);
}

/* The request line of ARGS. */
static char *request(const kwb_arg *args)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fputs("{\"inputs\":[", f);
    for (int i = 0; i < ninputs; i++) {
        fputs(i ? "," : "", f);
        describe(f, &args[i], 1);
    }
    fputs("],\"outputs\":[", f);
    for (int i = 0; i < noutputs; i++) {
        fputs(i ? "," : "", f);
        describe(f, &args[ninputs + i], 0);
    }
    fputs("]}\n", f);
    fclose(f);
    return text;
}

/* Sends the bytes of tensor input A (copied from the device on cuda). */
static int send_tensor(const kwb_arg *a)
{
    size_t n = tensor_bytes(a);
    if (!on_cuda || n == 0)
        return send_all(a->data, n);
    void *host = malloc(n);
    int rc = !host                                   ? fail("out of memory for input '%s'", a->name)
             : cuda_memcpy(host, a->data, n, 2) != 0 ? fail("copying input '%s' from the device failed", a->name)
                                                     : send_all(host, n);
    free(host);
    return rc;
}

/* Receives the bytes of output A (copied to the device on cuda). */
static int recv_tensor(const kwb_arg *a)
{
    size_t n = tensor_bytes(a);
    if (!on_cuda || n == 0)
        return recv_all(a->data, n);
    void *host = malloc(n);
    int rc = !host ? fail("out of memory for output '%s'", a->name) : recv_all(host, n);
    if (rc == 0 && cuda_memcpy(a->data, host, n, 1) != 0)
        rc = fail("copying output '%s' to the device failed", a->name);
    free(host);
    return rc;
}

/* The runner calls this before its sandbox is applied: python3 is started now, while the
 * runner may still fork and exec. */
int kwb_reference_init(void)
{
    last_error[0] = '\0';
    return sock < 0 ? start() : 0;
}

int kwb_entry(const kwb_arg *args, int nargs, kwb_stream stream)
{
    last_error[0] = '\0';
    if (sock < 0 && start() != 0)
        return -1;
    if (nargs != ninputs + noutputs)
        return fail("%d arguments, the definition has %d inputs and %d outputs", nargs, ninputs, noutputs);
    if (on_cuda && cuda_stream_sync(stream) != 0)
        return fail("cudaStreamSynchronize failed");
    char *req = request(args);
    int rc = send_all(req, strlen(req));
    free(req);
    for (int i = 0; rc == 0 && i < ninputs; i++)
        if (args[i].rank >= 0)
            rc = send_tensor(&args[i]);
    char line[1024];
    if (rc != 0 || recv_line(line, sizeof line) != 0)
        return -1;
    if (strcmp(line, "ok") != 0)
        return fail("%s", strncmp(line, "error ", 6) == 0 ? line + 6 : line);
    for (int i = 0; rc == 0 && i < noutputs; i++)
        rc = recv_tensor(&args[ninputs + i]);
    if (rc == 0 && on_cuda && cuda_device_sync() != 0)
        rc = fail("cudaDeviceSynchronize failed");
    return rc;
}

/* integrity.c - what a call left behind, and symbols a candidate must not define. */
#define _GNU_SOURCE
#include "runner/integrity.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int integrity_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

int integrity_after_call(int threads, pid_t runner_pid, char *why, size_t cap)
{
    if (getpid() != runner_pid)
        _exit(0); /* a fork's child came back into the runner: it must not act as one */
    int st;
    pid_t child = waitpid(-1, &st, WNOHANG);
    if (child != -1 || errno != ECHILD) {
        snprintf(why, cap, "the call started a process%s (the runner must have no children)",
                 child > 0 ? " that has exited" : " that is still running");
        return 1;
    }
    int now = threads >= 0 ? integrity_threads() : -1;
    /* A joined thread can still be listed while the kernel finishes its exit: a thread that
     * really runs on is still there after 50 ms. */
    for (int wait = 0; now > threads && wait < 50; wait++) {
        usleep(1000);
        now = integrity_threads();
    }
    if (now > threads) {
        snprintf(why, cap, "the call left %d thread(s) running after it returned (threads %d before, %d after)",
                 now - threads, threads, now);
        return 1;
    }
    return 0;
}

/* Functions whose results the harness trusts: a library defining one means to replace it. */
static const char *const harness_symbols[] = {
    "clock_gettime",
    "gettimeofday",
    "clock",
    "time",
    "write",
    "writev",
    "read",
    "dlsym",
    "dlopen",
    "pthread_create",
    "fork",
    "exit",
    "_exit",
    "cudaEventElapsedTime",
    "cudaEventRecord",
    "cudaEventSynchronize",
    "cudaEventQuery",
    "cudaStreamSynchronize",
    "cudaDeviceSynchronize",
    "cudaLaunchKernel",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaDeviceSetLimit",
    "cudaGetLastError",
    "cuLaunchKernel",
    "cuEventElapsedTime",
    "cuptiActivityEnable",
    "cuptiActivityFlushAll",
    "cuptiActivityGetNextRecord",
    "cuptiActivityRegisterCallbacks",
    NULL,
};

const char *integrity_interposed(void *handle, void *entry)
{
    Dl_info self;
    if (!dladdr(entry, &self))
        return NULL;
    for (int i = 0; harness_symbols[i]; i++) {
        void *p = dlsym(handle, harness_symbols[i]);
        Dl_info where;
        if (p && dladdr(p, &where) && where.dli_fbase == self.dli_fbase)
            return harness_symbols[i];
    }
    return NULL;
}

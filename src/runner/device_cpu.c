/* device_cpu.c - the cpu device: host memory, host references, clock_gettime timing. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/device.h"
#include "xalloc.h"

enum { CPU_FLUSH_BYTES = 64 << 20 };  /* larger than any LLC a CI or workstation has */

typedef struct cpu_priv {
    unsigned char *flush_buf;
} cpu_priv;

static void *cpu_alloc(device *d, size_t n, kwb_error *err)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64) != 0) {
        kwb_error_set(err, "cpu: cannot allocate %zu bytes", n);
        return NULL;
    }
    return p;
}

static void cpu_release(device *d, void *p)
{
    free(p);
}

static int cpu_copy(device *d, void *dst, const void *src, size_t n, kwb_error *err)
{
    memcpy(dst, src, n);
    return 0;
}

static int cpu_sync(device *d, kwb_error *err)
{
    return 0;
}

static kwb_stream cpu_stream(device *d)
{
    return NULL;
}

static reference_fn cpu_reference(device *d, const char *definition)
{
    return references_find_cpu(definition);
}

static void cpu_flush(device *d)
{
    cpu_priv *p = d->priv;
    if (!p->flush_buf)
        p->flush_buf = xmalloc(CPU_FLUSH_BYTES);
    for (size_t i = 0; i < CPU_FLUSH_BYTES; i += 64)
        p->flush_buf[i] = (unsigned char)(p->flush_buf[i] + 1);
}

static void cpu_describe(device *d, json_t *hello)
{
    json_object_set_new(hello, "device", json_string("cpu"));
    json_object_set_new(hello, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
    json_object_set_new(hello, "timer", json_string("clock_gettime(CLOCK_MONOTONIC)"));
}

static void cpu_close(device *d)
{
    cpu_priv *p = d->priv;
    free(p->flush_buf);
    free(p);
    free(d);
}

static const device_ops cpu_ops = {
    "cpu", cpu_alloc, cpu_release, cpu_copy, cpu_copy, cpu_sync, cpu_stream, cpu_reference,
    cpu_flush, cpu_describe, cpu_close,
};

device *device_cpu_open(kwb_error *err)
{
    device *d = xcalloc(1, sizeof *d);
    d->ops = &cpu_ops;
    d->priv = xcalloc(1, sizeof(cpu_priv));
    return d;
}

device *device_open(const char *spec, kwb_error *err)
{
    if (strcmp(spec, "cpu") == 0)
        return device_cpu_open(err);
    if (strncmp(spec, "cuda", 4) == 0) {
        kwb_error_set(err, "device '%s': this kwb-runner was built without the CUDA device", spec);
        return NULL;
    }
    kwb_error_set(err, "unknown device '%s' (cpu, cuda, cuda:N)", spec);
    return NULL;
}

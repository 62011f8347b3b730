#include "runner/inputs.h"

#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "rng.h"
#include "safetensors.h"
#include "traceset.h"
#include "xalloc.h"

static size_t tensor_bytes(const def_tensor *t, const workload *w)
{
    return t->rank < 0 ? 0 : (size_t)workload_numel(w, t) * dtype_size(t->dtype);
}

/* Copies the safetensors tensor of descriptor IN into HOST after checking dtype and shape. */
static int load_blob(void *host, const def_tensor *t, const wl_input *in, const workload *w, const char *root,
                     kwb_error *err)
{
    char *path = traceset_blob_path(root, in->path);
    safetensors *st = safetensors_open(path, err);
    free(path);
    if (!st)
        return -1;
    const st_tensor *tt = safetensors_find(st, in->key);
    int64_t want[KWB_MAX_RANK];
    workload_shape(w, t, want);
    int rc = 0;
    if (!tt)
        rc = kwb_error_set(err, "%s: no tensor '%s' (input '%s')", st->path, in->key, t->name);
    else if (tt->dtype != t->dtype || tt->rank != t->rank || memcmp(tt->shape, want, sizeof(int64_t) * (size_t)t->rank)) {
        char a[128], b[128];
        workload_shape_text(tt->shape, tt->rank, a, sizeof a);
        workload_shape_text(want, t->rank, b, sizeof b);
        rc = kwb_error_set(err, "%s: tensor '%s' is %s %s; input '%s' needs %s %s", st->path, in->key,
                           dtype_name(tt->dtype), a, t->name, dtype_name(t->dtype), b);
    } else
        memcpy(host, safetensors_data(st, tt), tt->nbytes);
    safetensors_close(st);
    return rc;
}

/* With KWB_CHECK_RNG set: the device's values of input ARG (N elements) must equal the host
 * generator's bit for bit: HOST_GEN's, or rng_fill's when it is NULL. */
static int check_generator(const void *got, const kwb_arg *arg, size_t n, uint64_t key, input_gen_fn host_gen,
                           kwb_error *err)
{
    size_t bytes = n * dtype_size(arg->dtype);
    unsigned char *want = xmalloc(bytes);
    kwb_arg host = *arg;
    host.data = want;
    if (!host_gen)
        rng_fill(want, arg->dtype, n, key);
    else if (host_gen(&host, key, NULL) != 0) {
        free(want);
        return kwb_error_set(err, "the host generator refused the input");
    }
    const unsigned char *g = got;
    size_t i = 0;
    while (i < bytes && g[i] == want[i])
        i++;
    free(want);
    if (i < bytes)
        return kwb_error_set(err, "the device's generator differs from the host's at byte %zu of %zu", i, bytes);
    return 0;
}

/* Sets the scalar argument of input I. */
static void make_scalar(kwb_arg *arg, const def_tensor *t, const wl_input *in, uint64_t key)
{
    if (in->kind == WL_SCALAR) {
        arg->f = in->f;
        arg->i = in->i;
    } else if (dtype_is_float(t->dtype)) {
        arg->f = rng_normal(key, 0);
        arg->i = (int64_t)arg->f;
    } else {
        arg->i = t->dtype == KWB_BOOL ? (int64_t)(rng_bits(key, 0) >> 63) : rng_uniform(key, 0, -1024, 1024);
        arg->f = (double)arg->i;
    }
}

/* Fills the N elements of input ARG on DEV from KEY: with its definition's own generator GEN
 * (references_find_generator), or the dtype's random draw when GEN is NULL. */
static int fill_input(device *dev, const kwb_arg *arg, input_gen_fn gen, size_t n, uint64_t key, kwb_error *err)
{
    if (!gen)
        return dev->ops->fill_random(dev, arg->data, arg->dtype, n, key, err);
    if (gen(arg, key, dev->ops->stream(dev)) != 0)
        return kwb_error_set(err, "its generator refused it or could not start");
    return dev->ops->sync(dev, err);
}

static int make_input(trial_inputs *in, int i, device *dev, const definition *d, const workload *w, const char *root,
                      uint64_t key, kwb_error *err)
{
    const def_tensor *t = &d->inputs[i];
    kwb_arg *arg = &in->args[i];
    tensor_buf *b = &in->bufs[i];
    arg->name = t->name;
    arg->dtype = t->dtype;
    arg->rank = t->rank;
    if (t->rank < 0) {
        make_scalar(arg, t, &w->inputs[i], key);
        return 0;
    }
    workload_shape(w, t, arg->shape);
    b->nbytes = tensor_bytes(t, w);
    b->host = xmalloc(b->nbytes);
    b->dev = dev->ops->alloc(dev, b->nbytes, err);
    if (!b->dev)
        return -1;
    arg->data = b->dev;
    if (w->inputs[i].kind == WL_SAFETENSORS) {
        if (load_blob(b->host, t, &w->inputs[i], w, root, err) != 0)
            return -1;
        return dev->ops->upload(dev, b->dev, b->host, b->nbytes, err);
    }
    /* Generated where it lives; the host keeps the pristine copy the checks compare with. */
    size_t n = b->nbytes / dtype_size(t->dtype);
    input_gen_fn gen = references_find_generator(dev->ops->kind, d->name, t->name);
    if (fill_input(dev, arg, gen, n, key, err) != 0 || dev->ops->download(dev, b->host, b->dev, b->nbytes, err) != 0)
        return -1;
    if (!getenv("KWB_CHECK_RNG"))
        return 0;
    return check_generator(b->host, arg, n, key, gen ? references_find_generator("cpu", d->name, t->name) : NULL, err);
}

int inputs_make(trial_inputs *in, device *dev, const definition *d, const workload *w, const char *root,
                uint64_t seed, int trial, kwb_error *err)
{
    in->n = d->ninputs;
    in->bufs = xcalloc((size_t)d->ninputs, sizeof *in->bufs);
    in->args = xcalloc((size_t)d->ninputs, sizeof *in->args);
    for (int i = 0; i < d->ninputs; i++) {
        if (make_input(in, i, dev, d, w, root, rng_key(seed, w->uuid, trial, i), err) != 0) {
            kwb_error_prefix(err, "input '%s'", d->inputs[i].name);
            inputs_free(in, dev);
            return -1;
        }
    }
    return 0;
}

int inputs_refill(trial_inputs *in, device *dev, const definition *d, const workload *w, uint64_t seed, int trial,
                  kwb_error *err)
{
    for (int i = 0; i < in->n; i++) {
        kwb_arg *arg = &in->args[i];
        tensor_buf *b = &in->bufs[i];
        uint64_t key = rng_key(seed, w->uuid, trial, i);
        if (arg->rank < 0) {
            make_scalar(arg, &d->inputs[i], &w->inputs[i], key);
            continue;
        }
        if (w->inputs[i].kind == WL_SAFETENSORS || !b->nbytes)
            continue;  /* a blob's values are what they are */
        size_t n = b->nbytes / dtype_size(arg->dtype);
        input_gen_fn gen = references_find_generator(dev->ops->kind, d->name, d->inputs[i].name);
        if (fill_input(dev, arg, gen, n, key, err) != 0 || dev->ops->download(dev, b->host, b->dev, b->nbytes, err) != 0) {
            kwb_error_prefix(err, "input '%s'", d->inputs[i].name);
            return -1;
        }
    }
    return 0;
}

void inputs_free(trial_inputs *in, device *dev)
{
    for (int i = 0; i < in->n; i++) {
        free(in->bufs[i].host);
        dev->ops->release(dev, in->bufs[i].dev);
    }
    free(in->bufs);
    free(in->args);
    memset(in, 0, sizeof *in);
}

int inputs_changed(const trial_inputs *in, device *dev, const char **name, kwb_error *err)
{
    for (int i = 0; i < in->n; i++) {
        const tensor_buf *b = &in->bufs[i];
        if (!b->nbytes)
            continue;
        void *now = xmalloc(b->nbytes);
        int rc = dev->ops->download(dev, now, b->dev, b->nbytes, err);
        int changed = rc == 0 && memcmp(now, b->host, b->nbytes) != 0;
        free(now);
        if (rc != 0)
            return -1;
        if (changed) {
            *name = in->args[i].name;
            return 1;
        }
    }
    return 0;
}

int outputs_alloc(output_set *out, device *dev, const definition *d, const workload *w, kwb_error *err)
{
    out->n = d->noutputs;
    out->bufs = xcalloc((size_t)d->noutputs, sizeof *out->bufs);
    for (int i = 0; i < d->noutputs; i++) {
        tensor_buf *b = &out->bufs[i];
        b->nbytes = tensor_bytes(&d->outputs[i], w);
        b->host = xmalloc(b->nbytes);
        b->dev = dev->ops->alloc(dev, b->nbytes + 2 * INPUTS_GUARD, err);
        if (!b->dev) {
            outputs_free(out, dev);
            return -1;
        }
    }
    return 0;
}

void outputs_free(output_set *out, device *dev)
{
    for (int i = 0; i < out->n; i++) {
        free(out->bufs[i].host);
        dev->ops->release(dev, out->bufs[i].dev);
    }
    free(out->bufs);
    memset(out, 0, sizeof *out);
}

/* The poison pattern: KEY's random bytes for the whole block of output I. */
static void fill_pattern(unsigned char *p, size_t n, uint64_t key, int i)
{
    uint64_t k = key ^ ((uint64_t)(i + 1) << 40);
    for (size_t j = 0; j < n; j += 8) {
        uint64_t bits = rng_bits(k, j / 8);
        memcpy(p + j, &bits, n - j < 8 ? n - j : 8);
    }
}

int outputs_poison(output_set *out, device *dev, uint64_t key, kwb_error *err)
{
    for (int i = 0; i < out->n; i++) {
        size_t total = out->bufs[i].nbytes + 2 * INPUTS_GUARD;
        if (strcmp(dev->ops->kind, "cpu") == 0) {  /* host memory: in place, no staging buffer to pollute caches */
            fill_pattern(out->bufs[i].dev, total, key, i);
            continue;
        }
        unsigned char *pattern = xmalloc(total);
        fill_pattern(pattern, total, key, i);
        int rc = dev->ops->upload(dev, out->bufs[i].dev, pattern, total, err);
        free(pattern);
        if (rc != 0)
            return -1;
    }
    return 0;
}

/* Offset from the data start of the first changed guard byte, or 0 when intact. */
static long long guard_damage(const unsigned char *block, const unsigned char *pattern, size_t nbytes)
{
    for (size_t j = 0; j < INPUTS_GUARD; j++)
        if (block[j] != pattern[j])
            return (long long)j - INPUTS_GUARD;
    size_t tail = INPUTS_GUARD + nbytes;
    for (size_t j = 0; j < INPUTS_GUARD; j++)
        if (block[tail + j] != pattern[tail + j])
            return (long long)(nbytes + j);
    return 0;
}

int outputs_fetch(output_set *out, device *dev, uint64_t key, int *which, long long *offset, kwb_error *err)
{
    int damaged = 0;
    for (int i = 0; i < out->n; i++) {
        tensor_buf *b = &out->bufs[i];
        size_t total = b->nbytes + 2 * INPUTS_GUARD;
        unsigned char *block = xmalloc(total), *pattern = xmalloc(total);
        int rc = dev->ops->download(dev, block, b->dev, total, err);
        if (rc == 0) {
            fill_pattern(pattern, total, key, i);
            memcpy(b->host, block + INPUTS_GUARD, b->nbytes);
            long long off = guard_damage(block, pattern, b->nbytes);
            if (off != 0 && !damaged) {
                damaged = 1;
                *which = i;
                *offset = off;
            }
        }
        free(block);
        free(pattern);
        if (rc != 0)
            return -1;
    }
    return damaged;
}

void outputs_bind(const output_set *out, const trial_inputs *in, const definition *d, const workload *w,
                  kwb_arg *args)
{
    memcpy(args, in->args, sizeof *args * (size_t)in->n);
    for (int i = 0; i < out->n; i++) {
        kwb_arg *a = &args[in->n + i];
        const def_tensor *t = &d->outputs[i];
        memset(a, 0, sizeof *a);
        a->name = t->name;
        a->dtype = t->dtype;
        a->rank = t->rank;
        workload_shape(w, t, a->shape);
        a->data = out->bufs[i].dev + INPUTS_GUARD;
    }
}

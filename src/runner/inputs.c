#include "runner/inputs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "costexpr.h"
#include "dtype.h"
#include "rng.h"
#include "kwb/rng_formula.h"
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
    else if (tt->dtype != t->dtype || tt->rank != t->rank ||
             memcmp(tt->shape, want, sizeof(int64_t) * (size_t)t->rank)) {
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

static input_gen_fn reference_gen, reference_host_gen;
static input_rows_fn reference_rows, reference_host_rows;

void inputs_set_reference_generators(input_gen_fn gen, input_gen_fn host_gen)
{
    reference_gen = gen;
    reference_host_gen = host_gen;
}

void inputs_set_reference_row_generators(input_rows_fn rows, input_rows_fn host_rows)
{
    reference_rows = rows;
    reference_host_rows = host_rows;
}

/* The generator of input I of D on DEV: the reference's where the definition declares it made
 * so (kwb_generate; on the cpu kwb_generate_host will do), else NULL (the dtype's random draw);
 * -1 with *err set when the reference has none. */
static int generator_of(const device *dev, const definition *d, int i, input_gen_fn *gen, kwb_error *err)
{
    *gen = NULL;
    if (!d->input_gen || d->input_gen[i].kind != DEF_GEN_REFERENCE)
        return 0;
    *gen = reference_gen;
    if (!*gen && strcmp(dev->ops->kind, "cpu") == 0)
        *gen = reference_host_gen;
    if (!*gen)
        return kwb_error_set(err, "the definition declares it made by the reference (kwb.inputs), but the reference "
                                  "exports no kwb_generate");
    return 0;
}

/* Fills the N elements of input ARG on DEV from KEY: with the reference's generator GEN
 * (generator_of), or the dtype's random draw when GEN is NULL. */
static int fill_input(device *dev, const kwb_arg *arg, input_gen_fn gen, size_t n, uint64_t key, kwb_error *err)
{
    if (!gen)
        return dev->ops->fill_random(dev, arg->data, arg->dtype, n, key, err);
    if (gen(arg, key, dev->ops->stream(dev)) != 0)
        return kwb_error_set(err, "its generator refused it or could not start");
    return dev->ops->sync(dev, err);
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The value of expression E under workload W, as a whole number; -1 with *err set when it is not
 * one (a division by zero, say). */
static int eval_whole(const costexpr *e, const workload *w, int64_t *out, kwb_error *err)
{
    double v = costexpr_eval(e, w->axis_value);
    if (!isfinite(v) || v != floor(v) || fabs(v) > 9e15)
        return kwb_error_set(err, "'%s' is %g under this workload, not a whole number", costexpr_text(e), v);
    *out = (int64_t)v;
    return 0;
}

/* Fills HOST, N elements of T, by the definition's declared generator G under workload W, from
 * KEY ("kwb": {"inputs": ...}). */
static int declared_fill(void *host, kwb_dtype t, size_t n, const def_input_gen *g, const workload *w, uint64_t key,
                         kwb_error *err)
{
    int64_t lo = 0, hi = 0;
    if ((g->lo && eval_whole(g->lo, w, &lo, err) != 0) || (g->hi && eval_whole(g->hi, w, &hi, err) != 0))
        return -1;
    int64_t *v = xcalloc(n + 1, sizeof *v);
    if (g->kind == DEF_GEN_RANGE) {
        if (lo > hi) {
            free(v);
            return kwb_error_set(err, "range [%lld, %lld] is empty under this workload", (long long)lo, (long long)hi);
        }
        for (size_t j = 0; j < n; j++)
            v[j] = rng_uniform(key, j, lo, hi + 1);
    } else if (g->kind == DEF_GEN_OFFSETS) {
        if (hi < 0) {
            free(v);
            return kwb_error_set(err, "offsets up to %lld: the total must be >= 0", (long long)hi);
        }
        for (size_t j = 1; j + 1 < n; j++)
            v[j] = rng_uniform(key, j, 0, hi + 1);
        if (n > 2)
            qsort(v + 1, n - 2, sizeof *v, by_value);
        if (n > 1)
            v[n - 1] = hi;
    } else { /* a permutation of 0..n-1, Fisher-Yates */
        for (size_t j = 0; j < n; j++)
            v[j] = (int64_t)j;
        for (size_t j = n; j-- > 1;) {
            size_t k = (size_t)rng_uniform(key, j, 0, (int64_t)j + 1);
            int64_t tmp = v[j];
            v[j] = v[k];
            v[k] = tmp;
        }
    }
    for (size_t j = 0; j < n; j++)
        dtype_store(host, t, j, (double)v[j]);
    free(v);
    return 0;
}

/* Makes input I by its declared generator when the definition has one for it: 1 when made (the
 * host copy filled and uploaded), 0 when it has none, -1 with *err set. */
static int make_declared(tensor_buf *b, device *dev, const definition *d, int i, const workload *w, uint64_t key,
                         kwb_error *err)
{
    const def_input_gen *g = d->input_gen ? &d->input_gen[i] : NULL;
    if (!g || g->kind == DEF_GEN_NONE || g->kind == DEF_GEN_REFERENCE || w->inputs[i].kind == WL_SAFETENSORS)
        return 0;
    kwb_dtype t = d->inputs[i].dtype;
    if (declared_fill(b->host, t, b->nbytes / dtype_size(t), g, w, key, err) != 0 ||
        dev->ops->upload(dev, b->dev, b->host, b->nbytes, err) != 0)
        return -1;
    return 1;
}

/* Forgets B's fresh rows: its values are those of one whole fill again. */
static void forget_rows(device *dev, tensor_buf *b)
{
    free(b->rows);
    dev->ops->release(dev, b->rows_dev);
    b->rows = NULL;
    b->rows_dev = NULL;
    b->nrows = 0;
}

/* Fills input ARG (buffer B) on the device with generator GEN from KEY; its host copy is stale
 * until inputs_host (or inputs_seal, on a device without digests) reads it back. */
static int generate(device *dev, tensor_buf *b, const kwb_arg *arg, input_gen_fn gen, uint64_t key, kwb_error *err)
{
    b->key = b->base_key = key;
    b->gen = gen;
    b->host_stale = 1;
    forget_rows(dev, b);
    return fill_input(dev, arg, gen, b->nbytes / dtype_size(arg->dtype), key, err);
}

/* The row variant of generator GEN (the reference's, or NULL for the dtype's draw), NULL when
 * there is none. */
static input_rows_fn rows_variant(input_gen_fn gen)
{
    return !gen ? NULL : gen == reference_gen ? reference_rows : gen == reference_host_gen ? reference_host_rows : NULL;
}

/* Whether DEV can make some rows of an input of generator GEN alone. */
static int fills_rows(const device *dev, input_gen_fn gen)
{
    return gen ? rows_variant(gen) != NULL : dev->ops->fill_random_rows != NULL;
}

/* Rows of ARG counted over its first DIMS dimensions. */
static int64_t rows_total(const kwb_arg *arg, int dims)
{
    int64_t n = 1;
    for (int k = 0; k < dims && k < arg->rank; k++)
        n *= arg->shape[k];
    return n;
}

/* Fills B's rows (b->rows_dev) of ARG's memory from KEY with generator GEN (fills_rows). */
static int fill_rows(device *dev, const tensor_buf *b, const kwb_arg *arg, input_gen_fn gen, uint64_t key,
                     kwb_error *err)
{
    if (b->nrows == 0)
        return 0;
    if (!gen) {
        size_t row = b->nbytes / dtype_size(arg->dtype) / (size_t)rows_total(arg, b->rows_dims);
        return dev->ops->fill_random_rows(dev, arg->data, arg->dtype, row, b->rows_dev, b->nrows, key, err);
    }
    if (rows_variant(gen)(arg, b->rows_dims, b->rows_dev, (int64_t)b->nrows, key, dev->ops->stream(dev)) != 0)
        return kwb_error_set(err, "its row generator refused it or could not start");
    return dev->ops->sync(dev, err);
}

/* Makes B's values again from its keys and generator into ARG's memory (B's own, or scratch):
 * the whole fill, then its fresh rows. */
static int remake(device *dev, const tensor_buf *b, const kwb_arg *arg, kwb_error *err)
{
    if (fill_input(dev, arg, b->gen, b->nbytes / dtype_size(arg->dtype), b->base_key, err) != 0)
        return -1;
    return fill_rows(dev, b, arg, b->gen, b->key, err);
}

/* Whether input I on the device still has its sealed digest: 1 yes, 0 no (or no digest to tell
 * by), -1 with *err set. */
static int still_sealed(const trial_inputs *in, device *dev, int i, kwb_error *err)
{
    const tensor_buf *b = &in->bufs[i];
    uint64_t now = 0;
    int rc = b->has_digest ? dev->ops->digest(dev, b->dev, b->nbytes, in->digest_key, &now, err) : 1;
    return rc < 0 ? -1 : rc == 0 && now == b->digest;
}

/* Generates input I's values again in scratch device memory and reads them into its host copy:
 * its pristine values whatever a call did to its own memory. */
static int regenerate_host(trial_inputs *in, device *dev, int i, kwb_error *err)
{
    tensor_buf *b = &in->bufs[i];
    kwb_arg arg = in->args[i];
    arg.data = dev->ops->alloc(dev, b->nbytes, err);
    if (!arg.data)
        return -1;
    int rc = remake(dev, b, &arg, err) != 0 || dev->ops->download(dev, b->host, arg.data, b->nbytes, err) != 0 ? -1 : 0;
    dev->ops->release(dev, arg.data);
    if (rc == 0)
        b->host_stale = 0;
    return rc;
}

int inputs_host(trial_inputs *in, device *dev, kwb_error *err)
{
    return inputs_host_some(in, dev, NULL, err);
}

int inputs_host_some(trial_inputs *in, device *dev, const unsigned char *only, kwb_error *err)
{
    for (int i = 0; i < in->n; i++) {
        tensor_buf *b = &in->bufs[i];
        if (!b->host_stale || (only && !only[i]))
            continue;
        int sealed = still_sealed(in, dev, i, err);
        if (sealed < 0)
            return -1;
        if (sealed) { /* the device holds the pristine values */
            if (dev->ops->download(dev, b->host, b->dev, b->nbytes, err) != 0)
                return -1;
            b->host_stale = 0;
        } else if (regenerate_host(in, dev, i, err) != 0) {
            return -1;
        }
    }
    return 0;
}

int inputs_restore(trial_inputs *in, device *dev, kwb_error *err)
{
    for (int i = 0; i < in->n; i++) {
        tensor_buf *b = &in->bufs[i];
        if (!b->nbytes)
            continue;
        int rc =
            b->host_stale ? remake(dev, b, &in->args[i], err) : dev->ops->upload(dev, b->dev, b->host, b->nbytes, err);
        if (rc != 0)
            return -1;
    }
    return dev->ops->sync(dev, err); /* the remade ones are queued */
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
    b->host = malloc(b->nbytes ? b->nbytes : 1); /* a set that does not fit is an error, not an abort */
    if (!b->host)
        return kwb_error_set(err, "no host memory for %zu bytes", b->nbytes);
    b->dev = dev->ops->alloc(dev, b->nbytes, err);
    if (!b->dev)
        return -1;
    arg->data = b->dev;
    if (w->inputs[i].kind == WL_SAFETENSORS) {
        if (load_blob(b->host, t, &w->inputs[i], w, root, err) != 0)
            return -1;
        return dev->ops->upload(dev, b->dev, b->host, b->nbytes, err);
    }
    int declared = make_declared(b, dev, d, i, w, key, err);
    if (declared != 0)
        return declared < 0 ? -1 : 0;
    /* Generated where it lives; the host copy the checks compare with is read back when asked for. */
    size_t n = b->nbytes / dtype_size(t->dtype);
    input_gen_fn gen;
    if (generator_of(dev, d, i, &gen, err) != 0 || generate(dev, b, arg, gen, key, err) != 0)
        return -1;
    if (!getenv("KWB_CHECK_RNG"))
        return 0;
    if (dev->ops->download(dev, b->host, b->dev, b->nbytes, err) != 0)
        return -1;
    b->host_stale = 0;
    input_gen_fn host_gen = strcmp(dev->ops->kind, "cpu") == 0 ? gen : reference_host_gen;
    if (gen && !host_gen)
        return 0; /* no host twin to compare with */
    return check_generator(b->host, arg, n, key, host_gen, err);
}

int inputs_seal(trial_inputs *in, device *dev, kwb_error *err)
{
    if (!in->digest_key) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        in->digest_key = rng_bits((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32), (uint64_t)ts.tv_sec) | 1;
    }
    for (int i = 0; i < in->n; i++) {
        tensor_buf *b = &in->bufs[i];
        b->has_digest = 0;
        if (!b->nbytes || !dev->ops->digest)
            continue;
        int rc = dev->ops->digest(dev, b->dev, b->nbytes, in->digest_key, &b->digest, err);
        if (rc < 0)
            return -1;
        b->has_digest = rc == 0;
    }
    for (int i = 0; i < in->n; i++) { /* no digest to tell a pristine copy by: read back now */
        tensor_buf *b = &in->bufs[i];
        if (b->host_stale && !b->has_digest) {
            if (dev->ops->download(dev, b->host, b->dev, b->nbytes, err) != 0)
                return -1;
            b->host_stale = 0;
        }
    }
    /* a device's fills are queued: done before a call that may run on another stream */
    return dev->ops->sync(dev, err);
}

int inputs_make(trial_inputs *in, device *dev, const definition *d, const workload *w, const char *root, uint64_t seed,
                int trial, kwb_error *err)
{
    in->n = d->ninputs;
    in->digest_key = 0;
    in->bufs = xcalloc((size_t)d->ninputs, sizeof *in->bufs);
    in->args = xcalloc((size_t)d->ninputs, sizeof *in->args);
    for (int i = 0; i < d->ninputs; i++) {
        if (make_input(in, i, dev, d, w, root, rng_key(seed, w->uuid, trial, i), err) != 0) {
            kwb_error_prefix(err, "input '%s'", d->inputs[i].name);
            inputs_free(in, dev);
            return -1;
        }
    }
    return inputs_seal(in, dev, err);
}

/* The sorted distinct rows, of TOTAL, that input K's values name (values outside [0, TOTAL), a
 * padding's -1, name none) into *ROWS (malloc'd) and *N. */
static int named_rows(trial_inputs *in, device *dev, int k, int64_t total, int64_t **rows, size_t *n, kwb_error *err)
{
    tensor_buf *b = &in->bufs[k];
    if (b->host_stale) {
        unsigned char *only = xcalloc((size_t)in->n, 1);
        only[k] = 1;
        int rc = inputs_host_some(in, dev, only, err);
        free(only);
        if (rc != 0)
            return -1;
    }
    unsigned char *named = xcalloc((size_t)total + 1, 1);
    size_t count = 0, numel = b->nbytes / dtype_size(in->args[k].dtype);
    for (size_t e = 0; e < numel; e++) {
        double v = dtype_load(b->host, in->args[k].dtype, e);
        if (v >= 0 && v < (double)total && !named[(int64_t)v]++)
            count++;
    }
    *rows = xmalloc((count ? count : 1) * sizeof **rows);
    *n = 0;
    for (int64_t r = 0; r < total; r++)
        if (named[r])
            (*rows)[(*n)++] = r;
    free(named);
    return 0;
}

/* Whether every row of OLD (M, sorted) is among NEW's (N, sorted). */
static int rows_cover(const int64_t *new_rows, size_t n, const int64_t *old, size_t m)
{
    size_t j = 0;
    for (size_t i = 0; i < m; i++) {
        while (j < n && new_rows[j] < old[i])
            j++;
        if (j == n || new_rows[j] != old[i])
            return 0;
    }
    return 1;
}

/* With KWB_CHECK_RNG set: B's rows in ARG's memory must hold the bytes of a whole fill of GEN from
 * KEY (made in scratch memory) bit for bit. */
static int check_rows(device *dev, const tensor_buf *b, const kwb_arg *arg, input_gen_fn gen, uint64_t key,
                      kwb_error *err)
{
    kwb_arg whole = *arg;
    unsigned char *got = xmalloc(b->nbytes), *want = xmalloc(b->nbytes);
    whole.data = dev->ops->alloc(dev, b->nbytes, err);
    int rc = !whole.data || fill_input(dev, &whole, gen, b->nbytes / dtype_size(arg->dtype), key, err) != 0 ||
                     dev->ops->download(dev, want, whole.data, b->nbytes, err) != 0 ||
                     dev->ops->download(dev, got, arg->data, b->nbytes, err) != 0
                 ? -1
                 : 0;
    size_t row = b->nbytes / (size_t)rows_total(arg, b->rows_dims);
    for (size_t r = 0; rc == 0 && r < b->nrows; r++)
        if (memcmp(got + (size_t)b->rows[r] * row, want + (size_t)b->rows[r] * row, row) != 0)
            rc = kwb_error_set(err, "row %lld made alone differs from the whole fill's", (long long)b->rows[r]);
    dev->ops->release(dev, whole.data);
    free(got);
    free(want);
    return rc;
}

/* Makes B's rows (ARG's memory) from KEY with GEN: its values are now KEY's there. */
static int renew_rows(device *dev, tensor_buf *b, const kwb_arg *arg, input_gen_fn gen, uint64_t key, kwb_error *err)
{
    b->key = key;
    b->host_stale = 1;
    if (fill_rows(dev, b, arg, gen, key, err) != 0)
        return -1;
    return getenv("KWB_CHECK_RNG") ? check_rows(dev, b, arg, gen, key, err) : 0;
}

/* Renews input I of W from KEY in a refill: only the rows its "fresh_rows" index names when GEN has
 * a row variant and those rows include every row renewed since the whole fill (the others then
 * still hold the whole fill's values), else the whole input. A blob index names the same rows in
 * every set: they are found once. */
static int refill_rows(trial_inputs *in, device *dev, const definition *d, const workload *w, int i, input_gen_fn gen,
                       uint64_t key, kwb_error *err)
{
    tensor_buf *b = &in->bufs[i];
    const kwb_arg *arg = &in->args[i];
    const def_input_gen *g = &d->input_gen[i];
    if (!fills_rows(dev, gen) || b->gen != gen || !b->base_key)
        return generate(dev, b, arg, gen, key, err);
    if (b->rows && w->inputs[g->rows_index].kind == WL_SAFETENSORS)
        return renew_rows(dev, b, arg, gen, key, err);
    int64_t *rows;
    size_t n;
    if (named_rows(in, dev, g->rows_index, rows_total(arg, g->rows_dims), &rows, &n, err) != 0)
        return -1;
    if (!rows_cover(rows, n, b->rows, b->nrows)) {
        free(rows);
        return generate(dev, b, arg, gen, key, err);
    }
    if (n != b->nrows || memcmp(rows, b->rows, n * sizeof *rows) != 0) {
        forget_rows(dev, b);
        b->rows_dev = n ? dev->ops->alloc(dev, n * sizeof *rows, err) : NULL;
        if (n && (!b->rows_dev || dev->ops->upload(dev, b->rows_dev, rows, n * sizeof *rows, err) != 0)) {
            free(rows);
            return -1;
        }
        b->rows = rows;
        b->nrows = n;
    } else
        free(rows);
    b->rows_dims = g->rows_dims;
    return renew_rows(dev, b, arg, gen, key, err);
}

/* Makes input I's values anew from KEY in its existing buffer (inputs_refill). */
static int refill_input(trial_inputs *in, device *dev, const definition *d, const workload *w, int i, uint64_t key,
                        kwb_error *err)
{
    kwb_arg *arg = &in->args[i];
    tensor_buf *b = &in->bufs[i];
    if (arg->rank < 0) {
        make_scalar(arg, &d->inputs[i], &w->inputs[i], key);
        return 0;
    }
    if (w->inputs[i].kind == WL_SAFETENSORS || !b->nbytes)
        return 0; /* a blob's values are what they are */
    int declared = make_declared(b, dev, d, i, w, key, err);
    if (declared < 0) {
        kwb_error_prefix(err, "input '%s'", d->inputs[i].name);
        return -1;
    }
    if (declared)
        return 0;
    input_gen_fn gen;
    int by_rows = d->input_gen && d->input_gen[i].rows_index >= 0;
    if (generator_of(dev, d, i, &gen, err) != 0 ||
        (by_rows ? refill_rows(in, dev, d, w, i, gen, key, err) : generate(dev, b, arg, gen, key, err)) != 0) {
        kwb_error_prefix(err, "input '%s'", d->inputs[i].name);
        return -1;
    }
    return 0;
}

int inputs_refill(trial_inputs *in, device *dev, const definition *d, const workload *w, uint64_t seed, int trial,
                  kwb_error *err)
{
    for (int pass = 0; pass < 2; pass++) /* inputs renewed by rows last: their index is made first */
        for (int i = 0; i < in->n; i++)
            if ((d->input_gen && d->input_gen[i].rows_index >= 0) == pass &&
                refill_input(in, dev, d, w, i, rng_key(seed, w->uuid, trial, i), err) != 0)
                return -1;
    return inputs_seal(in, dev, err);
}

void inputs_free(trial_inputs *in, device *dev)
{
    for (int i = 0; i < in->n; i++) {
        forget_rows(dev, &in->bufs[i]);
        free(in->bufs[i].host);
        dev->ops->release(dev, in->bufs[i].dev);
    }
    free(in->bufs);
    free(in->args);
    memset(in, 0, sizeof *in);
}

/* A staging buffer for read-backs, kept and grown: a fresh allocation of the size of the inputs
 * after every checked call costs page faults by the hundred thousand on a large workload. */
static void *scratch(size_t n)
{
    static void *buf;
    static size_t cap;
    if (n > cap) {
        free(buf);
        buf = xmalloc(n);
        cap = n;
    }
    return buf;
}

int inputs_changed(trial_inputs *in, device *dev, const char **name, kwb_error *err)
{
    for (int i = 0; i < in->n; i++) {
        const tensor_buf *b = &in->bufs[i];
        if (!b->nbytes)
            continue;
        int sealed = still_sealed(in, dev, i, err);
        if (sealed < 0)
            return -1;
        if (sealed)
            continue; /* as it was: nothing read back */
        if (b->host_stale && regenerate_host(in, dev, i, err) != 0)
            return -1; /* the pristine values to compare with */
        void *now = scratch(b->nbytes);
        int rc = dev->ops->download(dev, now, b->dev, b->nbytes, err);
        int changed = rc == 0 && memcmp(now, b->host, b->nbytes) != 0;
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

/* The poison pattern of output I under KEY. On the cpu the block is filled in place from
 * rng_bits, 8 bytes at a time; on a GPU by the device's own generator as random bytes
 * (rng_fill's int8 draw, full entropy), so that no pattern is made or copied on the host: only
 * the guard zones' bytes are computed there, to compare. */
static uint64_t pattern_key(uint64_t key, int i)
{
    return key ^ ((uint64_t)(i + 1) << 40);
}

static void fill_pattern(unsigned char *p, size_t n, uint64_t key, int i)
{
    uint64_t k = pattern_key(key, i);
    for (size_t j = 0; j < n; j += 8) {
        uint64_t bits = rng_bits(k, j / 8);
        memcpy(p + j, &bits, n - j < 8 ? n - j : 8);
    }
}

/* Byte J of output I's block as poisoned: on the cpu, of fill_pattern's words; elsewhere, of
 * the device's int8 draw. */
static unsigned char pattern_byte(int cpu, uint64_t key, int i, size_t j)
{
    if (!cpu)
        return (unsigned char)rng_formula_value(KWB_I8, pattern_key(key, i), j);
    uint64_t bits = rng_bits(pattern_key(key, i), j / 8);
    unsigned char b[8];
    memcpy(b, &bits, 8);
    return b[j % 8];
}

static int on_cpu(const device *dev)
{
    return strcmp(dev->ops->kind, "cpu") == 0;
}

int outputs_poison(output_set *out, device *dev, uint64_t key, kwb_error *err)
{
    for (int i = 0; i < out->n; i++) {
        size_t total = out->bufs[i].nbytes + 2 * INPUTS_GUARD;
        if (on_cpu(dev)) /* host memory: in place, no staging buffer to pollute caches */
            fill_pattern(out->bufs[i].dev, total, key, i);
        else if (dev->ops->fill_random(dev, out->bufs[i].dev, KWB_I8, total, pattern_key(key, i), err) != 0)
            return -1;
    }
    /* a device's fills are queued: done before a call that may run on another stream */
    return dev->ops->sync(dev, err);
}

/* Offset from the data start of the first changed guard byte, or 0 when intact. HEAD and TAIL
 * are the guard zones as read back; byte J of the block should be PATTERN(J). */
static long long guard_damage(const unsigned char *head, const unsigned char *tail, size_t nbytes, uint64_t key, int i,
                              int cpu)
{
    unsigned char want[2][INPUTS_GUARD];
    for (size_t j = 0; j < INPUTS_GUARD; j++) {
        want[0][j] = pattern_byte(cpu, key, i, j);
        want[1][j] = pattern_byte(cpu, key, i, INPUTS_GUARD + nbytes + j);
    }
    for (size_t j = 0; j < INPUTS_GUARD; j++)
        if (head[j] != want[0][j])
            return (long long)j - INPUTS_GUARD;
    for (size_t j = 0; j < INPUTS_GUARD; j++)
        if (tail[j] != want[1][j])
            return (long long)(nbytes + j);
    return 0;
}

/* Reads output I's guard zones back (and, with DATA, its data into its host copy); *off is the
 * first damaged guard byte's offset, or 0. Returns 0 or -1 with *err set. */
static int read_output(tensor_buf *b, device *dev, uint64_t key, int i, int data, long long *off, kwb_error *err)
{
    unsigned char head[INPUTS_GUARD], tail[INPUTS_GUARD];
    /* the data straight into its host copy, the guards beside it: no staging copy of the block */
    if (dev->ops->download(dev, head, b->dev, INPUTS_GUARD, err) != 0 ||
        (data && b->nbytes && dev->ops->download(dev, b->host, b->dev + INPUTS_GUARD, b->nbytes, err) != 0) ||
        dev->ops->download(dev, tail, b->dev + INPUTS_GUARD + b->nbytes, INPUTS_GUARD, err) != 0)
        return -1;
    *off = guard_damage(head, tail, b->nbytes, key, i, on_cpu(dev));
    return 0;
}

int outputs_fetch(output_set *out, device *dev, uint64_t key, int *which, long long *offset, kwb_error *err)
{
    return outputs_check_guards(out, dev, key, 1, which, offset, err);
}

int outputs_check_guards(output_set *out, device *dev, uint64_t key, int data, int *which, long long *offset,
                         kwb_error *err)
{
    int damaged = 0;
    for (int i = 0; i < out->n; i++) {
        long long off;
        if (read_output(&out->bufs[i], dev, key, i, data, &off, err) != 0)
            return -1;
        if (off != 0 && !damaged) {
            damaged = 1;
            *which = i;
            *offset = off;
        }
    }
    return damaged;
}

int outputs_digests(output_set *out, device *dev, uint64_t key, uint64_t dkey, uint64_t *digests, int *which,
                    long long *offset, kwb_error *err)
{
    if (!dev->ops->digest)
        return 2;
    for (int i = 0; i < out->n; i++) {
        tensor_buf *b = &out->bufs[i];
        long long off;
        if (read_output(b, dev, key, i, 0, &off, err) != 0)
            return -1;
        if (off != 0) {
            *which = i;
            *offset = off;
            return 1;
        }
        digests[i] = 0;
        int rc = b->nbytes ? dev->ops->digest(dev, b->dev + INPUTS_GUARD, b->nbytes, dkey, &digests[i], err) : 0;
        if (rc != 0)
            return rc < 0 ? -1 : 2;
    }
    return 0;
}

void outputs_bind(const output_set *out, const trial_inputs *in, const definition *d, const workload *w, kwb_arg *args)
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

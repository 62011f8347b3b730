/* safetensors.c - reads and writes the safetensors format: an 8-byte little-endian header
 * length N, N bytes of JSON describing the tensors, then the data section. */
#include "safetensors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "dtype.h"
#include "xalloc.h"

/* The reference implementation's limit on the header length. */
#define ST_MAX_HEADER 100000000u
#define ST_LFS_MAGIC "version https://git-lfs"
#define ST_METADATA "__metadata__"
#define ST_SHAPE_TEXT 256

/* ---- small helpers ------------------------------------------------------------------ */

static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* "[2, 3]" (or "[]" for rank 0) into buf. */
static void format_shape(const int64_t *shape, int rank, char *buf, size_t size)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int i = 0; i < rank && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, i ? ", " : "", shape[i]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
}

/* Bytes of a tensor of this dtype and shape into *nbytes; -1 on overflow of uint64_t. */
static int tensor_nbytes(kwb_dtype dtype, int rank, const int64_t *shape, uint64_t *nbytes)
{
    uint64_t n = dtype_size(dtype);
    for (int i = 0; i < rank; i++)
        if (__builtin_mul_overflow(n, (uint64_t)shape[i], &n))
            return -1;
    *nbytes = n;
    return 0;
}

/* ---- reading ------------------------------------------------------------------------ */

/* Reads the regular file PATH whole into st->bytes / st->size. */
static int read_whole(safetensors *st, kwb_error *err)
{
    FILE *f = fopen(st->path, "rb");
    if (!f)
        return kwb_error_set(err, "%s: cannot open: %s", st->path, strerror(errno));
    struct stat sb;
    int rc = 0;
    if (fstat(fileno(f), &sb) != 0)
        rc = kwb_error_set(err, "%s: cannot stat: %s", st->path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        rc = kwb_error_set(err, "%s: not a regular file", st->path);
    if (rc == 0) {
        st->size = (size_t)sb.st_size;
        st->bytes = xmalloc(st->size);
        if (fread(st->bytes, 1, st->size, f) != st->size || ferror(f))
            rc = kwb_error_set(err, "%s: read error (expected %zu bytes)", st->path, st->size);
    }
    fclose(f);
    return rc;
}

/* Checks the LFS pointer case and the 8-byte header length; sets st->data_start. */
static int check_preamble(safetensors *st, kwb_error *err)
{
    size_t magic = strlen(ST_LFS_MAGIC);
    if (st->size >= magic && memcmp(st->bytes, ST_LFS_MAGIC, magic) == 0)
        return kwb_error_set(err,
                             "%s: a Git LFS pointer, not the tensor data: "
                             "run 'git lfs pull' in the dataset",
                             st->path);
    if (st->size < 8)
        return kwb_error_set(err, "%s: file too short (%zu bytes) for a safetensors header", st->path, st->size);
    uint64_t n = load_le64(st->bytes);
    if (n > ST_MAX_HEADER)
        return kwb_error_set(err, "%s: header length %" PRIu64 " is absurd (over 100 MB)", st->path, n);
    if (n > st->size - 8)
        return kwb_error_set(err,
                             "%s: header length %" PRIu64 " goes beyond the end of the file "
                             "(%zu bytes)",
                             st->path, n, st->size);
    st->data_start = 8 + (size_t)n;
    return 0;
}

/* Parses the header JSON; returns the root object or NULL. */
static json_t *load_header(const safetensors *st, kwb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb((const char *)st->bytes + 8, st->data_start - 8, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        kwb_error_set(err, "%s: header is not JSON: %s (line %d, column %d)", st->path, jerr.text, jerr.line,
                      jerr.column);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        kwb_error_set(err, "%s: header is not a JSON object", st->path);
        return NULL;
    }
    return root;
}

static int parse_dtype(const safetensors *st, st_tensor *t, json_t *desc, kwb_error *err)
{
    json_t *d = json_object_get(desc, "dtype");
    if (!json_is_string(d))
        return kwb_error_set(err, "%s: tensor '%s': \"dtype\" is missing or not a string", st->path, t->name);
    if (dtype_from_safetensors_name(json_string_value(d), &t->dtype) != 0)
        return kwb_error_set(err, "%s: tensor '%s': unknown or unsupported dtype '%s'", st->path, t->name,
                             json_string_value(d));
    return 0;
}

static int parse_shape(const safetensors *st, st_tensor *t, json_t *desc, kwb_error *err)
{
    json_t *s = json_object_get(desc, "shape");
    if (!json_is_array(s))
        return kwb_error_set(err, "%s: tensor '%s': \"shape\" is missing or not an array", st->path, t->name);
    if (json_array_size(s) > KWB_MAX_RANK)
        return kwb_error_set(err, "%s: tensor '%s': rank %zu is over the maximum of %d", st->path, t->name,
                             json_array_size(s), KWB_MAX_RANK);
    t->rank = (int)json_array_size(s);
    for (int i = 0; i < t->rank; i++) {
        json_t *dim = json_array_get(s, (size_t)i);
        if (!json_is_integer(dim))
            return kwb_error_set(err, "%s: tensor '%s': shape dimension %d is not an integer", st->path, t->name, i);
        t->shape[i] = json_integer_value(dim);
        if (t->shape[i] < 0)
            return kwb_error_set(err, "%s: tensor '%s': shape dimension %d is negative (%" PRId64 ")", st->path,
                                 t->name, i, t->shape[i]);
    }
    return 0;
}

/* Reads "data_offsets" into begin/end and checks their order and that they lie in the file. */
static int parse_offsets(const safetensors *st, st_tensor *t, json_t *desc, kwb_error *err, uint64_t *begin,
                         uint64_t *end)
{
    json_t *o = json_object_get(desc, "data_offsets");
    json_t *b = json_array_get(o, 0), *e = json_array_get(o, 1);
    if (!json_is_array(o) || json_array_size(o) != 2 || !json_is_integer(b) || !json_is_integer(e) ||
        json_integer_value(b) < 0 || json_integer_value(e) < 0)
        return kwb_error_set(err,
                             "%s: tensor '%s': \"data_offsets\" must be two non-negative "
                             "integers [begin, end]",
                             st->path, t->name);
    *begin = (uint64_t)json_integer_value(b);
    *end = (uint64_t)json_integer_value(e);
    if (*begin > *end)
        return kwb_error_set(err,
                             "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] are "
                             "out of order",
                             st->path, t->name, *begin, *end);
    if (*end > st->size - st->data_start)
        return kwb_error_set(err,
                             "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] go "
                             "beyond the end of the file (the data section holds %zu bytes)",
                             st->path, t->name, *begin, *end, st->size - st->data_start);
    return 0;
}

/* Checks that the offsets hold exactly numel * element size bytes. */
static int check_size(const safetensors *st, st_tensor *t, uint64_t begin, uint64_t end, kwb_error *err)
{
    char shape[ST_SHAPE_TEXT];
    uint64_t need;
    format_shape(t->shape, t->rank, shape, sizeof shape);
    if (tensor_nbytes(t->dtype, t->rank, t->shape, &need) != 0)
        return kwb_error_set(err, "%s: tensor '%s': shape %s of %s is too large", st->path, t->name, shape,
                             dtype_safetensors_name(t->dtype));
    if (need != end - begin)
        return kwb_error_set(err,
                             "%s: tensor '%s': data_offsets [%" PRIu64 ", %" PRIu64 "] hold "
                             "%" PRIu64 " bytes, shape %s of %s needs %" PRIu64,
                             st->path, t->name, begin, end, end - begin, shape, dtype_safetensors_name(t->dtype), need);
    t->offset = begin;
    t->nbytes = need;
    return 0;
}

static int parse_tensor(const safetensors *st, st_tensor *t, json_t *desc, kwb_error *err)
{
    uint64_t begin = 0, end = 0;
    if (!json_is_object(desc))
        return kwb_error_set(err, "%s: tensor '%s': not a JSON object", st->path, t->name);
    if (parse_dtype(st, t, desc, err) || parse_shape(st, t, desc, err) ||
        parse_offsets(st, t, desc, err, &begin, &end) || check_size(st, t, begin, end, err))
        return -1;
    return 0;
}

static int compare_offset(const void *a, const void *b)
{
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Rejects two non-empty tensors whose bytes overlap. */
static int check_overlaps(const safetensors *st, kwb_error *err)
{
    const st_tensor **v = xcalloc(st->count, sizeof *v);
    for (size_t i = 0; i < st->count; i++)
        v[i] = &st->tensors[i];
    qsort(v, st->count, sizeof *v, compare_offset);
    const st_tensor *prev = NULL;
    int rc = 0;
    for (size_t i = 0; i < st->count && rc == 0; i++) {
        if (v[i]->nbytes == 0)
            continue;
        if (prev && prev->offset + prev->nbytes > v[i]->offset)
            rc = kwb_error_set(err,
                               "%s: tensors '%s' [%" PRIu64 ", %" PRIu64 "] and '%s' "
                               "[%" PRIu64 ", %" PRIu64 "] overlap",
                               st->path, prev->name, prev->offset, prev->offset + prev->nbytes, v[i]->name,
                               v[i]->offset, v[i]->offset + v[i]->nbytes);
        if (!prev || v[i]->offset + v[i]->nbytes > prev->offset + prev->nbytes)
            prev = v[i];
    }
    free(v);
    return rc;
}

/* Fills st->tensors from the header object, in header order, skipping __metadata__. */
static int parse_tensors(safetensors *st, json_t *root, kwb_error *err)
{
    const char *name;
    json_t *desc;
    st->tensors = xcalloc(json_object_size(root), sizeof *st->tensors);
    json_object_foreach(root, name, desc)
    {
        if (strcmp(name, ST_METADATA) == 0)
            continue;
        st_tensor *t = &st->tensors[st->count++];
        t->name = xstrdup(name);
        if (parse_tensor(st, t, desc, err) != 0)
            return -1;
    }
    return check_overlaps(st, err);
}

safetensors *safetensors_open(const char *path, kwb_error *err)
{
    safetensors *st = xcalloc(1, sizeof *st);
    st->path = xstrdup(path);
    json_t *root = NULL;
    if (read_whole(st, err) != 0 || check_preamble(st, err) != 0 || !(root = load_header(st, err)) ||
        parse_tensors(st, root, err) != 0) {
        json_decref(root);
        safetensors_close(st);
        return NULL;
    }
    json_decref(root);
    return st;
}

const st_tensor *safetensors_find(const safetensors *st, const char *name)
{
    for (size_t i = 0; i < st->count; i++)
        if (strcmp(st->tensors[i].name, name) == 0)
            return &st->tensors[i];
    return NULL;
}

const void *safetensors_data(const safetensors *st, const st_tensor *t)
{
    return st->bytes + st->data_start + t->offset;
}

void safetensors_close(safetensors *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->count; i++)
        free(st->tensors[i].name);
    free(st->tensors);
    free(st->bytes);
    free(st->path);
    free(st);
}

/* ---- writing ------------------------------------------------------------------------ */

/* Checks one tensor to write and computes its size. */
static int check_write_tensor(const char *path, const st_write_tensor *w, uint64_t *nbytes, kwb_error *err)
{
    const char *name = w->name;
    if (!name)
        return kwb_error_set(err, "%s: a tensor has no name", path);
    if (strcmp(w->name, ST_METADATA) == 0)
        return kwb_error_set(err, "%s: '%s' is reserved, not a tensor name", path, name);
    if ((unsigned)w->dtype >= DTYPE_COUNT)
        return kwb_error_set(err, "%s: tensor '%s': invalid dtype %d", path, name, (int)w->dtype);
    if (w->rank < 0 || w->rank > KWB_MAX_RANK || (w->rank > 0 && !w->shape))
        return kwb_error_set(err, "%s: tensor '%s': invalid rank %d (0 to %d, with a shape)", path, name, w->rank,
                             KWB_MAX_RANK);
    for (int i = 0; i < w->rank; i++)
        if (w->shape[i] < 0)
            return kwb_error_set(err, "%s: tensor '%s': shape dimension %d is negative (%" PRId64 ")", path, name, i,
                                 w->shape[i]);
    if (tensor_nbytes(w->dtype, w->rank, w->shape, nbytes) != 0 || *nbytes > INT64_MAX)
        return kwb_error_set(err, "%s: tensor '%s': shape is too large", path, name);
    if (*nbytes > 0 && !w->data)
        return kwb_error_set(err, "%s: tensor '%s': no data", path, name);
    return 0;
}

/* {"dtype": .., "shape": [..], "data_offsets": [begin, end]} */
static json_t *tensor_desc(const st_write_tensor *w, uint64_t begin, uint64_t end)
{
    json_t *shape = json_array();
    for (int i = 0; i < w->rank; i++)
        json_array_append_new(shape, json_integer(w->shape[i]));
    return json_pack("{s:s, s:o, s:[I, I]}", "dtype", dtype_safetensors_name(w->dtype), "shape", shape, "data_offsets",
                     (json_int_t)begin, (json_int_t)end);
}

/* {"key": "value", ...} from NMETA pairs, or NULL with *err set. */
static json_t *metadata_object(const char *path, const char *const *meta, size_t nmeta, kwb_error *err)
{
    json_t *o = json_object();
    for (size_t i = 0; i < nmeta; i++) {
        const char *k = meta[2 * i], *v = meta[2 * i + 1];
        if (!k || !v || json_object_set_new(o, k, json_string(v)) != 0) {
            json_decref(o);
            kwb_error_set(err, "%s: metadata entry %zu is missing or not valid UTF-8", path, i);
            return NULL;
        }
    }
    return o;
}

/* Builds the header JSON (metadata first, then keys in the given order), padded with
 * spaces to a multiple of 8. */
static char *build_header(const char *path, const st_write_tensor *tensors, size_t n, const char *const *meta,
                          size_t nmeta, size_t *len, kwb_error *err)
{
    json_t *root = json_object();
    uint64_t offset = 0, nbytes = 0;
    if (nmeta > 0) {
        json_t *m = metadata_object(path, meta, nmeta, err);
        if (!m)
            goto fail;
        json_object_set_new(root, ST_METADATA, m);
    }
    for (size_t i = 0; i < n; i++) {
        const st_write_tensor *w = &tensors[i];
        if (check_write_tensor(path, w, &nbytes, err) != 0)
            goto fail;
        if (json_object_get(root, w->name)) {
            kwb_error_set(err, "%s: tensor '%s' appears twice", path, w->name);
            goto fail;
        }
        if (json_object_set_new(root, w->name, tensor_desc(w, offset, offset + nbytes)) != 0) {
            kwb_error_set(err, "%s: tensor '%s': name is not valid UTF-8", path, w->name);
            goto fail;
        }
        offset += nbytes;
    }
    char *json = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    if (!json) {
        kwb_error_set(err, "%s: cannot encode the header as JSON", path);
        return NULL;
    }
    size_t raw = strlen(json);
    *len = (raw + 7) / 8 * 8;
    char *header = xmalloc(*len);
    memcpy(header, json, raw);
    memset(header + raw, ' ', *len - raw);
    free(json);
    return header;
fail:
    json_decref(root);
    return NULL;
}

/* Writes the whole file to tmp; returns 0 or -1 with *err set. */
static int write_file(const char *path, const char *tmp, const char *header, size_t len, const st_write_tensor *tensors,
                      size_t n, kwb_error *err)
{
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return kwb_error_set(err, "%s: cannot create %s: %s", path, tmp, strerror(errno));
    unsigned char prefix[8];
    store_le64(prefix, len);
    int ok = fwrite(prefix, 1, 8, f) == 8 && fwrite(header, 1, len, f) == len;
    for (size_t i = 0; ok && i < n; i++) {
        uint64_t nbytes = 0;
        tensor_nbytes(tensors[i].dtype, tensors[i].rank, tensors[i].shape, &nbytes);
        ok = nbytes == 0 || fwrite(tensors[i].data, 1, nbytes, f) == nbytes;
    }
    ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        saved = errno;
    }
    if (!ok)
        return kwb_error_set(err, "%s: cannot write %s: %s", path, tmp, strerror(saved));
    return 0;
}

int safetensors_write(const char *path, const st_write_tensor *tensors, size_t n, kwb_error *err)
{
    return safetensors_write_meta(path, tensors, n, NULL, 0, err);
}

int safetensors_write_meta(const char *path, const st_write_tensor *tensors, size_t n, const char *const *meta,
                           size_t nmeta, kwb_error *err)
{
    size_t len;
    char *header = build_header(path, tensors, n, meta, nmeta, &len, err);
    if (!header)
        return -1;
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    int rc = write_file(path, tmp, header, len, tensors, n, err);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = kwb_error_set(err, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    free(header);
    return rc;
}

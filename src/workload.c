#include "workload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"
#include "xalloc.h"

__attribute__((format(printf, 4, 5))) static int wl_fail(kwb_error *err, const char *label, int line, const char *fmt,
                                                         ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        return kwb_error_set(err, "%s:%d: %s", label, line, msg);
    return kwb_error_set(err, "%s: %s", label, msg);
}

static int parse_axes(json_t *axes, const definition *d, workload *w, const char *label, int line, kwb_error *err)
{
    if (axes && !json_is_object(axes))
        return wl_fail(err, label, line, "'axes' must be an object of var axis -> integer");
    const char *name;
    json_t *v;
    json_object_foreach(axes, name, v)
    {
        int ai = definition_axis_index(d, name);
        if (ai < 0)
            return wl_fail(err, label, line, "axis '%s' is not an axis of %s", name, d->name);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return wl_fail(err, label, line, "axis '%s' must be an integer >= 0", name);
        if (d->axes[ai].is_const && json_integer_value(v) != d->axes[ai].value)
            return wl_fail(err, label, line, "axis '%s' is const %lld in %s, not %lld", name,
                           (long long)d->axes[ai].value, d->name, (long long)json_integer_value(v));
        w->axis_value[ai] = json_integer_value(v);
    }
    for (int i = 0; i < d->naxes; i++) {
        if (d->axes[i].is_const)
            w->axis_value[i] = d->axes[i].value;
        else if (!json_object_get(axes, d->axes[i].name))
            return wl_fail(err, label, line, "var axis '%s' has no value", d->axes[i].name);
    }
    return 0;
}

static int parse_scalar(json_t *v, const def_tensor *t, wl_input *in, const char *label, int line, kwb_error *err)
{
    if (json_is_boolean(v))
        in->i = json_is_true(v);
    else if (json_is_integer(v))
        in->i = json_integer_value(v);
    else if (json_is_real(v)) /* saturated: casting a real beyond int64 is undefined */
        in->i = json_real_value(v) >= 0x1p63   ? INT64_MAX
                : json_real_value(v) < -0x1p63 ? INT64_MIN
                                               : (int64_t)json_real_value(v);
    else
        return wl_fail(err, label, line, "input '%s': scalar 'value' must be a number or bool", t->name);
    in->f = json_is_real(v) ? json_real_value(v) : (double)in->i;
    if (t->rank >= 0)
        return wl_fail(err, label, line, "input '%s' is a tensor; a scalar descriptor is for shape-null inputs",
                       t->name);
    return 0;
}

static int parse_input(json_t *desc, const def_tensor *t, wl_input *in, const char *label, int line, kwb_error *err)
{
    const char *type = json_string_value(json_object_get(desc, "type"));
    if (!json_is_object(desc) || !type)
        return wl_fail(err, label, line, "input '%s': descriptor needs a string 'type'", t->name);
    if (strcmp(type, "random") == 0) {
        in->kind = WL_RANDOM;
        return 0;
    }
    if (strcmp(type, "scalar") == 0) {
        in->kind = WL_SCALAR;
        return parse_scalar(json_object_get(desc, "value"), t, in, label, line, err);
    }
    if (strcmp(type, "safetensors") == 0) {
        const char *path = json_string_value(json_object_get(desc, "path"));
        const char *key = json_string_value(json_object_get(desc, "tensor_key"));
        if (!path || !key)
            return wl_fail(err, label, line, "input '%s': safetensors needs 'path' and 'tensor_key'", t->name);
        if (!paths_is_safe_relative(path))
            return wl_fail(err, label, line, "input '%s': path '%s' must be relative to the TraceSet root", t->name,
                           path);
        in->kind = WL_SAFETENSORS;
        in->path = xstrdup(path);
        in->key = xstrdup(key);
        return 0;
    }
    return wl_fail(err, label, line, "input '%s': unknown descriptor type '%s' (random, scalar, safetensors)", t->name,
                   type);
}

static int parse_inputs(json_t *inputs, const definition *d, workload *w, const char *label, int line, kwb_error *err)
{
    if (inputs && !json_is_object(inputs))
        return wl_fail(err, label, line, "'inputs' must be an object of input -> descriptor");
    const char *name;
    json_t *desc;
    json_object_foreach(inputs, name, desc)
    {
        int ii = definition_input_index(d, name);
        if (ii < 0)
            return wl_fail(err, label, line, "input '%s' is not an input of %s", name, d->name);
        if (parse_input(desc, &d->inputs[ii], &w->inputs[ii], label, line, err) != 0)
            return -1;
    }
    return 0; /* a missing input stays WL_RANDOM, as FlashInfer-Bench reads it */
}

int workload_parse(json_t *obj, const definition *d, const char *label, int line, workload *w, kwb_error *err)
{
    if (!json_is_object(obj))
        return wl_fail(err, label, line, "'workload' must be an object {uuid, axes, inputs}");
    const char *uuid = json_string_value(json_object_get(obj, "uuid"));
    if (!uuid || !*uuid)
        return wl_fail(err, label, line, "workload needs a non-empty string 'uuid'");
    workload t = {0};
    t.line = line;
    t.axis_value = xcalloc((size_t)d->naxes + 1, sizeof *t.axis_value);
    t.inputs = xcalloc((size_t)d->ninputs + 1, sizeof *t.inputs);
    t.ninputs = d->ninputs;
    if (parse_axes(json_object_get(obj, "axes"), d, &t, label, line, err) != 0 ||
        parse_inputs(json_object_get(obj, "inputs"), d, &t, label, line, err) != 0) {
        workload_free(&t);
        return -1;
    }
    t.uuid = xstrdup(uuid);
    t.json = json_incref(obj);
    *w = t;
    return 0;
}

static int parse_line(const char *text, size_t len, const definition *d, const char *path, int line, workload_set *set,
                      kwb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return wl_fail(err, path, line, "invalid JSON at column %d: %s", jerr.column, jerr.text);
    int rc = 0;
    const char *def = json_string_value(json_object_get(root, "definition"));
    if (!json_is_object(root) || !def)
        rc = wl_fail(err, path, line, "a workload line needs a string 'definition' and a 'workload' object");
    else if (strcmp(def, d->name) == 0) {
        set->items = xrealloc(set->items, (size_t)(set->count + 1) * sizeof *set->items);
        rc = workload_parse(json_object_get(root, "workload"), d, path, line, &set->items[set->count], err);
        if (rc == 0)
            set->count++;
    }
    json_decref(root);
    return rc;
}

static int check_unique(const workload_set *set, int from, const char *path, kwb_error *err)
{
    for (int i = from; i < set->count; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(set->items[i].uuid, set->items[j].uuid) == 0) {
                if (j >= from)
                    return wl_fail(err, path, set->items[i].line, "uuid '%s' repeats line %d", set->items[i].uuid,
                                   set->items[j].line);
                return wl_fail(err, path, set->items[i].line, "uuid '%s' was already loaded from another file",
                               set->items[i].uuid);
            }
    return 0;
}

int workload_load_file(const char *path, const definition *d, workload_set *set, kwb_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return kwb_error_set(err, "%s: cannot read: %s", path, strerror(errno));
    int start = set->count, line = 0, rc = 0;
    char *buf = NULL;
    size_t cap = 0;
    ssize_t n;
    while (rc == 0 && (n = getline(&buf, &cap, f)) >= 0) {
        line++;
        if (strspn(buf, " \t\r\n") == (size_t)n)
            continue;
        rc = parse_line(buf, (size_t)n, d, path, line, set, err);
    }
    free(buf);
    fclose(f);
    if (rc == 0)
        rc = check_unique(set, start, path, err);
    if (rc != 0) {
        while (set->count > start)
            workload_free(&set->items[--set->count]);
    }
    return rc;
}

void workload_shape(const workload *w, const def_tensor *t, int64_t *shape)
{
    for (int i = 0; i < t->rank; i++)
        shape[i] = w->axis_value[t->axis[i]];
}

void workload_shape_text(const int64_t *shape, int rank, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < rank && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)shape[i]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
}

int64_t workload_numel(const workload *w, const def_tensor *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= w->axis_value[t->axis[i]];
    return n;
}

void workload_axes_string(const workload *w, const definition *d, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < d->naxes && used < cap; i++) {
        if (d->axes[i].is_const)
            continue;
        int n = snprintf(buf + used, cap - used, "%s%s=%lld", used ? "," : "", d->axes[i].name,
                         (long long)w->axis_value[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* True when every "axis=value" term of FILTER holds for w. */
static int filter_axes_match(const workload *w, const definition *d, const char *filter)
{
    char *copy = xstrdup(filter), *save = NULL;
    int ok = 1, terms = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        terms++;
        if (!eq) {
            ok = 0;
            break;
        }
        *eq = '\0';
        int ai = definition_axis_index(d, tok);
        char *end;
        long long v = strtoll(eq + 1, &end, 10);
        ok = ai >= 0 && end != eq + 1 && *end == '\0' && w->axis_value[ai] == v;
    }
    free(copy);
    return ok && terms > 0;
}

/* Nonzero when W matches one alternative of FILTER (alternatives separated by '|'). */
static int filter_matches(const workload *w, const definition *d, const char *filter)
{
    char *copy = xstrdup(filter), *save = NULL;
    int hit = 0;
    for (char *alt = strtok_r(copy, "|", &save); alt && !hit; alt = strtok_r(NULL, "|", &save))
        hit = strstr(w->uuid, alt) != NULL || (strchr(alt, '=') && filter_axes_match(w, d, alt));
    free(copy);
    return hit;
}

int workload_set_filter(workload_set *set, const definition *d, const char *filter)
{
    int kept = 0;
    for (int i = 0; i < set->count; i++) {
        workload *w = &set->items[i];
        int keep = filter_matches(w, d, filter);
        if (keep)
            set->items[kept++] = *w;
        else
            workload_free(w);
    }
    set->count = kept;
    return kept;
}

void workload_free(workload *w)
{
    for (int i = 0; w->inputs && i < w->ninputs; i++) {
        free(w->inputs[i].path);
        free(w->inputs[i].key);
    }
    free(w->inputs);
    free(w->uuid);
    free(w->axis_value);
    json_decref(w->json);
    memset(w, 0, sizeof *w);
}

void workload_set_free(workload_set *set)
{
    for (int i = 0; i < set->count; i++)
        workload_free(&set->items[i]);
    free(set->items);
    set->items = NULL;
    set->count = 0;
}

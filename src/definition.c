#include "definition.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "jsonpos.h"
#include "strbuf.h"
#include "xalloc.h"

/* Where messages point: the file and the JSON text, to find lines. */
typedef struct def_ctx {
    const char *label;
    const char *text;
    size_t len;
    kwb_error *err;
} def_ctx;

__attribute__((format(printf, 3, 4))) static int def_fail(const def_ctx *c, const char *pointer, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = jsonpos_line(c->text, c->len, pointer);
    return kwb_error_set(c->err, "%s:%d: %s", c->label, line, msg);
}

/* Writes the JSON Pointer "/SECTION/NAME" into buf, NAME escaped; returns buf. */
static const char *member_pointer(char *buf, size_t cap, const char *section, const char *name)
{
    char tok[512];
    snprintf(buf, cap, "/%s/%s", section, jsonpos_token(name, tok, sizeof tok));
    return buf;
}

static int parse_axes(definition *d, json_t *axes, const def_ctx *c)
{
    if (!json_is_object(axes))
        return def_fail(c, "/axes", "'axes' must be an object of axis name -> {type, value}");
    d->axes = xcalloc(json_object_size(axes) + 1, sizeof *d->axes);
    const char *name;
    json_t *ax;
    json_object_foreach(axes, name, ax)
    {
        char ptr[600];
        member_pointer(ptr, sizeof ptr, "axes", name);
        const char *type = json_string_value(json_object_get(ax, "type"));
        def_axis *a = &d->axes[d->naxes];
        if (!type || (strcmp(type, "const") && strcmp(type, "var")))
            return def_fail(c, ptr, "axis '%s': 'type' must be \"const\" or \"var\"", name);
        a->is_const = strcmp(type, "const") == 0;
        if (a->is_const) {
            json_t *v = json_object_get(ax, "value");
            if (!json_is_integer(v) || json_integer_value(v) < 0)
                return def_fail(c, ptr, "axis '%s': a const axis needs an integer 'value' >= 0", name);
            a->value = json_integer_value(v);
        }
        a->name = xstrdup(name);
        d->naxes++;
    }
    return 0;
}

static int parse_tensor(definition *d, def_tensor *t, const char *name, json_t *spec, const char *pointer,
                        const def_ctx *c)
{
    if (!json_is_object(spec))
        return def_fail(c, pointer, "'%s' must be an object {shape, dtype}", name);
    const char *dtype = json_string_value(json_object_get(spec, "dtype"));
    if (!dtype)
        return def_fail(c, pointer, "'%s': missing string 'dtype'", name);
    if (dtype_from_name(dtype, &t->dtype) != 0)
        return def_fail(c, pointer, "'%s': unknown dtype '%s'", name, dtype);
    json_t *shape = json_object_get(spec, "shape");
    t->name = xstrdup(name);
    if (!shape || json_is_null(shape)) {
        t->rank = -1;
        return 0;
    }
    if (!json_is_array(shape) || json_array_size(shape) > KWB_MAX_RANK)
        return def_fail(c, pointer, "'%s': 'shape' must be null or a list of at most %d axis names", name,
                        KWB_MAX_RANK);
    t->rank = (int)json_array_size(shape);
    for (int i = 0; i < t->rank; i++) {
        const char *axis = json_string_value(json_array_get(shape, (size_t)i));
        t->axis[i] = axis ? definition_axis_index(d, axis) : -1;
        if (t->axis[i] < 0)
            return def_fail(c, pointer, "'%s': shape entry %d names no declared axis (%s)", name, i,
                            axis ? axis : "not a string");
    }
    return 0;
}

static int parse_tensors(definition *d, json_t *obj, const char *which, def_tensor **out, int *n, const def_ctx *c)
{
    char ptr[600];
    snprintf(ptr, sizeof ptr, "/%s", which);
    if (!json_is_object(obj) || json_object_size(obj) == 0)
        return def_fail(c, ptr, "'%s' must be a non-empty object of name -> {shape, dtype}", which);
    *out = xcalloc(json_object_size(obj), sizeof **out);
    const char *name;
    json_t *spec;
    json_object_foreach(obj, name, spec)
    {
        member_pointer(ptr, sizeof ptr, which, name);
        /* counted first, so that a half-read tensor's name is freed */
        if (parse_tensor(d, &(*out)[(*n)++], name, spec, ptr, c) != 0)
            return -1;
    }
    return 0;
}

static int check_disjoint(const definition *d, const def_ctx *c)
{
    for (int i = 0; i < d->noutputs; i++) {
        if (definition_input_index(d, d->outputs[i].name) >= 0) {
            char ptr[600];
            member_pointer(ptr, sizeof ptr, "outputs", d->outputs[i].name);
            return def_fail(c, ptr, "'%s' is both an input and an output", d->outputs[i].name);
        }
        if (d->outputs[i].rank < 0) {
            char ptr[600];
            member_pointer(ptr, sizeof ptr, "outputs", d->outputs[i].name);
            return def_fail(c, ptr, "output '%s' must be a tensor (shape null is for inputs)", d->outputs[i].name);
        }
    }
    return 0;
}

/* Compiles the cost expression at /kwb/cost/KEY (when present) into *out: its names are the
 * axes, then the from_inputs values. */
static int parse_cost_expr(definition *d, json_t *cost, const char *key, costexpr **out, const def_ctx *c)
{
    json_t *v = json_object_get(cost, key);
    char pointer[64];
    snprintf(pointer, sizeof pointer, "/kwb/cost/%s", key);
    if (!v)
        return 0;
    if (!json_is_string(v))
        return def_fail(c, pointer, "kwb cost '%s' must be a string expression over the axes", key);
    int n = d->naxes + d->cost.nfrom_inputs;
    const char **names = xmalloc(((size_t)n + 1) * sizeof *names);
    for (int i = 0; i < d->naxes; i++)
        names[i] = d->axes[i].name;
    for (int i = 0; i < d->cost.nfrom_inputs; i++)
        names[d->naxes + i] = d->cost.from_inputs[i];
    kwb_error e = {{0}};
    *out = costexpr_compile(json_string_value(v), names, n, &e);
    free(names);
    return *out ? 0 : def_fail(c, pointer, "kwb cost '%s': %s", key, e.msg);
}

/* A name an expression can use: a letter or '_', then letters, digits and '_'. */
static int is_identifier(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    while (isalnum((unsigned char)*s) || *s == '_')
        s++;
    return *s == '\0';
}

/* cost.from_inputs: distinct names, none an axis, whose values the runner computes per call. */
static int parse_from_inputs(definition *d, json_t *list, const def_ctx *c)
{
    if (!list)
        return 0;
    if (!json_is_array(list))
        return def_fail(c, "/kwb/cost/from_inputs", "kwb cost 'from_inputs' must be a list of names");
    d->cost.from_inputs = xcalloc(json_array_size(list) + 1, sizeof *d->cost.from_inputs);
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        const char *name = json_string_value(v);
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/kwb/cost/from_inputs/%zu", i);
        if (!name || !is_identifier(name))
            return def_fail(c, pointer,
                            "kwb cost 'from_inputs' entry %zu must be a name (a letter or '_', then "
                            "letters, digits, '_')",
                            i);
        int taken = definition_axis_index(d, name) >= 0;
        for (int k = 0; k < d->cost.nfrom_inputs; k++)
            taken |= strcmp(d->cost.from_inputs[k], name) == 0;
        if (taken)
            return def_fail(c, pointer, "kwb cost 'from_inputs': '%s' is an axis or listed twice", name);
        d->cost.from_inputs[d->cost.nfrom_inputs++] = xstrdup(name);
    }
    return 0;
}

/* cost.reads: the inputs kwb_cost_values reads, each named once. */
static int parse_cost_reads(definition *d, json_t *list, const def_ctx *c)
{
    if (!list)
        return 0;
    if (!json_is_array(list))
        return def_fail(c, "/kwb/cost/reads", "kwb cost 'reads' must be a list of input names");
    d->cost.reads = xcalloc((size_t)d->ninputs + 1, 1);
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/kwb/cost/reads/%zu", i);
        const char *name = json_string_value(v);
        int k = name ? definition_input_index(d, name) : -1;
        if (k < 0)
            return def_fail(c, pointer, "kwb cost 'reads' entry %zu must name one of the definition's inputs", i);
        if (d->cost.reads[k])
            return def_fail(c, pointer, "kwb cost 'reads': '%s' is listed twice", name);
        d->cost.reads[k] = 1;
    }
    return 0;
}

/* Fails unless OBJ, the member at the dotted PATH ("kwb.cost"), is an object whose keys are all
 * among the NULL-terminated KNOWN. */
static int expect_object(json_t *obj, const char *path, const char *const *known, const def_ctx *c)
{
    char pointer[64], list[256] = "";
    snprintf(pointer, sizeof pointer, "/%s", path);
    for (char *p = pointer; *p; p++)
        *p = *p == '.' ? '/' : *p;
    if (!json_is_object(obj))
        return def_fail(c, pointer, "'%s' must be an object", path);
    for (int i = 0; known[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", known[i]);
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int i = 0;
        while (known[i] && strcmp(known[i], key) != 0)
            i++;
        if (!known[i])
            return def_fail(c, pointer, "unknown key '%s.%s' (known: %s)", path, key, list);
    }
    return 0;
}

/* {"cost": {"bytes": EXPR, "flops": EXPR, "compute": "fp32"|"bf16", "from_inputs": [NAME...],
 * "reads": [INPUT...]}}. */
static int parse_cost(definition *d, json_t *cost, const def_ctx *c)
{
    static const char *const known[] = {"bytes", "flops", "compute", "from_inputs", "reads", NULL};
    if (!cost)
        return 0;
    if (expect_object(cost, "kwb.cost", known, c) != 0)
        return -1;
    const char *compute = json_string_value(json_object_get(cost, "compute"));
    if (json_object_get(cost, "compute") && (!compute || (strcmp(compute, "fp32") && strcmp(compute, "bf16"))))
        return def_fail(c, "/kwb/cost/compute", "kwb cost 'compute' must be \"fp32\" or \"bf16\"");
    d->cost.compute = xstrdup(compute ? compute : "fp32");
    if (parse_from_inputs(d, json_object_get(cost, "from_inputs"), c) != 0 ||
        parse_cost_reads(d, json_object_get(cost, "reads"), c) != 0 ||
        parse_cost_expr(d, cost, "bytes", &d->cost.bytes, c) != 0)
        return -1;
    return parse_cost_expr(d, cost, "flops", &d->cost.flops, c);
}

/* Reads /kwb/SECTION/KEY (when present) into *out: a number from LO to HI (HI infinite: no bound). */
static int parse_section_number(json_t *obj, const char *section, const char *key, double lo, double hi, double *out,
                                const def_ctx *c)
{
    json_t *v = json_object_get(obj, key);
    char pointer[64];
    snprintf(pointer, sizeof pointer, "/kwb/%s/%s", section, key);
    if (!v)
        return 0;
    double x = json_number_value(v);
    if (!json_is_number(v) || x < lo || x > hi)
        return isinf(hi) ? def_fail(c, pointer, "kwb %s '%s' must be a number >= %g", section, key, lo)
                         : def_fail(c, pointer, "kwb %s '%s' must be a number from %g to %g", section, key, lo, hi);
    *out = x;
    return 0;
}

/* {"check": {"atol": X, "rtol": X, "matched_ratio": R, "order": "any"|"exact",
 * "method": "tolerance"|"reference"}}: tolerances >= 0, a ratio from 0 to 1; "any": rows compare
 * as multisets; "reference": the reference solution's kwb_check decides. */
static int parse_check(definition *d, json_t *check, const def_ctx *c)
{
    static const char *const known[] = {"atol", "rtol", "matched_ratio", "order", "method", NULL};
    if (!check)
        return 0;
    if (expect_object(check, "kwb.check", known, c) != 0)
        return -1;
    json_t *order = json_object_get(check, "order");
    const char *o = json_string_value(order);
    if (order && (!o || (strcmp(o, "any") != 0 && strcmp(o, "exact") != 0)))
        return def_fail(c, "/kwb/check/order", "kwb check 'order' must be \"any\" or \"exact\"");
    d->check.any_order = o && strcmp(o, "any") == 0;
    json_t *method = json_object_get(check, "method");
    const char *m = json_string_value(method);
    if (method && (!m || (strcmp(m, "tolerance") != 0 && strcmp(m, "reference") != 0)))
        return def_fail(c, "/kwb/check/method", "kwb check 'method' must be \"tolerance\" or \"reference\"");
    d->check.by_reference = m && strcmp(m, "reference") == 0;
    if (parse_section_number(check, "check", "atol", 0, INFINITY, &d->check.atol, c) != 0 ||
        parse_section_number(check, "check", "rtol", 0, INFINITY, &d->check.rtol, c) != 0)
        return -1;
    return parse_section_number(check, "check", "matched_ratio", 0, 1, &d->check.matched_ratio, c);
}

/* {"replay": {"failure_rate": P, "confidence": C}}: both required, each strictly between 0 and 1. */
static int parse_replay(definition *d, json_t *replay, const def_ctx *c)
{
    static const char *const known[] = {"failure_rate", "confidence", NULL};
    if (!replay)
        return 0;
    if (expect_object(replay, "kwb.replay", known, c) != 0)
        return -1;
    if (!json_object_get(replay, "failure_rate") || !json_object_get(replay, "confidence"))
        return def_fail(c, "/kwb/replay", "kwb replay needs both 'failure_rate' and 'confidence'");
    if (parse_section_number(replay, "replay", "failure_rate", 1e-6, 0.5, &d->replay.failure_rate, c) != 0)
        return -1;
    return parse_section_number(replay, "replay", "confidence", 0.5, 0.999999, &d->replay.confidence, c);
}

/* The index of input NAME of D, or D->ninputs when it has none of that name. */
static int input_index(const definition *d, const char *name)
{
    int i = 0;
    while (i < d->ninputs && strcmp(d->inputs[i].name, name) != 0)
        i++;
    return i;
}

/* {"magnitude": {INPUT: SCALE}}: float inputs scaled by SCALE (> 0) in one extra trial, so that
 * arithmetic narrower than the definition allows overflows or loses what the check sees. */
static int parse_magnitude(definition *d, json_t *mag, const def_ctx *c)
{
    if (!mag)
        return 0;
    if (!json_is_object(mag))
        return def_fail(c, "/kwb/magnitude", "'kwb.magnitude' must be an object of input names and scales");
    d->input_scale = xcalloc((size_t)d->ninputs + 1, sizeof *d->input_scale);
    const char *key;
    json_t *v;
    json_object_foreach(mag, key, v)
    {
        char pointer[160];
        snprintf(pointer, sizeof pointer, "/kwb/magnitude/%s", key);
        int i = input_index(d, key);
        if (i == d->ninputs || !dtype_is_float(d->inputs[i].dtype))
            return def_fail(c, pointer, "kwb magnitude: '%s' is not a floating-point input", key);
        if (!json_is_number(v) || !(json_number_value(v) > 0))
            return def_fail(c, pointer, "kwb magnitude: the scale of '%s' must be a number > 0", key);
        d->input_scale[i] = json_number_value(v);
    }
    return 0;
}

/* An expression over the axes at POINTER: a number or a string (costexpr). */
static costexpr *axis_expr(const definition *d, json_t *v, const char *pointer, const def_ctx *c)
{
    char num[64];
    const char *text = json_string_value(v);
    if (json_is_number(v)) {
        snprintf(num, sizeof num, "%.17g", json_number_value(v));
        text = num;
    }
    if (!text) {
        def_fail(c, pointer, "must be a number or an expression over the axes");
        return NULL;
    }
    const char **names = xcalloc((size_t)d->naxes + 1, sizeof *names);
    for (int i = 0; i < d->naxes; i++)
        names[i] = d->axes[i].name;
    kwb_error e = {{0}};
    costexpr *x = costexpr_compile(text, names, d->naxes, &e);
    free(names);
    if (!x)
        def_fail(c, pointer, "%s", e.msg);
    return x;
}

/* {"fresh_rows": {"index": NAME, "dims": D}} of input I: NAME an integer tensor input other than
 * I, D (default 1) from 1 to I's rank. */
static int parse_fresh_rows(definition *d, int i, json_t *rows, const char *pointer, const def_ctx *c)
{
    static const char *const known[] = {"index", "dims", NULL};
    char path[200], at[240];
    const char *name = d->inputs[i].name;
    snprintf(path, sizeof path, "kwb.inputs.%s.fresh_rows", name);
    snprintf(at, sizeof at, "%s/fresh_rows", pointer);
    if (expect_object(rows, path, known, c) != 0)
        return -1;
    const char *index = json_string_value(json_object_get(rows, "index"));
    int k = index ? input_index(d, index) : d->ninputs;
    if (k == d->ninputs || k == i || d->inputs[k].rank < 1 || dtype_is_float(d->inputs[k].dtype) ||
        d->inputs[k].dtype == KWB_BOOL)
        return def_fail(c, at, "kwb inputs '%s': fresh_rows.index must name another integer tensor input", name);
    json_t *dims = json_object_get(rows, "dims");
    json_int_t n = dims ? (json_is_integer(dims) ? json_integer_value(dims) : 0) : 1;
    if (n < 1 || n > d->inputs[i].rank)
        return def_fail(c, at, "kwb inputs '%s': fresh_rows.dims must be a whole number from 1 to its rank (%d)", name,
                        d->inputs[i].rank);
    d->input_gen[i].rows_index = k;
    d->input_gen[i].rows_dims = (int)n;
    return 0;
}

/* One input's generator {"range": [LO, HI]} | {"offsets": TOTAL} | {"permutation": true} |
 * {"reference": true}, the last (or the dtype's draw, when alone) with "fresh_rows". */
static int parse_input_gen(definition *d, int i, json_t *spec, const char *pointer, const def_ctx *c)
{
    static const char *const known[] = {"range", "offsets", "permutation", "reference", "fresh_rows", NULL};
    char path[160], at[200];
    snprintf(path, sizeof path, "kwb.inputs.%s", d->inputs[i].name);
    if (expect_object(spec, path, known, c) != 0)
        return -1;
    def_input_gen *g = &d->input_gen[i];
    json_t *rows = json_object_get(spec, "fresh_rows");
    if (rows && parse_fresh_rows(d, i, rows, pointer, c) != 0)
        return -1;
    size_t kinds = json_object_size(spec) - (rows != NULL);
    if (kinds == 0 && rows)
        return 0; /* the dtype's draw, renewed by rows */
    if (kinds != 1)
        return def_fail(c, pointer, "kwb inputs '%s': give one of range, offsets, permutation, reference",
                        d->inputs[i].name);
    json_t *range = json_object_get(spec, "range"), *off = json_object_get(spec, "offsets");
    json_t *by_ref = json_object_get(spec, "reference");
    if (rows && !by_ref)
        return def_fail(c, pointer, "kwb inputs '%s': fresh_rows goes with reference or alone (the dtype's draw)",
                        d->inputs[i].name);
    if (by_ref) {
        if (!json_is_true(by_ref))
            return def_fail(c, pointer, "kwb inputs '%s': reference must be true", d->inputs[i].name);
        g->kind = DEF_GEN_REFERENCE;
        return 0;
    }
    if (dtype_is_float(d->inputs[i].dtype) || d->inputs[i].dtype == KWB_BOOL)
        return def_fail(c, pointer, "kwb inputs: '%s' is not an integer tensor input", d->inputs[i].name);
    if (range) {
        snprintf(at, sizeof at, "%s/range", pointer);
        if (!json_is_array(range) || json_array_size(range) != 2)
            return def_fail(c, at, "kwb inputs '%s': range is [LO, HI]", d->inputs[i].name);
        g->kind = DEF_GEN_RANGE;
        g->lo = axis_expr(d, json_array_get(range, 0), at, c);
        g->hi = g->lo ? axis_expr(d, json_array_get(range, 1), at, c) : NULL;
        return g->hi ? 0 : -1;
    }
    if (off) {
        snprintf(at, sizeof at, "%s/offsets", pointer);
        g->kind = DEF_GEN_OFFSETS;
        g->hi = axis_expr(d, off, at, c);
        return g->hi ? 0 : -1;
    }
    if (!json_is_true(json_object_get(spec, "permutation")))
        return def_fail(c, pointer, "kwb inputs '%s': permutation must be true", d->inputs[i].name);
    g->kind = DEF_GEN_PERMUTATION;
    return 0;
}

/* {"inputs": {NAME: GENERATOR}}: tensor inputs of the definition (integer ones but for "reference"). */
static int parse_inputs(definition *d, json_t *inputs, const def_ctx *c)
{
    if (!inputs)
        return 0;
    if (!json_is_object(inputs))
        return def_fail(c, "/kwb/inputs", "'kwb.inputs' must be an object of input names and generators");
    d->input_gen = xcalloc((size_t)d->ninputs + 1, sizeof *d->input_gen);
    for (int i = 0; i <= d->ninputs; i++)
        d->input_gen[i].rows_index = -1;
    const char *key;
    json_t *v;
    json_object_foreach(inputs, key, v)
    {
        char pointer[160];
        snprintf(pointer, sizeof pointer, "/kwb/inputs/%s", key);
        int i = input_index(d, key);
        if (i == d->ninputs || d->inputs[i].rank < 1)
            return def_fail(c, pointer, "kwb inputs: '%s' is not a tensor input", key);
        if (parse_input_gen(d, i, v, pointer, c) != 0)
            return -1;
    }
    return 0;
}

/* {"reference": {"cpu": DIR, "cuda": DIR, "include": [DIR, ...]}}: non-empty folder names, any
 * may be left out. */
static int parse_reference(definition *d, json_t *ref, const def_ctx *c)
{
    static const char *const known[] = {"cpu", "cuda", "include", NULL};
    if (!ref)
        return 0;
    if (expect_object(ref, "kwb.reference", known, c) != 0)
        return -1;
    json_t *inc = json_object_get(ref, "include");
    if (inc && !json_is_array(inc))
        return def_fail(c, "/kwb/reference/include", "kwb reference 'include' must be an array of folder names");
    d->reference_include = xcalloc(json_array_size(inc) + 1, sizeof *d->reference_include);
    for (size_t k = 0; k < json_array_size(inc); k++) {
        json_t *v = json_array_get(inc, k);
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/kwb/reference/include/%zu", k);
        if (!json_is_string(v) || json_string_length(v) == 0)
            return def_fail(c, pointer, "kwb reference 'include' must name folders");
        d->reference_include[d->nreference_include++] = xstrdup(json_string_value(v));
    }
    for (int k = 0; k < 2; k++) {
        json_t *v = json_object_get(ref, known[k]);
        char pointer[64];
        snprintf(pointer, sizeof pointer, "/kwb/reference/%s", known[k]);
        if (v && (!json_is_string(v) || json_string_length(v) == 0))
            return def_fail(c, pointer, "kwb reference '%s' must be a solution folder's name", known[k]);
        d->reference_dir[k] = v ? xstrdup(json_string_value(v)) : NULL;
    }
    return 0;
}

/* kwb's extension: {"kwb": {"cost": {...}, "check": {...}, "replay": {...}, "magnitude": {...},
 * "reference": {...}}}. */
static int parse_kwb_extension(definition *d, json_t *kwb, const def_ctx *c)
{
    static const char *const known[] = {"check", "cost", "replay", "magnitude", "reference", "inputs", NULL};
    if (!kwb)
        return 0;
    if (expect_object(kwb, "kwb", known, c) != 0)
        return -1;
    if (parse_check(d, json_object_get(kwb, "check"), c) != 0 ||
        parse_replay(d, json_object_get(kwb, "replay"), c) != 0 ||
        parse_magnitude(d, json_object_get(kwb, "magnitude"), c) != 0 ||
        parse_reference(d, json_object_get(kwb, "reference"), c) != 0 ||
        parse_inputs(d, json_object_get(kwb, "inputs"), c) != 0)
        return -1;
    return parse_cost(d, json_object_get(kwb, "cost"), c);
}

static int parse_root(definition *d, json_t *root, const def_ctx *c)
{
    if (!json_is_object(root))
        return def_fail(c, "", "a definition must be a JSON object");
    const char *name = json_string_value(json_object_get(root, "name"));
    if (!name || !*name)
        return def_fail(c, "/name", "missing non-empty string 'name'");
    d->name = xstrdup(name);
    const char *op = json_string_value(json_object_get(root, "op_type"));
    d->op_type = xstrdup(op ? op : "");
    d->reference = xstrdup(json_string_value(json_object_get(root, "reference")));
    if (parse_axes(d, json_object_get(root, "axes"), c) != 0)
        return -1;
    if (parse_tensors(d, json_object_get(root, "inputs"), "inputs", &d->inputs, &d->ninputs, c))
        return -1;
    if (parse_tensors(d, json_object_get(root, "outputs"), "outputs", &d->outputs, &d->noutputs, c))
        return -1;
    if (check_disjoint(d, c) != 0)
        return -1;
    return parse_kwb_extension(d, json_object_get(root, "kwb"), c);
}

definition *definition_parse(const char *text, size_t len, const char *label, kwb_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        kwb_error_set(err, "%s:%d: invalid JSON: %s", label, jerr.line > 0 ? jerr.line : 1, jerr.text);
        return NULL;
    }
    definition *d = xcalloc(1, sizeof *d);
    d->path = xstrdup(label);
    d->check = (def_check){NAN, NAN, NAN, 0, 0};
    d->replay = (def_replay){NAN, NAN};
    def_ctx c = {label, text, len, err};
    int rc = parse_root(d, root, &c);
    json_decref(root);
    if (rc != 0) {
        definition_free(d);
        return NULL;
    }
    return d;
}

definition *definition_load(const char *path, kwb_error *err)
{
    size_t len;
    char *text = strbuf_read_file(path, &len);
    if (!text) {
        kwb_error_set(err, "%s: cannot read: %s", path, strerror(errno));
        return NULL;
    }
    definition *d = definition_parse(text, len, path, err);
    free(text);
    return d;
}

static void free_tensors(def_tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        free(t[i].name);
    free(t);
}

void definition_free(definition *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->naxes; i++)
        free(d->axes[i].name);
    free(d->axes);
    free_tensors(d->inputs, d->ninputs);
    free(d->input_scale);
    free_tensors(d->outputs, d->noutputs);
    free(d->path);
    free(d->name);
    free(d->op_type);
    free(d->reference);
    for (int i = 0; d->input_gen && i < d->ninputs; i++) {
        costexpr_free(d->input_gen[i].lo);
        costexpr_free(d->input_gen[i].hi);
    }
    free(d->input_gen);
    free(d->reference_dir[DEF_REF_CPU]);
    free(d->reference_dir[DEF_REF_CUDA]);
    for (int i = 0; i < d->nreference_include; i++)
        free(d->reference_include[i]);
    free(d->reference_include);
    costexpr_free(d->cost.bytes);
    costexpr_free(d->cost.flops);
    free(d->cost.compute);
    for (int i = 0; i < d->cost.nfrom_inputs; i++)
        free(d->cost.from_inputs[i]);
    free(d->cost.from_inputs);
    free(d->cost.reads);
    free(d);
}

double definition_cost_bytes(const definition *d, const int64_t *values)
{
    return d->cost.bytes ? costexpr_eval(d->cost.bytes, values) : 0;
}

double definition_cost_flops(const definition *d, const int64_t *values)
{
    return d->cost.flops ? costexpr_eval(d->cost.flops, values) : 0;
}

int definition_axis_index(const definition *d, const char *name)
{
    for (int i = 0; i < d->naxes; i++)
        if (strcmp(d->axes[i].name, name) == 0)
            return i;
    return -1;
}

int definition_input_index(const definition *d, const char *name)
{
    for (int i = 0; i < d->ninputs; i++)
        if (strcmp(d->inputs[i].name, name) == 0)
            return i;
    return -1;
}

int definition_var_axes(const definition *d)
{
    int n = 0;
    for (int i = 0; i < d->naxes; i++)
        n += !d->axes[i].is_const;
    return n;
}

#include "evalopts.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FIELD(base, f, type) ((type *)((char *)(base) + (f)->offset))
#define CFIELD(base, f, type) ((const type *)((const char *)(base) + (f)->offset))

json_t *evalopts_encode(const void *base, const evalopts_field *f, int n)
{
    json_t *o = json_object();
    for (int i = 0; i < n; i++) {
        json_t *v = NULL;
        switch (f[i].type) {
        case EVALOPT_STR: {
            const char *s = *CFIELD(base, &f[i], const char *);
            v = s ? json_string(s) : json_null();
            break;
        }
        case EVALOPT_INT: v = json_integer(*CFIELD(base, &f[i], int)); break;
        case EVALOPT_LLONG: v = json_integer(*CFIELD(base, &f[i], long long)); break;
        case EVALOPT_DOUBLE: {
            double d = *CFIELD(base, &f[i], double);
            v = isnan(d) ? json_null() : json_real(d);
            break;
        }
        }
        json_object_set_new(o, f[i].name, v ? v : json_null());
    }
    return o;
}

/* Sets field F of BASE from V; -1 when V has the wrong type. */
static int apply_one(void *base, const evalopts_field *f, json_t *v)
{
    switch (f->type) {
    case EVALOPT_STR:
        if (!json_is_string(v) && !json_is_null(v))
            return -1;
        *FIELD(base, f, const char *) = json_string_value(v);
        return 0;
    case EVALOPT_INT:
    case EVALOPT_LLONG:
        if (!json_is_integer(v))
            return -1;
        if (f->type == EVALOPT_INT)
            *FIELD(base, f, int) = (int)json_integer_value(v);
        else
            *FIELD(base, f, long long) = (long long)json_integer_value(v);
        return 0;
    case EVALOPT_DOUBLE:
        if (!json_is_number(v) && !json_is_null(v))
            return -1;
        *FIELD(base, f, double) = json_is_null(v) ? NAN : json_number_value(v);
        return 0;
    }
    return -1;
}

int evalopts_apply(void *base, const evalopts_field *f, int n, json_t *obj, kwb_error *err)
{
    if (!json_is_object(obj))
        return kwb_error_set(err, "recorded options are not a JSON object");
    for (int i = 0; i < n; i++) {
        json_t *v = json_object_get(obj, f[i].name);
        if (v && apply_one(base, &f[i], v) != 0)
            return kwb_error_set(err, "recorded option '%s' has the wrong type", f[i].name);
    }
    return 0;
}

/* The field as text into BUF. */
static const char *show(const void *base, const evalopts_field *f, char *buf, size_t cap)
{
    switch (f->type) {
    case EVALOPT_STR: {
        const char *s = *CFIELD(base, f, const char *);
        return s ? s : "(none)";
    }
    case EVALOPT_INT: snprintf(buf, cap, "%d", *CFIELD(base, f, int)); break;
    case EVALOPT_LLONG: snprintf(buf, cap, "%lld", *CFIELD(base, f, long long)); break;
    case EVALOPT_DOUBLE: snprintf(buf, cap, "%g", *CFIELD(base, f, double)); break;
    }
    return buf;
}

static int same(const void *a, const void *b, const evalopts_field *f)
{
    char x[64], y[64];
    const char *sa = show(a, f, x, sizeof x), *sb = show(b, f, y, sizeof y);
    return strcmp(sa, sb) == 0;
}

void evalopts_note_overridden(const char *prefix, const void *given, const void *defaults, const void *applied,
                              const evalopts_field *f, int n)
{
    char x[64], y[64];
    for (int i = 0; i < n; i++)
        if (!same(given, defaults, &f[i]) && !same(given, applied, &f[i]))
            fprintf(stderr, "%s --%s %s replaced by the interrupted run's %s\n", prefix, f[i].name,
                    show(given, &f[i], x, sizeof x), show(applied, &f[i], y, sizeof y));
}

#include "costexpr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Compiled form: a postfix program over a value stack. */
typedef enum op_kind { OP_NUM, OP_NAME, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_NEG, OP_MIN, OP_MAX, OP_CEIL } op_kind;

typedef struct op {
    op_kind kind;
    double num; /* OP_NUM */
    int name;   /* OP_NAME */
} op;

struct costexpr {
    char *text;
    op *ops;
    int nops, cap;
    int depth; /* the most values on the stack at once */
};

/* Parser state: recursive descent over TEXT. */
typedef struct parser {
    const char *text;
    const char *p;
    const char *const *names;
    int nnames;
    costexpr *e;
    int stack, failed;
    kwb_error *err;
} parser;

__attribute__((format(printf, 2, 3))) static void parse_fail(parser *ps, const char *fmt, ...)
{
    if (ps->failed)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kwb_error_set(ps->err, "column %d: %s", (int)(ps->p - ps->text) + 1, msg);
    ps->failed = 1;
}

/* Appends an op and tracks the stack depth it leaves (pushes +1, binary ops -1). */
static void emit(parser *ps, op o, int stack_change)
{
    costexpr *e = ps->e;
    if (e->nops == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 16;
        e->ops = xrealloc(e->ops, (size_t)e->cap * sizeof *e->ops);
    }
    e->ops[e->nops++] = o;
    ps->stack += stack_change;
    if (ps->stack > e->depth)
        e->depth = ps->stack;
}

static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

/* Consumes C (after blanks) when it is next; returns whether it did. */
static int accept(parser *ps, char c)
{
    skip_space(ps);
    if (*ps->p != c)
        return 0;
    ps->p++;
    return 1;
}

static void expect(parser *ps, char c)
{
    if (!accept(ps, c))
        parse_fail(ps, *ps->p ? "expected '%c' before '%c'" : "expected '%c' at the end", c, *ps->p);
}

static void parse_sum(parser *ps);

/* name(args...) for the built-in functions. */
static void parse_call(parser *ps, const char *name, size_t len)
{
    static const struct {
        const char *name;
        op_kind kind;
        int args;
    } funcs[] = {
        {"min", OP_MIN, 2},
        {"max", OP_MAX, 2},
        {"ceil", OP_CEIL, 1},
    };
    for (size_t f = 0; f < sizeof funcs / sizeof funcs[0]; f++) {
        if (strlen(funcs[f].name) != len || strncmp(funcs[f].name, name, len) != 0)
            continue;
        for (int a = 0; a < funcs[f].args; a++) {
            if (a > 0)
                expect(ps, ',');
            parse_sum(ps);
        }
        expect(ps, ')');
        emit(ps, (op){funcs[f].kind, 0, 0}, 1 - funcs[f].args);
        return;
    }
    parse_fail(ps, "unknown function '%.*s' (there are min, max and ceil)", (int)len, name);
}

static void parse_name(parser *ps)
{
    const char *start = ps->p;
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
        ps->p++;
    size_t len = (size_t)(ps->p - start);
    if (accept(ps, '(')) {
        parse_call(ps, start, len);
        return;
    }
    for (int i = 0; i < ps->nnames; i++)
        if (strlen(ps->names[i]) == len && strncmp(ps->names[i], start, len) == 0) {
            emit(ps, (op){OP_NAME, 0, i}, 1);
            return;
        }
    ps->p = start;
    parse_fail(ps, "'%.*s' is not an axis of the definition", (int)len, start);
}

static void parse_primary(parser *ps)
{
    skip_space(ps);
    if (accept(ps, '(')) {
        parse_sum(ps);
        expect(ps, ')');
    } else if (isdigit((unsigned char)*ps->p) || *ps->p == '.') {
        char *end;
        double v = strtod(ps->p, &end);
        ps->p = end;
        emit(ps, (op){OP_NUM, v, 0}, 1);
    } else if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
        parse_name(ps);
    } else {
        parse_fail(ps, *ps->p ? "unexpected '%c'" : "expression ends too early", *ps->p);
    }
}

static void parse_unary(parser *ps)
{
    if (accept(ps, '-')) {
        parse_unary(ps);
        emit(ps, (op){OP_NEG, 0, 0}, 0);
    } else {
        parse_primary(ps);
    }
}

static void parse_product(parser *ps)
{
    parse_unary(ps);
    while (!ps->failed) {
        op_kind k = accept(ps, '*') ? OP_MUL : accept(ps, '/') ? OP_DIV : OP_NUM;
        if (k == OP_NUM)
            return;
        parse_unary(ps);
        emit(ps, (op){k, 0, 0}, -1);
    }
}

static void parse_sum(parser *ps)
{
    parse_product(ps);
    while (!ps->failed) {
        op_kind k = accept(ps, '+') ? OP_ADD : accept(ps, '-') ? OP_SUB : OP_NUM;
        if (k == OP_NUM)
            return;
        parse_product(ps);
        emit(ps, (op){k, 0, 0}, -1);
    }
}

costexpr *costexpr_compile(const char *text, const char *const *names, int nnames, kwb_error *err)
{
    costexpr *e = xcalloc(1, sizeof *e);
    e->text = xstrdup(text);
    parser ps = {e->text, e->text, names, nnames, e, 0, 0, err};
    parse_sum(&ps);
    skip_space(&ps);
    if (!ps.failed && *ps.p)
        parse_fail(&ps, "unexpected '%c' after the expression", *ps.p);
    if (ps.failed) {
        costexpr_free(e);
        return NULL;
    }
    return e;
}

double costexpr_eval(const costexpr *e, const int64_t *values)
{
    double small[32];
    double *st = e->depth <= 32 ? small : xmalloc((size_t)e->depth * sizeof *st);
    int n = 0;
    for (int i = 0; i < e->nops; i++) {
        const op *o = &e->ops[i];
        double b = n > 0 ? st[n - 1] : 0;
        switch (o->kind) {
        case OP_NUM: st[n++] = o->num; break;
        case OP_NAME: st[n++] = (double)values[o->name]; break;
        case OP_NEG: st[n - 1] = -b; break;
        case OP_CEIL: st[n - 1] = ceil(b); break;
        case OP_ADD:
            st[n - 2] += b;
            n--;
            break;
        case OP_SUB:
            st[n - 2] -= b;
            n--;
            break;
        case OP_MUL:
            st[n - 2] *= b;
            n--;
            break;
        case OP_DIV:
            st[n - 2] /= b;
            n--;
            break;
        case OP_MIN:
            st[n - 2] = fmin(st[n - 2], b);
            n--;
            break;
        case OP_MAX:
            st[n - 2] = fmax(st[n - 2], b);
            n--;
            break;
        }
    }
    double v = n == 1 ? st[0] : NAN;
    if (st != small)
        free(st);
    return v;
}

const char *costexpr_text(const costexpr *e)
{
    return e->text;
}

void costexpr_free(costexpr *e)
{
    if (!e)
        return;
    free(e->text);
    free(e->ops);
    free(e);
}

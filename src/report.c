#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* ---- the model's shape --------------------------------------------------------------- */

enum ftype { T_STR, T_INT, T_NUM, T_OBJ, T_ARR };

typedef struct field {
    const char *key;
    enum ftype type;
    int required; /* present and not null */
} field;

static const field top_fields[] = {
    {"session", T_STR, 1}, {"definition", T_STR, 1}, {"device", T_STR, 1}, {"candidates", T_ARR, 1},
    {"rounds", T_ARR, 1},  {"workloads", T_ARR, 1},  {"traces", T_ARR, 0}, {"best", T_OBJ, 0},
};
static const field best_fields[] = {
    {"name", T_STR, 1},
    {"mean_ms", T_NUM, 0},
    {"workloads", T_INT, 0},
    {"of", T_INT, 0},
};
static const field candidate_fields[] = {
    {"id", T_INT, 1},     {"name", T_STR, 1},  {"parent", T_INT, 0},  {"origin", T_STR, 0},
    {"commit", T_STR, 0}, {"state", T_STR, 0}, {"mean_ms", T_NUM, 0}, {"decision_reason", T_STR, 0},
};
static const field round_fields[] = {
    {"number", T_INT, 1},    {"title", T_STR, 0},        {"state", T_STR, 0},
    {"candidate", T_INT, 0}, {"best_mean_ms", T_NUM, 0}, {"speedup", T_NUM, 0},
};
static const field workload_fields[] = {
    {"uuid", T_STR, 1},        {"axes", T_OBJ, 0},         {"status", T_STR, 1},  {"best_ms", T_NUM, 0},
    {"baseline_ms", T_NUM, 0}, {"reference_ms", T_NUM, 0}, {"speedup", T_NUM, 0}, {"max_abs", T_NUM, 0},
    {"max_rel", T_NUM, 0},     {"message", T_STR, 0},
};

#define COUNT(a) (sizeof(a) / sizeof *(a))

static const char *type_name(enum ftype t)
{
    switch (t) {
    case T_STR: return "a string";
    case T_INT: return "an integer";
    case T_NUM: return "a number";
    case T_OBJ: return "an object";
    case T_ARR: return "an array";
    }
    return "?";
}

static int type_ok(const json_t *v, enum ftype t)
{
    switch (t) {
    case T_STR: return json_is_string(v);
    case T_INT: return json_is_integer(v);
    case T_NUM: return json_is_number(v);
    case T_OBJ: return json_is_object(v);
    case T_ARR: return json_is_array(v);
    }
    return 0;
}

/* WHERE is "" for the top level or "workloads[2]" for an element. */
static int check_field(const json_t *obj, const field *f, const char *where, kwb_error *err)
{
    const json_t *v = json_object_get(obj, f->key);
    const char *sep = *where ? "." : "";
    if (!v || json_is_null(v)) {
        if (!f->required)
            return 0;
        return kwb_error_set(err, "report model: %s%smissing '%s' (%s)", where, *where ? ": " : "", f->key,
                             type_name(f->type));
    }
    if (!type_ok(v, f->type))
        return kwb_error_set(err, "report model: %s%s%s: expected %s%s", where, sep, f->key, type_name(f->type),
                             f->required ? "" : " or null");
    return 0;
}

static int check_fields(const json_t *obj, const field *fs, size_t n, const char *where, kwb_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (check_field(obj, &fs[i], where, err) < 0)
            return -1;
    return 0;
}

/* Every element of model[KEY] must be an object with the fields FS (none when FS is NULL). */
static int check_array(const json_t *model, const char *key, const field *fs, size_t n, kwb_error *err)
{
    const json_t *arr = json_object_get(model, key);
    size_t i;
    const json_t *el;
    json_array_foreach(arr, i, el)
    {
        char where[64];
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        if (!json_is_object(el))
            return kwb_error_set(err, "report model: %s: expected an object", where);
        if (fs && check_fields(el, fs, n, where, err) < 0)
            return -1;
    }
    return 0;
}

int report_validate(const json_t *model, kwb_error *err)
{
    if (!json_is_object(model))
        return kwb_error_set(err, "report model: expected a JSON object");
    if (check_fields(model, top_fields, COUNT(top_fields), "", err) < 0 ||
        check_array(model, "candidates", candidate_fields, COUNT(candidate_fields), err) < 0 ||
        check_array(model, "rounds", round_fields, COUNT(round_fields), err) < 0 ||
        check_array(model, "workloads", workload_fields, COUNT(workload_fields), err) < 0 ||
        check_array(model, "traces", NULL, 0, err) < 0)
        return -1;
    const json_t *best = json_object_get(model, "best");
    if (json_is_object(best) && check_fields(best, best_fields, COUNT(best_fields), "best", err) < 0)
        return -1;
    return 0;
}

/* ---- reading a validated model ------------------------------------------------------- */

/* The string at KEY, or NULL when absent or null. */
static const char *get_str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* 1 with *v set when KEY holds a number, else 0. */
static int get_num(const json_t *o, const char *key, double *v)
{
    const json_t *j = json_object_get(o, key);
    if (!json_is_number(j))
        return 0;
    *v = json_number_value(j);
    return 1;
}

static const json_t *get_arr(const json_t *o, const char *key)
{
    return json_object_get(o, key);
}

/* The name of the candidate whose id is ID, or NULL. */
static const json_t *candidate_of(const json_t *model, json_int_t id)
{
    size_t i;
    const json_t *c;
    json_array_foreach(get_arr(model, "candidates"), i, c)
    {
        if (json_integer_value(json_object_get(c, "id")) == id)
            return c;
    }
    return NULL;
}

static const char *candidate_name(const json_t *model, json_int_t id)
{
    const json_t *c = candidate_of(model, id);
    return c ? get_str(c, "name") : NULL;
}

/* ", promoted" / ", rejected" and " (override)" when the human overruled the judge; "" else. */
static const char *candidate_decision(const json_t *model, json_int_t id, char *buf, size_t cap)
{
    const json_t *c = candidate_of(model, id);
    const char *state = c ? get_str(c, "state") : NULL, *why = c ? get_str(c, "decision_reason") : NULL;
    int decided = state && (strcmp(state, "promoted") == 0 || strcmp(state, "rejected") == 0);
    snprintf(buf, cap, "%s%s%s", decided ? ", " : "", decided ? state : "",
             decided && why && strncmp(why, "override:", 9) == 0 ? " (override)" : "");
    return buf;
}

/* Appends the axes as "k=v, k=v" (strings bare, other values as compact JSON). */
static void axes_text(const json_t *axes, strbuf *sb)
{
    const char *k;
    json_t *v;
    int first = 1;
    json_object_foreach((json_t *)axes, k, v)
    {
        strbuf_printf(sb, "%s%s=", first ? "" : ", ", k);
        first = 0;
        if (json_is_string(v)) {
            strbuf_puts(sb, json_string_value(v));
        } else {
            char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
            strbuf_puts(sb, s ? s : "?");
            free(s);
        }
    }
}

/* Appends "5 PASSED, 1 INCORRECT_NUMERICAL": statuses in order of first appearance. */
static void status_counts(const json_t *workloads, strbuf *sb)
{
    size_t n = json_array_size(workloads), i, j;
    for (i = 0; i < n; i++) {
        const char *st = get_str(json_array_get(workloads, i), "status");
        int seen = 0, count = 0;
        for (j = 0; j < n; j++) {
            const char *other = get_str(json_array_get(workloads, j), "status");
            seen |= j < i && strcmp(other, st) == 0;
            count += strcmp(other, st) == 0;
        }
        if (!seen)
            strbuf_printf(sb, "%s%d %s", sb->len ? ", " : "", count, st);
    }
}

/* The session's best as decided, "NAME, mean X ms (partial: N of M workloads)", into BUF; NULL
 * when the model has none. */
static const char *best_text(const json_t *model, char *buf, size_t cap)
{
    const json_t *b = json_object_get(model, "best");
    if (!json_is_object(b))
        return NULL;
    double mean = 0;
    json_int_t n = json_integer_value(json_object_get(b, "workloads")),
               m = json_integer_value(json_object_get(b, "of"));
    int used = snprintf(buf, cap, "%s", get_str(b, "name"));
    if (get_num(b, "mean_ms", &mean) && used >= 0 && (size_t)used < cap)
        used += snprintf(buf + used, cap - (size_t)used, ", mean %.4g ms", mean);
    if (n < m && used >= 0 && (size_t)used < cap)
        snprintf(buf + used, cap - (size_t)used,
                 " (partial: %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT " workloads)", n, m);
    return buf;
}

/* 1 with *best set to the highest round speedup, 0 when no round has one. */
static int best_speedup(const json_t *model, double *best)
{
    size_t i;
    const json_t *r;
    int any = 0;
    json_array_foreach(get_arr(model, "rounds"), i, r)
    {
        double s;
        if (get_num(r, "speedup", &s) && (!any || s > *best)) {
            *best = s;
            any = 1;
        }
    }
    return any;
}

/* ---- the per-workload table, shared by md, csv and html ------------------------------ */

enum ckind { C_STR, C_AXES, C_NUM };

typedef struct column {
    const char *key;
    const char *title;
    enum ckind kind;
} column;

static const column wl_columns[] = {
    {"uuid", "uuid", C_STR},
    {"axes", "axes", C_AXES},
    {"status", "status", C_STR},
    {"best_ms", "best ms", C_NUM},
    {"baseline_ms", "baseline ms", C_NUM},
    {"reference_ms", "reference ms", C_NUM},
    {"speedup", "speedup", C_NUM},
    {"max_abs", "max abs", C_NUM},
    {"max_rel", "max rel", C_NUM},
    {"message", "message", C_STR},
};

/* The text of workload W's column C (numbers with printf format NUMFMT), or NULL for null. */
static char *cell_text(const json_t *w, const column *c, const char *numfmt)
{
    const json_t *v = json_object_get(w, c->key);
    if (!v || json_is_null(v))
        return NULL;
    if (c->kind == C_NUM)
        return xasprintf(numfmt, json_number_value(v));
    if (c->kind == C_STR)
        return xstrdup(json_string_value(v));
    strbuf sb;
    strbuf_init(&sb);
    axes_text(v, &sb);
    char *s = strbuf_detach(&sb);
    strbuf_free(&sb); /* detach leaves a fresh empty buffer */
    return s;
}

/* ---- md ------------------------------------------------------------------------------ */

/* Appends S as a Markdown table cell: pipes escaped, line breaks as spaces, "-" for NULL. */
static void md_cell(strbuf *sb, const char *s)
{
    strbuf_puts(sb, " ");
    if (!s || !*s)
        s = "-";
    for (; *s; s++) {
        if (*s == '|')
            strbuf_puts(sb, "\\|");
        else if (*s == '\n' || *s == '\r')
            strbuf_puts(sb, " ");
        else
            strbuf_add(sb, s, 1);
    }
    strbuf_puts(sb, " |");
}

static void md_header(const json_t *model, strbuf *sb)
{
    const json_t *wls = get_arr(model, "workloads");
    double best;
    strbuf_printf(sb, "# kwb session %s\n\n", get_str(model, "session"));
    strbuf_printf(sb, "- definition: %s\n- device: %s\n", get_str(model, "definition"), get_str(model, "device"));
    strbuf_printf(sb, "- candidates: %zu\n- rounds: %zu", json_array_size(get_arr(model, "candidates")),
                  json_array_size(get_arr(model, "rounds")));
    if (best_speedup(model, &best))
        strbuf_printf(sb, " (best speedup %.3gx)", best);
    char text[512];
    if (best_text(model, text, sizeof text))
        strbuf_printf(sb, "\n- best: %s", text);
    strbuf_printf(sb, "\n- workloads: %zu", json_array_size(wls));
    strbuf counts;
    strbuf_init(&counts);
    status_counts(wls, &counts);
    if (counts.len)
        strbuf_printf(sb, " (%s)", counts.s);
    strbuf_free(&counts);
    strbuf_puts(sb, "\n");
}

static void md_workloads(const json_t *model, strbuf *sb)
{
    size_t i, c;
    const json_t *w;
    strbuf_puts(sb, "\n## Workloads\n\n|");
    for (c = 0; c < COUNT(wl_columns); c++)
        md_cell(sb, wl_columns[c].title);
    strbuf_puts(sb, "\n|");
    for (c = 0; c < COUNT(wl_columns); c++)
        strbuf_puts(sb, c >= 3 && c <= 8 ? " ---: |" : " --- |");
    strbuf_puts(sb, "\n");
    json_array_foreach(get_arr(model, "workloads"), i, w)
    {
        strbuf_puts(sb, "|");
        for (c = 0; c < COUNT(wl_columns); c++) {
            char *t = cell_text(w, &wl_columns[c], "%.4g");
            md_cell(sb, t);
            free(t);
        }
        strbuf_puts(sb, "\n");
    }
}

/* "#2 fused", "#7" when the candidate is unknown, NULL when the round has none. */
static char *round_candidate(const json_t *model, const json_t *r)
{
    const json_t *id = json_object_get(r, "candidate");
    if (!json_is_integer(id))
        return NULL;
    const char *name = candidate_name(model, json_integer_value(id));
    char decided[64];
    return xasprintf("#%" JSON_INTEGER_FORMAT "%s%s%s", json_integer_value(id), name ? " " : "", name ? name : "",
                     candidate_decision(model, json_integer_value(id), decided, sizeof decided));
}

/* A round's number formatted with FMT, or NULL when KEY is null. */
static char *round_num(const json_t *r, const char *key, const char *fmt)
{
    double v;
    return get_num(r, key, &v) ? xasprintf(fmt, v) : NULL;
}

static void md_round_row(const json_t *model, const json_t *r, strbuf *sb)
{
    char *cells[] = {
        xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(r, "number"))),
        xstrdup(get_str(r, "title")),
        xstrdup(get_str(r, "state")),
        round_candidate(model, r),
        round_num(r, "best_mean_ms", "%.4g"),
        round_num(r, "speedup", "%.3gx"),
    };
    strbuf_puts(sb, "|");
    for (size_t c = 0; c < COUNT(cells); c++) {
        md_cell(sb, cells[c]);
        free(cells[c]);
    }
    strbuf_puts(sb, "\n");
}

static void md_rounds(const json_t *model, strbuf *sb)
{
    size_t i;
    const json_t *r;
    strbuf_puts(sb, "\n## Rounds\n\n");
    if (json_array_size(get_arr(model, "rounds")) == 0) {
        strbuf_puts(sb, "No rounds yet.\n");
        return;
    }
    strbuf_puts(sb, "| round | title | state | candidate | best mean ms | speedup |\n");
    strbuf_puts(sb, "| ---: | --- | --- | --- | ---: | ---: |\n");
    json_array_foreach(get_arr(model, "rounds"), i, r) md_round_row(model, r, sb);
}

static int render_md(const json_t *model, strbuf *sb, kwb_error *err)
{
    md_header(model, sb);
    md_workloads(model, sb);
    md_rounds(model, sb);
    return 0;
}

/* ---- csv ----------------------------------------------------------------------------- */

/* Appends S as an RFC 4180 field: quoted (quotes doubled) when it holds , " CR or LF. */
static void csv_field(strbuf *sb, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        strbuf_puts(sb, s);
        return;
    }
    strbuf_puts(sb, "\"");
    for (; *s; s++) {
        if (*s == '"')
            strbuf_puts(sb, "\"\"");
        else
            strbuf_add(sb, s, 1);
    }
    strbuf_puts(sb, "\"");
}

static int render_csv(const json_t *model, strbuf *sb, kwb_error *err)
{
    size_t i, c;
    const json_t *w;
    for (c = 0; c < COUNT(wl_columns); c++)
        strbuf_printf(sb, "%s%s", c ? "," : "", wl_columns[c].key);
    strbuf_puts(sb, "\r\n");
    json_array_foreach(get_arr(model, "workloads"), i, w)
    {
        for (c = 0; c < COUNT(wl_columns); c++) {
            char *t = cell_text(w, &wl_columns[c], "%.10g");
            if (c)
                strbuf_puts(sb, ",");
            csv_field(sb, t);
            free(t);
        }
        strbuf_puts(sb, "\r\n");
    }
    return 0;
}

/* ---- json and traces ----------------------------------------------------------------- */

/* Appends V dumped with FLAGS and a newline; -1 when jansson cannot encode it. */
static int dump_line(const json_t *v, size_t flags, strbuf *sb, kwb_error *err)
{
    char *s = json_dumps(v, flags);
    if (!s)
        return kwb_error_set(err, "report: cannot encode the model as JSON");
    strbuf_puts(sb, s);
    strbuf_puts(sb, "\n");
    free(s);
    return 0;
}

static int render_json(const json_t *model, strbuf *sb, kwb_error *err)
{
    return dump_line(model, JSON_INDENT(2), sb, err);
}

static int render_traces(const json_t *model, strbuf *sb, kwb_error *err)
{
    size_t i;
    const json_t *t;
    json_array_foreach(get_arr(model, "traces"), i, t)
    {
        if (dump_line(t, JSON_COMPACT, sb, err) < 0)
            return -1;
    }
    return 0;
}

/* ---- html ---------------------------------------------------------------------------- */

/* Appends S escaped for HTML text and attribute values ("" for NULL). */
static void html_escape(strbuf *sb, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': strbuf_puts(sb, "&amp;"); break;
        case '<': strbuf_puts(sb, "&lt;"); break;
        case '>': strbuf_puts(sb, "&gt;"); break;
        case '"': strbuf_puts(sb, "&quot;"); break;
        case '\'': strbuf_puts(sb, "&#39;"); break;
        default: strbuf_add(sb, s, 1);
        }
    }
}

/* Appends <TAG CLASS>escaped S</TAG>, or an em dash for NULL. */
static void html_elem(strbuf *sb, const char *tag, const char *cls, const char *s)
{
    strbuf_printf(sb, "<%s%s%s%s>", tag, cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    if (s)
        html_escape(sb, s);
    else
        strbuf_puts(sb, "&mdash;");
    strbuf_printf(sb, "</%s>", tag);
}

static const char html_css[] =
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;color:#1f2933;"
    "background:#fff;margin:0 auto;max-width:1120px;padding:24px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #e4e7eb;"
    "padding-bottom:4px}\n"
    ".meta{display:flex;flex-wrap:wrap;gap:8px 24px;margin:8px 0 0;padding:0;list-style:none;color:#52606d}\n"
    ".meta b{color:#1f2933;font-weight:600}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}\n"
    "th,td{border:1px solid #e4e7eb;padding:4px 8px;text-align:left;vertical-align:top}\n"
    "th{background:#f5f7fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;"
    "white-space:nowrap}\n"
    "td.msg{min-width:180px;max-width:360px;overflow-wrap:anywhere;font-family:ui-monospace,'DejaVu Sans "
    "Mono',monospace;"
    "font-size:12px}\n"
    "td.id{font-family:ui-monospace,'DejaVu Sans "
    "Mono',monospace;font-size:12px;min-width:20ch;overflow-wrap:anywhere}\n"
    "tr.st-fail td.status{color:#b42318;font-weight:600}tr.st-pass td.status{color:#067647}\n"
    "svg{display:block;max-width:100%;height:auto;background:#fff}\n"
    "svg text{font:12px system-ui,'DejaVu Sans',sans-serif;fill:#323f4b}\n"
    "svg .title{font-size:13px;font-weight:600}svg .note{font-size:15px;fill:#7b8794}\n"
    ".axis{stroke:#52606d;stroke-width:1}.grid{stroke:#e4e7eb;stroke-width:1}\n"
    ".base{stroke:#9aa5b1;stroke-width:1.5;stroke-dasharray:6 4}\n"
    ".step{fill:none;stroke:#2563eb;stroke-width:2.5}.pt{fill:#2563eb;stroke:#fff;stroke-width:1.5}\n"
    ".bar-best{fill:#2563eb}.bar-base{fill:#cbd2d9}.fail{fill:#b42318}\n"
    "footer{margin-top:32px;color:#7b8794;font-size:12px}\n";

static void html_head(const json_t *model, strbuf *sb)
{
    strbuf_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    strbuf_puts(sb, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>kwb session ");
    html_escape(sb, get_str(model, "session"));
    strbuf_puts(sb, " &mdash; ");
    html_escape(sb, get_str(model, "definition"));
    strbuf_printf(sb, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html_css);
}

/* One "<li>LABEL <b>VALUE</b></li>" of the summary. */
static void html_meta_item(strbuf *sb, const char *label, const char *value)
{
    strbuf_printf(sb, "<li>%s ", label);
    html_elem(sb, "b", NULL, value);
    strbuf_puts(sb, "</li>\n");
}

static void html_summary(const json_t *model, strbuf *sb)
{
    char num[64];
    double best;
    strbuf_puts(sb, "<header>\n<h1>kwb session ");
    html_escape(sb, get_str(model, "session"));
    strbuf_puts(sb, "</h1>\n<ul class=\"meta\">\n");
    html_meta_item(sb, "definition", get_str(model, "definition"));
    html_meta_item(sb, "device", get_str(model, "device"));
    snprintf(num, sizeof num, "%zu", json_array_size(get_arr(model, "candidates")));
    html_meta_item(sb, "candidates", num);
    snprintf(num, sizeof num, "%zu", json_array_size(get_arr(model, "rounds")));
    html_meta_item(sb, "rounds", num);
    int has_best = best_speedup(model, &best);
    snprintf(num, sizeof num, "%.3g\xc3\x97", has_best ? best : 0.0);
    html_meta_item(sb, "best speedup", has_best ? num : NULL);
    char text[512];
    if (best_text(model, text, sizeof text))
        html_meta_item(sb, "best", text);
    strbuf counts;
    strbuf_init(&counts);
    status_counts(get_arr(model, "workloads"), &counts);
    html_meta_item(sb, "workloads", counts.len ? counts.s : "none");
    strbuf_free(&counts);
    strbuf_puts(sb, "</ul>\n</header>\n");
}

/* 1, 2 or 5 times a power of ten, at least RAW. */
static double nice_step(double raw)
{
    if (!(raw > 0))
        return 1;
    double p = pow(10, floor(log10(raw)));
    double f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* A plot area: pixel box and data ranges [x0, x1] x [y0, y1]. */
typedef struct plot {
    double left, top, width, height;
    double x0, x1, y0, y1;
} plot;

static double px(const plot *p, double x)
{
    return p->left + (x - p->x0) / (p->x1 - p->x0) * p->width;
}

static double py(const plot *p, double y)
{
    return p->top + p->height - (y - p->y0) / (p->y1 - p->y0) * p->height;
}

/* A round with a speedup, for the chart. */
typedef struct point {
    double round, speedup;
    const json_t *r;
} point;

static int point_cmp(const void *a, const void *b)
{
    double d = ((const point *)a)->round - ((const point *)b)->round;
    return (d > 0) - (d < 0);
}

/* The rounds that have a speedup, sorted by number; *n set, *max_round the highest number. */
static point *chart_points(const json_t *model, size_t *n, double *max_round)
{
    const json_t *rounds = get_arr(model, "rounds"), *r;
    point *pts = xcalloc(json_array_size(rounds) + 1, sizeof *pts);
    size_t i;
    *n = 0;
    *max_round = 1;
    json_array_foreach(rounds, i, r)
    {
        double num = (double)json_integer_value(json_object_get(r, "number")), s;
        if (num > *max_round)
            *max_round = num;
        if (get_num(r, "speedup", &s))
            pts[(*n)++] = (point){num, s, r};
    }
    qsort(pts, *n, sizeof *pts, point_cmp);
    return pts;
}

/* Horizontal grid lines and labels every STEP on the y axis. */
static void y_ticks(const plot *p, double step, const char *suffix, strbuf *sb)
{
    for (double v = p->y0; v <= p->y1 + step * 1e-9; v += step) {
        double y = py(p, v);
        strbuf_printf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p->left, y,
                      p->left + p->width, y);
        strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%g%s</text>\n", p->left - 6, y + 4, v,
                      suffix);
    }
}

/* Tick marks and labels every STEP on the x axis. */
static void x_ticks(const plot *p, double step, const char *suffix, strbuf *sb)
{
    double base = p->top + p->height;
    for (double v = p->x0; v <= p->x1 + step * 1e-9; v += step) {
        double x = px(p, v);
        strbuf_printf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x, base, x,
                      base + 5);
        strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g%s</text>\n", x, base + 18, v, suffix);
    }
}

/* The two axis lines along the left and bottom of the plot area. */
static void axes_lines(const plot *p, strbuf *sb)
{
    double bottom = p->top + p->height;
    strbuf_printf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p->left, p->top,
                  p->left, bottom);
    strbuf_printf(sb, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", p->left, bottom,
                  p->left + p->width, bottom);
}

/* A label's box on the chart: centre x, baseline y, half width (12 px text). */
typedef struct label_box {
    double x, y, half;
} label_box;

static int boxes_overlap(const label_box *a, const label_box *b)
{
    return fabs(a->x - b->x) < a->half + b->half + 2 && fabs(a->y - b->y) < 14;
}

/* A place for the label TEXT_LEN characters wide of the point at X, Y: above it, else below,
 * where it overlaps none of PLACED[0..n); 0 when neither is free (the point's tooltip stays). */
static int place_label(double x, double y, size_t text_len, const label_box *placed, size_t n, label_box *out)
{
    const double ys[2] = {y - 9, y + 20};
    for (int k = 0; k < 2; k++) {
        label_box b = {x, ys[k], 3.6 * (double)text_len + 1};
        int free_here = 1;
        for (size_t i = 0; i < n && free_here; i++)
            free_here = !boxes_overlap(&b, &placed[i]);
        if (free_here) {
            *out = b;
            return 1;
        }
    }
    return 0;
}

/* The step line from the baseline (round 0, 1x) through each point, and the points; each
 * point's speedup label where it overlaps no other label (the baseline's included). */
static void speedup_series(const plot *p, const point *pts, size_t n, strbuf *sb)
{
    strbuf_printf(sb, "<path class=\"step\" d=\"M%.1f %.1f", px(p, 0), py(p, 1));
    for (size_t i = 0; i < n; i++)
        strbuf_printf(sb, " H%.1f V%.1f", px(p, pts[i].round), py(p, pts[i].speedup));
    strbuf_puts(sb, "\"/>\n");
    label_box *placed = xcalloc(n + 1, sizeof *placed);
    /* the frame's "baseline 1x" label, right-aligned at the plot's right edge */
    placed[0] = (label_box){p->left + p->width - 4 - 3.6 * 10, py(p, 1) - 5, 3.6 * 10 + 1};
    size_t nplaced = 1;
    for (size_t i = 0; i < n; i++) {
        double x = px(p, pts[i].round), y = py(p, pts[i].speedup);
        strbuf_printf(sb, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\"><title>round %g", x, y, pts[i].round);
        if (get_str(pts[i].r, "title")) {
            strbuf_puts(sb, ": ");
            html_escape(sb, get_str(pts[i].r, "title"));
        }
        strbuf_printf(sb, " &#8212; %.3g&#215;</title></circle>", pts[i].speedup);
        char label[32];
        int len = snprintf(label, sizeof label, "%.3g", pts[i].speedup) + 1; /* and the sign */
        if (place_label(x, y, (size_t)len, placed, nplaced, &placed[nplaced])) {
            strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s&#215;</text>", x,
                          placed[nplaced].y, label);
            nplaced++;
        }
        strbuf_puts(sb, "\n");
    }
    free(placed);
}

static void speedup_frame(const plot *p, strbuf *sb)
{
    double ystep = nice_step((p->y1 - p->y0) / 5);
    double xstep = nice_step(p->x1 / 12);
    y_ticks(p, ystep, "&#215;", sb);
    x_ticks(p, xstep < 1 ? 1 : xstep, "", sb);
    axes_lines(p, sb);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">round</text>\n", p->left + p->width / 2,
                  p->top + p->height + 38);
    strbuf_printf(sb,
                  "<text transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">"
                  "speedup vs baseline</text>\n",
                  p->top + p->height / 2);
    double yb = py(p, 1);
    strbuf_printf(sb, "<line class=\"base\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", p->left, yb,
                  p->left + p->width, yb);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">baseline 1&#215;</text>\n",
                  p->left + p->width - 4, yb - 5);
}

static void html_speedup_chart(const json_t *model, strbuf *sb)
{
    size_t n;
    double max_round, ymax = 1;
    point *pts = chart_points(model, &n, &max_round);
    for (size_t i = 0; i < n; i++)
        ymax = pts[i].speedup > ymax ? pts[i].speedup : ymax;
    double ystep = nice_step(ymax * 1.15 / 5);
    plot p = {64, 28, 640, 240, 0, max_round, 0, ceil(ymax * 1.15 / ystep) * ystep};
    strbuf_puts(sb, "<h2>Speedup per round</h2>\n<svg id=\"speedup-chart\" role=\"img\" viewBox=\"0 0 740 320\" "
                    "width=\"740\" height=\"320\" aria-label=\"speedup versus the baseline per round\">\n");
    strbuf_puts(sb, "<title>speedup vs the baseline per round</title>\n");
    speedup_frame(&p, sb);
    if (json_array_size(get_arr(model, "rounds")) == 0 || n == 0)
        strbuf_printf(sb, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                      p.left + p.width / 2, p.top + p.height / 2,
                      n == 0 && json_array_size(get_arr(model, "rounds")) ? "no round has a speedup yet"
                                                                          : "no rounds yet");
    else
        speedup_series(&p, pts, n, sb);
    strbuf_puts(sb, "</svg>\n");
    free(pts);
}

/* The largest of the workloads' best and baseline latencies (0 when none). */
static double max_latency(const json_t *wls)
{
    size_t i;
    const json_t *w;
    double m = 0, v;
    json_array_foreach(wls, i, w)
    {
        if (get_num(w, "best_ms", &v) && v > m)
            m = v;
        if (get_num(w, "baseline_ms", &v) && v > m)
            m = v;
    }
    return m;
}

/* One bar of class CLS at row top Y for KEY's value (or a "no timing" note), labelled "V ms". */
static void latency_bar(const plot *p, const json_t *w, const char *key, const char *cls, double y, strbuf *sb)
{
    double v;
    if (!get_num(w, key, &v) || v < 0) {
        strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\">&#8212; no %s timing</text>\n", p->left + 4, y + 10,
                      strcmp(key, "best_ms") == 0 ? "best" : "baseline");
        return;
    }
    double x1 = px(p, v);
    strbuf_printf(sb,
                  "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"12\"><title>%s %.4g ms</title>"
                  "</rect>",
                  cls, p->left, y, x1 - p->left, strcmp(key, "best_ms") == 0 ? "best" : "baseline", v);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\">%.4g ms", x1 + 5, y + 10, v);
    double s;
    if (strcmp(key, "best_ms") == 0 && get_num(w, "speedup", &s))
        strbuf_printf(sb, " (%.3g&#215;)", s);
    strbuf_puts(sb, "</text>\n");
}

/* The label of workload W: "901e5104 batch_size=1" and, when not PASSED, its status below. */
static void latency_label(const plot *p, const json_t *w, double y, strbuf *sb)
{
    const char *uuid = get_str(w, "uuid"), *st = get_str(w, "status");
    char *shortid = xstrndup(uuid, 8);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"><title>", p->left - 8, y + 10);
    html_escape(sb, uuid);
    strbuf_puts(sb, "</title>");
    html_escape(sb, shortid);
    free(shortid);
    strbuf axes;
    strbuf_init(&axes);
    axes_text(json_object_get(w, "axes"), &axes);
    if (axes.len) {
        strbuf_puts(sb, " ");
        html_escape(sb, axes.s);
    }
    strbuf_free(&axes);
    strbuf_printf(sb, "</text>\n<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                  strcmp(st, "PASSED") ? "fail" : "", p->left - 8, y + 24);
    html_escape(sb, st);
    strbuf_puts(sb, "</text>\n");
}

static void latency_legend(const plot *p, strbuf *sb)
{
    strbuf_printf(sb,
                  "<rect class=\"bar-best\" x=\"%.1f\" y=\"6\" width=\"12\" height=\"12\"/>"
                  "<text x=\"%.1f\" y=\"16\">best candidate</text>",
                  p->left, p->left + 18);
    strbuf_printf(sb,
                  "<rect class=\"bar-base\" x=\"%.1f\" y=\"6\" width=\"12\" height=\"12\"/>"
                  "<text x=\"%.1f\" y=\"16\">baseline</text>\n",
                  p->left + 130, p->left + 148);
}

#define ROW_H 36.0

static void html_latency_bars(const json_t *model, strbuf *sb)
{
    const json_t *wls = get_arr(model, "workloads"), *w;
    size_t n = json_array_size(wls), i;
    double m = max_latency(wls), step = nice_step((m > 0 ? m : 1) / 5);
    plot p = {260, 30, 560, ROW_H * (double)(n ? n : 1), 0, ceil((m > 0 ? m : 1) * 1.02 / step) * step, 0, 1};
    double h = p.top + p.height + 48;
    strbuf_printf(sb,
                  "<h2>Latency per workload</h2>\n<svg id=\"latency-bars\" role=\"img\" viewBox=\"0 0 920 %.0f\" "
                  "width=\"920\" height=\"%.0f\" aria-label=\"best and baseline latency per workload\">\n",
                  h, h);
    strbuf_puts(sb, "<title>best vs baseline latency per workload (ms)</title>\n");
    latency_legend(&p, sb);
    x_ticks(&p, step, "", sb);
    axes_lines(&p, sb);
    strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">latency (ms)</text>\n", p.left + p.width / 2,
                  p.top + p.height + 38);
    if (n == 0)
        strbuf_printf(sb, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">no workloads</text>\n",
                      p.left + p.width / 2, p.top + ROW_H / 2);
    json_array_foreach(wls, i, w)
    {
        double y = p.top + ROW_H * (double)i + 4;
        latency_label(&p, w, y, sb);
        latency_bar(&p, w, "best_ms", "bar-best", y, sb);
        latency_bar(&p, w, "baseline_ms", "bar-base", y + 14, sb);
    }
    strbuf_puts(sb, "</svg>\n");
}

static void html_workload_row(const json_t *w, strbuf *sb)
{
    strbuf_printf(sb, "<tr class=\"%s\" data-uuid=\"", strcmp(get_str(w, "status"), "PASSED") ? "st-fail" : "st-pass");
    html_escape(sb, get_str(w, "uuid"));
    strbuf_puts(sb, "\">");
    for (size_t c = 0; c < COUNT(wl_columns); c++) {
        const column *col = &wl_columns[c];
        char *t = cell_text(w, col, "%.4g");
        const char *cls = col->kind == C_NUM                 ? "num"
                          : strcmp(col->key, "status") == 0  ? "status"
                          : strcmp(col->key, "message") == 0 ? "msg"
                          : strcmp(col->key, "uuid") == 0    ? "id"
                                                             : NULL;
        html_elem(sb, "td", cls, t);
        free(t);
    }
    strbuf_puts(sb, "</tr>\n");
}

static void html_workload_table(const json_t *model, strbuf *sb)
{
    size_t i;
    const json_t *w;
    strbuf_puts(sb, "<h2>Workloads</h2>\n<table id=\"workloads\">\n<thead><tr>");
    for (size_t c = 0; c < COUNT(wl_columns); c++)
        html_elem(sb, "th", NULL, wl_columns[c].title);
    strbuf_puts(sb, "</tr></thead>\n<tbody>\n");
    json_array_foreach(get_arr(model, "workloads"), i, w) html_workload_row(w, sb);
    strbuf_puts(sb, "</tbody>\n</table>\n");
}

static void html_round_row(const json_t *model, const json_t *r, strbuf *sb)
{
    char *num = xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(r, "number")));
    char *cand = round_candidate(model, r), *mean = round_num(r, "best_mean_ms", "%.4g");
    char *speed = round_num(r, "speedup", "%.3g\xc3\x97");
    strbuf_puts(sb, "<tr>");
    html_elem(sb, "td", "num", num);
    html_elem(sb, "td", NULL, get_str(r, "title"));
    html_elem(sb, "td", NULL, get_str(r, "state"));
    html_elem(sb, "td", NULL, cand);
    html_elem(sb, "td", "num", mean);
    html_elem(sb, "td", "num", speed);
    strbuf_puts(sb, "</tr>\n");
    free(num), free(cand), free(mean), free(speed);
}

static void html_round_table(const json_t *model, strbuf *sb)
{
    size_t i;
    const json_t *r;
    strbuf_puts(sb, "<h2>Rounds</h2>\n");
    if (json_array_size(get_arr(model, "rounds")) == 0) {
        strbuf_puts(sb, "<p>No rounds yet.</p>\n");
        return;
    }
    strbuf_puts(sb, "<table id=\"rounds\">\n<thead><tr><th>round</th><th>title</th><th>state</th><th>candidate</th>"
                    "<th>best mean ms</th><th>speedup</th></tr></thead>\n<tbody>\n");
    json_array_foreach(get_arr(model, "rounds"), i, r) html_round_row(model, r, sb);
    strbuf_puts(sb, "</tbody>\n</table>\n");
}

static void html_candidate_row(const json_t *c, strbuf *sb)
{
    char *id = xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(c, "id")));
    const json_t *parent = json_object_get(c, "parent");
    char *par = json_is_integer(parent) ? xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(parent)) : NULL;
    char *commit = get_str(c, "commit") ? xstrndup(get_str(c, "commit"), 12) : NULL;
    char *mean = round_num(c, "mean_ms", "%.4g");
    strbuf_puts(sb, "<tr>");
    html_elem(sb, "td", "num", id);
    html_elem(sb, "td", NULL, get_str(c, "name"));
    html_elem(sb, "td", "num", par);
    html_elem(sb, "td", NULL, get_str(c, "origin"));
    html_elem(sb, "td", "msg", commit);
    html_elem(sb, "td", NULL, get_str(c, "state"));
    html_elem(sb, "td", "num", mean);
    strbuf_puts(sb, "</tr>\n");
    free(id), free(par), free(commit), free(mean);
}

static void html_candidate_table(const json_t *model, strbuf *sb)
{
    size_t i;
    const json_t *c;
    strbuf_puts(sb, "<h2>Candidates</h2>\n<table id=\"candidates\">\n<thead><tr><th>id</th><th>name</th>"
                    "<th>parent</th><th>origin</th><th>commit</th><th>state</th><th>mean ms</th></tr></thead>\n"
                    "<tbody>\n");
    json_array_foreach(get_arr(model, "candidates"), i, c) html_candidate_row(c, sb);
    strbuf_puts(sb, "</tbody>\n</table>\n");
}

static int render_html(const json_t *model, strbuf *sb, kwb_error *err)
{
    html_head(model, sb);
    html_summary(model, sb);
    strbuf_puts(sb, "<main>\n");
    html_speedup_chart(model, sb);
    html_latency_bars(model, sb);
    html_workload_table(model, sb);
    html_round_table(model, sb);
    html_candidate_table(model, sb);
    strbuf_puts(sb, "</main>\n<footer>generated by kwb report</footer>\n</body>\n</html>\n");
    return 0;
}

/* ---- dispatch ------------------------------------------------------------------------ */

typedef struct format {
    const char *name;
    int (*render)(const json_t *model, strbuf *sb, kwb_error *err);
} format;

static const format formats[] = {
    {"md", render_md}, {"csv", render_csv}, {"json", render_json}, {"traces", render_traces}, {"html", render_html},
};

const char *report_formats(void)
{
    return "md, csv, json, traces, html";
}

int report_render(const json_t *model, const char *fmt, strbuf *out, kwb_error *err)
{
    const format *f = NULL;
    for (size_t i = 0; i < COUNT(formats) && !f; i++)
        if (fmt && strcmp(fmt, formats[i].name) == 0)
            f = &formats[i];
    if (!f)
        return kwb_error_set(err, "report: unknown format '%s' (formats: %s)", fmt ? fmt : "(null)", report_formats());
    if (report_validate(model, err) < 0)
        return -1;
    strbuf sb;
    strbuf_init(&sb);
    int rc = f->render(model, &sb, err);
    if (rc == 0)
        strbuf_add(out, sb.s, sb.len);
    strbuf_free(&sb);
    return rc;
}

#include "profile.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "strbuf.h"
#include "xalloc.h"

/* What a kernel object holds from the raw page: its key, the metric, and the name another
 * Nsight Compute version gives it. */
enum {
    F_DURATION,
    F_SM,
    F_MEMORY,
    F_DRAM,
    F_L1,
    F_L2,
    F_OCCUPANCY,
    F_THEORETICAL,
    F_WAVES,
    F_REGISTERS,
    F_SMEM_STATIC,
    F_SMEM_DYNAMIC,
    F_GRID,
    F_BLOCK,
    F_COUNT
};

static const struct metric_field {
    const char *key;
    const char *names[2];
    double scale; /* to the key's unit */
} FIELDS[F_COUNT] = {
    [F_DURATION] = {"duration_us", {"gpu__time_duration.sum"}, 1e-3}, /* ns, --print-units base */
    [F_SM] = {"sm_pct", {"sm__throughput.avg.pct_of_peak_sustained_elapsed"}, 1},
    [F_MEMORY] = {"memory_pct", {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"}, 1},
    [F_DRAM] = {"dram_pct",
                {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                 "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
                1},
    [F_L1] = {"l1_pct",
              {"l1tex__throughput.avg.pct_of_peak_sustained_active",
               "l1tex__throughput.avg.pct_of_peak_sustained_elapsed"},
              1},
    [F_L2] = {"l2_pct", {"lts__throughput.avg.pct_of_peak_sustained_elapsed"}, 1},
    [F_OCCUPANCY] = {"occupancy_pct", {"sm__warps_active.avg.pct_of_peak_sustained_active"}, 1},
    [F_THEORETICAL] = {"theoretical_occupancy_pct", {"sm__maximum_warps_per_active_cycle_pct"}, 1},
    [F_WAVES] = {"waves", {"launch__waves_per_multiprocessor"}, 1},
    [F_REGISTERS] = {"registers", {"launch__registers_per_thread"}, 1},
    [F_SMEM_STATIC] = {"smem_static", {"launch__shared_mem_per_block_static"}, 1},
    [F_SMEM_DYNAMIC] = {"smem_dynamic", {"launch__shared_mem_per_block_dynamic"}, 1},
    [F_GRID] = {"grid_size", {"launch__grid_size"}, 1},
    [F_BLOCK] = {"block_size", {"launch__block_size"}, 1},
};

static double metric(const ncu_table *t, int r, int field)
{
    const struct metric_field *f = &FIELDS[field];
    double v = ncu_number(t, r, f->names[0]);
    if (isnan(v) && f->names[1])
        v = ncu_number(t, r, f->names[1]);
    return v * f->scale;
}

/* A number, or null for NaN (jansson has no NaN). */
static json_t *jnum(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

char *profile_kernel_filter(const ptxas_usage *k, int n)
{
    if (n <= 0)
        return NULL;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "regex:^(");
    for (int i = 0; i < n; i++) {
        if (i)
            strbuf_puts(&sb, "|");
        for (const char *p = k[i].name; *p; p++) {
            if (!isalnum((unsigned char)*p) && *p != '_')
                strbuf_puts(&sb, "\\");
            strbuf_add(&sb, p, 1);
        }
    }
    strbuf_puts(&sb, ")$");
    return strbuf_detach(&sb);
}

/* Reads an Itanium <source-name> (decimal length, then the identifier) at *p. */
static int source_name(const char **p, const char **s, size_t *n)
{
    const char *q = *p;
    size_t len = 0;
    if (!isdigit((unsigned char)*q))
        return 0;
    while (isdigit((unsigned char)*q))
        len = len * 10 + (size_t)(*q++ - '0');
    if (len == 0 || strnlen(q, len) < len)
        return 0;
    *s = q;
    *n = len;
    *p = q + len;
    return 1;
}

const char *profile_short_name(const char *name, char *buf, size_t cap)
{
    const char *z = strncmp(name, "__nv_static_", 12) == 0 ? strstr(name, "_Z") : name;
    if (z && strncmp(z, "_Z", 2) == 0) {
        const char *p = z + 2, *s = NULL, *cs;
        size_t n = 0, cn;
        if (*p == 'L')
            p++;         /* internal linkage */
        if (*p == 'N') { /* nested: the last component before template arguments or the end */
            for (p++; *p && strchr("rVKL", *p); p++)
                ;
            while (source_name(&p, &cs, &cn))
                s = cs, n = cn;
        } else if (source_name(&p, &cs, &cn)) {
            s = cs, n = cn;
        }
        if (s) {
            snprintf(buf, cap, "%.*s", (int)n, s);
            return buf;
        }
    }
    /* Demangled or plain: the name before its template arguments and parameters, after its
     * return type and scopes. */
    size_t end = strcspn(name, "(<"), start = 0;
    for (size_t i = 0; i < end; i++)
        if (name[i] == ' ' || name[i] == ':')
            start = i + 1;
    if (end <= start)
        start = 0, end = strlen(name);
    snprintf(buf, cap, "%.*s", (int)(end - start), name + start);
    return buf;
}

/* The compiler's entry for kernel NAME (the same name, or the same function name), or NULL. */
static const ptxas_usage *ptxas_of(const char *name, const ptxas_usage *px, int n)
{
    char a[256], b[256];
    for (int i = 0; i < n; i++)
        if (strcmp(px[i].name, name) == 0)
            return &px[i];
    profile_short_name(name, a, sizeof a);
    for (int i = 0; i < n; i++)
        if (strcmp(profile_short_name(px[i].name, b, sizeof b), a) == 0)
            return &px[i];
    return NULL;
}

/* Whether row R is a launch of a candidate's kernel: never one of kwb's helpers; named in the
 * compiler's report when that names any. *u gets the report's entry. */
static int candidate_row(const profile_inputs *in, int r, const ptxas_usage **u)
{
    const char *name = ncu_text(in->ncu, r, "Kernel Name");
    char s[256];
    if (!name || strncmp(profile_short_name(name, s, sizeof s), "kwb_", 4) == 0)
        return 0;
    *u = ptxas_of(name, in->ptxas, in->nptxas);
    return *u || in->nptxas == 0;
}

static json_t *ptxas_json(const ptxas_usage *u)
{
    if (!u)
        return json_null();
    return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "name", u->name, "registers", u->registers, "stack", u->stack,
                     "spill_stores", u->spill_stores, "spill_loads", u->spill_loads, "smem", u->smem);
}

static json_t *bottleneck_json(const bottleneck *b)
{
    json_t *mods = json_array();
    char buf[sizeof b->modifiers], *save = NULL;
    snprintf(buf, sizeof buf, "%s", b->modifiers);
    for (char *m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save))
        json_array_append_new(mods, json_string(m));
    return json_pack("{s:s, s:o, s:s, s:s}", "class", b->cls, "modifiers", mods, "evidence", b->evidence, "source",
                     b->source);
}

/* The classifier's input for row R (U: its compiler report, or NULL). */
static bottleneck_input row_input(const ncu_table *t, int r, const ptxas_usage *u)
{
    bottleneck_input in = bottleneck_input_empty();
    bottleneck_input_from_ncu(&in, t, r);
    in.dram_pct = metric(t, r, F_DRAM);
    if (u)
        in.spill_bytes = u->spill_stores + u->spill_loads;
    return in;
}

static json_t *kernel_json(const ncu_table *t, int r, const ptxas_usage *u)
{
    const char *name = ncu_text(t, r, "Kernel Name");
    char s[256];
    json_t *k =
        json_pack("{s:s, s:s, s:s?, s:s?, s:s?}", "name", profile_short_name(name, s, sizeof s), "kernel", name, "id",
                  ncu_text(t, r, "ID"), "grid", ncu_text(t, r, "Grid Size"), "block", ncu_text(t, r, "Block Size"));
    for (int f = 0; f < F_COUNT; f++)
        json_object_set_new(k, FIELDS[f].key, jnum(metric(t, r, f)));
    bottleneck_input in = row_input(t, r, u);
    bottleneck b = bottleneck_classify(&in);
    json_object_set_new(k, "ptxas", ptxas_json(u));
    json_object_set_new(k, "bottleneck", bottleneck_json(&b));
    return k;
}

static json_t *eval_json(const profile_call *c)
{
    return json_pack("{s:s?, s:s?, s:s?, s:o, s:o, s:o, s:o}", "status", c->status, "message", c->message, "timer",
                     c->timer, "median_ms", jnum(c->median_ms > 0 ? c->median_ms : NAN), "gbps",
                     jnum(c->gbps > 0 ? c->gbps : NAN), "tflops", jnum(c->tflops > 0 ? c->tflops : NAN), "roofline",
                     jnum(c->roofline > 0 ? c->roofline : NAN));
}

json_t *profile_document(const profile_inputs *in)
{
    json_t *kernels = json_array(), *px = json_array();
    int longest = -1, nk = 0;
    const ptxas_usage *longest_u = NULL;
    double gpu_us = 0, longest_us = -1;
    for (int r = 0; in->ncu && r < in->ncu->nrows; r++) {
        const ptxas_usage *u = NULL;
        if (!candidate_row(in, r, &u))
            continue;
        json_array_append_new(kernels, kernel_json(in->ncu, r, u));
        nk++;
        double us = metric(in->ncu, r, F_DURATION);
        if (!isnan(us))
            gpu_us += us;
        if (longest < 0 || us > longest_us)
            longest = r, longest_us = us, longest_u = u;
    }
    const profile_call *c = &in->call;
    bottleneck_input bi = bottleneck_input_empty();
    char *note = NULL;
    if (nk > 0) {
        bi = row_input(in->ncu, longest, longest_u);
        if (c->gpu_wall && c->median_ms > 0 && gpu_us > 0) {
            bi.gpu_ms = gpu_us * 1e-3;
            bi.wall_ms = c->median_ms;
            bi.kernels = nk;
        }
    } else {
        for (int i = 0; i < in->nptxas; i++)
            bi.spill_bytes += in->ptxas[i].spill_stores + in->ptxas[i].spill_loads;
        if (in->note)
            note = xstrdup(in->note);
        else if (in->ncu && in->ncu->nrows > 0)
            note = xasprintf("ncu: profiled %d launch(es), none of the candidate's kernels; roofline-only profile",
                             in->ncu->nrows);
        else if (in->ncu)
            note = xstrdup("ncu: profiled no kernel; roofline-only profile");
    }
    for (int i = 0; i < in->nptxas; i++)
        json_array_append_new(px, ptxas_json(&in->ptxas[i]));
    bi.roofline_share = c->roofline > 0 ? c->roofline : NAN;
    bi.memory_floor = c->memory_floor;
    bottleneck b = bottleneck_classify(&bi);
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s?, s:s?, s:s, s:s?}", "definition", in->definition, "workload",
                            in->workload, "device", in->device, "solution", in->solution, "build", in->build, "tool",
                            nk > 0 ? "ncu" : "roofline", "note", note);
    free(note);
    json_object_set_new(doc, "eval", eval_json(c));
    json_object_set_new(doc, "gpu_us", jnum(nk > 0 ? gpu_us : NAN));
    json_object_set_new(doc, "wall_us", jnum(c->median_ms > 0 ? c->median_ms * 1e3 : NAN));
    json_object_set_new(doc, "kernels", kernels);
    json_object_set_new(doc, "ptxas", px);
    json_object_set_new(doc, "bottleneck", bottleneck_json(&b));
    return doc;
}

/* ---- printing ------------------------------------------------------------------------- */

static double get_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *get_str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* V formatted with FMT into BUF, or "-" when unknown. */
__attribute__((format(printf, 4, 0))) static const char *fmt_num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isnan(v))
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, fmt, v);
    return buf;
}

/* A time given in microseconds: "5.12 us", "2.215 ms". */
static const char *fmt_us(char *buf, size_t cap, double us)
{
    if (isnan(us))
        snprintf(buf, cap, "-");
    else if (us < 1000)
        snprintf(buf, cap, "%.2f us", us);
    else
        snprintf(buf, cap, "%.3f ms", us * 1e-3);
    return buf;
}

/* "class (modifier, modifier) from SOURCE: evidence" */
static void print_class(FILE *f, const char *lead, json_t *b)
{
    fprintf(f, "%s%s", lead, get_str(b, "class"));
    json_t *mods = json_object_get(b, "modifiers");
    for (size_t i = 0; i < json_array_size(mods); i++)
        fprintf(f, "%s%s", i ? ", " : " (", json_string_value(json_array_get(mods, i)));
    if (json_array_size(mods))
        fputc(')', f);
    const char *ev = get_str(b, "evidence"), *src = get_str(b, "source");
    if (strcmp(src, "none") == 0)
        fprintf(f, ": no counters and no roofline share to judge by\n");
    else
        fprintf(f, ", from %s%s%s\n", src, *ev ? ": " : "", ev);
}

/* "LEAD32 registers, ..." from a ptxas object P. */
static void print_ptxas(FILE *f, const char *lead, json_t *p)
{
    fprintf(f, "%s%.0f registers, %.0f B stack, %.0f B spill stores, %.0f B spill loads, %.0f B smem\n", lead,
            get_num(p, "registers"), get_num(p, "stack"), get_num(p, "spill_stores"), get_num(p, "spill_loads"),
            get_num(p, "smem"));
}

static void print_kernel(FILE *f, json_t *k)
{
    static const char *const pct[] = {"sm_pct", "memory_pct", "dram_pct", "l1_pct", "l2_pct"};
    char t[32], c[5][16], occ[2][16], waves[16], regs[16], smem[16];
    for (int i = 0; i < 5; i++)
        fmt_num(c[i], sizeof c[i], get_num(k, pct[i]), "%.1f");
    fprintf(f, "%-28.28s %10s %5s %5s %5s %5s %5s %5s/%-5s %6s %5s %s\n", get_str(k, "name"),
            fmt_us(t, sizeof t, get_num(k, "duration_us")), c[0], c[1], c[2], c[3], c[4],
            fmt_num(occ[0], sizeof occ[0], get_num(k, "occupancy_pct"), "%.0f%%"),
            fmt_num(occ[1], sizeof occ[1], get_num(k, "theoretical_occupancy_pct"), "%.0f%%"),
            fmt_num(waves, sizeof waves, get_num(k, "waves"), "%.2f"),
            fmt_num(regs, sizeof regs, get_num(k, "registers"), "%.0f"),
            fmt_num(smem, sizeof smem, get_num(k, "smem_static") + get_num(k, "smem_dynamic"), "%.0f B"));
    print_class(f, "    ", json_object_get(k, "bottleneck"));
    json_t *p = json_object_get(k, "ptxas");
    if (json_is_object(p))
        print_ptxas(f, "    ptxas: ", p);
}

void profile_print(FILE *f, json_t *doc)
{
    char a[32], b[32], c[32];
    fprintf(f, "%s, workload %s, %s: %s", get_str(doc, "definition"), get_str(doc, "workload"), get_str(doc, "device"),
            get_str(doc, "solution"));
    if (*get_str(doc, "build"))
        fprintf(f, " (build %.12s)", get_str(doc, "build"));
    fputc('\n', f);
    json_t *ev = json_object_get(doc, "eval");
    if (*get_str(ev, "status")) {
        fprintf(f, "eval: %s", get_str(ev, "status"));
        if (!isnan(get_num(ev, "median_ms")))
            fprintf(f, ", %s per call (%s)", fmt_us(a, sizeof a, get_num(ev, "median_ms") * 1e3), get_str(ev, "timer"));
        if (!isnan(get_num(ev, "roofline")))
            fprintf(f, ", roofline %s", fmt_num(b, sizeof b, get_num(ev, "roofline") * 100, "%.0f%%"));
        if (!isnan(get_num(ev, "gbps")))
            fprintf(f, ", %s GB/s", fmt_num(c, sizeof c, get_num(ev, "gbps"), "%.1f"));
        if (*get_str(ev, "message"))
            fprintf(f, ": %s", get_str(ev, "message"));
        fputc('\n', f);
    }
    if (*get_str(doc, "note"))
        fprintf(f, "note: %s\n", get_str(doc, "note"));
    json_t *kernels = json_object_get(doc, "kernels");
    if (json_array_size(kernels)) {
        fprintf(f, "%zu kernel launch(es), %s on the GPU:\n", json_array_size(kernels),
                fmt_us(a, sizeof a, get_num(doc, "gpu_us")));
        fprintf(f, "%-28s %10s %5s %5s %5s %5s %5s %11s %6s %5s %s\n", "kernel", "time", "sm%", "mem%", "dram%", "L1%",
                "L2%", "occupancy", "waves", "regs", "smem/block");
        for (size_t i = 0; i < json_array_size(kernels); i++)
            print_kernel(f, json_array_get(kernels, i));
    } else {
        json_t *px = json_object_get(doc, "ptxas");
        for (size_t i = 0; i < json_array_size(px); i++) {
            json_t *p = json_array_get(px, i);
            char name[256], lead[300];
            snprintf(lead, sizeof lead, "ptxas: %s: ", profile_short_name(get_str(p, "name"), name, sizeof name));
            print_ptxas(f, lead, p);
        }
    }
    print_class(f, "bottleneck: ", json_object_get(doc, "bottleneck"));
}

#include "results.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "xalloc.h"

void results_set_status(wl_result *r, eval_status st, const char *message)
{
    if (r->status != ST_PASSED && r->message)
        return;
    r->status = st;
    free(r->message);
    r->message = message ? xstrdup(message) : NULL;
}

double results_speedup(const wl_result *r)
{
    if (!r->has_candidate || r->candidate.median <= 0)
        return 0;
    if (r->has_baseline)
        return r->baseline.median / r->candidate.median;
    if (r->has_reference)
        return r->reference.median / r->candidate.median;
    return 0;
}

results_summary results_summarize(const wl_result *r, int n)
{
    results_summary s = {0};
    double lat = 0, logsum = 0;
    int nlat = 0, nsp = 0;
    s.total = n;
    s.min_speedup = INFINITY;
    for (int i = 0; i < n; i++) {
        s.by_status[r[i].status]++;
        s.skipped += r[i].skipped != 0;
        if (r[i].status != ST_PASSED || !r[i].has_candidate)
            continue;
        lat += r[i].candidate.median;
        nlat++;
        double sp = results_speedup(&r[i]);
        if (sp > 0) {
            logsum += log(sp);
            nsp++;
            s.min_speedup = fmin(s.min_speedup, sp);
            s.speedup_vs = r[i].has_baseline ? "baseline" : "reference";
        }
    }
    s.mean_latency_ms = nlat ? lat / nlat : 0;
    s.geomean_speedup = nsp ? exp(logsum / nsp) : 0;
    if (!nsp)
        s.min_speedup = 0;
    return s;
}

/* Latency with a unit that keeps three significant digits readable. */
static void format_ms(char *buf, size_t cap, int has, double ms)
{
    if (!has)
        snprintf(buf, cap, "-");
    else if (ms < 1.0)
        snprintf(buf, cap, "%.2f us", ms * 1e3);
    else
        snprintf(buf, cap, "%.3f ms", ms);
}

/* Which optional columns a table has. */
typedef struct extra_cols {
    int gbps, tflops, roofline, verdict;
} extra_cols;

static void print_extra_header(FILE *f, const extra_cols *x)
{
    if (x->gbps)
        fprintf(f, "  %8s", "GB/s");
    if (x->tflops)
        fprintf(f, "  %7s", "TFLOP/s");
    if (x->roofline)
        fprintf(f, "  %5s", "roof");
    if (x->verdict)
        fprintf(f, "  %-8s", "verdict");
    fputc('\n', f);
}

static void print_extra(FILE *f, const wl_result *r, const extra_cols *x)
{
    char cell[32];
    if (x->gbps) {
        snprintf(cell, sizeof cell, r->gbps > 0 ? "%.1f" : "-", r->gbps);
        fprintf(f, "  %8s", cell);
    }
    if (x->tflops) {
        snprintf(cell, sizeof cell, r->tflops > 0 ? "%.2f" : "-", r->tflops);
        fprintf(f, "  %7s", cell);
    }
    if (x->roofline) {
        /* A share is of a measured peak: an honest call can beat it by the noise of two
         * measurements on a busy machine; the table reads at most 100 % (the JSON keeps the figure,
         * and the parent's faster-than-physics check uses it). */
        snprintf(cell, sizeof cell, r->roofline > 0 ? "%.0f%%" : "-", 100.0 * fmin(r->roofline, 1.0));
        fprintf(f, "  %5s", cell);
    }
    if (x->verdict)
        fprintf(f, "  %-8s", r->verdict[0] ? r->verdict : "-");
    fputc('\n', f);
}

void results_print_table(FILE *f, const definition *d, const wl_result *r, int n)
{
    int has_base = 0;
    extra_cols x = {0};
    const char *timer = NULL;
    for (int i = 0; i < n; i++) {
        has_base |= r[i].has_baseline;
        x.gbps |= r[i].gbps > 0;
        x.tflops |= r[i].tflops > 0;
        x.roofline |= r[i].roofline > 0;
        x.verdict |= r[i].verdict[0] != '\0';
        if (r[i].timer[0])
            timer = r[i].timer;
    }
    fprintf(f, "%-8s  %-22s  %-19s  %11s  %11s  %8s  %9s  %9s", "uuid", "axes", "status", "latency",
            has_base ? "baseline" : "reference", "speedup", "max_abs", "max_rel");
    print_extra_header(f, &x);
    for (int i = 0; i < n; i++) {
        char axes[128], lat[32], cmp[32], sp[32];
        workload_axes_string(r[i].wl, d, axes, sizeof axes);
        format_ms(lat, sizeof lat, r[i].has_candidate, r[i].candidate.median);
        if (has_base)
            format_ms(cmp, sizeof cmp, r[i].has_baseline, r[i].baseline.median);
        else
            format_ms(cmp, sizeof cmp, r[i].has_reference, r[i].reference.median);
        double s = results_speedup(&r[i]);
        snprintf(sp, sizeof sp, s > 0 ? "%.2fx" : "-", s);
        fprintf(f, "%-8.8s  %-22.22s  %-19s  %11s  %11s  %8s  %9.2e  %9.2e", r[i].wl->uuid, axes,
                status_name(r[i].status), lat, cmp, sp, r[i].max_abs, r[i].max_rel);
        print_extra(f, &r[i], &x);
        if (r[i].message)
            fprintf(f, "          %s\n", r[i].message);
    }
    results_summary s = results_summarize(r, n);
    fprintf(f, "%d workloads:", s.total);
    for (int st = 0; st < ST_COUNT; st++)
        if (s.by_status[st])
            fprintf(f, " %d %s", s.by_status[st], status_name((eval_status)st));
    if (s.skipped)
        fprintf(f, " (%d of them skipped after a TIMEOUT or a crash; --keep-going runs them)", s.skipped);
    if (s.by_status[ST_PASSED])
        fprintf(f, "; mean latency %.4f ms", s.mean_latency_ms);
    if (s.geomean_speedup > 0)
        fprintf(f, "; speedup vs %s %.2fx geomean, %.2fx min", s.speedup_vs, s.geomean_speedup, s.min_speedup);
    if (timer)
        fprintf(f, "; timer %s", timer);
    fputc('\n', f);
}

void results_line(char *buf, size_t cap, const definition *d, const wl_result *r)
{
    char axes[128], lat[32], ci[24] = "", cmp[64] = "";
    workload_axes_string(r->wl, d, axes, sizeof axes);
    format_ms(lat, sizeof lat, r->has_candidate, r->candidate.median);
    if (r->ci_rel > 0 && r->has_candidate)
        snprintf(ci, sizeof ci, " +-%.2f%%", 100.0 * r->ci_rel);
    double s = results_speedup(r);
    if (s > 0)
        snprintf(cmp, sizeof cmp, "  %.2fx vs %s%s%s", s, r->has_baseline ? "baseline" : "reference",
                 r->verdict[0] ? " " : "", r->verdict);
    snprintf(buf, cap, "%-8.8s  %s  %s  %s%s%s", r->wl->uuid, axes, status_name(r->status), lat, ci, cmp);
}

static json_t *timing_json(const stats_summary *s)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}", "median_ms", s->median, "mean_ms", s->mean, "min_ms", s->min,
                     "iqr_ms", s->iqr, "rsd", s->rsd, "count", (json_int_t)s->n);
}

static json_t *result_json(const definition *d, const wl_result *r)
{
    json_t *axes = json_object();
    for (int a = 0; a < d->naxes; a++)
        if (!d->axes[a].is_const)
            json_object_set_new(axes, d->axes[a].name, json_integer(r->wl->axis_value[a]));
    json_t *o = json_pack("{s:s, s:o, s:s, s:o, s:o, s:f}", "uuid", r->wl->uuid, "axes", axes, "status",
                          status_name(r->status), "max_abs_error", protocol_real(r->max_abs), "max_rel_error",
                          protocol_real(r->max_rel), "matched_ratio", r->matched_ratio);
    if (r->message)
        json_object_set_new(o, "message", json_string(r->message));
    if (r->skipped)
        json_object_set_new(o, "skipped", json_true());
    if (r->has_candidate)
        json_object_set_new(o, "latency", timing_json(&r->candidate));
    if (r->has_baseline)
        json_object_set_new(o, "baseline_latency", timing_json(&r->baseline));
    if (r->has_reference)
        json_object_set_new(o, "reference_latency", timing_json(&r->reference));
    if (results_speedup(r) > 0)
        json_object_set_new(o, "speedup", json_real(results_speedup(r)));
    if (r->timer[0])
        json_object_set_new(o, "timer", json_string(r->timer));
    if (r->worker[0])
        json_object_set_new(o, "worker", json_string(r->worker));
    if (r->gbps > 0)
        json_object_set_new(o, "gbps", json_real(r->gbps));
    if (r->tflops > 0)
        json_object_set_new(o, "tflops", json_real(r->tflops));
    if (r->roofline > 0)
        json_object_set_new(o, "roofline", json_real(r->roofline));
    if (r->ci_rel > 0 && r->has_candidate)
        json_object_set_new(json_object_get(o, "latency"), "ci_rel", json_real(r->ci_rel));
    if (r->ci_sets > 0 && r->has_candidate)
        json_object_set_new(json_object_get(o, "latency"), "ci_sets", json_integer(r->ci_sets));
    if (r->ci_places > 0 && r->has_candidate)
        json_object_set_new(json_object_get(o, "latency"), "ci_places", json_integer(r->ci_places));
    if (r->ci_stalled && r->has_candidate)
        json_object_set_new(json_object_get(o, "latency"), "ci_stalled", json_true());
    if (r->cost.wall_s > 0)
        json_object_set_new(
            o, "cost",
            json_pack("{s:f, s:f, s:I, s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:i, s:i}", "wall_s", r->cost.wall_s,
                      "sampled_ms", r->cost.sampled_ms, "samples", (json_int_t)r->cost.samples, "trials_s",
                      r->cost.trials_s, "timing_s", r->cost.timing_s, "reference_timing_s", r->cost.reference_timing_s,
                      "reference_runs", r->cost.reference_runs, "reference_cached", r->cost.reference_cached,
                      "reference_fresh", r->cost.reference_fresh, "input_places", r->cost.input_places, "audits",
                      r->cost.audits, "quick_audits", r->cost.quick_audits));
    if (r->cost.wall_s > 0)
        json_object_update_new(json_object_get(o, "cost"),
                               json_pack("{s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i}", "flush_ms", r->cost.flush_ms,
                                         "warmup_s", r->cost.warmup_s, "sampling_s", r->cost.sampling_s, "hooks_s",
                                         r->cost.hooks_s, "runner_start_s", r->cost.runner_start_s, "own_checks",
                                         r->cost.own_checks, "own_checks_spared", r->cost.own_checks_spared,
                                         "device_compares", r->cost.device_compares));
    if (r->cost.wall_s > 0)
        protocol_cost_parts_set(json_object_get(o, "cost"), r->cost.hook_s, r->cost.host_s, r->cost.alone,
                                r->cost.batched, r->cost.batches);
    if (r->verdict[0])
        json_object_set_new(o, "verdict",
                            json_pack("{s:s, s:f, s:f, s:f}", "kind", r->verdict, "ratio", r->ratio, "lo", r->ratio_lo,
                                      "hi", r->ratio_hi));
    return o;
}

void results_print_json(FILE *f, const definition *d, const wl_result *r, int n, const char *policy,
                        const char *input_check)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(arr, result_json(d, &r[i]));
    results_summary s = results_summarize(r, n);
    json_t *counts = json_object();
    for (int st = 0; st < ST_COUNT; st++)
        if (s.by_status[st])
            json_object_set_new(counts, status_name((eval_status)st), json_integer(s.by_status[st]));
    json_t *doc = json_pack("{s:s, s:o, s:{s:i, s:o, s:f, s:f, s:i}}", "definition", d->name, "workloads", arr,
                            "summary", "total", s.total, "statuses", counts, "mean_latency_ms", s.mean_latency_ms,
                            "geomean_speedup", s.geomean_speedup, "skipped", s.skipped);
    if (policy && policy[0])
        json_object_set_new(doc, "policy", json_string(policy));
    if (input_check)
        json_object_set_new(doc, "input_check", json_string(input_check));
    json_dumpf(doc, f, JSON_INDENT(2));
    fputc('\n', f);
    json_decref(doc);
}

void results_free(wl_result *r)
{
    free(r->message);
    free(r->log);
    memset(r, 0, sizeof *r);
}

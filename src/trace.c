#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "xalloc.h"

/* FlashInfer-Bench writes NaN and infinities as strings. */
static json_t *trace_number(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    return json_real(v);
}

json_t *trace_environment(const json_t *hello, const char *device)
{
    json_t *h = (json_t *)hello;
    const char *name = json_string_value(json_object_get(h, "gpu"));
    if (!name)
        name = json_string_value(json_object_get(h, "model"));
    if (!name)
        name = json_string_value(json_object_get(h, "device"));
    json_t *libs = json_pack("{s:s}", "kwb", PACKAGE_VERSION);
    static const char *const keys[][2] = {
        {"runner_version", "kwb-runner"}, {"cuda_driver", "cuda_driver"}, {"cuda_runtime", "cuda_runtime"}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = json_string_value(json_object_get(h, keys[i][0]));
        if (v)
            json_object_set_new(libs, keys[i][1], json_string(v));
    }
    return json_pack("{s:s, s:o}", "hardware", name ? name : device, "libs", libs);
}

static json_t *evaluation_json(const json_t *environment, const wl_result *r)
{
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    json_t *ev = json_pack("{s:s, s:O, s:s}", "status", status_trace_name(r->status), "environment", environment,
                           "timestamp", stamp);
    char *log = r->status == ST_REJECTED_INTEGRITY
                    ? xasprintf("REJECTED_INTEGRITY: %s", r->message ? r->message : "")
                    : xasprintf("%s%s%s", r->message ? r->message : "", r->log ? "\n" : "", r->log ? r->log : "");
    json_object_set_new(ev, "log", json_string(log));
    free(log);
    if (r->status == ST_PASSED || r->status == ST_INCORRECT_NUMERICAL) {
        json_t *c = json_object();
        json_object_set_new(c, "max_relative_error", trace_number(r->max_rel));
        json_object_set_new(c, "max_absolute_error", trace_number(r->max_abs));
        json_object_set_new(c, "extra", json_pack("{s:f}", "matched_ratio", r->matched_ratio));
        json_object_set_new(ev, "correctness", c);
    }
    if (r->status == ST_PASSED && r->has_candidate) {
        /* FlashInfer-Bench's latencies are means (over trials of per-trial medians); kwb's
         * tables keep the median. */
        double lat = r->candidate.mean > 0 ? r->candidate.mean : r->candidate.median;
        double ref = !r->has_reference ? 0.0 : r->reference.mean > 0 ? r->reference.mean : r->reference.median;
        json_object_set_new(ev, "performance",
                            json_pack("{s:f, s:f, s:f}", "latency_ms", lat, "reference_latency_ms", ref,
                                      "speedup_factor", ref > 0 ? ref / lat : 0.0));
    }
    return ev;
}

json_t *trace_line(const definition *d, const char *solution_name, const json_t *environment, const wl_result *r)
{
    return json_pack("{s:s, s:O, s:s, s:o}", "definition", d->name, "workload", r->wl->json, "solution", solution_name,
                     "evaluation", evaluation_json(environment, r));
}

int trace_write_file(const char *path, const definition *d, const char *solution_name, const json_t *environment,
                     const wl_result *r, int n, kwb_error *err)
{
    char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        kwb_error_set(err, "%s: cannot write: %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        json_t *line = trace_line(d, solution_name, environment, &r[i]);
        bad = json_dumpf(line, f, JSON_COMPACT) != 0 || fputc('\n', f) == EOF;
        json_decref(line);
    }
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        kwb_error_set(err, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

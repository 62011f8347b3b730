#include "protocol.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

void protocol_job_defaults(runner_job *job)
{
    memset(job, 0, sizeof *job);
    job->trials = 3;
    job->check = check_policy_default();
    job->timing = (timing_policy){0.02, 10, 0.0, 0.3, 0, 0, 0, 0.005, 0};
    job->reference_timing = (timing_policy){0.0, 5, 0.0, 0.3, 0, 0, 0, 0.02, 0};
    job->seed = 1;
}

void timing_policy_describe(const timing_policy *p, char *buf, size_t cap)
{
    char ci[160] = "", rsd[48] = "", floor[48] = "";
    if (p->ci_target > 0)
        snprintf(ci, sizeof ci, "the median's 95%% CI within +-%g%% %s, ", 100 * p->ci_target,
                 p->ci_iid ? "(samples as independent)"
                           : "over input sets (or once, bound by their places, it stops narrowing)");
    if (p->rsd_target > 0)
        snprintf(rsd, sizeof rsd, "rsd under %g%%, ", 100 * p->rsd_target);
    if (p->min_time_s > 0)
        snprintf(floor, sizeof floor, "%g s of device time, ", p->min_time_s);
    snprintf(buf, cap,
             "%s; warm-up %g s; stop at %s%s%sat least %d samples (a paired verdict: decided at +-%g%%), "
             "or at %g s",
             p->graph > 0 ? "graph replay"
             : p->cold    ? "cold L2"
                          : "warm",
             p->warmup_s, ci, rsd, floor, p->min_samples, 100 * PROTOCOL_GATE_THRESHOLD, p->max_time_s);
}

static json_t *policy_json(const timing_policy *p)
{
    json_t *o = json_pack("{s:f, s:i, s:f, s:f, s:f, s:b}", "warmup_s", p->warmup_s, "min_samples", p->min_samples,
                          "min_time_s", p->min_time_s, "max_time_s", p->max_time_s, "rsd_target", p->rsd_target, "cold",
                          p->cold);
    if (p->graph > 0)
        json_object_set_new(o, "graph", json_integer(p->graph));
    if (p->ci_target > 0)
        json_object_set_new(o, "ci_target", json_real(p->ci_target));
    if (p->ci_iid)
        json_object_set_new(o, "ci_iid", json_true());
    return o;
}

char *protocol_job_encode(const runner_job *job)
{
    json_t *sols = json_array();
    for (int i = 0; i < job->nsolutions; i++) {
        const job_solution *s = &job->solutions[i];
        json_t *so =
            json_pack("{s:s, s:s, s:s, s:s}", "role", s->role, "name", s->name, "so", s->so_path, "symbol", s->symbol);
        if (s->dir)
            json_object_set_new(so, "dir", json_string(s->dir));
        json_array_append_new(sols, so);
    }
    json_t *o =
        json_pack("{s:i, s:s, s:s, s:s, s:s, s:O, s:o, s:{s:i, s:f, s:f, s:f}, s:o, s:o, s:I, s:b}", "proto", KWB_PROTO,
                  "type", "job", "device", job->device, "definition", job->definition_path, "dataset",
                  job->dataset_root, "workloads", job->workloads, "solutions", sols, "check", "trials", job->trials,
                  "atol", job->check.atol, "rtol", job->check.rtol, "matched_ratio", job->check.required_ratio,
                  "timing", policy_json(&job->timing), "reference_timing", policy_json(&job->reference_timing), "seed",
                  (json_int_t)job->seed, "samples", job->want_samples);
    if (job->reference.so_path)
        json_object_set_new(o, "reference",
                            json_pack("{s:s, s:s, s:s, s:s*}", "name", job->reference.name, "so",
                                      job->reference.so_path, "symbol", job->reference.symbol, "helpers",
                                      job->reference.helpers));
    if (job->cache_dir)
        json_object_set_new(o, "cache", json_string(job->cache_dir));
    if (job->channel_key)
        json_object_set_new(o, "key", json_string(job->channel_key));
    if (job->no_defences)
        json_object_set_new(o, "no_defences", json_true());
    if (job->sandbox_off)
        json_object_set_new(o, "sandbox", json_false());
    if (job->scratch)
        json_object_set_new(o, "scratch", json_string(job->scratch));
    if (job->cpu_limit_s > 0)
        json_object_set_new(o, "cpu_limit_s", json_real(job->cpu_limit_s));
    if (job->ref_fd > 0)
        json_object_set_new(o, "ref_fd", json_integer(job->ref_fd));
    if (job->probe_reference)
        json_object_set_new(o, "probe_reference", json_true());
    if (job->dump_dir) {
        json_object_set_new(o, "dump_dir", json_string(job->dump_dir));
        json_object_set_new(o, "dump_trial", json_integer(job->dump_trial));
    }
    char *line = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return line;
}

static int policy_decode(json_t *o, timing_policy *p, const char *what, kwb_error *err)
{
    json_error_t jerr;
    int cold = 0, graph = 0, iid = 0;
    p->ci_target = 0;
    if (json_unpack_ex(o, &jerr, 0, "{s:F, s:i, s:F, s:F, s:F, s?b, s?i, s?F, s?b}", "warmup_s", &p->warmup_s,
                       "min_samples", &p->min_samples, "min_time_s", &p->min_time_s, "max_time_s", &p->max_time_s,
                       "rsd_target", &p->rsd_target, "cold", &cold, "graph", &graph, "ci_target", &p->ci_target,
                       "ci_iid", &iid) != 0)
        return kwb_error_set(err, "job: '%s': %s", what, jerr.text);
    if (graph < 0 || graph > TIMING_GRAPH_MAX_CALLS)
        return kwb_error_set(err, "job: '%s': graph must be 0 to %d calls per replay", what, TIMING_GRAPH_MAX_CALLS);
    p->cold = cold;
    p->graph = graph;
    p->ci_iid = iid;
    return 0;
}

static int solutions_decode(json_t *arr, runner_job *job, kwb_error *err)
{
    if (!json_is_array(arr) || json_array_size(arr) > 2)
        return kwb_error_set(err, "job: 'solutions' must be a list of at most two solutions");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *role, *name, *so, *symbol;
        json_error_t jerr;
        if (json_unpack_ex(json_array_get(arr, i), &jerr, 0, "{s:s, s:s, s:s, s:s}", "role", &role, "name", &name, "so",
                           &so, "symbol", &symbol) != 0)
            return kwb_error_set(err, "job: solution %zu: %s", i, jerr.text);
        job_solution *s = &job->solutions[job->nsolutions++];
        s->role = xstrdup(role);
        s->name = xstrdup(name);
        s->so_path = xstrdup(so);
        s->dir = xstrdup(json_string_value(json_object_get(json_array_get(arr, i), "dir")));
        s->symbol = xstrdup(symbol);
    }
    return 0;
}

/* The optional "reference": a built solution standing for the definition's reference. */
static int reference_decode(json_t *o, runner_job *job, kwb_error *err)
{
    json_t *ref = json_object_get(o, "reference");
    const char *name, *so, *symbol, *helpers = NULL;
    json_error_t jerr;
    if (!ref)
        return 0;
    if (json_unpack_ex(ref, &jerr, 0, "{s:s, s:s, s:s, s?s}", "name", &name, "so", &so, "symbol", &symbol, "helpers",
                       &helpers) != 0)
        return kwb_error_set(err, "job: reference: %s", jerr.text);
    job->reference = (job_solution){.role = xstrdup("reference"),
                                    .name = xstrdup(name),
                                    .so_path = xstrdup(so),
                                    .symbol = xstrdup(symbol),
                                    .helpers = xstrdup(helpers)};
    return 0;
}

/* The optional dump fields: "dump_dir" (a string) and "dump_trial" (an integer >= 0). */
static int dump_decode(json_t *o, runner_job *job, kwb_error *err)
{
    json_t *dir = json_object_get(o, "dump_dir"), *trial = json_object_get(o, "dump_trial");
    if (dir && (!json_is_string(dir) || json_string_length(dir) == 0))
        return kwb_error_set(err, "job: 'dump_dir' must be a folder name");
    if (trial && (!json_is_integer(trial) || json_integer_value(trial) < 0 || json_integer_value(trial) > INT32_MAX))
        return kwb_error_set(err, "job: 'dump_trial' must be a whole number >= 0");
    job->dump_dir = dir ? xstrdup(json_string_value(dir)) : NULL;
    job->dump_trial = trial ? (int)json_integer_value(trial) : 0;
    return 0;
}

int protocol_job_decode(const char *line, runner_job *job, kwb_error *err)
{
    protocol_job_defaults(job);
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    if (!o)
        return kwb_error_set(err, "job: invalid JSON: %s", jerr.text);
    const char *device, *def, *dataset;
    json_t *workloads, *sols, *timing, *rtiming;
    json_int_t proto = 0, seed = 1;
    int samples = 0;
    int rc = json_unpack_ex(o, &jerr, 0, "{s:I, s:s, s:s, s:s, s:o, s:o, s:{s:i, s:F, s:F, s:F}, s:o, s:o, s?I, s?b}",
                            "proto", &proto, "device", &device, "definition", &def, "dataset", &dataset, "workloads",
                            &workloads, "solutions", &sols, "check", "trials", &job->trials, "atol", &job->check.atol,
                            "rtol", &job->check.rtol, "matched_ratio", &job->check.required_ratio, "timing", &timing,
                            "reference_timing", &rtiming, "seed", &seed, "samples", &samples);
    if (rc == 0 && proto != KWB_PROTO)
        rc = kwb_error_set(err, "job: protocol %lld, this runner speaks %d", (long long)proto, KWB_PROTO);
    else if (rc != 0)
        rc = kwb_error_set(err, "job: %s", jerr.text);
    else if (!json_is_array(workloads))
        rc = kwb_error_set(err, "job: 'workloads' must be a list");
    else if (!json_is_string(json_object_get(o, "type")) ||
             strcmp(json_string_value(json_object_get(o, "type")), "job"))
        rc = kwb_error_set(err, "job: \"type\" must be \"job\"");
    else if (job->trials < 1 || job->check.required_ratio < 0 || job->check.required_ratio > 1)
        rc = kwb_error_set(err, "job: 'check' needs trials >= 1 and 0 <= matched_ratio <= 1");
    if (rc == 0) {
        job->device = xstrdup(device);
        job->definition_path = xstrdup(def);
        job->dataset_root = xstrdup(dataset);
        job->workloads = json_incref(workloads);
        job->seed = (uint64_t)seed;
        job->want_samples = samples;
        job->cache_dir = xstrdup(json_string_value(json_object_get(o, "cache")));
        job->channel_key = xstrdup(json_string_value(json_object_get(o, "key")));
        job->no_defences = json_is_true(json_object_get(o, "no_defences"));
        job->sandbox_off = json_is_false(json_object_get(o, "sandbox"));
        job->scratch = xstrdup(json_string_value(json_object_get(o, "scratch")));
        job->cpu_limit_s = json_number_value(json_object_get(o, "cpu_limit_s"));
        job->probe_reference = json_is_true(json_object_get(o, "probe_reference"));
        json_int_t ref_fd = json_integer_value(json_object_get(o, "ref_fd"));
        job->ref_fd = ref_fd > 2 && ref_fd < 1024 ? (int)ref_fd : 0;
        rc = solutions_decode(sols, job, err);
    }
    if (rc == 0)
        rc = dump_decode(o, job, err);
    if (rc == 0)
        rc = reference_decode(o, job, err);
    if (rc == 0)
        rc = policy_decode(timing, &job->timing, "timing", err);
    if (rc == 0)
        rc = policy_decode(rtiming, &job->reference_timing, "reference_timing", err);
    json_decref(o);
    return rc;
}

void protocol_job_free(runner_job *job)
{
    free(job->device);
    free(job->definition_path);
    free(job->dataset_root);
    free(job->cache_dir);
    free(job->dump_dir);
    free(job->channel_key);
    free(job->scratch);
    json_decref(job->workloads);
    free(job->reference.role);
    free(job->reference.name);
    free(job->reference.so_path);
    free(job->reference.symbol);
    free(job->reference.helpers);
    for (int i = 0; i < job->nsolutions; i++) {
        free(job->solutions[i].role);
        free(job->solutions[i].name);
        free(job->solutions[i].so_path);
        free(job->solutions[i].dir);
        free(job->solutions[i].symbol);
    }
    memset(job, 0, sizeof *job);
}

json_t *protocol_event_new(const char *type)
{
    return json_pack("{s:i, s:s}", "proto", KWB_PROTO, "event", type);
}

void protocol_event_set_timing(json_t *ev, const stats_summary *s)
{
    json_object_set_new(ev, "count", json_integer((json_int_t)s->n));
    json_object_set_new(ev, "median_ms", json_real(s->median));
    json_object_set_new(ev, "mean_ms", json_real(s->mean));
    json_object_set_new(ev, "min_ms", json_real(s->min));
    json_object_set_new(ev, "max_ms", json_real(s->max));
    json_object_set_new(ev, "q1_ms", json_real(s->q1));
    json_object_set_new(ev, "q3_ms", json_real(s->q3));
    json_object_set_new(ev, "iqr_ms", json_real(s->iqr));
    json_object_set_new(ev, "stddev_ms", json_real(s->stddev));
    json_object_set_new(ev, "rsd", json_real(s->rsd));
}

int protocol_write_line(int fd, json_t *obj)
{
    char *s = json_dumps(obj, JSON_COMPACT);
    if (!s)
        return -1;
    size_t len = strlen(s);
    s = xrealloc(s, len + 2);
    s[len++] = '\n';
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, s + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            free(s);
            return -1;
        }
        off += (size_t)w;
    }
    free(s);
    return 0;
}

static event_type event_type_of(const char *name)
{
    static const char *const names[] = {"hello", "workload-start",  "check",    "timing", "workload-end", "error",
                                        "bye",   "reference-probe", "ref-want", "ref-out"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return (event_type)i;
    return EV_UNKNOWN;
}

const char *const protocol_hook_parts[COST_HOOK_PARTS] = {"poison", "inputs", "reference", "check", "digest"};
const char *const protocol_host_steps[COST_HOST_STEPS] = {"queue",     "call",        "sync",    "cupti",
                                                          "reads",     "copies",      "op_fill", "op_digest",
                                                          "op_upload", "op_download", "op_sync", "op_compare"};

void protocol_cost_parts_set(json_t *cost, const double *hook_s, const double *host_s, long alone, long batched,
                             long batches)
{
    json_t *hooks = json_object(), *host = json_object();
    for (int i = 0; i < COST_HOOK_PARTS; i++)
        json_object_set_new(hooks, protocol_hook_parts[i], json_real(hook_s[i]));
    for (int i = 0; i < COST_HOST_STEPS; i++)
        json_object_set_new(host, protocol_host_steps[i], json_real(host_s[i]));
    json_object_set_new(host, "alone", json_integer(alone));
    json_object_set_new(host, "batched", json_integer(batched));
    json_object_set_new(host, "batches", json_integer(batches));
    json_object_set_new(cost, "hooks", hooks);
    json_object_set_new(cost, "host", host);
}

json_t *protocol_real(double v)
{
    if (isnan(v))
        return json_string("NaN");
    if (isinf(v))
        return json_string(v > 0 ? "Infinity" : "-Infinity");
    return json_real(v);
}

/* A number, or one of protocol_real's strings for a non-finite value. */
static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    const char *s = json_string_value(v);
    if (!s)
        return json_number_value(v);
    return strcmp(s, "NaN") == 0         ? NAN
           : strcmp(s, "Infinity") == 0  ? INFINITY
           : strcmp(s, "-Infinity") == 0 ? -INFINITY
                                         : 0;
}

static void timing_from_json(json_t *o, stats_summary *s)
{
    s->n = (size_t)json_integer_value(json_object_get(o, "count"));
    s->median = num(o, "median_ms");
    s->mean = num(o, "mean_ms");
    s->min = num(o, "min_ms");
    s->max = num(o, "max_ms");
    s->q1 = num(o, "q1_ms");
    s->q3 = num(o, "q3_ms");
    s->iqr = num(o, "iqr_ms");
    s->stddev = num(o, "stddev_ms");
    s->rsd = num(o, "rsd");
}

int protocol_event_parse(const char *line, runner_event *ev, kwb_error *err)
{
    memset(ev, 0, sizeof *ev);
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    if (!o)
        return kwb_error_set(err, "runner sent a line that is not JSON: %s", jerr.text);
    const char *type = json_string_value(json_object_get(o, "event"));
    if (json_integer_value(json_object_get(o, "proto")) != KWB_PROTO || !type) {
        json_decref(o);
        return kwb_error_set(err, "runner sent an event without \"proto\":%d and \"event\"", KWB_PROTO);
    }
    ev->json = o;
    ev->type = event_type_of(type);
    ev->uuid = json_string_value(json_object_get(o, "uuid"));
    ev->role = json_string_value(json_object_get(o, "role"));
    ev->status = json_string_value(json_object_get(o, "status"));
    ev->message = json_string_value(json_object_get(o, "message"));
    ev->trial = (int)json_integer_value(json_object_get(o, "trial"));
    ev->max_abs = num(o, "max_abs");
    ev->max_rel = num(o, "max_rel");
    ev->matched_ratio = num(o, "matched_ratio");
    if (ev->type == EV_TIMING) {
        timing_from_json(o, &ev->timing);
        ev->timer = json_string_value(json_object_get(o, "timer"));
        ev->gbps = num(o, "gbps");
        ev->tflops = num(o, "tflops");
        ev->roofline = num(o, "roofline");
    }
    return 0;
}

void protocol_event_free(runner_event *ev)
{
    json_decref(ev->json);
    memset(ev, 0, sizeof *ev);
}

/* agent_prep.c - preparing an LLM or command agent's task: scope, reconnaissance, prompt and
 * the files kept beside the candidate (see agent_prep.h). */
#include "agent_prep.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftree.h"
#include "llm.h"
#include "paths.h"
#include "prompt.h"
#include "recon.h"
#include "secrets.h"
#include "traceset.h"
#include "xalloc.h"

void agent_say(const agent_task *t, const char *kind, const char *text)
{
    if (t->progress)
        t->progress(t->progress_ctx, kind, text);
}

void agent_transcript(const agent_prep *p, const char *kind, ...)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kind));
    va_list ap;
    va_start(ap, kind);
    for (const char *key; (key = va_arg(ap, const char *)) != NULL;) {
        const char *value = va_arg(ap, const char *);
        char *clean = secrets_redact(value ? value : "");
        json_object_set_new(o, key, json_string(clean));
        free(clean);
    }
    va_end(ap);
    char *line = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    FILE *f = fopen(p->transcript, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
    free(line);
}

/* Reconnaissance for T's direction into OUT (within BUDGET), the folders consulted into P. */
static void reconnoitre(const agent_config *cfg, const agent_task *t, agent_prep *p, size_t budget, strbuf *out)
{
    char **refs = NULL, **kw = NULL;
    int nrefs = 0, nkw = 0;
    if (t->dir->skill)
        recon_skill_references(t->dir->skill, &refs, &nrefs);
    const char *conf = cfg ? agentcfg_value(cfg, "references") : NULL;
    if (conf)
        recon_split_list(conf, &refs, &nrefs);
    if (nrefs == 0)
        return;
    nkw = recon_keywords(t->dir->sd, t->dir->id, t->dir->title, &kw);
    recon_result r;
    kwb_error err = {{0}};
    if (recon_search((const char *const *)refs, nrefs, kw, nkw, NULL, &r, &err) == 0) {
        recon_format(&r, budget, out);
        for (int i = 0; i < r.nconsulted; i++)
            strbuf_printf(&p->consulted, "%s%s", i ? ", " : "", r.consulted[i]);
        strbuf line;
        strbuf_init(&line);
        strbuf_printf(&line, "reconnaissance: %d hit(s) in %d file(s); consulted: %s%s", r.nhits, r.files_scanned,
                      p->consulted.len ? p->consulted.s : "none", r.nmissing ? " (some not readable)" : "");
        for (int i = 0; i < r.nhits && i < 5; i++)
            strbuf_printf(&line, "%s%s:%d", i ? ", " : "; best hits: ", r.hits[i].file, r.hits[i].line);
        agent_say(t, "status", line.s);
        strbuf_free(&line);
        recon_result_free(&r);
    } else {
        agent_say(t, "status", err.msg);
    }
    recon_words_free(refs, nrefs);
    recon_words_free(kw, nkw);
}

int agent_prep_task(const agent_config *cfg, const agent_task *t, agent_prep *p, kwb_error *err)
{
    memset(p, 0, sizeof *p);
    strbuf_init(&p->system);
    strbuf_init(&p->user);
    strbuf_init(&p->consulted);
    const char *base = t->files_base ? t->files_base : t->out_dir;
    p->transcript = xasprintf("%s.transcript.jsonl", base);
    p->log = xasprintf("%s.agent.log", base);
    p->prompt_file = xasprintf("%s.prompt.md", base);
    remove(p->transcript);
    if (!(p->best = solution_load(t->best_dir, err)))
        return -1;
    p->sources = xcalloc((size_t)p->best->nsources + 1, sizeof *p->sources);
    for (int i = 0; i < p->best->nsources; i++)
        p->sources[i] = p->best->sources[i].path;
    p->scope = (edits_scope){p->sources, p->best->nsources, NULL, 0};
    if (t->dir->sd)
        p->scope.globs = (const char *const *)t->dir->sd->scope.items, p->scope.nglobs = t->dir->sd->scope.n;
    prompt_budget b = prompt_budget_default();
    strbuf recon;
    strbuf_init(&recon);
    reconnoitre(cfg, t, p, b.recon, &recon);
    char *def = t->definition_path ? strbuf_read_file(t->definition_path, NULL) : NULL;
    prompt_parts parts = {
        .direction_id = t->dir->id,
        .direction_title = t->dir->title,
        .rationale = t->dir->rationale,
        .predicted = t->dir->predicted,
        .guidance = t->dir->sd ? t->dir->sd->guidance : NULL,
        .definition_json = def,
        .kernel = p->best,
        .scope = p->scope.globs,
        .nscope = p->scope.nglobs,
        .context = t->context,
        .recon = recon.s,
    };
    prompt_system(&parts, &p->system);
    prompt_user(&parts, &b, &p->user);
    free(def);
    strbuf_free(&recon);
    FILE *f = fopen(p->prompt_file, "w");
    if (!f)
        return kwb_error_set(err, "%s: cannot write: %s", p->prompt_file, strerror(errno));
    fprintf(f, "%s\n%s", p->system.s, p->user.s);
    fclose(f);
    agent_transcript(p, "prompt", "direction", t->dir->id, "references_consulted", p->consulted.s, "system",
                     p->system.s, "user", p->user.s, (char *)NULL);
    return 0;
}

void agent_prep_free(agent_prep *p)
{
    solution_free(p->best);
    free(p->sources);
    strbuf_free(&p->system);
    strbuf_free(&p->user);
    strbuf_free(&p->consulted);
    free(p->transcript);
    free(p->log);
    free(p->prompt_file);
    memset(p, 0, sizeof *p);
}

int agent_finish_diff(const agent_task *t, agent_outcome *o, kwb_error *err)
{
    strbuf_free(&o->diff);
    strbuf_init(&o->diff);
    if (ftree_diff(t->best_dir, t->out_dir, &o->diff, err) != 0)
        return -1;
    if (o->diff.len == 0)
        return kwb_error_set(err, "the agent changed nothing");
    return 0;
}

/* The axes of workload UUID ("batch_size=16"), or "" when the dataset does not have it. */
static void axes_of(const definition *d, const workload_set *set, const char *uuid, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int i = 0; d && i < set->count; i++)
        if (!strcmp(set->items[i].uuid, uuid)) {
            workload_axes_string(&set->items[i], d, buf, cap);
            return;
        }
}

char *agent_context_build(store *st, int64_t session, int64_t best, const char *def_name, const char *evidence)
{
    strbuf sb;
    strbuf_init(&sb);
    kwb_error err = {{0}};
    char *root = paths_dataset();
    definition *d = NULL;
    workload_set set = {0};
    if (traceset_load(root, def_name, &d, &set, &err) != 0)
        d = NULL;
    free(root);
    store_wl_table t;
    if (best && store_wl_table_get(st, best, &t, &err) == 1) {
        strbuf_puts(&sb, "workload  axes  status  median_ms  baseline_ms  speedup  roofline  GB/s\n");
        for (int i = 0; i < t.n; i++) {
            const store_wl_row *w = &t.rows[i];
            char axes[256];
            axes_of(d, &set, w->uuid, axes, sizeof axes);
            strbuf_printf(&sb, "%.8s  %s  %s  %.4f  %.4f  %.2fx  %.0f%%  %.0f\n", w->uuid, axes[0] ? axes : "-",
                          w->status, w->median_ms, w->baseline_median_ms, w->speedup, 100.0 * w->roofline, w->gbps);
        }
        store_wl_table_free(&t);
    }
    if (evidence && *evidence)
        strbuf_printf(&sb, "\nbottleneck and regimes: %s\n", evidence);
    store_direction *dirs = NULL;
    int n = 0;
    if (store_direction_list(st, session, 0, &dirs, &n, &err) == 0) {
        int shown = 0;
        for (int i = 0; i < n; i++) {
            if (!strcmp(dirs[i].state, "proposed"))
                continue;
            strbuf_printf(&sb, "%s%s: %s%s%.300s\n", shown++ ? "" : "\nearlier directions of this session:\n",
                          dirs[i].title, dirs[i].state, dirs[i].reason ? ": " : "",
                          dirs[i].reason ? dirs[i].reason : "");
        }
        store_direction_list_free(dirs, n);
    }
    workload_set_free(&set);
    definition_free(d);
    return strbuf_detach(&sb);
}

int agent_budget_spent(store *st, int64_t session, const agent_config *cfg, int *calls, kwb_error *err)
{
    store_agent_totals tot;
    kwb_error ignored = {{0}};
    if (store_agent_totals_get(st, session, &tot, &ignored) != 0)
        return 0;
    if (calls)
        *calls = tot.calls;
    return llm_session_budget_check(cfg, tot.cost, (long)(tot.tokens_in + tot.tokens_out), err) != 0;
}

int agent_call_record(store *st, int64_t session, const char *call_json, char *line, size_t cap, kwb_error *err)
{
    json_error_t jerr;
    json_t *c = json_loads(call_json, 0, &jerr);
    json_t *in = json_object_get(c, "tokens_in"), *out = json_object_get(c, "tokens_out");
    store_agent_call call = {
        .session = session,
        .provider = json_string_value(json_object_get(c, "provider")),
        .model = json_string_value(json_object_get(c, "model")),
        .tokens_in = json_is_integer(in) ? json_integer_value(in) : -1,
        .tokens_out = json_is_integer(out) ? json_integer_value(out) : -1,
        .cost = json_number_value(json_object_get(c, "cost")),
        .duration_s = json_number_value(json_object_get(c, "seconds")),
    };
    const char *status = json_string_value(json_object_get(c, "status"));
    const char *failure = json_string_value(json_object_get(c, "failure"));
    int failed = failure && strcmp(failure, "ok") != 0;
    char st_text[160];
    snprintf(st_text, sizeof st_text, "%s%s%s", status ? status : "?", failed ? ": " : "", failed ? failure : "");
    call.status = st_text;
    int rc = store_agent_call_add(st, &call, NULL, err);
    snprintf(line, cap, "%s %s, tokens %lld in / %lld out, $%.4f, %.1f s, %d attempt(s), %s",
             call.provider ? call.provider : "?", call.model ? call.model : "?", (long long)call.tokens_in,
             (long long)call.tokens_out, call.cost, call.duration_s,
             (int)json_integer_value(json_object_get(c, "attempts")), st_text);
    json_decref(c);
    return rc;
}

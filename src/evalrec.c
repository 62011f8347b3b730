#define _GNU_SOURCE
#include "evalrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "owntmp.h"
#include "paths.h"
#include "runner/runner.h"
#include "strbuf.h"
#include "xalloc.h"

/* The store is the truth: a candidate ref in the archive the store never recorded (a kwb killed,
 * or stopped by a full disk, between the commit and the record) is removed. */
static int prune_archive(eval_recorder *r, kwb_error *err)
{
    char **oids = NULL;
    int n = 0;
    if (store_candidate_commits(r->h.st, r->session, &oids, &n, err) != 0)
        return -1;
    int rc = archive_prune_unrecorded(r->h.ar, r->session_name, (const char *const *)oids, n, &r->pruned, err);
    store_strings_free(oids, n);
    return rc;
}

int evalrec_open(eval_recorder *r, const char *ws_dir, const char *name, const char *def_name, kwb_error *err)
{
    memset(r, 0, sizeof *r);
    if (wsopen(ws_dir, 0, &r->h, err) != 0)
        return -1;
    r->session_name = xstrdup(name);
    int found = store_session_find(r->h.st, name, &r->session, err);
    if (found == 0 && !def_name)
        found = kwb_error_set(err, "no session '%s' in this workspace", name);
    else if (found == 0 && store_session_create(r->h.st, name, def_name, &r->session, err) != 0)
        found = -1;
    store_session s = {0};
    if (found >= 0 && store_session_get(r->h.st, r->session, &s, err) == 0) {
        if (def_name && strcmp(s.definition, def_name) != 0)
            found = kwb_error_set(err, "session '%s' is for %s, not %s", name, s.definition, def_name);
        r->definition = xstrdup(s.definition);
    }
    store_session_free(&s);
    if (found < 0 || store_session_acquire(r->h.st, r->session, getpid(), err) != 0 ||
        store_session_mark_interrupted(r->h.st, r->session, NULL, NULL, err) != 0 || prune_archive(r, err) != 0) {
        r->session = 0;
        evalrec_close(r);
        return -1;
    }
    return 0;
}

/* The parent commit: PARENT_REF's candidate, else the session's current one (*parent_id set). */
static int parent_commit(eval_recorder *r, const char *parent_ref, int64_t *parent_id, char **commit, kwb_error *err)
{
    store_candidate c = {0};
    *parent_id = 0;
    *commit = NULL;
    if (parent_ref) {
        if (wsopen_candidate(&r->h, r->session, parent_ref, &c, err) != 0)
            return -1;
    } else {
        int64_t id;
        int has = store_candidate_current(r->h.st, r->session, &id, err);
        if (has < 0 || (has && store_candidate_get(r->h.st, id, &c, err) != 0))
            return -1;
        if (!has)
            return 0;
    }
    *parent_id = c.id;
    *commit = xstrdup(c.commit);
    store_candidate_free(&c);
    return 0;
}

/* A candidate name unused in the session: NAME, else NAME-2, NAME-3, ... */
static char *unique_name(eval_recorder *r, const char *name, kwb_error *err)
{
    char *cand = xstrdup(name);
    for (int k = 2;; k++) {
        store_candidate c = {0};
        int found = store_candidate_find(r->h.st, r->session, cand, &c, err);
        store_candidate_free(&c);
        if (found <= 0) {
            if (found < 0) {
                free(cand);
                return NULL;
            }
            return cand;
        }
        free(cand);
        cand = xasprintf("%s-%d", name, k);
    }
}

int evalrec_candidate(eval_recorder *r, const solution *sol, const char *parent_ref, const char *name,
                      const char *origin, const char *title, const build_result *br, kwb_error *err)
{
    int64_t parent = 0;
    char *pcommit = NULL, oid[41];
    if (parent_commit(r, parent_ref, &parent, &pcommit, err) != 0)
        return -1;
    char *cname = unique_name(r, name ? name : sol->name, err);
    if (!cname) {
        free(pcommit);
        return -1;
    }
    char *rtitle = title ? xstrdup(title) : xasprintf("evaluate %s", cname);
    char *msg = xasprintf("%s: %s\n\nsolution %s, from %s\n", cname, rtitle, sol->name, sol->dir);
    /* The commit holds the whole solution folder: solution.json and its sources. */
    solution_source *files = xcalloc((size_t)sol->nsources + 1, sizeof *files);
    memcpy(files, sol->sources, sizeof *files * (size_t)sol->nsources);
    files[sol->nsources].path = "solution.json";
    files[sol->nsources].content = strbuf_read_file(sol->json_path, &files[sol->nsources].len);
    int rc = files[sol->nsources].content
                 ? archive_commit(r->h.ar, r->session_name, cname, files, sol->nsources + 1, pcommit, msg, oid, err)
                 : kwb_error_set(err, "%s: cannot read", sol->json_path);
    free(files[sol->nsources].content);
    free(files);
    free(msg);
    free(pcommit);
    if (rc != 0)
        kwb_error_prefix(err, "archive");
    origin = !parent ? "baseline" : origin ? origin : "human";
    char *dir = realpath(sol->dir, NULL); /* absolute: later commands run from anywhere */
    if (rc == 0 && store_candidate_add(r->h.st, r->session, parent, origin, cname, dir ? dir : sol->dir, oid,
                                       &r->candidate, err) != 0) {
        kwb_error ignored; /* the archive follows the store: its new ref goes (else the next start prunes it) */
        prune_archive(r, &ignored);
        rc = -1;
    }
    free(dir);
    if (rc == 0)
        rc = store_round_begin(r->h.st, r->session, rtitle, &r->round, NULL, err);
    if (rc == 0)
        rc = store_round_set_candidate(r->h.st, r->round, r->candidate, err);
    if (rc == 0)
        rc = store_build_add(r->h.st, r->candidate, br->hash, br->command, br->log, br->ok, br->seconds, NULL, err);
    free(cname);
    free(rtitle);
    return rc;
}

int evalrec_existing(eval_recorder *r, const char *name, const build_result *br, kwb_error *err)
{
    store_candidate c = {0};
    int found = store_candidate_find(r->h.st, r->session, name, &c, err);
    if (found == 0)
        kwb_error_set(err, "session %s has no candidate '%s'", r->session_name, name);
    if (found <= 0)
        return -1;
    r->candidate = c.id;
    store_candidate_free(&c);
    store_eval_run *runs = NULL;
    int n = 0;
    if (store_eval_run_list(r->h.st, r->session, NULL, &runs, &n, err) != 0)
        return -1;
    r->round = 0;
    for (int i = 0; i < n; i++)
        if (runs[i].candidate == r->candidate)
            r->round = runs[i].round;
    store_eval_run_list_free(runs, n);
    if (r->round && store_round_reopen(r->h.st, r->round, "another evaluation of the same candidate", err) != 0)
        return -1;
    return store_build_add(r->h.st, r->candidate, br->hash, br->command, br->log, br->ok, br->seconds, NULL, err);
}

int evalrec_begin(eval_recorder *r, const char *device, int n, const char *options, kwb_error *err)
{
    /* the runner, whether sandboxed, and the timing policy it measured under */
    char *runner = xasprintf("kwb-runner %s%s%s%s", KWB_RUNNER_VERSION, r->sandbox_off ? " (sandbox off)" : "",
                             r->policy ? "; " : "", r->policy ? r->policy : "");
    int rc = store_eval_begin(r->h.st, r->candidate, r->round, device, runner, n, &r->eval_run, err);
    free(runner);
    if (rc != 0)
        return -1;
    return options ? store_eval_set_options(r->h.st, r->eval_run, options, err) : 0;
}

void evalrec_record(eval_recorder *r, const wl_result *res)
{
    kwb_error err = {{0}};
    if (store_eval_add(r->h.st, r->eval_run, res, NULL, &err) == 0)
        r->recorded++;
    else if (r->failed++ == 0)
        r->first_error = err;
}

int evalrec_resume_find(eval_recorder *r, char **options, kwb_error *err)
{
    store_eval_run *runs = NULL;
    int n = 0;
    *options = NULL;
    if (store_eval_run_list(r->h.st, r->session, "interrupted", &runs, &n, err) != 0)
        return -1;
    if (n == 0) {
        store_eval_run_list_free(runs, n);
        return kwb_error_set(err, "nothing to resume: the session has no interrupted evaluation");
    }
    store_eval_run last = runs[n - 1];
    r->eval_run = last.id;
    r->candidate = last.candidate;
    r->round = last.round;
    store_eval_run_list_free(runs, n);
    return store_eval_options(r->h.st, r->eval_run, options, err);
}

int evalrec_resume(eval_recorder *r, char **dir, char ***done, int *ndone, kwb_error *err)
{
    char *options = NULL;
    if (!r->eval_run && evalrec_resume_find(r, &options, err) != 0)
        return -1;
    free(options);
    store_candidate c = {0};
    if (store_candidate_get(r->h.st, r->candidate, &c, err) != 0)
        return -1;
    char *tmpl = owntmp_make("resume", err);
    int rc = tmpl ? 0 : -1;
    if (rc == 0) {
        rmdir(tmpl); /* archive_checkout creates it and refuses a non-empty one */
        rc = archive_checkout(r->h.ar, c.commit, tmpl, err);
    }
    store_candidate_free(&c);
    if (rc == 0)
        rc = store_eval_resume(r->h.st, r->eval_run, err);
    if (rc == 0)
        rc = store_eval_uuids(r->h.st, r->eval_run, done, ndone, err);
    if (rc == 0)
        *dir = tmpl;
    else if (tmpl)
        paths_remove_tree(tmpl);
    if (rc != 0)
        free(tmpl);
    return rc;
}

int evalrec_finish(eval_recorder *r, const wl_result *res, int n, kwb_error *err)
{
    store_eval_run run = {0};
    if (store_eval_run_get(r->h.st, r->eval_run, &run, err) != 0)
        return r->failed ? kwb_error_set(err, "%d result(s) could not be recorded: %s", r->failed, r->first_error.msg)
                         : -1;
    int complete = run.n_done >= run.n_workloads;
    store_eval_run_free(&run);
    results_summary s = results_summarize(res, n);
    char *outcome =
        n ? xasprintf("%d of %d PASSED; mean latency %.4f ms", s.by_status[ST_PASSED], s.total, s.mean_latency_ms)
          : xstrdup("completed on resume: every workload had been recorded");
    int rc = store_eval_finish(r->h.st, r->eval_run, complete ? "complete" : "interrupted", err);
    if (rc == 0 && r->round)
        rc = store_round_end(r->h.st, r->round, complete ? "done" : "interrupted", outcome, err);
    free(outcome);
    if (r->failed) /* the first failure says more than a later one */
        rc = kwb_error_set(err, "%d result(s) could not be recorded: %s", r->failed, r->first_error.msg);
    return rc;
}

void evalrec_close(eval_recorder *r)
{
    if (r->session) {
        kwb_error err;
        store_session_release(r->h.st, r->session, getpid(), &err);
    }
    wsclose(&r->h);
    free(r->session_name);
    free(r->definition);
    r->session_name = r->definition = NULL;
}

/* roundctx.c - a round's starting point from the workspace (see roundctx.h). */
#include "roundctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "paths.h"
#include "solution.h"
#include "traceset.h"
#include "xalloc.h"

/* The directions decided in the session (their titles are the ids). */
static void load_tried(round_ctx *c)
{
    store_direction *d = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_direction_list(c->h.st, c->session, 0, &d, &n, &err) != 0)
        return;
    for (int i = 0; i < n; i++)
        if (strcmp(d[i].state, "proposed") != 0) {
            c->tried = xrealloc(c->tried, (size_t)(c->ntried + 1) * sizeof *c->tried);
            c->tried[c->ntried++] = xstrdup(d[i].title);
        }
    store_direction_list_free(d, n);
}

/* The rounds so far as the supervisor and the ranking see them. */
static void load_history(round_ctx *c)
{
    store_round *r = NULL;
    int n = 0;
    kwb_error err = {{0}};
    if (store_trajectory(c->h.st, c->session, 0, &r, &n, &err) != 0)
        return;
    c->hist = xcalloc((size_t)n + 1, sizeof *c->hist);
    for (int i = 0; i < n; i++) {
        c->hist[i].direction = xstrdup(r[i].title ? r[i].title : "");
        c->hist[i].promoted = r[i].candidate && r[i].best_candidate == r[i].candidate;
        c->hist[i].best_ms = r[i].best_mean_ms;
    }
    c->nhist = n;
    store_round_list_free(r, n);
}

/* The best (the candidate promoted last), its folder and its class. */
static void load_best(round_ctx *c)
{
    int64_t id = 0;
    kwb_error err = {{0}};
    snprintf(c->cls, sizeof c->cls, "unknown");
    if (store_candidate_promoted(c->h.st, c->session, &id, &c->best_ms, &err) != 1)
        return;
    store_candidate cand;
    if (store_candidate_get(c->h.st, id, &cand, &err) == 0) {
        c->best_name = xstrdup(cand.name);
        c->best_dir = wsopen_candidate_folder(&c->h, c->session_name, &cand, &err); /* NULL: gone, no commit */
        store_candidate_free(&cand);
    }
    store_candidate_failure(c->h.st, id, c->failing, sizeof c->failing, &err);
    store_wl_table t;
    if (store_wl_table_get(c->h.st, id, &t, &err) == 1) {
        double *lat = xcalloc((size_t)t.n + 1, sizeof *lat), *roof = xcalloc((size_t)t.n + 1, sizeof *roof);
        for (int i = 0; i < t.n; i++)
            lat[i] = t.rows[i].median_ms, roof[i] = t.rows[i].roofline;
        snprintf(c->cls, sizeof c->cls, "%s", directions_class_of(lat, roof, t.n, &c->roofline));
        free(lat);
        free(roof);
        store_wl_table_free(&t);
    }
}

int round_ctx_open(const char *ws_dir, const char *session, int readonly, round_ctx *c, kwb_error *err)
{
    memset(c, 0, sizeof *c);
    if (wsopen(ws_dir, readonly, &c->h, err) != 0)
        return -1;
    store_session s;
    if (wsopen_session(&c->h, session, &c->session, err) != 0 || store_session_get(c->h.st, c->session, &s, err) != 0) {
        wsclose(&c->h);
        return -1;
    }
    c->session_name = xstrdup(s.name);
    c->definition = xstrdup(s.definition);
    store_session_free(&s);
    char *root = paths_dataset();
    c->definition_path = traceset_definition_path(root, c->definition, err);
    free(root);
    char *skills = paths_skills();
    int rc = c->definition_path ? skills_load_dir(skills, &c->skills, err) : -1;
    free(skills);
    if (rc != 0) {
        round_ctx_close(c);
        return -1;
    }
    load_best(c);
    load_tried(c);
    load_history(c);
    return 0;
}

int round_ctx_open_for(const char *cmd, const char *ws_dir, const char *session, const char *agent, int readonly,
                       round_ctx *c)
{
    kwb_error err = {{0}};
    if (!agent_known(agent)) {
        fprintf(stderr, "%s: unknown agent '%s'\n", cmd, agent);
        return 2;
    }
    if (round_ctx_open(ws_dir, session, readonly, c, &err) != 0) {
        fprintf(stderr, "%s: %s\n", cmd, err.msg);
        return 2;
    }
    return 0;
}

direction_ctx round_ctx_directions(const round_ctx *c)
{
    return (direction_ctx){
        .definition = c->definition,
        .cls = c->cls,
        .regime = NULL,
        .roofline_share = c->roofline,
        .failing = c->failing[0] ? c->failing : NULL,
        .tried = (const char *const *)c->tried,
        .ntried = c->ntried,
        .hist = c->hist,
        .nhist = c->nhist,
    };
}

int round_ctx_propose(const round_ctx *c, const char *agent, int limit, direction **out, int *n, tuner_knob **knobs,
                      int *nknobs, kwb_error *err)
{
    direction_ctx dc = round_ctx_directions(c);
    *knobs = NULL;
    *nknobs = 0;
    *out = NULL;
    *n = 0;
    if (strcmp(agent, "tuner") != 0) {
        directions_rank(&c->skills, &dc, out, n);
        if (limit > 0 && *n > limit)
            *n = limit;
        return 0;
    }
    if (!c->best_dir)
        return kwb_error_set(err, "session '%s' has no promoted candidate with a folder to tune", c->session_name);
    solution *best = solution_load(c->best_dir, err);
    if (!best || tuner_scan(best, knobs, nknobs, err) != 0) {
        solution_free(best);
        return -1;
    }
    solution_free(best);
    return directions_tuner(*knobs, *nknobs, &dc, limit, out, n);
}

void round_ctx_close(round_ctx *c)
{
    for (int i = 0; i < c->ntried; i++)
        free(c->tried[i]);
    free(c->tried);
    for (int i = 0; i < c->nhist; i++)
        free((char *)c->hist[i].direction);
    free(c->hist);
    skills_set_free(&c->skills);
    free(c->session_name);
    free(c->definition);
    free(c->definition_path);
    free(c->best_name);
    free(c->best_dir);
    if (c->h.st)
        wsclose(&c->h);
    memset(c, 0, sizeof *c);
}

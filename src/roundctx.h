/* roundctx.h - what a round starts from, read from the workspace: the session, its
 * definition, the best candidate (name, folder, mean latency), what bounds it (class and
 * roofline share from its latest evaluation), the directions already decided, and the rounds
 * so far. Shared by `kwb propose`, `kwb write` and the workbench. */
#ifndef KWB_ROUNDCTX_H
#define KWB_ROUNDCTX_H

#include "directions.h"
#include "skills.h"
#include "supervisor.h"
#include "wsopen.h"

typedef struct round_ctx {
    ws_handle h;
    int64_t session;
    char *session_name;
    char *definition;      /* name */
    char *definition_path; /* its JSON under the dataset */
    char *best_name;       /* NULL when the session has no promoted candidate */
    char *best_dir;
    double best_ms;
    char cls[32];      /* class of the best ("unknown" when not timed) */
    double roofline;   /* its latency-weighted roofline share, 0 when unknown */
    char failing[160]; /* what the best fails (store_candidate_failure), "" when it passes all */
    char **tried;      /* direction ids decided in the session */
    int ntried;
    sv_round *hist; /* rounds so far, oldest first */
    int nhist;
    skill_set skills; /* the skills folder (paths_skills) */
} round_ctx;

/* Opens the workspace (WORKSPACE or found), session SESSION (NULL: the newest) and everything
 * above; READONLY opens the store read-only. Returns 0, or -1 with *err set and nothing open. */
int round_ctx_open(const char *ws_dir, const char *session, int readonly, round_ctx *c, kwb_error *err);
/* round_ctx_open for command CMD ("kwb write"; READONLY as there) after checking that AGENT is
 * an agent this kwb knows: 0, or 2 (the exit code) with the problem said on stderr as "CMD: ...". */
int round_ctx_open_for(const char *cmd, const char *ws_dir, const char *session, const char *agent, int readonly,
                       round_ctx *c);
/* The ranking context for C (valid while C is open). */
direction_ctx round_ctx_directions(const round_ctx *c);
/* Directions for agent AGENT from C (tuner: knob changes of the best; others: ranked skill
 * directions) into *out[*n] (free with free()); *knobs keeps the tuner's knobs alive (free
 * with tuner_knobs_free(*knobs, *nknobs)). Returns 0, or -1 with *err set. */
int round_ctx_propose(const round_ctx *c, const char *agent, int limit, direction **out, int *n, tuner_knob **knobs,
                      int *nknobs, kwb_error *err);
/* Closes what C holds. */
void round_ctx_close(round_ctx *c);

#endif

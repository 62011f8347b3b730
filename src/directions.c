/* directions.c - ranking of a round's directions (see directions.h). */
#include "directions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bottleneck.h"
#include "xalloc.h"

static int was_tried(const direction_ctx *c, const char *id)
{
    for (int i = 0; i < c->ntried; i++)
        if (c->tried[i] && strcmp(c->tried[i], id) == 0)
            return 1;
    return 0;
}

static int list_has(const skill_list *l, const char *item)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->items[i], item) == 0)
            return 1;
    return 0;
}

static int known(const char *cls)
{
    return cls && *cls && strcmp(cls, "unknown") != 0;
}

/* Rejections and promotions of ID's family in the history. */
static void family_record(const direction_ctx *c, const char *id, int *rejected, int *promoted)
{
    char fam[160], other[160];
    sv_family(id, fam, sizeof fam);
    *rejected = *promoted = 0;
    for (int i = 0; i < c->nhist; i++) {
        if (!c->hist[i].direction || strcmp(sv_family(c->hist[i].direction, other, sizeof other), fam) != 0)
            continue;
        if (c->hist[i].promoted)
            (*promoted)++;
        else
            (*rejected)++;
    }
}

/* Appends ", TEXT" (or TEXT first) to a rationale. */
static void because(char *buf, size_t cap, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, cap - used, "%s%s", used ? "; " : "", text);
}

/* How well D's classes fit the best's class in C: the score's share, said into WHY. */
static double class_fit(const direction_ctx *c, const skill_direction *d, char *why, size_t cap)
{
    if (!known(c->cls)) {
        snprintf(why, cap, "class of the best not known yet (profile it with p / kwb profile)");
        return 0;
    }
    if (list_has(&d->applies, c->cls)) {
        snprintf(why, cap, "the best is %s, which this direction addresses", c->cls);
        return 4;
    }
    if (list_has(&d->applies, "any")) {
        snprintf(why, cap, "applies to any class (the best is %s)", c->cls);
        return 1;
    }
    snprintf(why, cap, "addresses other classes than %s", c->cls);
    return -2;
}

/* Scores skill direction D for C and explains it into OUT. */
static void score_skill(const direction_ctx *c, const skill_direction *d, direction *out)
{
    char why[256];
    double s = 0;
    int fixes = list_has(&d->applies, "failing");
    if (fixes && c->failing) { /* correctness before speed: a failing best is not a best */
        s += 8;
        snprintf(why, sizeof why, "the best fails a check (%.160s), which this direction fixes", c->failing);
        because(out->rationale, sizeof out->rationale, why);
    } else if (fixes) {
        s -= 3;
        because(out->rationale, sizeof out->rationale, "fixes a failing check; the best passes every one");
    }
    if (!fixes || d->applies.n > 1) { /* a fix alone has no class to weigh */
        s += class_fit(c, d, why, sizeof why);
        because(out->rationale, sizeof out->rationale, why);
    }
    if (c->regime && d->regimes.n > 0) {
        if (list_has(&d->regimes, c->regime)) {
            s += 2;
            snprintf(why, sizeof why, "targets %s, the regime with most latency", c->regime);
        } else {
            s -= 1;
            snprintf(why, sizeof why, "targets other regimes than %s", c->regime);
        }
        because(out->rationale, sizeof out->rationale, why);
    }
    int rej, prom;
    family_record(c, d->id, &rej, &prom);
    if (rej) {
        s -= 1.5 * rej;
        snprintf(why, sizeof why, "its family was rejected %d time%s", rej, rej == 1 ? "" : "s");
        because(out->rationale, sizeof out->rationale, why);
    }
    if (prom) {
        s += 0.5;
        because(out->rationale, sizeof out->rationale, "its family gained before");
    }
    out->score = s;
}

/* The effect to expect from the best's class and roofline share. */
static void predict(const direction_ctx *c, direction *d)
{
    if (!known(c->cls)) {
        snprintf(d->predicted, sizeof d->predicted, "unknown until measured");
    } else if (c->roofline_share > 0 && c->roofline_share < 1) {
        snprintf(d->predicted, sizeof d->predicted, "%s: at most %.2fx by the roofline (share %.0f%%)", c->cls,
                 1.0 / c->roofline_share, 100.0 * c->roofline_share);
    } else {
        snprintf(d->predicted, sizeof d->predicted, "%s: gain bounded by the class", c->cls);
    }
}

int directions_rank(const skill_set *skills, const direction_ctx *ctx, direction **out, int *n)
{
    int cap = 0;
    *out = NULL;
    *n = 0;
    for (int i = 0; i < skills->n; i++)
        cap += skills->skills[i].ndirs;
    direction *v = xcalloc((size_t)cap + 1, sizeof *v);
    int k = 0;
    for (int i = 0; i < skills->n; i++) {
        const skill *sk = &skills->skills[i];
        for (int j = 0; j < sk->ndirs; j++) {
            const skill_direction *d = &sk->dirs[j];
            if (!skills_applies(sk, d, ctx->definition, NULL, NULL) || was_tried(ctx, d->id))
                continue;
            direction *o = &v[k++];
            snprintf(o->id, sizeof o->id, "%s", d->id);
            snprintf(o->title, sizeof o->title, "%s", d->title);
            snprintf(o->source, sizeof o->source, "skill");
            o->skill = sk;
            o->sd = d;
            score_skill(ctx, d, o);
            predict(ctx, o);
        }
    }
    /* best first; an insertion sort is stable, so equal scores keep the skills' declared order */
    for (int i = 1; i < k; i++) {
        direction x = v[i];
        int j = i;
        for (; j > 0 && v[j - 1].score < x.score; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
    *out = v;
    *n = k;
    return 0;
}

int directions_tuner(const tuner_knob *k, int nk, const direction_ctx *ctx, int limit, direction **out, int *n)
{
    int cap = 0;
    for (int i = 0; i < nk; i++)
        cap += k[i].nvalues;
    direction *v = xcalloc((size_t)cap + 1, sizeof *v);
    const char **tried = xcalloc((size_t)(ctx->ntried + cap + 1), sizeof *tried);
    for (int i = 0; i < ctx->ntried; i++)
        tried[i] = ctx->tried[i];
    int ntried = ctx->ntried, m = 0;
    tuner_proposal p;
    while ((limit <= 0 || m < limit) && tuner_propose(k, nk, tried, ntried, &p)) {
        direction *o = &v[m++];
        snprintf(o->id, sizeof o->id, "%s", p.id);
        snprintf(o->title, sizeof o->title, "%s", p.title);
        snprintf(o->source, sizeof o->source, "tuner");
        int rej, prom;
        family_record(ctx, p.id, &rej, &prom);
        snprintf(o->rationale, sizeof o->rationale, "knob %s: the untried value nearest %s%s", p.knob->name,
                 p.knob->value, rej ? "; this knob's other values were rejected before" : "");
        predict(ctx, o);
        o->score = -m;
        tried[ntried++] = v[m - 1].id;
    }
    free(tried);
    *out = v;
    *n = m;
    return 0;
}

const char *directions_class_of(const double *lat_ms, const double *roof, int n, double *share)
{
    double w = 0, r = 0;
    for (int i = 0; i < n; i++)
        if (lat_ms[i] > 0 && roof[i] > 0)
            w += lat_ms[i], r += lat_ms[i] * roof[i];
    *share = w > 0 ? r / w : 0;
    if (w <= 0)
        return "unknown";
    bottleneck_input in = bottleneck_input_empty();
    in.roofline_share = *share;
    in.memory_floor = 1;
    return bottleneck_classify(&in).cls;
}

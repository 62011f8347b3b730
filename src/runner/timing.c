#include "runner/timing.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "xalloc.h"

/* With hooks, sampling stops at this many times max_time_s (plus a second) of wall time all told. */
#define TIMING_HOOKS_CAP 4

/* A paired gate is not stopped by max_time_s before each side has this many samples: fewer can
 * hardly decide (the bootstrap needs VERDICT_MIN_SAMPLES at the very least), and a cap that ends a
 * gate after three pairs of a 40 us kernel (the flushes and CUPTI's records take the wall time)
 * calls a 2.7x speed-up "unclear". The hard cap above still bounds the loop. */
#define TIMING_GATE_MIN_PAIRS 10

static void series_add(timing_series *s, const device_sample *x, int mark, int place)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ms = xrealloc(s->ms, s->cap * sizeof *s->ms);
        s->event_ms = xrealloc(s->event_ms, s->cap * sizeof *s->event_ms);
        s->mark = xrealloc(s->mark, s->cap * sizeof *s->mark);
        s->place = xrealloc(s->place, s->cap * sizeof *s->place);
    }
    s->ms[s->n] = x->ms;
    s->event_ms[s->n] = x->event_ms;
    s->mark[s->n] = (unsigned char)mark;
    s->place[s->n] = (unsigned char)place;
    s->n++;
    s->clock_mhz += x->clock_mhz; /* summed here, averaged at the end */
}

/* Where the next call's inputs lie (0 when the hooks do not say). */
static int place_now(const timing_hooks *h, void *ctx)
{
    return h && h->place ? h->place(ctx) & 0xff : 0;
}

/* Runs the after hook of callee WHICH, if any. */
static int after_call(const timing_hooks *h, void *ctx, int which, int *mark, kwb_error *err)
{
    *mark = MARK_PLAIN;
    return h && h->after ? h->after(ctx, which, mark, err) : 0;
}

static int warm_up(device *dev, const timing_policy *p, int n, device_call call, void *ctx, const timing_hooks *h,
                   kwb_error *err)
{
    double start = proc_now();
    int extra = h ? h->extra_warmup : 0, mark;
    do {
        for (int w = 0; w < n; w++)
            if (call(ctx, w, err) != 0 || dev->ops->sync(dev, err) != 0 || after_call(h, ctx, w, &mark, err) != 0)
                return -1;
    } while (proc_now() - start < p->warmup_s || extra-- > 0);
    return 0;
}

/* The confidence of the median's interval that ci_target bounds. */
#define TIMING_CI_CONFIDENCE 0.95

/* Input sets the plain samples must span before their CI is bootstrapped over sets: fewer say
 * little about how the sets differ (sampling does not stop for precision before the integrity
 * checks' 16 fresh calls per callee anyway). */
#define TIMING_CI_SETS_MIN 8
/* Bootstrap draws, the same for the stop rule's looks and the interval reported at the end (keyed
 * by the sample count: a run stopped for precision reports the interval that stopped it). About
 * 4 ms over 250 samples on a loaded 2-core VM. */
#define TIMING_CI_RESAMPLES 500

/* The bootstrap's relative half-width over the places of the M plain samples V (PLACE[i]: sample
 * i's), regrouped so that each place's samples form one run; *PLACES gets how many there are.
 * 0 with fewer than TIMING_CI_SETS_MIN places: a place's effect is then not measured. */
static double place_ci(const double *v, const unsigned char *place, size_t m, size_t *places)
{
    size_t count[256] = {0}, at[256];
    *places = 0;
    for (size_t i = 0; i < m; i++)
        *places += count[place[i]]++ == 0;
    if (*places < TIMING_CI_SETS_MIN)
        return 0;
    at[0] = 0;
    for (int k = 1; k < 256; k++)
        at[k] = at[k - 1] + count[k - 1];
    double *by = xmalloc((m + 1) * sizeof *by);
    int *id = xmalloc((m + 1) * sizeof *id);
    for (size_t i = 0; i < m; i++) {
        size_t to = at[place[i]]++;
        by[to] = v[i];
        id[to] = place[i];
    }
    double rel =
        stats_median_ci_rel_grouped(by, id, m, TIMING_CI_CONFIDENCE, TIMING_CI_RESAMPLES, 0x706c61636573ULL ^ m, NULL);
    free(by);
    free(id);
    return rel;
}

/* Moves each of V[0..M) by its place's mean (PLACE[i]), less the mean of all: what is left between
 * sets is their own variance, not their places'. */
static void center_by_place(double *v, const unsigned char *place, size_t m)
{
    double sum[256] = {0}, all = 0;
    size_t count[256] = {0};
    for (size_t i = 0; i < m; i++)
        sum[place[i]] += v[i], count[place[i]]++, all += v[i];
    all /= m ? (double)m : 1;
    for (size_t i = 0; i < m; i++)
        v[i] -= sum[place[i]] / (double)count[place[i]] - all;
}

/* The relative half-width of the median's CI over the samples the summary is taken over (the
 * plain ones when there are at least 3, as timing_summary_plain): the order statistics' interval
 * of independent samples, or, unless the policy says ci_iid, the widest of that, a bootstrap
 * over the input sets the samples ran on (a set starts at each call marked fresh) and one over
 * the places those sets lay at (when there are TIMING_CI_SETS_MIN or more). Calls on one set are
 * not independent draws: a kernel whose time depends on the data (the DSA top-k, on the H200)
 * or on where the data lies gave medians 1 % apart in runs that each claimed +-0.5 %; sets at one
 * place share that place's effect (the top-k's two places in one H100 run: up to 1.2 % apart). */
static double series_ci(const timing_policy *p, timing_series *s, int final)
{
    double *v = xmalloc((s->n + 1) * sizeof *v);
    int *set = xmalloc((s->n + 1) * sizeof *set), sets = 0;
    unsigned char *place = xmalloc(s->n + 1);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++) {
        sets += timing_mark_new_set(s->mark[i]);
        if (timing_mark_plain(s->mark[i]))
            set[m] = sets, place[m] = s->place[i], v[m++] = s->ms[i];
    }
    if (m < 3 && s->n > 0) {
        memcpy(v, s->ms, s->n * sizeof *v);
        m = s->n;
        sets = 0;
    }
    size_t groups = 0, places = 0;
    double *sorted = xmalloc((m + 1) * sizeof *sorted);
    memcpy(sorted, v, m * sizeof *sorted);
    stats_sort(sorted, m);
    double rel = stats_median_ci_rel(sorted, m, TIMING_CI_CONFIDENCE), grouped = 0;
    /* a look whose order statistics are still too wide needs no bootstrap to say so */
    if (sets > 0 && !p->ci_iid && (final || rel <= p->ci_target)) {
        grouped = stats_median_ci_rel_grouped(v, set, m, TIMING_CI_CONFIDENCE, TIMING_CI_RESAMPLES,
                                              0x63692d73657473ULL ^ m, &groups);
        double by_place = place_ci(v, place, m, &places);
        s->places_bound = by_place > grouped && by_place > rel;
        grouped = by_place > grouped ? by_place : grouped;
    }
    s->ci_sets = groups;
    s->ci_places = places >= TIMING_CI_SETS_MIN ? places : 0;
    if (groups > 0) { /* a look without the bootstrap leaves the last one's finding */
        s->sets_bound = groups >= TIMING_CI_SETS_MIN && grouped > 1.25 * rel;
        double within = 0, between = 0, lo = stats_quantile_sorted(sorted, m, 0.02),
               hi = stats_quantile_sorted(sorted, m, 0.98);
        for (size_t i = 0; i < m; i++) /* a preempted call is not the sets' doing */
            v[i] = v[i] < lo ? lo : v[i] > hi ? hi : v[i];
        center_by_place(v, place, m); /* more sets at the same places do not average the places out */
        stats_variance_parts(v, set, m, &within, &between);
        s->within_between = between > 0 ? within / between : within > 0 ? INFINITY : 0;
    }
    free(sorted);
    free(v);
    free(set);
    free(place);
    if (groups > 0 && groups < TIMING_CI_SETS_MIN)
        return INFINITY; /* too few sets to know how much they differ */
    return grouped > rel ? grouped : rel;
}

/* The share of a place-bound interval's width left after its samples doubled at which it has
 * stalled (note_stall). */
#define TIMING_STALL_SHARE 0.9

/* Notes at a look at S's CI whether its interval has stalled: bound by the places its input sets
 * lay at, the same places as at a look with half the samples or fewer, and narrowed by less than
 * a tenth since (an interval of independent samples narrows by 29 % when they double). A fixed set
 * of places pins their average no closer however many calls are made at them. */
static void note_stall(timing_series *s)
{
    if (!s->places_bound || s->ci_places == 0) {
        s->stall_n = 0;
        return;
    }
    if (s->stall_n > 0 && s->ci_places == s->stall_places && s->n >= 2 * s->stall_n) {
        if (s->ci_rel > TIMING_STALL_SHARE * s->stall_ci) {
            s->ci_stalled = 1;
            return;
        }
    } else if (s->stall_n > 0 && s->ci_places == s->stall_places)
        return; /* not yet twice the samples: keep the look to compare with */
    s->stall_n = s->n;
    s->stall_ci = s->ci_rel;
    s->stall_places = s->ci_places;
}

/* True when series S has the policy's samples and device time, and its noise (rsd) and the
 * precision of its median (CI) are within their targets, or that CI has stalled (note_stall).
 * The CI is recomputed only when the series has grown by an eighth since it was last looked at,
 * so that sorting stays cheap. */
static int series_settled(const timing_policy *p, timing_series *s, int precision)
{
    if ((int)s->n < p->min_samples || s->device_s < p->min_time_s)
        return 0;
    if (p->rsd_target > 0 && stats_rsd(s->ms, s->n) > p->rsd_target)
        return 0;
    if (!precision || p->ci_target <= 0)
        return 1;
    if (s->n >= s->ci_next) {
        s->ci_rel = series_ci(p, s, 0);
        s->ci_next = s->n + (s->n / 8 > 1 ? s->n / 8 : 1);
        note_stall(s);
    }
    return s->ci_rel <= p->ci_target || s->ci_stalled;
}

/* True when every series has settled; PRECISION: the medians' CIs count too. */
static int settled(const timing_policy *p, int n, timing_series *series, int precision)
{
    for (int w = 0; w < n; w++)
        if (!series_settled(p, &series[w], precision))
            return 0;
    return 1;
}

int timing_mark_plain(int mark)
{
    return mark == MARK_PLAIN || mark == MARK_SET;
}

int timing_mark_new_set(int mark)
{
    return mark == MARK_FRESH || mark == MARK_SET;
}

stats_summary timing_summary_plain(const double *ms, const unsigned char *mark, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; mark && i < n; i++)
        m += timing_mark_plain(mark[i]);
    if (!mark || m < 3)
        return stats_summarize(ms, n);
    double *plain = xmalloc(m * sizeof *plain);
    m = 0;
    for (size_t i = 0; i < n; i++)
        if (timing_mark_plain(mark[i]))
            plain[m++] = ms[i];
    stats_summary s = stats_summarize(plain, m);
    free(plain);
    return s;
}

static void finish_series(const timing_policy *p, timing_series *s)
{
    s->summary = timing_summary_plain(s->ms, s->mark, s->n);
    s->ci_rel = series_ci(p, s, 1);
    s->clock_mhz = s->n ? s->clock_mhz / (double)s->n : 0;
    size_t m = 0;
    double *ev = xmalloc((s->n + 1) * sizeof *ev);
    for (size_t i = 0; i < s->n; i++)
        if (s->event_ms[i] >= 0)
            ev[m++] = s->event_ms[i];
    s->event_summary = stats_summarize(ev, m);
    free(ev);
}

verdict timing_gate(const timing_series *c, const timing_series *b)
{
    if (c->n == b->n)
        return verdict_decide(b->ms, b->n, c->ms, c->n, TIMING_GATE_THRESHOLD, TIMING_GATE_CONFIDENCE,
                              TIMING_GATE_RESAMPLES, 0x6761746531ULL);
    return verdict_decide_unpaired(b->ms, b->n, c->ms, c->n, TIMING_GATE_THRESHOLD, TIMING_GATE_CONFIDENCE,
                                   TIMING_GATE_RESAMPLES, 0x6761746531ULL);
}

/* True when the gate has a verdict (or there is no gate to decide). The bootstrap runs only
 * once the pairs have grown by an eighth since the last one, so that it stays cheap. */
static int gate_decided(int n, timing_series *series, verdict *gate, size_t *next)
{
    if (n < 2 || !gate)
        return 1;
    size_t pairs = series[0].n < series[1].n ? series[0].n : series[1].n;
    if (pairs < *next)
        return 0;
    *next = pairs + (pairs / 8 > 16 ? pairs / 8 : 16);
    *gate = timing_gate(&series[0], &series[1]);
    return gate->kind != VERDICT_UNCLEAR;
}

/* Whether sampling may stop: alone, when the series has settled (precision included); paired
 * with a gate, when the counts are in and the verdict is decided at its threshold. */
static int may_stop(const timing_policy *p, int n, timing_series *series, verdict *gate, size_t *gate_next)
{
    if (n == 2 && gate)
        return settled(p, n, series, 0) && gate_decided(n, series, gate, gate_next);
    return settled(p, n, series, 1);
}

int timing_measure(device *dev, const timing_policy *p, int n, device_call call, void *ctx, timing_series *series,
                   verdict *gate, kwb_error *err)
{
    return timing_measure_hooked(dev, p, n, call, ctx, NULL, series, gate, err);
}

/* Callee of the timed call at position C of the schedule: rounds A B, B A, A B, ... */
static int scheduled(int n, long c)
{
    long round = c / n, k = c % n;
    return (int)((round & 1) ? n - 1 - k : k);
}

/* Device time a batch may spend past the point where sampling could next stop: a fast kernel's
 * extra samples cost less than smaller batches' synchronizations, a slow kernel's do not. */
#define TIMING_OVERSHOOT_S 0.002

/* Rounds worth queueing now. Without a paired gate: those needed before sampling may next stop
 * (the policy's count, the next look at the CI), then, once a sample's cost is known, as many as
 * TIMING_OVERSHOOT_S of device time buys at the last samples' cost (flush included); at least one.
 * A paired gate takes whole batches: it stops on the time cap after TIMING_GATE_MIN_PAIRS, and the
 * pairs a batch adds narrow its verdict (cut to the minimum, a fix's 5 % rule failed on CPU noise). */
static int rounds_worth(const timing_policy *p, int n, const timing_series *series, int paired)
{
    if (paired)
        return TIMING_BATCH_MAX;
    long need = 1;
    double round_s = 0;
    for (int w = 0; w < n; w++) {
        const timing_series *s = &series[w];
        long look = (long)s->ci_next;
        long want = (p->min_samples > look ? p->min_samples : look) - (long)s->n;
        need = want > need ? want : need;
        if (s->n == 0) /* no cost known yet: the count needed */
            return (int)need;
        round_s += s->ms[s->n - 1] * 1e-3 + s->flush_s / (double)(s->n + s->dropped);
    }
    double extra = round_s > 0 ? TIMING_OVERSHOOT_S / round_s : TIMING_BATCH_MAX;
    return (int)(need + (extra < TIMING_BATCH_MAX ? (long)extra : TIMING_BATCH_MAX));
}

/* Rounds (of N calls from position C, at most WORTH) that may be sampled as one batch: 0 when
 * the device has no batched path, graph replay is on, or the hooks allow fewer than two rounds. */
static int batch_rounds(const device *dev, const timing_policy *p, int n, long c, int worth, const timing_hooks *hooks,
                        void *ctx, int *which)
{
    if (!dev->ops->sample_batch || p->graph > 0 || (hooks && !hooks->free_run))
        return 0;
    int k = TIMING_BATCH_MAX / n * n;
    if (worth * n < k)
        k = worth * n;
    for (int i = 0; i < k; i++)
        which[i] = scheduled(n, c + i);
    int free = hooks ? hooks->free_run(ctx, which, k) : k;
    int rounds = (free < k ? free : k) / n;
    return rounds >= 2 ? rounds : 0;
}

/* Adds sample X of callee WHICH (after its hook), taken on inputs at PLACE, to its series. */
static void take_sample(const timing_policy *p, timing_series *s, const device_sample *x, int mark, int place)
{
    s->flush_s += x->flush_ms * 1e-3;
    if (x->throttled) {
        s->dropped++;
        return;
    }
    series_add(s, x, mark, place);
    s->device_s += x->ms * 1e-3 * (p->graph > 0 ? p->graph : 1);
}

/* Runs the after hooks of the K calls just sampled and takes their samples; HOOKS_S gains the
 * hooks' wall time. */
static int after_samples(const timing_policy *p, const timing_hooks *hooks, void *ctx, const int *which,
                         const device_sample *x, int k, timing_series *series, double *hooks_s, kwb_error *err)
{
    for (int i = 0; i < k; i++) {
        int mark, place = place_now(hooks, ctx);
        double h0 = proc_now();
        if (after_call(hooks, ctx, which[i], &mark, err) != 0)
            return -1;
        *hooks_s += proc_now() - h0;
        take_sample(p, &series[which[i]], &x[i], mark, place);
    }
    return 0;
}

/* Samples the N calls of one round, or ROUNDS rounds as one batch when ROUNDS > 0, from
 * schedule position C. */
static int sample_rounds(device *dev, const timing_policy *p, int n, long c, int rounds, device_call call, void *ctx,
                         const timing_hooks *hooks, int *which, timing_series *series, double *hooks_s, kwb_error *err)
{
    device_sample x[TIMING_BATCH_MAX];
    memset(x, 0, sizeof x);
    if (rounds > 0) {
        if (dev->ops->sample_batch(dev, p, call, ctx, which, rounds * n, x, err) != 0)
            return -1;
        return after_samples(p, hooks, ctx, which, x, rounds * n, series, hooks_s, err);
    }
    for (int k = 0; k < n; k++) {
        which[k] = scheduled(n, c + k);
        if (dev->ops->sample(dev, p, call, ctx, which[k], &x[k], err) != 0 ||
            after_samples(p, hooks, ctx, &which[k], &x[k], 1, series, hooks_s, err) != 0)
            return -1;
    }
    return 0;
}

/* Tells the hooks what a series' last look found of its input sets when it differs from what
 * they were last told (TOLD, TOLD_RATIO: per series). */
static void tell_sets_bound(const timing_hooks *hooks, void *ctx, int n, const timing_series *series, int *told,
                            double *told_ratio)
{
    for (int w = 0; hooks && hooks->sets_bound && w < n; w++)
        if (series[w].sets_bound != told[w] || series[w].within_between != told_ratio[w])
            hooks->sets_bound(ctx, w, told[w] = series[w].sets_bound, told_ratio[w] = series[w].within_between);
}

int timing_measure_hooked(device *dev, const timing_policy *p, int n, device_call call, void *ctx,
                          const timing_hooks *hooks, timing_series *series, verdict *gate, kwb_error *err)
{
    memset(series, 0, sizeof *series * (size_t)n);
    double warm0 = proc_now();
    if (warm_up(dev, p, n, call, ctx, hooks, err) != 0)
        return -1;
    double start = proc_now(), hooks_s = 0; /* the hooks' time does not count against max_time_s */
    size_t gate_next = 0;
    int which[TIMING_BATCH_MAX], told[2] = {0, 0};
    double told_ratio[2] = {0, 0};
    for (long c = 0;;) {
        int worth = rounds_worth(p, n, series, n == 2 && gate);
        int rounds = batch_rounds(dev, p, n, c, worth, hooks, ctx, which);
        if (sample_rounds(dev, p, n, c, rounds, call, ctx, hooks, which, series, &hooks_s, err) != 0)
            return -1;
        c += (long)n * (rounds > 0 ? rounds : 1);
        double total = proc_now() - start, elapsed = total - hooks_s;
        tell_sets_bound(hooks, ctx, n, series, told, told_ratio);
        int evidence = !hooks || !hooks->enough || hooks->enough(ctx);
        int gate_starved =
            n == 2 && gate && (series[0].n < TIMING_GATE_MIN_PAIRS || series[1].n < TIMING_GATE_MIN_PAIRS);
        if ((evidence && may_stop(p, n, series, gate, &gate_next)) || (elapsed >= p->max_time_s && !gate_starved) ||
            total >= TIMING_HOOKS_CAP * p->max_time_s + 1.0) /* the hooks' time is not unbounded */
            break;
    }
    for (int w = 0; w < n; w++) {
        finish_series(p, &series[w]);
        series[w].warmup_s = start - warm0;
        series[w].loop_s = proc_now() - start;
        series[w].hooks_s = hooks_s;
    }
    if (n == 2 && gate)
        *gate = timing_gate(&series[0], &series[1]);
    return 0;
}

void timing_series_free(timing_series *s)
{
    free(s->ms);
    free(s->event_ms);
    free(s->mark);
    free(s->place);
    memset(s, 0, sizeof *s);
}

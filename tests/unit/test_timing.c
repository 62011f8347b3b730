/* test_timing.c - the sampling loop's stop rule on a scripted device: enough samples, enough
 * device time (the sum of the samples, graph replays counted per call) and quiet enough; the
 * median's precision (its CI within the target, checked against the CI computed here over the
 * same samples); a paired verdict decided; the integrity hooks' evidence; the wall-time cap;
 * throttled samples dropped; A B B A order; the CI bootstrapped over input sets. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "rng.h"
#include "runner/setsize.h"
#include "runner/timing.h"

/* A device whose samples take MS milliseconds each (no real time passes), every THROTTLE-th
 * one throttled; it records the order of callees. */
typedef struct fake {
    double ms[2];
    double noise; /* each sample is ms * (1 + noise * u), u uniform in [-1, 1) from a fixed LCG */
    uint64_t lcg;
    int throttle_every;
    int calls;
    int order[64];
} fake;

static fake the_fake;

static int fake_sync(device *d, kwb_error *err)
{
    (void)d, (void)err;
    return 0;
}

static int fake_sample(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                       kwb_error *err)
{
    (void)d, (void)p, (void)call, (void)ctx, (void)err;
    fake *f = &the_fake;
    if (f->calls < 64)
        f->order[f->calls] = which;
    f->calls++;
    out->ms = f->ms[which];
    if (f->noise > 0) {
        f->lcg = f->lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        out->ms *= 1 + f->noise * ((double)(f->lcg >> 11) / 9007199254740992.0 * 2 - 1);
    }
    out->event_ms = -1;
    out->throttled = f->throttle_every > 0 && f->calls % f->throttle_every == 0;
    return 0;
}

static int no_call(void *ctx, int which, kwb_error *err)
{
    (void)ctx, (void)which, (void)err;
    return 0;
}

static const device_ops fake_ops = {.kind = "fake", .sync = fake_sync, .sample = fake_sample};

static timing_series run(timing_policy p, double ms)
{
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = the_fake.ms[1] = ms;
    device dev = {&fake_ops, NULL};
    timing_series s;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure(&dev, &p, 1, no_call, NULL, &s, NULL, &err), 0);
    return s;
}

/* 2 ms samples: 0.5 s of device time takes 250 samples, far more than min_samples. */
static void test_device_time(void **state)
{
    (void)state;
    timing_series s =
        run((timing_policy){.min_samples = 10, .min_time_s = 0.5, .max_time_s = 60, .rsd_target = 0.005}, 2.0);
    assert_int_equal(s.n, 250);
    assert_true(s.device_s >= 0.5 && s.device_s < 0.502);
    assert_true(s.summary.median == 2.0);
    timing_series_free(&s);
    /* no time floor: min_samples decides */
    s = run((timing_policy){.min_samples = 10, .min_time_s = 0, .max_time_s = 60, .rsd_target = 0.005}, 2.0);
    assert_int_equal(s.n, 10);
    timing_series_free(&s);
}

/* A graph replay of 20 calls counts 20 calls of device time per sample. */
static void test_graph_counts_every_call(void **state)
{
    (void)state;
    timing_series s = run(
        (timing_policy){.min_samples = 10, .min_time_s = 0.5, .max_time_s = 60, .rsd_target = 0.005, .graph = 20}, 2.0);
    assert_int_equal(s.n, 13); /* 13 * 20 * 2 ms >= 500 ms > 12 * 20 * 2 ms */
    timing_series_free(&s);
}

/* Throttled samples are dropped and counted, not kept. */
static void test_throttled_dropped(void **state)
{
    (void)state;
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = 1.0;
    the_fake.throttle_every = 3;
    device dev = {&fake_ops, NULL};
    timing_policy p = {.min_samples = 10, .max_time_s = 60, .rsd_target = 0.005};
    timing_series s;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure(&dev, &p, 1, no_call, NULL, &s, NULL, &err), 0);
    assert_int_equal(s.n, 10);
    assert_true(s.dropped >= 4);
    timing_series_free(&s);
}

/* Two callees alternate A B, B A, ... after the warm-up call of each. */
static void test_interleaved(void **state)
{
    (void)state;
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = 1.0;
    the_fake.ms[1] = 1.0;
    device dev = {&fake_ops, NULL};
    timing_policy p = {.min_samples = 4, .max_time_s = 60, .rsd_target = 0.5};
    timing_series s[2];
    kwb_error err = {{0}};
    assert_int_equal(timing_measure(&dev, &p, 2, no_call, NULL, s, NULL, &err), 0);
    int want[8] = {0, 1, 1, 0, 0, 1, 1, 0};
    for (int i = 0; i < 8; i++)
        assert_int_equal(the_fake.order[i], want[i]);
    timing_series_free(&s[0]);
    timing_series_free(&s[1]);
}

/* A noisy series for policy P (one callee). */
static timing_series run_noisy(timing_policy p, double noise)
{
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = 1.0;
    the_fake.noise = noise;
    device dev = {&fake_ops, NULL};
    timing_series s;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure(&dev, &p, 1, no_call, NULL, &s, NULL, &err), 0);
    return s;
}

/* The CI over the first N samples of S, computed here. */
static double ci_of_first(const timing_series *s, size_t n)
{
    double v[4096];
    assert_true(n <= 4096);
    memcpy(v, s->ms, n * sizeof *v);
    stats_sort(v, n);
    return stats_median_ci_rel(v, n, 0.95);
}

/* Sampling stops at the first look (after min_samples, then every eighth more, at least 1)
 * where the median's CI is within the target: not before, and with a looser target sooner. */
static void test_precision_stop(void **state)
{
    (void)state;
    timing_policy p = {.min_samples = 10, .max_time_s = 60, .ci_target = 0.005};
    timing_series s = run_noisy(p, 0.1);
    assert_true(s.n > 10);
    assert_true(s.ci_rel <= 0.005);
    size_t n = 10;
    while (ci_of_first(&s, n) > 0.005) /* the looks, as the rule takes them */
        n += n / 8 > 1 ? n / 8 : 1;
    assert_int_equal(s.n, n);
    assert_true(fabs(s.summary.median - 1.0) < 0.01);
    timing_series loose = run_noisy((timing_policy){.min_samples = 10, .max_time_s = 60, .ci_target = 0.02}, 0.1);
    assert_true(loose.n < s.n);
    assert_true(loose.ci_rel <= 0.02 && loose.ci_rel > 0.005);
    timing_series_free(&s);
    timing_series_free(&loose);
    /* quiet samples: the minimum count decides */
    s = run_noisy(p, 0);
    assert_int_equal(s.n, 10);
    assert_true(s.ci_rel == 0);
    timing_series_free(&s);
    /* the target off: no precision asked for */
    s = run_noisy((timing_policy){.min_samples = 10, .max_time_s = 60}, 0.1);
    assert_int_equal(s.n, 10);
    timing_series_free(&s);
}

/* A paired timing stops once the verdict is decided: a candidate twice as fast is decided at
 * the first look, however noisy the medians still are. */
/* A paired timing under policy P of a 1 ms candidate against a 2 ms baseline, 10 % noise. */
static verdict run_paired_2x(timing_policy p, timing_series s[2])
{
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = 1.0;
    the_fake.ms[1] = 2.0;
    the_fake.noise = 0.1;
    device dev = {&fake_ops, NULL};
    verdict v;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure(&dev, &p, 2, no_call, NULL, s, &v, &err), 0);
    return v;
}

static void test_paired_stops_when_decided(void **state)
{
    (void)state;
    timing_series s[2];
    verdict v = run_paired_2x((timing_policy){.min_samples = 20, .max_time_s = 60, .ci_target = 0.001}, s);
    assert_int_equal(v.kind, VERDICT_FASTER);
    assert_int_equal(s[0].n, 20);
    assert_true(s[0].ci_rel > 0.001); /* not as precise as a lone series would have been made */
    timing_series_free(&s[0]);
    timing_series_free(&s[1]);
}

/* A time cap that has passed after the first pair does not end a paired gate before it has the
 * pairs to decide: a 2x difference comes back faster, not unclear. */
static void test_paired_cap_leaves_enough_pairs(void **state)
{
    (void)state;
    timing_policy p = {.min_samples = 20, .max_time_s = 0, .ci_target = 0.001};
    timing_series s[2];
    verdict v = run_paired_2x(p, s);
    assert_int_equal(s[0].n, 10);
    assert_int_equal(s[1].n, 10);
    assert_int_equal(v.kind, VERDICT_FASTER);
    timing_series_free(&s[0]);
    timing_series_free(&s[1]);
    /* a lone series still stops at the cap */
    timing_series one = run(p, 1.0);
    assert_int_equal(one.n, 1);
    timing_series_free(&one);
}

/* Hooks that have not seen enough calls keep sampling going past the precision stop. */
static int hook_calls;
static int count_after(void *ctx, int which, int *mark, kwb_error *err)
{
    (void)ctx, (void)which, (void)err;
    *mark = MARK_PLAIN;
    hook_calls++;
    return 0;
}
static int enough_after_100(void *ctx)
{
    (void)ctx;
    return hook_calls >= 100;
}

static void test_hooks_evidence(void **state)
{
    (void)state;
    memset(&the_fake, 0, sizeof the_fake);
    the_fake.ms[0] = 1.0;
    hook_calls = 0;
    device dev = {&fake_ops, NULL};
    timing_policy p = {.min_samples = 10, .max_time_s = 60, .ci_target = 0.005};
    timing_hooks h = {.after = count_after, .enough = enough_after_100};
    timing_series s;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure_hooked(&dev, &p, 1, no_call, NULL, &h, &s, NULL, &err), 0);
    assert_true(s.n >= 99 && s.n <= 100); /* the warm-up's call counts too */
    timing_series_free(&s);
}

/* The batched path: a device that takes several calls at once, hooks that allow runs of
 * scripted lengths. A call whose hook is "busy" (it would poison or refresh) must have its hook
 * run before the next call is made; runs are whole rounds, in A B B A order, at most
 * TIMING_BATCH_MAX calls. */
static struct {
    int made, hooked; /* calls made (warm-up included), hooks run */
    int sampled;      /* calls sampled */
    int busy_at;      /* the schedule position of the next busy call */
    int script_i;     /* next run length from the script */
    int batches, violations, order_errors, too_long;
} bt;
static const int bt_script[] = {5, 1, 12, 40, 3, 16, 2, 7, 33, 4};

static void bt_next_busy(void)
{
    bt.busy_at += bt_script[bt.script_i++ % (int)(sizeof bt_script / sizeof *bt_script)];
}

static int bt_call(void *ctx, int which, kwb_error *err)
{
    (void)ctx, (void)which, (void)err;
    if (bt.made > bt.busy_at && bt.hooked <= bt.busy_at)
        bt.violations++; /* a call made before the busy call's hook ran */
    bt.made++;
    return 0;
}

static int bt_sample(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                     kwb_error *err)
{
    (void)d, (void)p;
    int round = bt.sampled / 2, k = bt.sampled % 2;
    if (which != ((round & 1) ? 1 - k : k))
        bt.order_errors++;
    bt.sampled++;
    call(ctx, which, err);
    out->ms = 1.0;
    out->event_ms = -1;
    return 0;
}

static int bt_batch(device *d, const timing_policy *p, device_call call, void *ctx, const int *which, int k,
                    device_sample *out, kwb_error *err)
{
    bt.batches++;
    bt.too_long += k > TIMING_BATCH_MAX || k % 2 != 0;
    for (int i = 0; i < k; i++)
        bt_sample(d, p, call, ctx, which[i], &out[i], err);
    return 0;
}

static int bt_after(void *ctx, int which, int *mark, kwb_error *err)
{
    (void)ctx, (void)which, (void)err;
    *mark = MARK_PLAIN;
    if (bt.hooked++ == bt.busy_at)
        bt_next_busy();
    return 0;
}

static int bt_free_run(void *ctx, const int *which, int k)
{
    (void)ctx, (void)which;
    int left = bt.busy_at - bt.made + 1; /* up to and including the busy call */
    return left < k ? left : k;
}

static void test_batched_schedule(void **state)
{
    (void)state;
    memset(&bt, 0, sizeof bt);
    bt.busy_at = -1;
    bt_next_busy();
    static const device_ops ops = {.kind = "fake", .sync = fake_sync, .sample = bt_sample, .sample_batch = bt_batch};
    device dev = {&ops, NULL};
    timing_policy p = {.min_samples = 300, .max_time_s = 60};
    timing_hooks h = {bt_after, 0, NULL, bt_free_run};
    timing_series s[2];
    kwb_error err = {{0}};
    assert_int_equal(timing_measure_hooked(&dev, &p, 2, bt_call, NULL, &h, s, NULL, &err), 0);
    assert_true(bt.batches > 10);
    assert_int_equal(bt.violations, 0);
    assert_int_equal(bt.order_errors, 0);
    assert_int_equal(bt.too_long, 0);
    assert_int_equal(bt.made, bt.hooked);
    assert_int_equal(s[0].n, s[1].n);
    assert_true(s[0].n >= 300);
    timing_series_free(&s[0]);
    timing_series_free(&s[1]);
    /* hooks without free_run: never batched */
    memset(&bt, 0, sizeof bt);
    bt.busy_at = 1 << 30;
    timing_hooks plain = {bt_after, 0, NULL, NULL};
    assert_int_equal(timing_measure_hooked(&dev, &p, 2, bt_call, NULL, &plain, s, NULL, &err), 0);
    assert_int_equal(bt.batches, 0);
    timing_series_free(&s[0]);
    timing_series_free(&s[1]);
}

/* Batches are as long as sampling needs: a slow kernel's samples are taken no further than the
 * rule's next look (the reference of 94 ms was sampled 16 times where 6 decide), a fast one's
 * fill the batch (its extra samples cost less than a synchronization). */
static int fb_largest, fb_batches;

static int fb_batch(device *d, const timing_policy *p, device_call call, void *ctx, const int *which, int k,
                    device_sample *out, kwb_error *err)
{
    fb_batches++;
    fb_largest = k > fb_largest ? k : fb_largest;
    for (int i = 0; i < k; i++)
        if (fake_sample(d, p, call, ctx, which[i], &out[i], err) != 0)
            return -1;
    return 0;
}

static void test_batch_worth(void **state)
{
    (void)state;
    static const device_ops ops = {.kind = "fake", .sync = fake_sync, .sample = fake_sample, .sample_batch = fb_batch};
    device dev = {&ops, NULL};
    timing_policy p = {.min_samples = 5, .max_time_s = 60, .ci_target = 0.02};
    timing_series s;
    kwb_error err = {{0}};
    memset(&the_fake, 0, sizeof the_fake);
    fb_largest = fb_batches = 0;
    the_fake.ms[0] = 94.0; /* quiet: the CI is zero once it exists (6 samples) */
    assert_int_equal(timing_measure(&dev, &p, 1, no_call, NULL, &s, NULL, &err), 0);
    assert_int_equal(s.n, 6);
    assert_int_equal(fb_largest, 5);
    timing_series_free(&s);
    memset(&the_fake, 0, sizeof the_fake);
    fb_largest = fb_batches = 0;
    the_fake.ms[0] = 0.002;
    p.min_samples = 40;
    assert_int_equal(timing_measure(&dev, &p, 1, no_call, NULL, &s, NULL, &err), 0);
    assert_int_equal(fb_largest, TIMING_BATCH_MAX);
    assert_true(s.n >= 40);
    timing_series_free(&s);
}

/* Input sets that change the time: each set of 10 calls (the first marked fresh, as the runner's
 * hooks mark the first call on new inputs) runs 1 ms +- up to 5 % (drawn per set), with 0.01 %
 * noise within a set. Samples within a set are not independent draws: the order statistics'
 * interval reaches +-0.5 % once the hooks' evidence is in (16 sets), the bootstrap over sets
 * after some 400. */
static struct {
    int hooked, set, fresh_pending;
    int unchecked_odd; /* odd sets start with a plain call (MARK_SET), as unchecked fresh sets do */
} st;
static int unchecked_odd_sets;

static int sets_after(void *ctx, int which, int *mark, kwb_error *err)
{
    (void)ctx, (void)which, (void)err;
    *mark = !st.fresh_pending ? MARK_PLAIN : st.unchecked_odd && st.set % 2 ? MARK_SET : MARK_FRESH;
    st.fresh_pending = 0;
    if (++st.hooked % 10 == 0)
        st.set++, st.fresh_pending = 1;
    return 0;
}

/* What the runner's hooks ask for before a stop for precision: 16 calls on fresh inputs. */
static int sets_enough(void *ctx)
{
    (void)ctx;
    return st.set >= 16;
}

/* Uniform in [-1, 1), drawn per set. */
static double set_offset(int set)
{
    return (double)(rng_bits(12345, (uint64_t)set) >> 11) / 9007199254740992.0 * 2 - 1;
}

static int sets_sample(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                       kwb_error *err)
{
    the_fake.ms[0] = 1.0 + 0.05 * set_offset(st.set);
    return fake_sample(d, p, call, ctx, which, out, err);
}

/* What the loop told the hooks: looks found bound by the sets (and unbound again). */
static int told_bound, told_unbound;
static double told_ratio;
static void sets_told(void *ctx, int which, int bound, double within_between)
{
    (void)ctx, (void)which;
    told_ratio = within_between;
    told_bound += bound == 1;
    told_unbound += bound == 0;
}

/* A device's sample(), as device_ops has it. */
typedef int (*sample_fn)(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                         kwb_error *err);

/* One callee sampled on a fake device whose calls take SAMPLE's times, under P and H. */
static timing_series run_hooked(sample_fn sample, timing_policy p, timing_hooks h)
{
    const device_ops ops = {.kind = "fake", .sync = fake_sync, .sample = sample};
    memset(&the_fake, 0, sizeof the_fake);
    memset(&st, 0, sizeof st);
    st.unchecked_odd = unchecked_odd_sets;
    the_fake.noise = 1e-4;
    device dev = {&ops, NULL};
    timing_series s;
    kwb_error err = {{0}};
    assert_int_equal(timing_measure_hooked(&dev, &p, 1, no_call, NULL, &h, &s, NULL, &err), 0);
    return s;
}

static timing_series run_sets(int iid)
{
    told_bound = told_unbound = 0;
    return run_hooked(sets_sample,
                      (timing_policy){.min_samples = 10, .max_time_s = 60, .ci_target = 0.005, .ci_iid = iid},
                      (timing_hooks){.after = sets_after, .enough = sets_enough, .sets_bound = sets_told});
}

/* Sets at places: as above, but each set's inputs lie at one of 8 places (drawn per set) and a
 * place moves the time by up to +-3 % (drawn per place), the set's data by up to +-1 %. */
static int place_of(int set)
{
    return (int)(rng_bits(777, (uint64_t)set) % 8);
}

static double place_offset(int place)
{
    return (double)(rng_bits(4242, (uint64_t)place) >> 11) / 9007199254740992.0 * 2 - 1;
}

static int placed_sample(device *d, const timing_policy *p, device_call call, void *ctx, int which, device_sample *out,
                         kwb_error *err)
{
    the_fake.ms[0] = (1.0 + 0.03 * place_offset(place_of(st.set))) * (1.0 + 0.01 * set_offset(st.set));
    return fake_sample(d, p, call, ctx, which, out, err);
}

static int placed_place(void *ctx)
{
    (void)ctx;
    return place_of(st.set);
}

/* The median over the places' times (each place's time weighted alike). */
static double places_median(void)
{
    double v[8];
    for (int k = 0; k < 8; k++)
        v[k] = 1.0 + 0.03 * place_offset(k);
    stats_sort(v, 8);
    return (v[3] + v[4]) / 2;
}

static timing_series run_placed(int tell_places)
{
    return run_hooked(
        placed_sample, (timing_policy){.min_samples = 10, .max_time_s = 1.0, .ci_target = 0.005},
        (timing_hooks){.after = sets_after, .enough = sets_enough, .place = tell_places ? placed_place : NULL});
}

/* Without places the bootstrap over sets claims +-0.5 % around a median that 8 places' effects
 * moved, and misses the places' median; told the places, the interval is bootstrapped over them too: wider than the
 * target (8 places cannot pin their average to 0.5 %), it holds the places' median, and sampling
 * stops once it no longer narrows. */
static void test_ci_over_places(void **state)
{
    (void)state;
    timing_series blind = run_placed(0), told = run_placed(1);
    assert_int_equal(blind.ci_places, 0);
    assert_true(blind.ci_rel <= 0.005);
    assert_int_equal(told.ci_places, 8);
    assert_true(told.ci_rel > 0.005);
    assert_true(told.ci_rel > 2 * blind.ci_rel);
    /* within-set noise 1e-4 * U: variance 3.3e-9; the sets' data 0.01 * U: 3.3e-5; the places' 0.03 * U:
     * 3e-4. Blind to places the sets seem to differ by both (a ratio of about 1e-5); told them, the
     * ratio that sizes the sets is against the sets' own variance (about 1e-4). */
    assert_true(blind.within_between > 0.5e-5 && blind.within_between < 2e-5);
    assert_true(told.within_between > 0.5e-4 && told.within_between < 2e-4);
    /* 8 places cannot pin their average to 0.5 %: once twice the samples left the interval over
     * them as wide, sampling stopped (at some 900 samples, 0.03 s here) instead of running to the
     * 1 s cap; the interval it reports is the honest, wider one (it holds the truth, above) */
    assert_int_equal(told.ci_stalled, 1);
    assert_int_equal(blind.ci_stalled, 0);
    assert_true(told.loop_s < 0.5);
    double truth = places_median();
    assert_true(fabs(told.summary.median - truth) <= told.ci_rel * told.summary.median);
    /* these draws' known answer: the blind run stops at 1.0084 +-0.39 %, the places' median is 1.0128 */
    assert_true(fabs(blind.summary.median - truth) > blind.ci_rel * blind.summary.median);
    timing_series_free(&blind);
    timing_series_free(&told);
}

static void test_ci_over_input_sets(void **state)
{
    (void)state;
    timing_series iid = run_sets(1);
    assert_int_equal(told_bound, 0); /* the order statistics alone: nothing to tell */
    timing_series sets = run_sets(0);
    assert_true(told_bound >= 1); /* the hooks heard that the sets bound the median */
    assert_true(iid.ci_rel <= 0.005);
    assert_int_equal(iid.ci_sets, 0);
    assert_true(sets.ci_rel <= 0.005); /* it stopped for precision, not at a cap */
    assert_true(sets.n > 3 * iid.n);   /* the sets, not the samples, bound the median */
    assert_true(sets.ci_sets >= 100);
    /* within: 1e-4 * U(-1, 1): variance 3.3e-9; between: 0.05 * U(-1, 1): 8.3e-4 (a little less
     * once the extreme 2 % on each side are clipped): a ratio of about 4e-6 */
    assert_true(sets.within_between > 2e-6 && sets.within_between < 8e-6);
    assert_true(told_ratio > 2e-6 && told_ratio < 8e-6); /* what the hooks last heard */
    /* the true median of the sets' times is 1 ms: the set-aware interval holds it */
    assert_true(fabs(sets.summary.median - 1.0) <= sets.ci_rel * sets.summary.median);
    timing_series_free(&iid);
    timing_series_free(&sets);
}

/* A set whose first call was not checked (MARK_SET) starts a set as a fresh one does, and its
 * calls count as plain: the summary is over plain and MARK_SET samples, and the bootstrap over
 * sets sees as many sets as when every set's first call is checked. */
static void test_unchecked_sets(void **state)
{
    (void)state;
    const double ms[] = {1, 1, 1, 9, 9, 9};
    const unsigned char mark[] = {MARK_PLAIN, MARK_SET, MARK_PLAIN, MARK_CHECKED, MARK_FRESH, MARK_AFTER};
    stats_summary sum = timing_summary_plain(ms, mark, 6);
    assert_int_equal(sum.n, 3);
    assert_true(sum.median == 1);
    assert_true(timing_mark_plain(MARK_SET) && timing_mark_new_set(MARK_SET));
    assert_false(timing_mark_plain(MARK_FRESH) || timing_mark_plain(MARK_AFTER) || timing_mark_plain(MARK_CHECKED));
    assert_true(timing_mark_new_set(MARK_FRESH) && !timing_mark_new_set(MARK_PLAIN));
    timing_series all_checked = run_sets(0);
    unchecked_odd_sets = 1;
    timing_series half = run_sets(0);
    unchecked_odd_sets = 0;
    assert_true(half.ci_rel <= 0.005);
    assert_true(half.ci_sets >= 100);
    /* the same draws, the same sets: only the marks of odd sets' first calls differ */
    size_t d =
        half.ci_sets > all_checked.ci_sets ? half.ci_sets - all_checked.ci_sets : all_checked.ci_sets - half.ci_sets;
    assert_true(d * 10 <= all_checked.ci_sets);
    assert_true(fabs(half.summary.median - 1.0) <= half.ci_rel * half.summary.median);
    timing_series_free(&all_checked);
    timing_series_free(&half);
}

/* Known answers of the calls an input set is worth: a set costing 4 calls' time with a within/between
 * variance ratio of 0.55 is worth 1 + sqrt(2.2) = 2.48 calls (the H100 top-k's figures); sets that
 * barely differ, or cost much, are worth the most allowed; unknown figures give the most. */
static void test_set_calls(void **state)
{
    (void)state;
    assert_true(fabs(setsize_mean_calls(0.55, 1.8e-3, 0.45e-3, 8.5) - (1 + sqrt(2.2))) < 1e-9);
    assert_true(setsize_mean_calls(1e-6, 1e-3, 1e-3, 8.5) == 2);
    assert_true(setsize_mean_calls(100, 1e-3, 1e-3, 8.5) == 8.5);
    assert_true(setsize_mean_calls(1, 0.1, 1e-4, 8.5) == 8.5);
    assert_true(setsize_mean_calls(INFINITY, 1e-3, 1e-3, 8.5) == 8.5);
    assert_true(setsize_mean_calls(0, 1e-3, 1e-3, 8.5) == 8.5);
    assert_true(setsize_mean_calls(1, 0, 1e-3, 8.5) == 8.5);
    assert_true(setsize_mean_calls(1, 1e-3, NAN, 8.5) == 8.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_time),        cmocka_unit_test(test_graph_counts_every_call),
        cmocka_unit_test(test_throttled_dropped),  cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_precision_stop),     cmocka_unit_test(test_paired_stops_when_decided),
        cmocka_unit_test(test_hooks_evidence),     cmocka_unit_test(test_paired_cap_leaves_enough_pairs),
        cmocka_unit_test(test_batched_schedule),   cmocka_unit_test(test_batch_worth),
        cmocka_unit_test(test_ci_over_input_sets), cmocka_unit_test(test_ci_over_places),
        cmocka_unit_test(test_set_calls),          cmocka_unit_test(test_unchecked_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

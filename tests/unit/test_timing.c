/* test_timing.c - the sampling loop's stop rule on a scripted device: enough samples, enough
 * device time (the sum of the samples, graph replays counted per call) and quiet enough; the
 * wall-time cap; throttled samples dropped; A B B A order. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "runner/timing.h"

/* A device whose samples take MS milliseconds each (no real time passes), every THROTTLE-th
 * one throttled; it records the order of callees. */
typedef struct fake {
    double ms[2];
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
    timing_series s = run((timing_policy){.min_samples = 10, .min_time_s = 0.5, .max_time_s = 60, .rsd_target = 0.005}, 2.0);
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
    timing_series s =
        run((timing_policy){.min_samples = 10, .min_time_s = 0.5, .max_time_s = 60, .rsd_target = 0.005, .graph = 20},
            2.0);
    assert_int_equal(s.n, 13);  /* 13 * 20 * 2 ms >= 500 ms > 12 * 20 * 2 ms */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_time),
        cmocka_unit_test(test_graph_counts_every_call),
        cmocka_unit_test(test_throttled_dropped),
        cmocka_unit_test(test_interleaved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

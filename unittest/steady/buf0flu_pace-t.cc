/* Unit tests for the device-paced flushing controller (buf0flu_pace.h).

Most run the controller in closed loop against the simulated device and
engine of pace_sim.h. Each closed-loop test also runs the same simulation
without the controller, or checks its premise, to show that the situation
it fixes is really there. The reasoning behind the rules tested here is
in docs/design/device-pacing-controller.md. */

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "buf0flu_pace.h"
#include "pace_sim.h"

namespace {

using buf_flush_pace::Ceiling;
using buf_flush_pace::Config;
using buf_flush_pace::Controller;
using buf_flush_pace::Decision;
using buf_flush_pace::Observation;
using pace_sim::age_bound;
using pace_sim::age_target;
using pace_sim::config;
using pace_sim::Device;
using pace_sim::Engine;
using pace_sim::max_of;
using pace_sim::mean_of;
using pace_sim::min_of;
using pace_sim::no_change;
using pace_sim::Result;
using pace_sim::reversals;
using pace_sim::run;
using pace_sim::Write_queue;

/** Over seconds [from, to) of a run against a throttle of `capacity`
writes a second: the estimate near the capacity, the page cleaner given
at least 90% of what the `foreground` writes leave, and no queue of
seconds. */
void expect_keeps_throttle_busy(const Result &r, size_t from, size_t to,
                                double capacity, double foreground) {
  const double cap_mean = mean_of(r.capability, from, to);
  EXPECT_GT(cap_mean, 0.55 * capacity);
  EXPECT_LT(cap_mean, 1.2 * capacity);
  EXPECT_GT(mean_of(r.flushed, from, to), 0.9 * (capacity - foreground));
  EXPECT_LT(max_of(r.latency, from, to), 0.5e6) << "a queue of seconds";
  EXPECT_LT(mean_of(r.latency, from, to), 0.2e6);
}

TEST(FlushPacePressure, Components) {
  EXPECT_EQ(buf_flush_pace::ckpt_pressure(0, 0, 0), 0);
  EXPECT_EQ(buf_flush_pace::ckpt_pressure(90, 100, 120), 0);
  EXPECT_DOUBLE_EQ(buf_flush_pace::ckpt_pressure(110, 100, 120), 0.5);
  EXPECT_EQ(buf_flush_pace::ckpt_pressure(150, 100, 120), 1);
  EXPECT_EQ(buf_flush_pace::ckpt_pressure(100, 100, 0), 1);
  EXPECT_EQ(buf_flush_pace::dirty_pressure(5, 10, 90), 0);
  /* Only the last 4 points below the limit count, not from the lwm. */
  EXPECT_EQ(buf_flush_pace::dirty_pressure(75, 10, 90), 0);
  EXPECT_EQ(buf_flush_pace::dirty_pressure(86, 10, 90), 0);
  EXPECT_DOUBLE_EQ(buf_flush_pace::dirty_pressure(88, 10, 90), 0.5);
  /* An lwm inside that band still starts it. */
  EXPECT_DOUBLE_EQ(buf_flush_pace::dirty_pressure(88.5, 87, 90), 0.5);
  EXPECT_DOUBLE_EQ(buf_flush_pace::dirty_pressure(0.5, 0, 1), 0.5);
  EXPECT_EQ(buf_flush_pace::dirty_pressure(NAN, 10, 90), 0);
  EXPECT_EQ(buf_flush_pace::dirty_pressure(25, 20, 20), 1);
  EXPECT_EQ(buf_flush_pace::free_pressure(4096, 4096, 0), 0);
  EXPECT_EQ(buf_flush_pace::free_pressure(2048, 4096, 0), 0);
  EXPECT_DOUBLE_EQ(buf_flush_pace::free_pressure(512, 4096, 0), 0.75);
  EXPECT_EQ(buf_flush_pace::free_pressure(4096, 4096, 1), 1);
}

/* Checkpoint-age wave: io_capacity 200/400 on a device good for 8000
writes/s, flushing needs 2000 pages/s. Upstream alone runs into the sync
mark; paced, the age stays short of it once settled (age_bound()). */
TEST(FlushPaceClosedLoop, CheckpointWaveAvoidedWhereDeviceCanCarry) {
  Device dev;
  Engine eng;
  const Result upstream = run(300, dev, eng, false, no_change);
  EXPECT_GT(upstream.sync_seconds, 100) << "the simulated stall is not there";

  const Result paced = run(300, dev, eng, true, no_change);
  EXPECT_EQ(paced.sync_seconds, 0);
  EXPECT_LT(max_of(paced.age, 60, 300), age_bound(eng));
  /* It flushes what the load needs, well above innodb_io_capacity_max. */
  EXPECT_GT(mean_of(paced.flushed, 100, 300), 0.95 * eng.need);
}

/* LRU batches and checkpoint-age pressure at once: reads take 3,000 free
pages a second, so the LRU batches evict 3,000 pages a second (600 of them
dirty, a write each) while the age follower holds the checkpoint age. The
age follower counts flush-list pages only: the age stays within 3% of its
target, the flush list writes what the load needs (within 15%) and the
budget neither bursts past 1.3x its settled level nor swings. */
TEST(FlushPaceClosedLoop, LruBatchesDoNotDriveTheAgeFollower) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  eng.free_use = 3000;
  const Result r = run(300, dev, eng, true, no_change);
  EXPECT_EQ(r.sync_seconds, 0);
  const double age = mean_of(r.age, 100, 300) / age_target(eng);
  EXPECT_GT(age, 0.97);
  EXPECT_LT(age, 1.03);
  EXPECT_LT(max_of(r.age, 100, 300), age_bound(eng));
  EXPECT_LT(mean_of(r.flushed, 100, 300), 1.15 * eng.need);
  const double settled = mean_of(r.budget, 150, 300);
  EXPECT_LT(max_of(r.budget, 100, 300), 1.3 * settled)
      << "settled at " << settled;
  EXPECT_LE(reversals(r.budget, 100, 5), 2);
}

/* innodb_use_native_aio=OFF: page writes are counted as submitted but no
completion (nor its latency) is reported; or 3% of the completions are
not reported (within the 5% an interval's counts may differ by without
reading as a growing queue). The write queue estimate does not keep the
unreported writes: the age is held as with every completion reported,
within 3% of its target, and never reaches the sync mark. */
TEST(FlushPaceClosedLoop, UnreportedCompletionsKeepAgePacing) {
  for (const double reported : {0.0, 0.97}) {
    SCOPED_TRACE(testing::Message() << "reported share " << reported);
    Device dev;
    dev.reported = reported;
    Engine eng;
    eng.combining = 1;
    const Result r = run(300, dev, eng, true, no_change);
    EXPECT_EQ(r.sync_seconds, 0);
    EXPECT_LT(max_of(r.age, 100, 300), age_bound(eng));
    const double age = mean_of(r.age, 100, 300) / age_target(eng);
    EXPECT_GT(age, 0.97);
    EXPECT_LT(age, 1.03);
    EXPECT_GT(mean_of(r.flushed, 100, 300), 0.9 * eng.need);
  }
}

/* The write queue estimate stays bounded when 3% of the completions are
never reported: at 3,000 writes a second and 500 us it stays within the
interval's own unreported writes (90) or twice the writes in flight by
Little's law (3), never accumulating them; with no completion reported
at all it is unknown (0). A queue that really grows is still counted. */
TEST(FlushPaceController, WriteQueueEstimateBounded) {
  Controller ctl;
  Observation obs;
  obs.free_pages = 100000;
  obs.submitted = 3000;
  obs.writes = 2910;
  obs.write_latency_us = 500;
  for (int i = 0; i < 300; ++i) {
    EXPECT_LE(ctl.update(config(), obs).write_queue, 90u) << "interval " << i;
  }
  Controller simulated;
  obs.writes = 0;
  obs.write_latency_us = 0;
  for (int i = 0; i < 30; ++i) simulated.update(config(), obs);
  EXPECT_EQ(simulated.last().write_queue, 0u);
  /* A device that completes 2,000 of 3,000 a second, the latency that
  of the queue: it grows by 1,000 a second. */
  Controller behind;
  obs.writes = 2000;
  for (int i = 1; i <= 5; ++i) {
    obs.write_latency_us = 1e6 * (1000.0 * i - 500) / 2000;
    behind.update(config(), obs);
  }
  EXPECT_GE(behind.last().write_queue, 4500u);
  EXPECT_LE(behind.last().write_queue, 5000u);
}

/* A device whose latency rises with its queue depth (an M/M/1 curve,
3,000 writes a second), the load at 83% of it (2,000 pages a second
needed, 500 foreground writes), and a burst of 20% more load for 4 or 6
seconds that takes the checkpoint age above its target. The device
latency is what a foreground read waits that second. Catching up towards
the target at once pushed the device to the knee of its curve (reads 5.6x
and 7.9x slower than before the burst); with the age follower held to the
rate that holds the age while page writes are over the latency limit,
reads stay within 4x, the age stays short of age_bound() (no sync-mode
flushing) and it is back near its target within 30 seconds. */
TEST(FlushPaceClosedLoop, AgeFollowerBacksOffOnALatencyCurve) {
  for (const int burst_s : {4, 6}) {
    SCOPED_TRACE(testing::Message() << "burst of " << burst_s << " s");
    Device dev;
    dev.capacity = 3000;
    dev.curve = 1;
    Engine eng;
    eng.combining = 1;
    eng.flush_lag = true;
    auto burst = [burst_s](int t, Device *, Engine *e) {
      if (t == 150 || t == 150 + burst_s) {
        const double k = t == 150 ? 1.2 : 1 / 1.2;
        e->need *= k;
        e->redo_rate *= k;
      }
    };
    const Result r = run(300, dev, eng, true, burst);
    const double before = mean_of(r.latency, 120, 150);
    EXPECT_LT(max_of(r.latency, 150, 300), 4 * before)
        << "reads waited " << before << " us before the burst";
    EXPECT_EQ(r.sync_seconds, 0);
    EXPECT_LT(max_of(r.age, 100, 300), age_bound(eng));
    EXPECT_GT(min_of(r.age, 180 + burst_s, 300), 0.97 * age_target(eng));
    EXPECT_LT(max_of(r.age, 180 + burst_s, 300), 1.03 * age_target(eng));
  }
}

/* The budget settles: over the last 150 s it varies by less than 15% and
does not swing back and forth. */
TEST(FlushPaceClosedLoop, SettlesWithoutOscillation) {
  Device dev;
  Engine eng;
  const Result r = run(300, dev, eng, true, no_change);
  const double lo = min_of(r.budget, 150, 300);
  const double hi = max_of(r.budget, 150, 300);
  EXPECT_GT(lo, 0);
  EXPECT_LT(hi / lo, 1.15) << "budget " << lo << " .. " << hi;
  EXPECT_LE(reversals(r.budget, 150, 5), 2);
}

/* Write combining: a page flushed at a younger age has taken fewer
changes, so every point of age given away costs page writes. The age is
held half-way between the async and the sync mark (age_target()), not
flushed down early: the page writes stay within 15% of what the load needs
at the async mark, the age within 3% of its target and short of
age_bound() once settled; the sync mark is never reached. */
TEST(FlushPaceClosedLoop, HoldsAgeBetweenTheMarks) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  const Result upstream = run(300, dev, eng, false, no_change);
  EXPECT_GT(upstream.sync_seconds, 100) << "the simulated stall is not there";

  const Result r = run(300, dev, eng, true, no_change);
  EXPECT_EQ(r.sync_seconds, 0);
  EXPECT_LT(max_of(r.age, 100, 300), age_bound(eng));
  const double age = mean_of(r.age, 100, 300) / age_target(eng);
  EXPECT_GT(age, 0.97);
  EXPECT_LT(age, 1.03);
  EXPECT_LT(mean_of(r.flushed, 100, 300), 1.15 * eng.need);
  EXPECT_LE(reversals(r.budget, 100, 5), 2);
}

/* Cold start: the age rises from 0 at the full redo rate while upstream
flushes innodb_io_capacity_max, and a second's flushing shows in the age
only the next second. The rate is at the level that holds the age by the
time the age reaches its target, and does not overshoot it: in the
approach the budget never exceeds the settled one by more than 30% (an
overshoot takes throughput from the transactions), and the age never
runs past age_bound(). */
TEST(FlushPaceClosedLoop, ApproachesWithoutOvershoot) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  eng.flush_lag = true;
  const Result r = run(300, dev, eng, true, no_change);
  const double settled = mean_of(r.budget, 150, 300);
  EXPECT_LT(max_of(r.budget, 0, 150), 1.3 * settled)
      << "settled at " << settled;
  EXPECT_LT(max_of(r.age, 0, 300), age_bound(eng));
  EXPECT_EQ(r.sync_seconds, 0);
  EXPECT_LE(reversals(r.budget, 100, 5), 2);
}

/** Stall lab A from a cold start: flushing takes throughput from the
transactions (Engine::flush_cost), a second's flushing shows in the age
the next second, and the controller misses every third second. */
Engine cold_start(double combining, double redo_rate, double need) {
  Engine eng;
  eng.combining = combining;
  eng.flush_lag = true;
  eng.redo_rate = redo_rate;
  eng.need = need;
  eng.flush_cost = 0.00015;
  eng.skip_update_every = 3;
  return eng;
}

/** Stall lab A's device: a 6,600-IOPS throttle, flat latency up to it. */
Device lab_a_device() {
  Device dev;
  dev.capacity = 6600;
  dev.flat_until_cap = true;
  return dev;
}

/** Stall lab A from a cold start at its redo rate, with the sync mark
7.5% above the async mark (the marks less the free-check margin) and no
foreground page writes. */
Engine lab_a_cold_start(double combining, double need) {
  Engine eng = cold_start(combining, 4.4e6, need);
  eng.sync_mark = 86e6;
  eng.foreground_writes = 0;
  return eng;
}

/** The approach's bounds: the throughput (redo generated) never below 0.8
of its settled level, the age short of age_bound(). */
void expect_no_dip(const Result &r, const Engine &eng) {
  const double settled = mean_of(r.generated, 150, 300);
  EXPECT_GT(min_of(r.generated, 0, 300), 0.8 * settled)
      << "settled at " << settled;
  EXPECT_LT(max_of(r.age, 0, 300), age_bound(eng));
  EXPECT_EQ(r.sync_seconds, 0);
}

/* Stall lab A's shape: flushing takes throughput from the transactions
(Engine::flush_cost), so while the age rises to its target the redo rate
is high, and the rate that holds the age there is lower once the page
cleaner flushes it; the controller misses every third second, as the
coordinator's rounds make it do. The throughput (redo generated) must
come down to its settled level without a second below 80% of it, and
without swinging: at a young age a page advances the checkpoint little,
so the rate that holds a young age is high, and a faster rise from below
or a longer ramp overshoots. See ApproachAfterAColdStartTakesNoDip for
denser first-dirtied pages. */
TEST(FlushPaceClosedLoop, ApproachTakesNoThroughputDip) {
  const Engine eng = cold_start(1, 4e6, 3000);
  const Result r = run(300, Device(), eng, true, no_change);
  expect_no_dip(r, eng);
  EXPECT_LE(reversals(r.budget, 100, 5), 2);
}

/* Stall lab A after a cold start, calibrated to its scenario: the pages
dirtied first, at the highest rate, are the oldest, so holding a young
age takes far more flushes than holding the target (combining 2.5), the
age rises 5.5% of the async mark a second with upstream alone, the
device is a 6,600-IOPS throttle, and the sync mark is 7.5% above the
async mark (the marks less the free-check margin). The throughput (redo
generated) stays above 0.8 of its settled level, and the budget peaks
under 1.3x its settled level: the rate holds once the last interval's
checkpoint advance met the wanted one (rising on from there, it peaks
near 1.4x). */
TEST(FlushPaceClosedLoop, ApproachAfterAColdStartTakesNoDip) {
  const Engine eng = lab_a_cold_start(2.5, 2000);
  const Result r = run(300, lab_a_device(), eng, true, no_change);
  expect_no_dip(r, eng);
  const double settled = mean_of(r.budget, 150, 300);
  EXPECT_LT(max_of(r.budget, 0, 150), 1.3 * settled)
      << "settled at " << settled;
}

/* The same approach over the range around stall lab A's: write
combining 1.5-3 and 2,000-3,200 pages/s needed at the async mark (2,800
settles at ~2,150 pages/s, as the lab's scenario does). The budget peaks
under 1.35x its settled level, the throughput stays above 0.8 of its
settled level and the age short of age_bound() in every case. The ramp
starts from upstream's request, not from zero (else the age runs past
the async mark), and the last interval's advance is scaled by the
flushing's rise (else the budget peaks at up to 1.5x). */
TEST(FlushPaceClosedLoop, ApproachAtTheLabsSettledRateTakesNoDip) {
  for (const double combining : {1.5, 2.0, 2.5, 3.0}) {
    for (const double need : {2000.0, 2800.0, 3200.0}) {
      const Engine eng = lab_a_cold_start(combining, need);
      const Result r = run(300, lab_a_device(), eng, true, no_change);
      SCOPED_TRACE(testing::Message()
                   << "combining " << combining << ", need " << need);
      expect_no_dip(r, eng);
      const double settled = mean_of(r.budget, 150, 300);
      EXPECT_LT(max_of(r.budget, 0, 150), 1.35 * settled)
          << "settled at " << settled;
    }
  }
}

/* The same approach with the coordinator's updates two seconds apart
(stall lab A: in two of five runs the age follower's rate rose every
other second, the age ran 2.5-3% of the async mark past its target and
the catch-up flushed at 1.6x the settled rate), at the redo rate of Steady's
server (2.8 MB/s) and of stock 9.7.2 (4.4 MB/s). The rate's bounds are
per second, not per update: bounded per update, the ramp rises at half
the speed, the age runs past age_bound() into the sync mark and the
budget peaks at up to 1.85x its settled level. */
TEST(FlushPaceClosedLoop, ApproachKeepsItsPaceWithUpdatesTwoSecondsApart) {
  for (const double redo_rate : {2.8e6, 4.4e6}) {
    for (const double combining : {1.5, 2.5, 3.0}) {
      for (const double need : {2000.0, 2800.0, 3200.0}) {
        Engine eng = lab_a_cold_start(combining, need);
        eng.redo_rate = redo_rate;
        eng.skip_update_every = 2;
        const Result r = run(300, lab_a_device(), eng, true, no_change);
        SCOPED_TRACE(testing::Message() << "redo " << redo_rate << ", combining "
                                        << combining << ", need " << need);
        expect_no_dip(r, eng);
        const double settled = mean_of(r.budget, 150, 300);
        EXPECT_LT(max_of(r.budget, 0, 150), 1.4 * settled)
            << "settled at " << settled;
      }
    }
  }
}

/* The load doubles at once (twice the redo, twice the pages): the age
overshoots its target, and is back near the target within half a minute,
without swinging. The target leaves 6% of the async mark below the
sync mark, under two seconds of the doubled redo, and the controller
sees the step an interval late: the age reaches the sync mark for a few
seconds (twice as long with the rate rising by RATE_UP past
overrun_mark() and from the window's redo rate), where upstream alone
stays there. */
TEST(FlushPaceClosedLoop, FollowsALoadStep) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  auto step = [](int t, Device *, Engine *e) {
    if (t == 150) {
      e->redo_rate *= 2;
      e->need *= 2;
    }
  };
  const Result upstream = run(300, dev, eng, false, step);
  const Result r = run(300, dev, eng, true, step);
  EXPECT_GT(upstream.sync_seconds, 100) << "the simulated stall is not there";
  EXPECT_LE(r.sync_seconds, 3);
  EXPECT_LT(max_of(r.age, 60, 150), age_bound(eng)); /* before the step */
  const double lo = min_of(r.age, 180, 300) / age_target(eng);
  const double hi = max_of(r.age, 180, 300) / age_target(eng);
  EXPECT_GT(lo, 0.95);
  EXPECT_LT(hi, 1.05);
  EXPECT_GT(mean_of(r.flushed, 200, 300), 1.8 * eng.need);
  EXPECT_LE(reversals(r.budget, 180, 5), 2);
}

/* The age the controller reads is off by up to +/-2% of the async mark
each second (in 9.7.2 the oldest modification is read without the flush
order latch, off by up to the recent-closed buffer, about 2 MB against an
async mark of 80 MB): the budget still settles in a band,
the age stays near its target and the sync mark is never reached. */
TEST(FlushPaceClosedLoop, NoisyAgeStillSettles) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  eng.age_noise = 0.02;
  const Result r = run(300, dev, eng, true, no_change);
  EXPECT_EQ(r.sync_seconds, 0);
  const double lo = min_of(r.budget, 150, 300);
  const double hi = max_of(r.budget, 150, 300);
  EXPECT_LT(hi / lo, 1.6) << "budget " << lo << " .. " << hi;
  EXPECT_LT(max_of(r.age, 100, 300), age_target(eng) + 0.06 * eng.async_mark);
  EXPECT_GT(min_of(r.age, 100, 300), age_target(eng) - 0.06 * eng.async_mark);
}

/* Noisy latency (+/-30%) changes nothing of the above. */
TEST(FlushPaceClosedLoop, NoisyLatencyStillSettles) {
  Device dev;
  dev.noise = 0.3;
  Engine eng;
  const Result r = run(300, dev, eng, true, no_change);
  EXPECT_EQ(r.sync_seconds, 0);
  const double lo = min_of(r.budget, 150, 300);
  const double hi = max_of(r.budget, 150, 300);
  EXPECT_LT(hi / lo, 1.3) << "budget " << lo << " .. " << hi;
  EXPECT_LE(reversals(r.budget, 150, 10), 4);
}

/* The device slows down under a load it carried: at 150 s it drops to
2500 writes/s (a neighbour, a throttle), of which the foreground takes 500
and the load needs the other 2000. The capability estimate comes down to
the device; the page cleaner keeps writing what the device completes (the
age would otherwise run into the sync mark, where upstream would write
as much, in bursts), with no queue growing without end. */
TEST(FlushPaceClosedLoop, BacksOffWhenLatencyRises) {
  Device dev;
  Engine eng;
  eng.need = 2000;
  auto slow_down = [](int t, Device *d, Engine *) {
    if (t == 150) d->capacity = 2500;
  };
  const Result r = run(400, dev, eng, true, slow_down);
  const Config cfg = config();
  /* Before: it had learned far more than innodb_io_capacity_max. */
  EXPECT_GT(r.capability[149], 4 * cfg.io_capacity_max);
  /* After: the estimate comes down to the device ... */
  EXPECT_LT(max_of(r.capability, 250, 400), 1.1 * 2500);
  /* ... the device is kept busy with the flushing the load needs ... */
  EXPECT_GT(mean_of(r.flushed, 250, 400), 0.9 * 2000);
  /* ... and its queue stays short: well under a second. */
  EXPECT_LT(max_of(r.latency, 250, 400), 0.5e6);
  EXPECT_LT(mean_of(r.latency, 250, 400), 0.2e6);
}

/* The idle page write latency rises 30 times from second 150 to 270 at the
same capacity, on an engine whose pages take one change per write. */
static Result run_latency_rise(int seconds) {
  Device dev;
  Engine eng;
  eng.combining = 1;
  eng.flush_lag = true;
  auto slow_latency = [](int t, Device *d, Engine *) {
    if (t == 150) d->idle_us = 6000;
    if (t == 270) d->idle_us = 200;
  };
  return run(seconds, dev, eng, true, slow_latency);
}

/* A device's page write latency can rise several times over for minutes
while it still completes every write (a neighbour, a shared volume). The
capability estimate is cut; held to it, the age-following rate would let
the age run past the async mark into sync-mode flushing. Here the latency
at idle rises 30 times for two minutes at the same capacity: the estimate
is cut (the pressure budget backs off), but the flushing the checkpoint
age needs goes on (the latency back-off only stops the catch-up), so the
age never runs past age_bound() and the page cleaner keeps writing what
the load needs. */
TEST(FlushPaceClosedLoop, LatencyRiseWithoutQueueKeepsTheAge) {
  Engine eng;
  eng.combining = 1;
  eng.flush_lag = true;
  const Result r = run_latency_rise(400);
  /* The latency rise is seen and acted on: the estimate is cut below what
  the load needs... */
  EXPECT_LT(min_of(r.capability, 150, 270), eng.need);
  /* ... yet the age holds near its target, ... */
  EXPECT_EQ(r.sync_seconds, 0);
  EXPECT_LT(max_of(r.age, 100, 400), age_bound(eng));
  /* ... and the flushing does not sag while the latency is high. */
  EXPECT_GT(min_of(r.flushed, 150, 270), 0.9 * eng.need);
}

/** An engine with upstream's checkpointer under load (one every 7 s),
write combining and the flushing's one-second lag; the free-check limit
this many marks' spacings above the sync mark (upstream's ratios: 1). */
Engine checkpointing_engine(double free_check_over_sync) {
  Engine eng;
  eng.combining = 1;
  eng.flush_lag = true;
  eng.ckpt_every = 7;
  eng.free_check =
      eng.sync_mark + free_check_over_sync * (eng.sync_mark - eng.async_mark);
  return eng;
}

/** No sync-mode flushing, no redo-space wait, and from second 100 on the
checkpoint age at least 1% of the async mark short of the free-check
limit. */
void expect_checkpoint_in_time(const Result &r, const Engine &eng) {
  EXPECT_EQ(r.sync_seconds, 0);
  EXPECT_EQ(r.redo_wait_seconds, 0);
  EXPECT_LT(max_of(r.ckpt_age, 100, 300),
            eng.free_check - 0.01 * eng.async_mark);
}

/* Under load upstream writes a checkpoint only every seven seconds, so
with the oldest modification held at its target the checkpoint age still
climbs past it into the free-check limit (redo-space waits). Here the
checkpoint comes every 7 s and the free-check limit sits at the sync
mark, closer than upstream's ratios put it: pacing alone does not avoid
the waits; with its checkpoint requests the checkpoint age stays below the
free-check limit by at least 1% of the async mark. */
TEST(FlushPaceClosedLoop, CheckpointKeepsUpWithTheHeldAge) {
  Device dev;
  Engine eng = checkpointing_engine(0);
  const Result held = run(300, dev, eng, true, no_change);
  EXPECT_EQ(held.sync_seconds, 0);
  EXPECT_GT(held.redo_wait_seconds, 10) << "the simulated waits are not there";

  eng.request_ckpt = true;
  const Result r = run(300, dev, eng, true, no_change);
  expect_checkpoint_in_time(r, eng);
  EXPECT_GT(r.checkpoints, 150);
  /* No checkpoint is asked for while the age is low: none in the first
  seconds of the approach beyond upstream's own. */
  eng.age = 0;
  const Result early = run(10, dev, eng, true, no_change);
  EXPECT_EQ(early.checkpoints, 2); /* seconds 0 and 7 */
}

/* A checkpoint syncs the data files: one is asked for only when the
checkpoint age nears the free-check limit. At upstream's ratios the limit
is as far above the sync mark as the sync mark is above the async mark
(soft capacity less the margin, against 15/16 and 7/8 of it), and the
redo here fills the room between the age target and it in about five
seconds: a checkpoint about every third second, none late. Asked for
from the age target on (the limit not known), one comes every second. */
TEST(FlushPaceClosedLoop, CheckpointOnlyWhenTheLimitNears) {
  Device dev;
  Engine eng = checkpointing_engine(1);
  eng.request_ckpt = true;
  const Result r = run(300, dev, eng, true, no_change);
  expect_checkpoint_in_time(r, eng);
  EXPECT_LT(r.checkpoints, 120) << "more than one every 2.5 s";
  EXPECT_GT(r.checkpoints, 60);

  eng.tell_ckpt_limit = false;
  const Result every = run(300, dev, eng, true, no_change);
  EXPECT_EQ(every.redo_wait_seconds, 0);
  EXPECT_GT(every.checkpoints, 250);
}

/* The controller's updates come every 1-2 s and the log checkpointer
syncs the data files before it writes a checkpoint: with updates two
seconds apart and each checkpoint written a second after it is asked
for, the checkpoint is still in time (stall lab A, asked for two seconds
of redo ahead of the limit: 2 and 11 redo-space waits in single seconds
of two runs of five, each after four seconds without a checkpoint; here
a lead of two seconds gives waits in 19 of the 300 seconds). */
TEST(FlushPaceClosedLoop, CheckpointInTimeWithUpdatesTwoSecondsApart) {
  Device dev;
  Engine eng = checkpointing_engine(1);
  eng.request_ckpt = true;
  eng.skip_update_every = 2;
  eng.ckpt_delay = 1;
  const Result r = run(300, dev, eng, true, no_change);
  expect_checkpoint_in_time(r, eng);
  EXPECT_LT(r.checkpoints, 150) << "more than one every 2 s";
}

/* Least advance: no request for a checkpoint that would move by less than
CKPT_MIN_ADVANCE of the async mark; none below the age target, and with a
checkpoint limit known none before the checkpoint age is within
CKPT_LEAD_S seconds of redo of it. */
TEST(FlushPaceCheckpoint, WantedOnlyPastTheTargetAndWorthIt) {
  using buf_flush_pace::checkpoint_wanted;
  const uint64_t mark = 1000;
  const uint64_t sync = 1100;
  const auto at = static_cast<uint64_t>(buf_flush_pace::age_target(mark, sync));
  EXPECT_EQ(at, 1050); /* half-way from the async to the sync mark */
  EXPECT_EQ(buf_flush_pace::age_target(0, sync), 0);         /* mark unknown */
  EXPECT_FALSE(checkpoint_wanted(at, at / 2, 0, 0, 0, sync)); /* unknown */
  EXPECT_FALSE(checkpoint_wanted(at - 10, 100, 0, 0, mark, sync)); /* below */
  EXPECT_TRUE(checkpoint_wanted(at, at - 100, 0, 0, mark, sync));
  EXPECT_FALSE(checkpoint_wanted(at, at - 10, 0, 0, mark, sync)); /* 1% */
  EXPECT_TRUE(checkpoint_wanted(at, 0, 0, 0, mark, sync)); /* no dirty page */
  EXPECT_FALSE(checkpoint_wanted(at, at + 200, 0, 0, mark, sync)); /* past */
  /* No sync mark above the async mark: 95% of the async mark. */
  EXPECT_FALSE(checkpoint_wanted(949, 0, 0, 0, mark, mark));
  EXPECT_TRUE(checkpoint_wanted(950, 0, 0, 0, mark, 0));

  /* Limit 1200, 20 a second of redo: asked for from 1140 on (CKPT_LEAD_S,
  3 s), between updates from 1180 on (CKPT_ROUND_LEAD_S, 1 s). */
  EXPECT_FALSE(checkpoint_wanted(1139, at, 20, 1200, mark, sync));
  EXPECT_TRUE(checkpoint_wanted(1140, at, 20, 1200, mark, sync));
  const double round = buf_flush_pace::CKPT_ROUND_LEAD_S;
  EXPECT_FALSE(checkpoint_wanted(1179, at, 20, 1200, mark, sync, round));
  EXPECT_TRUE(checkpoint_wanted(1180, at, 20, 1200, mark, sync, round));
  /* The target leaves AGE_ROOM_S (2) seconds of redo below the sync mark,
  but is never below the async mark. */
  EXPECT_EQ(buf_flush_pace::age_target(mark, sync, 20), 1050);
  EXPECT_EQ(buf_flush_pace::age_target(mark, sync, 40), 1020);
  EXPECT_EQ(buf_flush_pace::age_target(mark, sync, 100), 1000);
  EXPECT_EQ(buf_flush_pace::overrun_mark(mark, sync, 40), 1060u);
  /* Redo fast enough to fill the room in the lead: from the target on. */
  EXPECT_TRUE(checkpoint_wanted(1000, 0, 100, 1200, mark, sync));
  EXPECT_FALSE(checkpoint_wanted(999, 0, 1000, 1200, mark, sync));
  /* Near the limit, still worth at least CKPT_MIN_ADVANCE. */
  EXPECT_FALSE(checkpoint_wanted(1190, 1180, 20, 1200, mark, sync));
}

/* A throttle (latency flat up to the cap, then a queue) under a load that
needs twice what it can write: the estimate converges close to the cap,
from below; with the age past the async mark the page cleaner writes what
the throttle lets through (at least 90% of what is left after the
foreground), and the queue stays short (never a standing one of
seconds). */
TEST(FlushPaceClosedLoop, FindsAThrottledDevice) {
  Device dev;
  dev.capacity = 3000;
  dev.flat_until_cap = true;
  Engine eng;
  eng.need = 6000; /* more than the device can do */
  const Result r = run(300, dev, eng, true, no_change);
  expect_keeps_throttle_busy(r, 150, 300, dev.capacity, eng.foreground_writes);
}

/* The device gets faster and the load grows: the estimate follows up. */
TEST(FlushPaceClosedLoop, FollowsAFasterDevice) {
  Device dev;
  dev.capacity = 2500;
  Engine eng;
  eng.need = 1500;
  auto speed_up = [](int t, Device *d, Engine *e) {
    if (t == 150) {
      d->capacity = 12000;
      e->need = 5000;
    }
  };
  const Result r = run(400, dev, eng, true, speed_up);
  /* Before: the budget stays within what the slow device carries. */
  EXPECT_LT(max_of(r.budget, 100, 150), 2500);
  EXPECT_GT(mean_of(r.capability, 300, 400), 5000);
  EXPECT_LT(max_of(r.age, 300, 400), age_bound(eng));
}

/* The device gets three times slower while the load needs more than it
can do (a volume's burst credit runs out, a blkio throttle goes on): the
estimate learned on
the fast device comes down to the slow one, the page cleaner keeps the
slow device busy, and no queue of seconds stands in front of commits. */
TEST(FlushPaceClosedLoop, FollowsASlowerDevice) {
  Device dev;
  dev.capacity = 9000;
  dev.flat_until_cap = true;
  Engine eng;
  eng.need = 6000;
  auto slow_down = [](int t, Device *d, Engine *) {
    if (t == 150) d->capacity = 3000;
  };
  const Result r = run(450, dev, eng, true, slow_down);
  /* Before: learned well above what the slow device will carry. */
  EXPECT_GT(mean_of(r.capability, 100, 150), 2 * 3000);
  /* After: down to it, and the device kept busy. */
  expect_keeps_throttle_busy(r, 300, 450, 3000, eng.foreground_writes);
  EXPECT_LT(max_of(r.latency, 200, 300), 0.5e6) << "a queue of seconds";
}

/* Reads take 6000 free pages a second from 4 instances whose LRU batch
keeps 1024 each: upstream's threads wait for free pages every second;
paced, the LRU depth rises and the waits stop. */
TEST(FlushPaceClosedLoop, FreePageWaitsVanish) {
  Device dev;
  Engine eng;
  eng.redo_rate = 1e6; /* little redo: only the free list is under pressure */
  eng.free_use = 6000;
  const Result upstream = run(120, dev, eng, false, no_change);
  uint64_t up_waits = 0;
  for (size_t i = 20; i < 120; ++i) up_waits += upstream.free_waits[i];
  EXPECT_GT(up_waits, 100000u);

  const Result paced = run(120, dev, eng, true, no_change);
  uint64_t waits = 0;
  for (size_t i = 20; i < 120; ++i) waits += paced.free_waits[i];
  EXPECT_EQ(waits, 0u);
}

/* Stall lab B's shape: reads take more free pages a second than the LRU
batch keeps, and 75% of the pool is dirty (upstream's level there, below
innodb_max_dirty_pages_pct 90). The LRU depth answers the free-page
waits; the flush list gets nothing beyond upstream's target, which does
not put a page on a free list and, flushed young, costs writes. */
TEST(FlushPaceClosedLoop, FreePagePressureDeepensTheLruOnly) {
  Device dev;
  dev.capacity = 3000;
  Engine eng;
  /* Little redo, that upstream's own flushing keeps far below the marks
  (the age-following rate has nothing to do). */
  eng.redo_rate = 1e6;
  eng.need = 200;
  eng.free_use = 6000;
  eng.dirty_pct = 75;
  const Result paced = run(120, dev, eng, true, no_change);
  uint64_t waits = 0;
  for (size_t i = 20; i < 120; ++i) waits += paced.free_waits[i];
  EXPECT_EQ(waits, 0u);
  /* Upstream's target in this engine is at most innodb_io_capacity_max
  (400); the flush list got no more. */
  EXPECT_EQ(max_of(paced.budget, 0, 120), 0);
  EXPECT_LE(max_of(paced.flushed, 0, 120), 400);
}

/* Stall lab B's later phase: a volume at its write cap, reads taking
more free pages than the LRU batch keeps, and the pool at 82% dirty.
Upstream's own flushing holds such a pool just under
innodb_max_dirty_pages_pct (89% of 90) and the LRU depth
answers the free-page waits, so the flush list gets nothing beyond
upstream's target there: at the cap each extra page write is taken from
the commits. Near the limit the budget still rises. */
TEST(FlushPaceClosedLoop, DirtyShareShortOfTheLimitAtTheCapRaisesNoBudget) {
  Device dev;
  dev.capacity = 3000;
  dev.flat_until_cap = true;
  Engine eng;
  eng.redo_rate = 1e6;
  eng.need = 200;
  eng.free_use = 6000;
  eng.foreground_writes = 2400;
  eng.dirty_pct = 82;
  const Result short_of = run(120, dev, eng, true, no_change);
  EXPECT_EQ(max_of(short_of.budget, 0, 120), 0);
  EXPECT_LE(max_of(short_of.flushed, 0, 120), 400);
  uint64_t waits = 0;
  for (size_t i = 20; i < 120; ++i) waits += short_of.free_waits[i];
  EXPECT_EQ(waits, 0u);
  eng.dirty_pct = 89.5;
  const Result near = run(120, dev, eng, true, no_change);
  EXPECT_GT(mean_of(near.budget, 30, 120), 200);
}

/* The LRU depth moves in steps of at most 10% a second, up while threads
wait and back down once the free lists are full, so that no LRU batch is
thousands of pages larger than the pages taken (set to 4x at the first
wait, the depth makes batches of thousands of pages on a volume at its
IOPS cap, and the reads queue behind them). The waits still stop, and
the depth comes back down when the reads do. */
TEST(FlushPaceClosedLoop, LruDepthMovesInSteps) {
  Device dev;
  Engine eng;
  eng.redo_rate = 1e6;
  eng.need = 200;
  eng.free_use = 6000; /* 1,500 a second from each of 4 instances */
  const Result r = run(300, dev, eng, true, [](int t, Device *, Engine *e) {
    if (t == 150) e->free_use = 1000; /* the reads slow down */
  });
  for (size_t i = 1; i < r.lru_depth.size(); ++i) {
    EXPECT_LE(r.lru_depth[i], 1.1 * r.lru_depth[i - 1] + 1) << "second " << i;
    EXPECT_GE(r.lru_depth[i], 0.98 * r.lru_depth[i - 1] - 1) << "second " << i;
  }
  uint64_t waits = 0;
  for (size_t i = 20; i < 150; ++i) waits += r.free_waits[i];
  EXPECT_EQ(waits, 0u);
  /* Deep enough for 1,500 a second, not at the 4x ceiling. */
  EXPECT_GE(min_of(r.lru_depth, 20, 150), 1500);
  EXPECT_LT(max_of(r.lru_depth, 20, 150), 3000);
  /* Back to innodb_lru_scan_depth once 250 a second are taken. */
  EXPECT_EQ(r.lru_depth.back(), 1024);
}

/* MySQL's default pool: 128 MB, one instance of 8,192 pages of 16 KiB,
innodb_lru_scan_depth 1,024. Reads take 3,000 free pages a second and
threads wait for free pages. The LRU depth stays within an eighth of
the instance (LRU_DEPTH_MAX_SHARE), here innodb_lru_scan_depth itself,
and so do the free pages; raised to 4x it would keep half the pool free.
An instance of 65,536 pages under the same reads still gets the deeper
free list (up to 4x innodb_lru_scan_depth). */
TEST(FlushPaceClosedLoop, LruDepthBoundedByTheInstanceSize) {
  Device dev;
  Engine eng;
  eng.redo_rate = 1e6; /* little redo: only the free list is under pressure */
  eng.need = 200;
  eng.instances = 1;
  eng.pool_pages = 8192;
  eng.free_pages = 1024;
  eng.free_use = 3000;
  const Result upstream = run(120, dev, eng, false, no_change);
  uint64_t waits = 0;
  for (size_t i = 20; i < 120; ++i) waits += upstream.free_waits[i];
  EXPECT_GT(waits, 0u) << "no free-page pressure to answer";
  const Result small = run(120, dev, eng, true, no_change);
  EXPECT_LE(max_of(small.lru_depth, 0, 120), 8192 / 8);
  EXPECT_EQ(small.lru_depth.back(), 1024);

  eng.pool_pages = 65536;
  const Result large = run(120, dev, eng, true, no_change);
  EXPECT_GT(max_of(large.lru_depth, 0, 120), 3000);
  EXPECT_LE(max_of(large.lru_depth, 0, 120), 4 * 1024);
}

/* Dirty pages at innodb_max_dirty_pages_pct still raise the flush-list
budget past upstream's target, up to the capability. */
TEST(FlushPaceClosedLoop, DirtyPagesAtTheLimitRaiseTheBudget) {
  Device dev;
  Engine eng;
  eng.redo_rate = 1e6;
  eng.dirty_pct = 90;
  const Result paced = run(60, dev, eng, true, no_change);
  EXPECT_GT(mean_of(paced.flushed, 30, 60), 1000);
}

/* In an IO-bound pool one second's dirty share swings between about 50%
and 90% as LRU batches evict. Read second by second, the pressure (which
rises at once) would spike to 1 at every peak and lift the flush-list
budget for seconds after; from the smoothed share,
swings around 75% leave it alone, and a pool that stays at the limit
still gets it. */
TEST(FlushPaceClosedLoop, SwingingDirtyShareRaisesNoBudget) {
  Device dev;
  dev.capacity = 3000;
  Engine eng;
  eng.redo_rate = 1e6;
  eng.need = 200;
  const Result swinging = run(
      120, dev, eng, true,
      [](int t, Device *, Engine *e) { e->dirty_pct = t % 2 == 0 ? 58 : 92; });
  EXPECT_EQ(max_of(swinging.budget, 10, 120), 0);
  const Result held = run(120, dev, eng, true,
                          [](int, Device *, Engine *e) { e->dirty_pct = 92; });
  EXPECT_GT(mean_of(held.budget, 30, 120), 1000);
}

/* Stall lab B's shape: a 16,384-page pool at a 3,000-IOPS volume's
write cap, pages made dirty a little faster than the LRU batches write
them, so the flush list has to take ~350 pages a second to keep the pool
short of innodb_max_dirty_pages_pct. Read as pressure x capability
(what the controller does when it is not told the pool's size) the
dirty-page pressure bursts: the smoothed share crosses the band, the
budget jumps to over twice its mean, the share falls ten points and
climbs back. The measured hold rate keeps the share within two points
of the band start with the budget near its mean. */
TEST(FlushPaceClosedLoop, DirtyShareHeldWithoutBursts) {
  Device dev;
  dev.capacity = 3000;
  dev.flat_until_cap = true;
  Engine eng;
  eng.redo_rate = 1e6; /* the checkpoint age has nothing to ask */
  eng.need = 200;
  eng.instances = 1;
  eng.pool_pages = 16384;
  eng.free_pages = 1024;
  eng.free_use = 1340;
  eng.foreground_writes = 600;
  eng.dirty_pct = 75;
  eng.dirtied = 1500;
  Config cfg = config();
  cfg.io_capacity_max = 2000;
  const Result held = run(600, dev, eng, true, no_change, cfg);
  eng.tell_pool = false;
  const Result bursts = run(600, dev, eng, true, no_change, cfg);

  const size_t from = 60;
  const size_t to = 600;
  EXPECT_GT(max_of(bursts.budget, from, to),
            2.5 * mean_of(bursts.budget, from, to))
      << "no burst to avoid";
  EXPECT_GT(
      max_of(bursts.dirty_pct, from, to) - min_of(bursts.dirty_pct, from, to),
      8);

  EXPECT_LT(max_of(held.budget, from, to),
            1.5 * mean_of(held.budget, from, to));
  EXPECT_GT(min_of(held.dirty_pct, from, to), 83);
  EXPECT_LT(max_of(held.dirty_pct, from, to), 88);
  /* The flush list takes what holds the share, not more. */
  EXPECT_LT(mean_of(held.flushed, from, to), 1.2 * 350);
}

/* The hold rate: none without the pool's size or any net dirtying, none
4 points or more below the band start, the measured rate faded in from
there to the start, and past the start a fifth of the gap a second on
top. (A drain has no band: the limit's pressure drives it, see
RestoredDirtyLimitReleasesThePressureAtOnce.) */
TEST(FlushPaceController, HoldRateFadesInBelowTheBand) {
  using buf_flush_pace::hold_rate;
  EXPECT_EQ(hold_rate(350, 86, 86, 0), 0);
  EXPECT_EQ(hold_rate(0, 88, 86, 16384), 0);
  EXPECT_EQ(hold_rate(350, 82, 86, 16384), 0);
  EXPECT_DOUBLE_EQ(hold_rate(350, 84, 86, 16384), 175);
  EXPECT_DOUBLE_EQ(hold_rate(350, 86, 86, 16384), 350);
  EXPECT_DOUBLE_EQ(hold_rate(350, 88, 86, 10000), 350 + 0.2 * 2 * 100);
}

/* Why LRU batches every twentieth of a second, each of at most a tenth
of the depth: one buffer pool instance whose reads take 1.3 free pages a ms
(1,300 a second, more than innodb_lru_scan_depth), a scan that takes
800 more at once at 2.5 s, 60% of the pages evicted at the LRU tail
dirty (a write each), and a device (or an IOPS throttle) serving 2.5
writes a ms in FIFO order, shared with 0.8 flush-list pages and 0.5 redo
and binary log writes a ms. Upstream's way, an LRU batch refills the
free list to the depth at the start of each second and whenever a thread
finds it empty: each puts hundreds of writes in the queue at once, and
the commit writes behind them wait a quarter of a second or more. Paced,
batches run every 1 / LRU_ROUNDS of a second while the list is below the
depth, each at most lru_batch(): the list never runs empty, and the worst
commit write waits a fraction as long. Simulated in 1 ms steps, for the
depth innodb_lru_scan_depth and twice it. */
TEST(FlushPaceLru, RefillSpreadOverTheSecond) {
  struct Outcome {
    double worst_commit_ms{0};
    int empty_ms{0};
  };
  auto simulate = [](bool paced, double depth) {
    const double capacity_per_ms = 2.5;
    const double commits_per_ms = 0.5;
    const double list_per_ms = 0.8;
    const double reads_per_ms = 1.3;
    const double dirty_share = 0.6;
    double free_pages = depth;
    double last_round = 0;
    Write_queue q{capacity_per_ms};
    Outcome o;
    for (int ms = 0; ms < 5000; ++ms) {
      const double now = ms / 1000.0;
      double take = reads_per_ms + (ms == 2500 ? 800 : 0);
      /* The list runs empty: the next read waits (and wakes the page
      cleaner). */
      if (take >= free_pages) {
        o.empty_ms++;
        take = free_pages;
      }
      free_pages -= take;
      const double due =
          buf_flush_pace::lru_due(last_round, free_pages < depth);
      const bool round = ms % 1000 == 0 || free_pages < 1 ||
                         (paced && due >= 0 && now + 1e-9 >= due);
      if (round) {
        double batch = depth - free_pages;
        if (paced) {
          batch = std::min(batch, static_cast<double>(buf_flush_pace::lru_batch(
                                      static_cast<uint64_t>(depth))));
        }
        free_pages += batch;
        q.pages += dirty_share * batch;
        last_round = now;
      }
      q.pages += list_per_ms;
      o.worst_commit_ms = std::max(o.worst_commit_ms, q.commit_wait_ms());
      q.step(commits_per_ms);
    }
    return o;
  };
  for (const double depth : {1024.0, 2048.0}) {
    const Outcome burst = simulate(false, depth);
    const Outcome spread = simulate(true, depth);
    EXPECT_GT(burst.worst_commit_ms, 200) << "depth " << depth;
    EXPECT_LT(spread.worst_commit_ms, 0.5 * burst.worst_commit_ms)
        << "depth " << depth << ": burst " << burst.worst_commit_ms
        << " ms, spread " << spread.worst_commit_ms << " ms";
    EXPECT_EQ(spread.empty_ms, 0) << "depth " << depth;
    std::printf(
        "depth %.0f: worst commit wait %.0f ms in bursts, %.0f ms "
        "spread; %d and %d ms with the free list empty\n",
        depth, burst.worst_commit_ms, spread.worst_commit_ms, burst.empty_ms,
        spread.empty_ms);
  }
}

/* The coordinator wakes up for LRU batches every tenth of a second while
it runs rounds; once the server is idle it runs none, and a wake-up time
in the past would wake it again at once, in a loop: such a time is
handed out once, and none after a second without a round. Driven here as
the coordinator's sleep is, in 1 ms steps: each call that returns a time
not after now is an immediate wake-up. */
TEST(FlushPaceWakeup, IdleCoordinatorDoesNotSpin) {
  buf_flush_pace::Wakeup w;
  buf_flush_pace::Slicer s;
  w.round(10.0);
  int busy = 0, spins = 0, late = 0;
  for (int ms = 0; ms < 3000; ++ms) {
    const double now = 10.0 + ms / 1000.0;
    const double second = 10.0 + std::floor(ms / 1000.0);
    if (ms < 500 && ms % 50 == 0) w.round(now); /* active: rounds run */
    const double due = w.next(now, second, true, &s);
    if (due >= 0 && due <= now) {
      (ms < 500 ? busy : spins)++;
      if (ms >= 1500) late++;
    }
  }
  /* While rounds run, the next batch is 1 / LRU_ROUNDS of a second after
  the last one, never already due. */
  EXPECT_EQ(busy, 0);
  /* Idle from 0.5 s: at most one immediate wake-up per LRU round until a
  second after the last round, none after. */
  EXPECT_LE(spins, static_cast<int>(buf_flush_pace::LRU_ROUNDS));
  EXPECT_EQ(late, 0);
  /* Slices due in a second in which the server went idle: no round
  takes them, so each comes back due; at most one immediate wake-up a
  round, not one a ms. */
  buf_flush_pace::Wakeup idle;
  buf_flush_pace::Slicer slices;
  slices.first(1000, 30.0);
  idle.round(30.0);
  int slice_spins = 0;
  for (int ms = 0; ms < 1000; ++ms) {
    const double now = 30.0 + ms / 1000.0;
    const double due = idle.next(now, 30.0, false, &slices);
    if (due >= 0 && due <= now) slice_spins++;
  }
  EXPECT_LE(slice_spins, static_cast<int>(buf_flush_pace::LRU_ROUNDS));
  /* No free list below the depth: no early wake-up at all. */
  buf_flush_pace::Wakeup quiet;
  quiet.round(0);
  EXPECT_LT(quiet.next(0.05, 0, false, &s), 0);
}

/* Slices left from an earlier second are dropped, not handed out as a
time in the past; the current second's slices come first if earlier than
the next LRU batch. */
TEST(FlushPaceWakeup, StaleSlicesDropped) {
  buf_flush_pace::Wakeup w;
  buf_flush_pace::Slicer s;
  s.first(1280, 20.0); /* 10 slices of 128, due at 20.1 .. 20.9 */
  w.round(20.02);      /* the next LRU batch is due at 20.07 */
  EXPECT_NEAR(w.next(20.03, 20.0, true, &s), 20.07, 1e-9);
  w.round(20.06); /* the next LRU batch is due at 20.11 */
  EXPECT_NEAR(w.next(20.065, 20.0, true, &s), 20.1, 1e-9);
  /* Without a free list below the depth, only the slice. */
  w.round(20.02);
  EXPECT_NEAR(w.next(20.03, 20.0, false, &s), 20.1, 1e-9);
  /* The coordinator's next second began at 21.0 with the slices of 20
  not all flushed: they are gone, and only the LRU wake-up is left. */
  w.round(20.97);
  EXPECT_NEAR(w.next(21.0, 21.0, true, &s), 21.02, 1e-9);
  EXPECT_LT(s.due(), 0);
  EXPECT_LT(w.next(21.0, 21.0, false, &s), 0);
}

TEST(FlushPaceLru, BatchAndRounds) {
  EXPECT_EQ(buf_flush_pace::lru_batch(1024), 103u);
  EXPECT_EQ(buf_flush_pace::lru_batch(0), 1u);
  EXPECT_DOUBLE_EQ(buf_flush_pace::lru_due(7.0, true), 7.05);
  EXPECT_LT(buf_flush_pace::lru_due(7.0, false), 0);
}

/* No pressure, no budget: the page cleaner does what upstream asks. */
TEST(FlushPaceController, NoPressureNoBudget) {
  Controller ctl;
  Observation obs;
  obs.writes = 500;
  obs.write_latency_us = 200;
  obs.lsn_age = 10;
  obs.async_mark = 1000;
  obs.dirty_pct = 5;
  obs.free_pages = 100000;
  obs.instances = 4;
  for (int i = 0; i < 10; ++i) {
    const Decision &d = ctl.update(config(), obs);
    EXPECT_EQ(d.budget, 0u);
    EXPECT_EQ(d.lru_depth, 1024u);
  }
}

/* The pressure rises at once and falls slowly: a budget survives a
second without pressure, and is gone a while after. */
TEST(FlushPaceController, PressureFallsSlowly) {
  Controller ctl;
  Observation obs;
  obs.dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  obs.free_pages = 100000;
  const Decision first = ctl.update(config(), obs);
  EXPECT_EQ(first.pressure, 1);
  EXPECT_EQ(first.budget, 200u); /* one bounded step: innodb_io_capacity */
  obs.dirty_pct = 0;
  const Decision second = ctl.update(config(), obs);
  EXPECT_GT(second.budget, 0u);
  EXPECT_LT(second.pressure, 1);
  Decision d;
  for (int i = 0; i < 30; ++i) d = ctl.update(config(), obs);
  EXPECT_EQ(d.budget, 0u);
}

/* A drain (innodb_max_dirty_pages_pct and _lwm at 0, as many runbooks
do before a benchmark) is full pressure; setting the limits back is not a
noisy dirty share, so the pressure and the budget go at once (smoothed
across the change, the budget would stay for seconds). When only the
dirty share falls it is still smoothed (PressureFallsSlowly). */
TEST(FlushPaceController, RestoredDirtyLimitReleasesThePressureAtOnce) {
  Controller ctl;
  Observation obs;
  obs.writes = 500;
  obs.write_latency_us = 200;
  obs.dirty_pct = 1;
  obs.free_pages = 100000;
  /* The pool known, as the server tells it: a drain has no band to hold,
  the limit's pressure drives it. */
  obs.pool_pages = 10000;
  obs.dirty_pages = 100;
  obs.list_flushed = 300;
  Config drain = config();
  drain.dirty_lwm_pct = 0;
  drain.dirty_max_pct = 0;
  Decision d;
  for (int i = 0; i < 10; ++i) d = ctl.update(drain, obs);
  EXPECT_EQ(d.pressure, 1);
  EXPECT_GE(d.budget, 400u);     /* at least innodb_io_capacity_max */
  d = ctl.update(config(), obs); /* 1% dirty against 10/90 */
  EXPECT_EQ(d.p_dirty, 0);
  EXPECT_EQ(d.budget, 0u);
  /* The limits unchanged, a falling share is still smoothed. */
  for (int i = 0; i < 10; ++i) d = ctl.update(drain, obs);
  obs.dirty_pct = 0;
  d = ctl.update(drain, obs);
  EXPECT_GT(d.budget, 0u);
}

/* On a device shared with redo and binlog syncs the 1-s write latency
swings between 1 and 13 ms while upstream flushes 800 pages/s in sync
mode (stall lab C's open-loop scenario). The baseline must follow
the latency at upstream's own flushing, or one quiet second early on sets
a limit the device never meets again and the capability is cut to the
floor for good. */
TEST(FlushPaceController, BaselineFollowsUpstreamsOwnFlushing) {
  Controller ctl;
  Observation obs;
  obs.dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  obs.free_pages = 100000;
  /* One quiet second: 200 pages at 1 ms. */
  obs.writes = obs.submitted = obs.list_flushed = obs.upstream = 200;
  obs.write_latency_us = 1000;
  ctl.update(config(), obs);
  /* Then upstream's sync flushing, 800 pages/s, latency 1-13 ms, queue
  steady (completed = submitted), and the page cleaner doing what the
  budget allows on top. */
  const double lat[] = {1200, 6700, 12400, 4400, 1400, 6800, 1700,  7900,
                        8000, 8400, 4400,  5600, 5000, 3100, 11400, 4700};
  uint64_t cap = 0;
  for (int i = 0; i < 120; ++i) {
    const Decision &d = ctl.last();
    obs.upstream = 800;
    obs.list_flushed = std::max<uint64_t>(800, d.budget);
    obs.writes = obs.submitted = obs.list_flushed + 300;
    obs.write_latency_us = lat[i % 16];
    cap = ctl.update(config(), obs).capability;
  }
  EXPECT_GT(cap, 2 * config().io_capacity_max);
}

/** Full dirty-page pressure and 30 quiet intervals of 2,000 pages
flushed at 200 us: @return the capability the controller learned. */
uint64_t learn_quietly(Controller *ctl, Observation *obs) {
  obs->dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  obs->free_pages = 100000;
  obs->writes = obs->submitted = obs->list_flushed = 2000;
  obs->write_latency_us = 200;
  for (int i = 0; i < 30; ++i) ctl->update(config(), *obs);
  return ctl->last().capability;
}

/* Upstream's own sync-mode flushing overloads the device for a second
(4000 pages asked for and flushed, latency 20x the baseline, the queue
growing): pacing did not add those writes, so the capability it learned is
not cut (cut by every sync-flush second, the estimate would stay far
below the device for minutes). */
TEST(FlushPaceController, UpstreamSyncFlushDoesNotCut) {
  Controller ctl;
  Observation obs;
  const uint64_t learned = learn_quietly(&ctl, &obs);
  EXPECT_GT(learned, 1000u);
  obs.upstream = obs.list_flushed = 4000;
  obs.submitted = 6000;
  obs.writes = 4000;
  obs.write_latency_us = 4000;
  for (int i = 0; i < 5; ++i) ctl.update(config(), obs);
  EXPECT_GE(ctl.last().capability, learned);
  /* The same overload from pacing's own budget, flushing at the
  capability it learned, is cut. */
  obs.upstream = 400;
  obs.list_flushed = obs.writes = learned;
  obs.submitted = learned + 2000;
  for (int i = 0; i < 5; ++i) ctl.update(config(), obs);
  EXPECT_LT(ctl.last().capability, learned);
}

/* In the first seconds of a load, with the latency still high from its
start, upstream's own target of 400 pages/s goes out as 401 (a batch
ends at a page boundary). A page over upstream's target is not pacing's
doing, and does not cut the estimate. */
TEST(FlushPaceController, UpstreamsTargetPlusAPageDoesNotCut) {
  Controller ctl;
  Observation obs;
  const uint64_t learned = learn_quietly(&ctl, &obs);
  EXPECT_GT(learned, 1000u);
  obs.upstream = 400;
  obs.list_flushed = 401;
  obs.writes = 2000;
  obs.submitted = 4000;
  obs.write_latency_us = 8000;
  for (int i = 0; i < 6; ++i) ctl.update(config(), obs);
  EXPECT_EQ(ctl.last().capability, learned);
}

/* An overload from flushing well past the capability (the age-following
rate, which is not held to it) does not cut it further: the estimate said
the device would not carry that much (cut there, under a throttle, the
estimate would fall to half of what the throttle lets through). */
TEST(FlushPaceController, OverloadPastTheCapabilityDoesNotCut) {
  Controller ctl;
  Observation obs;
  const uint64_t learned = learn_quietly(&ctl, &obs);
  EXPECT_GT(learned, 1000u);
  obs.upstream = 400;
  obs.list_flushed = obs.writes = 2 * learned;
  obs.submitted = 2 * learned + 2000;
  obs.write_latency_us = 4000;
  for (int i = 0; i < 5; ++i) ctl.update(config(), obs);
  EXPECT_EQ(ctl.last().capability, learned);
  EXPECT_TRUE(ctl.last().backing_off);
}

/* innodb_adaptive_flushing_device_capacity_max caps the estimate and the
budget, including the flushing the checkpoint age asks for (the wave needs
2000 pages a second), and the ceiling reported is that option's, in force:
the budget reaches it. */
TEST(FlushPaceClosedLoop, CeilingHonoured) {
  Device dev;
  Engine eng;
  Config cfg = config();
  cfg.capability_ceiling = 1000;
  const Result r = run(200, dev, eng, true, no_change, cfg);
  EXPECT_LE(max_of(r.capability, 0, 200), 1000);
  EXPECT_LE(max_of(r.budget, 0, 200), 1000);
  EXPECT_EQ(max_of(r.budget, 100, 200), 1000);
  for (int s = 100; s < 200; ++s) {
    EXPECT_EQ(r.ceiling[s], 1000) << "second " << s;
    EXPECT_EQ(r.ceiling_by[s], Ceiling::USER) << "second " << s;
  }
}

/* The ceiling reported is the one in force: the budget never exceeds it,
and where nothing is set by the user it is the device's capability, or
the checkpoint age's rate when a latency rise has cut the capability
below what the age needs (LatencyRiseWithoutQueueKeepsTheAge's device).
A ceiling option below innodb_io_capacity is raised to it, as the
option's page says. */
TEST(FlushPaceClosedLoop, CeilingReportedIsTheOneInForce) {
  const Result r = run_latency_rise(300);
  Device dev;
  Engine eng;
  int by_capability = 0, by_age = 0;
  for (int s = 0; s < 300; ++s) {
    EXPECT_LE(r.budget[s], r.ceiling[s]) << "second " << s;
    EXPECT_GE(r.ceiling[s], std::max(r.capability[s], 200.0))
        << "second " << s;
    EXPECT_NE(r.ceiling_by[s], Ceiling::USER) << "second " << s;
    by_capability += r.ceiling_by[s] == Ceiling::CAPABILITY;
    by_age += r.ceiling_by[s] == Ceiling::CHECKPOINT_AGE;
    if (r.ceiling_by[s] == Ceiling::CAPABILITY) {
      EXPECT_EQ(r.ceiling[s], std::max(r.capability[s], 200.0))
          << "second " << s;
    }
  }
  EXPECT_GT(by_capability, 0);
  EXPECT_GT(by_age, 0);

  Config low = config();
  low.capability_ceiling = 50; /* below innodb_io_capacity (200) */
  const Result l = run(60, dev, eng, true, no_change, low);
  EXPECT_EQ(l.ceiling[59], 200);
  EXPECT_EQ(l.ceiling_by[59], Ceiling::USER);
  EXPECT_LE(max_of(l.budget, 0, 60), 200);
}

TEST(FlushPaceController, CeilingNames) {
  EXPECT_STREQ(buf_flush_pace::ceiling_name(Ceiling::USER),
               "innodb_adaptive_flushing_device_capacity_max");
  EXPECT_STREQ(buf_flush_pace::ceiling_name(Ceiling::CAPABILITY),
               "device capability");
  EXPECT_STREQ(buf_flush_pace::ceiling_name(Ceiling::CHECKPOINT_AGE),
               "checkpoint age");
}

/* The coordinator updates the controller from its active rounds only: an
interval of a minute is an idle server, and so is an interval in which
the coordinator ran an idle round (a pause of 2 s between a load's
prepare and its run). What it remembers of the load before the gap
(pressure, budget, LRU depth, age window) is gone after it; what it
learned about the device stays. One second later with no idle round, the
same observation still finds the pressure falling slowly
(PressureFallsSlowly). */
TEST(FlushPaceController, IdleGapForgetsTheLoadNotTheDevice) {
  Controller ctl;
  Observation load;
  load.dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  load.writes = load.submitted = 3000;
  load.write_latency_us = 100;
  load.list_flushed = 100000;
  load.free_waits = 50;
  for (int i = 0; i < 30; ++i) ctl.update(config(), load);
  const Decision busy = ctl.last();
  ASSERT_GT(busy.budget, 1000u);
  ASSERT_GT(busy.lru_depth, 1024u);

  Observation quiet;
  quiet.dirty_pct = 1;
  quiet.free_pages = 100000;
  Controller same = ctl;
  EXPECT_GT(same.update(config(), quiet).budget, 0u) << "1 s: no gap";

  for (const bool idle_round : {false, true}) {
    Controller after = ctl;
    Observation o = quiet;
    o.after_idle = idle_round;
    o.interval_s = idle_round ? 2 : 60;
    const Decision &d = after.update(config(), o);
    EXPECT_EQ(d.budget, 0u) << "idle round " << idle_round;
    EXPECT_EQ(d.pressure, 0);
    EXPECT_EQ(d.lru_depth, 1024u);
    EXPECT_EQ(d.capability, busy.capability);
  }
}

/* A bulk load at a young age: redo at 20% of the async mark a second,
every page flushed advancing the checkpoint far, so the age stays at 5%
with 3,000 pages a second flushed, and the age-following rate is held up
only by its x0.8 step down from what was flushed. The
bulk load ends and an OLTP load (5.5% a second) follows at once, with no
idle round. At this age the OLTP load needs no flushing from pacing, and
from the first update there is none; read from the window's redo rate
alone (the bulk load's for seven more intervals) the budget would fall
by only x0.8 a second. */
TEST(FlushPaceController, LoadDropAtAYoungAgeStopsTheRate) {
  Controller ctl;
  Observation obs;
  obs.async_mark = 80000000;
  obs.sync_mark = 86000000;
  obs.lsn = 1000000000;
  obs.lsn_age = 4000000;
  obs.dirty_pct = 5;
  obs.free_pages = 100000;
  obs.writes = obs.submitted = 3000;
  obs.write_latency_us = 200;
  obs.upstream = 400;
  obs.list_flushed = 3000; /* upstream's pages among them */
  for (int i = 0; i < 12; ++i) {
    obs.lsn += 16000000;
    ctl.update(config(), obs);
  }
  ASSERT_GT(ctl.last().budget, 1000u);
  obs.lsn += 4400000;
  obs.list_flushed = ctl.last().budget;
  EXPECT_EQ(ctl.update(config(), obs).budget, 0u);
}

/* A well-tuned write-only load: innodb_io_capacity 8,000, the oldest
modification at 6-26% of the async mark, upstream flushing ~1,000
pages/s. Some advance of the checkpoint is wanted (the approach starts
twelve seconds of redo short of the target), but far less than upstream
already gives: a step bounded from innodb_io_capacity would ask for
6,400-9,600 pages/s. The budget stays near upstream's. */
TEST(FlushPaceController, YoungAgeAtALargeIoCapacityAsksForNoBurst) {
  Config cfg = config();
  cfg.io_capacity = 8000;
  cfg.io_capacity_max = 16000;
  for (const double advance_per_page : {11500.0, 0.0}) {
    Controller ctl;
    Observation obs;
    obs.async_mark = 190000000;
    obs.sync_mark = 205000000;
    obs.lsn = 1000000000;
    double age = 20000000;
    obs.dirty_pct = 25;
    obs.free_pages = 100000;
    obs.writes = obs.submitted = 1100;
    obs.write_latency_us = 200;
    obs.upstream = 1000;
    obs.list_flushed = 1000;
    uint64_t most = 0;
    for (int i = 0; i < 30; ++i) {
      obs.lsn += 12000000;
      age = std::max(1e6, age + 12000000 - advance_per_page * 1000);
      if (age > 45000000) age = 20000000; /* upstream's batches */
      obs.lsn_age = static_cast<uint64_t>(age);
      most = std::max(most, ctl.update(cfg, obs).budget);
    }
    EXPECT_LE(most, 1200u) << "advance per page " << advance_per_page;
  }
}

/* reset() forgets: the estimate starts again at innodb_io_capacity_max
(no stale measurement after the feature is switched off and on). */
TEST(FlushPaceController, ResetForgets) {
  Controller ctl;
  Observation obs;
  obs.dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  obs.writes = 3000;
  obs.write_latency_us = 100;
  obs.list_flushed = 100000;
  for (int i = 0; i < 30; ++i) ctl.update(config(), obs);
  EXPECT_GT(ctl.last().capability, 1000u);
  ctl.reset();
  obs.writes = 0;
  const Decision &d = ctl.update(config(), obs);
  EXPECT_EQ(d.capability, 400u);
  EXPECT_EQ(d.baseline_us, 0);
}

}  // namespace

using buf_flush_pace::round_target;
using buf_flush_pace::Slicer;

/* A second's target of 2,000 pages goes out in 10 slices, one every
100 ms, and adds up to the target. */
TEST(FlushPaceSlicer, SpreadsTheTargetOverTheSecond) {
  Slicer s;
  uint64_t total = s.first(2000, 100.0);
  EXPECT_EQ(s.count(), buf_flush_pace::MAX_SLICES);
  EXPECT_EQ(s.count(), 10u);
  EXPECT_EQ(total, 200u);
  EXPECT_EQ(s.next(100.05), 0u) << "the second slice is not due yet";
  for (unsigned i = 1; i < s.count(); ++i) {
    EXPECT_NEAR(s.due(), 100.0 + i / 10.0, 1e-9);
    const uint64_t n = s.next(s.due());
    EXPECT_EQ(n, 200u);
    total += n;
  }
  EXPECT_EQ(total, 2000u);
  EXPECT_LT(s.due(), 0) << "none left";
  EXPECT_EQ(s.next(101.5), 0u);
}

/* Fewer than two slices' worth is not cut; in between, slices of at
least SLICE_MIN_PAGES, the remainder in the first. */
TEST(FlushPaceSlicer, SmallTargetsAreNotCut) {
  Slicer s;
  EXPECT_EQ(s.first(100, 0), 100u);
  EXPECT_EQ(s.count(), 1u);
  EXPECT_LT(s.due(), 0);
  EXPECT_EQ(s.next(0.5), 0u);
  EXPECT_EQ(s.first(0, 1), 0u);
  EXPECT_EQ(s.count(), 1u);
  EXPECT_EQ(s.first(200, 2), 68u);
  EXPECT_EQ(s.count(), 3u);
  EXPECT_EQ(s.next(2.34), 66u);
  EXPECT_EQ(s.next(2.67), 66u);
}

/* A new second's target replaces what was left of the last one (the page
cleaner fell behind: the slices left are not flushed on top). */
TEST(FlushPaceSlicer, ANewSecondDropsWhatIsLeft) {
  Slicer s;
  s.first(1000, 0);
  EXPECT_GT(s.next(0.2), 0u);
  EXPECT_EQ(s.first(500, 1.0), 500u - 6 * (500 / 7));
  EXPECT_EQ(s.count(), 7u);
  EXPECT_NEAR(s.due(), 1.0 + 1.0 / 7, 1e-9);
}

/* Why slices: a device (or an IOPS throttle) that serves 8,000 writes a
second in FIFO order, redo and binary log writes of 3,500 commits a second
arriving evenly, and the page cleaner's 2,250 pages a second. Submitted
at once at the start of each second (upstream's way), the pages make the
commit writes behind them wait for up to a quarter of a second; in the
Slicer's slices, the queue never builds. Simulated in 1 ms steps. */
TEST(FlushPaceSlicer, CommitWritesWaitLessBehindSlices) {
  auto worst_commit_wait_ms = [](bool sliced) {
    const double capacity_per_ms = 8.0;
    const double commits_per_ms = 3.5;
    double worst = 0;
    Write_queue q{capacity_per_ms};
    Slicer s;
    for (int ms = 0; ms < 5000; ++ms) {
      const double now = ms / 1000.0;
      if (ms % 1000 == 0) {
        q.pages += sliced ? s.first(2250, now) : 2250;
      } else if (sliced) {
        q.pages += s.next(now);
      }
      worst = std::max(worst, q.commit_wait_ms());
      q.step(commits_per_ms);
    }
    return worst;
  };
  const double burst = worst_commit_wait_ms(false);
  const double sliced = worst_commit_wait_ms(true);
  EXPECT_GT(burst, 200) << "the simulated queue is not there";
  EXPECT_LT(sliced, 0.2 * burst)
      << "burst " << burst << " ms, sliced " << sliced << " ms";
}

/* Below innodb_adaptive_flushing_lwm's mark a round keeps only upstream's
dirty-page term of its target; at or past the mark, in a sync round, or
with the mark at 0, all of it. The budget still lifts a kept target. */
TEST(FlushPaceRound, YoungAgeKeepsOnlyUpstreamsDirtyTerm) {
  using buf_flush_pace::kept_upstream;
  const uint64_t lwm = 100'000'000;
  /* Stall lab B's first phase: the checkpoint 2-4 % old (lwm 10 %),
  upstream asking ~1,300 pages, its dirty-page term 120 (60 % of 200). */
  EXPECT_EQ(kept_upstream(1300, 120, 30'000'000, lwm, false), 120u);
  EXPECT_EQ(kept_upstream(100, 120, 30'000'000, lwm, false), 100u)
      << "never more than upstream asked for";
  EXPECT_EQ(kept_upstream(1300, 120, lwm, lwm, false), 1300u) << "at the mark";
  EXPECT_EQ(kept_upstream(1300, 120, 2 * lwm, lwm, false), 1300u);
  EXPECT_EQ(kept_upstream(1300, 120, 30'000'000, lwm, true), 1300u)
      << "sync flush";
  EXPECT_EQ(kept_upstream(1300, 120, 30'000'000, 0, false), 1300u)
      << "innodb_adaptive_flushing_lwm=0";
  EXPECT_EQ(round_target(kept_upstream(1300, 120, 30'000'000, lwm, false), 900,
                         false),
            900u)
      << "the budget lifts what is kept";
}

/* The lab's cell (docs/bench/2026-12-07-rebuild-noredo): a bulk load of
10M rows (28 MB of redo a second, 1,400 pages flushed), then ALTER TABLE
... FORCE, whose sorted build makes ~2,000 pages a second with no redo
while 200 OLTP transactions a second write ~140 KB of it; then loads that
modify their pages with redo: oltp_write_only at the cloud class (3.2 MB a
second, ~1,000 pages made dirty) and the TPC-C-like mix (1.2 MB, ~1,700).
The redo per page made dirty tells the build's pages from all of them,
within seconds of the build's start, so only its rounds are upstream's. */
TEST(FlushPaceRound, PagesMadeWithoutRedoAreUpstreamsRounds) {
  using buf_flush_pace::NO_REDO_BYTES_PER_PAGE;
  using buf_flush_pace::upstreams_round;
  struct Phase {
    const char *name;
    int seconds;
    double redo_per_s;
    double flushed_per_s;
    double dirty_growth_per_s;
  };
  const Phase phases[] = {{"bulk load", 40, 28e6, 1400, 150},
                          {"sorted build", 40, 140e3, 2000, 0},
                          {"write_only", 40, 3.2e6, 1000, 0},
                          {"TPC-C-like", 40, 1.2e6, 1700, 0}};
  Controller ctl;
  Observation obs;
  obs.async_mark = 800'000'000;
  obs.sync_mark = 860'000'000;
  obs.lsn = 1'000'000'000;
  obs.lsn_age = 8'000'000;
  obs.pool_pages = 32768;
  obs.free_pages = 1000;
  obs.writes = obs.submitted = 2000;
  obs.write_latency_us = 1000;
  double dirty = 5000;
  for (const Phase &ph : phases) {
    int upstreams = 0, first = -1;
    for (int t = 0; t < ph.seconds; ++t) {
      obs.lsn += static_cast<uint64_t>(ph.redo_per_s);
      dirty = std::min(dirty + ph.dirty_growth_per_s, 24000.0);
      obs.dirty_pages = static_cast<uint64_t>(dirty);
      obs.dirty_pct = 100 * dirty / obs.pool_pages;
      obs.list_flushed = static_cast<uint64_t>(ph.flushed_per_s);
      obs.upstream = obs.list_flushed;
      const Decision &d = ctl.update(config(), obs);
      /* The controller asks for no budget in either phase of the lab's
      cell; the rule's other conditions are tested below. */
      if (upstreams_round(0, d.redo_per_dirtied, 40, 0)) {
        upstreams++;
        if (first < 0) first = t;
      }
    }
    if (ph.redo_per_s < 1e6) {
      EXPECT_GE(first, 0) << ph.name;
      EXPECT_LE(first, 8) << ph.name << ": seconds into the phase";
      EXPECT_GE(upstreams, ph.seconds - 9) << ph.name;
      EXPECT_LT(ctl.last().redo_per_dirtied, NO_REDO_BYTES_PER_PAGE / 2);
    } else {
      EXPECT_EQ(upstreams, 0) << ph.name;
      EXPECT_GT(ctl.last().redo_per_dirtied, 2 * NO_REDO_BYTES_PER_PAGE)
          << ph.name;
    }
  }
  EXPECT_TRUE(upstreams_round(0, 80, 40, 0));
  EXPECT_FALSE(upstreams_round(300, 80, 40, 0)) << "a budget";
  EXPECT_FALSE(upstreams_round(0, 80, 40, 3)) << "free-page waits";
  EXPECT_FALSE(upstreams_round(0, 80, 1000, 0))
      << "the LRU tail is dirty (stall lab B)";
  EXPECT_FALSE(upstreams_round(0, -1, 40, 0)) << "unknown";
}

TEST(FlushPaceRound, SyncRoundsCarryASlice) {
  EXPECT_EQ(round_target(100, 3300, false), 3300u);
  EXPECT_EQ(round_target(5000, 3300, false), 5000u);
  EXPECT_EQ(round_target(100, 3300, true), 330u);
  EXPECT_EQ(round_target(100, 3301, true), 331u);
  EXPECT_EQ(round_target(800, 3300, true), 800u) << "upstream's is kept";
  EXPECT_EQ(round_target(200, 0, true), 200u);
  EXPECT_EQ(round_target(200, 0, false), 200u);
}

TEST(FlushPaceRound, SyncRoundsPastTheLimitKeepTheBudgetsPace) {
  using buf_flush_pace::sync_past_limit;
  EXPECT_FALSE(sync_past_limit(0, 0.5, 0)) << "no budget";
  EXPECT_TRUE(sync_past_limit(1000, 0, 0)) << "one slice ahead";
  EXPECT_FALSE(sync_past_limit(1000, 0, 100));
  EXPECT_TRUE(sync_past_limit(1000, 0.5, 599));
  EXPECT_FALSE(sync_past_limit(1000, 0.5, 600)) << "ahead of the pace";
  EXPECT_FALSE(sync_past_limit(1000, 3, 1100)) << "a window is a second";
  /* Rounds back to back, a hundredth of a second each: a slice of the
  budget each while behind, so the second flushes the budget and about a
  slice more, not what the device would complete. */
  uint64_t flushed = 0;
  for (int i = 0; i < 100; ++i) {
    if (sync_past_limit(1000, i / 100.0, flushed)) {
      flushed += round_target(200, 1000, true);
    }
  }
  EXPECT_GE(flushed, 1000u);
  EXPECT_LE(flushed, 1200u);
}

/* The coordinator's window: a second of sync rounds, opened again by the
first sync round after a round outside sync flush, so a new sync episode
starts with its slice however much the last one flushed. */
TEST(FlushPaceRound, SyncWindowLastsASecondAndOpensAfterAPause) {
  buf_flush_pace::Sync_window w;
  EXPECT_TRUE(w.round(1000, 10.0)) << "the first round takes a slice";
  w.flushed(700);
  EXPECT_FALSE(w.round(1000, 10.5)) << "700 pages is ahead of 600 due";
  EXPECT_TRUE(w.round(1000, 10.7));
  w.flushed(200);
  EXPECT_FALSE(w.round(1000, 10.75)) << "900 is ahead of 850 due";
  EXPECT_TRUE(w.round(1000, 11.0)) << "a second later, a new window";
  w.flushed(900);
  EXPECT_FALSE(w.round(1000, 11.2));
  w.close();
  EXPECT_TRUE(w.round(1000, 11.3)) << "closed: the next round opens one";
  EXPECT_FALSE(w.round(0, 11.4)) << "no budget, no round past the limit";
  /* Back to back for three seconds, rounds of a hundredth of a second
  that flush a slice each when let: the budget a second, plus a slice. */
  buf_flush_pace::Sync_window b;
  uint64_t total = 0;
  for (int i = 0; i < 300; ++i) {
    if (b.round(1000, 20 + i / 100.0)) {
      const uint64_t n = buf_flush_pace::round_target(200, 1000, true);
      b.flushed(n);
      total += n;
    }
  }
  EXPECT_GE(total, 3000u);
  EXPECT_LE(total, 3600u);
}

/* Commits out of redo space wait for the log checkpointer, and it waits for
the end of the running sync flush round (up to a second) before it writes
the checkpoint. Rounds run back to back at what a saturated device
completes (~2,750 pages/s against a budget of ~3,300 pages/s, upstream
asking for innodb_io_capacity, as in stall lab D's saturated device). */
TEST(FlushPaceRound, CheckpointerWaitsLittleForASyncRound) {
  auto worst_wait_s = [](uint64_t round_pages) {
    const double device = 2750;
    const double round_s = round_pages / device;
    double worst = 0;
    double end = round_s;
    for (int ms = 0; ms < 20000; ++ms) {
      const double now = ms / 1000.0;
      while (end <= now) end += round_s;
      worst = std::max(worst, std::min(1.0, end - now));
    }
    return worst;
  };
  const double whole = worst_wait_s(std::max<uint64_t>(200, 3300));
  const double paced = worst_wait_s(round_target(200, 3300, true));
  EXPECT_GE(whole, 1.0) << "a round carrying the second's budget";
  EXPECT_LT(paced, 0.15) << "worst wait " << paced << " s";
}

/* Splitting a flush-list target over buffer pool instances by page age. */

std::vector<uint64_t> split(uint64_t total, std::vector<uint64_t> weights) {
  std::vector<uint64_t> out(weights.size());
  buf_flush_pace::split_by_age(total, weights.data(), weights.size(),
                               out.data());
  return out;
}

uint64_t sum_of(const std::vector<uint64_t> &v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

TEST(SplitByAge, FollowsTheOldPagesNotAnEvenShare) {
  /* Instance 2 holds nearly all pages at or before the target LSN: an even
     split (a quarter each) would flush young pages in 0, 1 and 3 and leave
     the oldest ones, which hold the checkpoint, in 2. */
  const auto out = split(1000, {10, 10, 970, 10});
  EXPECT_EQ(sum_of(out), 1000u);
  EXPECT_GE(out[2], 950u);
  for (size_t i : {0, 1, 3}) {
    EXPECT_GE(out[i], 1u) << "instance " << i << " still flushes";
    EXPECT_LE(out[i], 20u) << "instance " << i;
  }
}

TEST(SplitByAge, ProportionalAndExact) {
  const auto out = split(4003, {1, 2, 3, 4});
  EXPECT_EQ(sum_of(out), 4003u);
  /* 3999 shared 1:2:3:4 after one page each: 399.9, 799.8, 1199.7,
     1599.6, rounded down; the 3 pages lost to rounding go one each to the
     three heaviest. */
  EXPECT_EQ(out, (std::vector<uint64_t>{400, 801, 1201, 1601}));
}

TEST(SplitByAge, EvenWithoutWeights) {
  const auto out = split(10, {0, 0, 0, 0});
  EXPECT_EQ(sum_of(out), 10u);
  for (uint64_t x : out) {
    EXPECT_GE(x, 2u);
    EXPECT_LE(x, 3u);
  }
}

TEST(SplitByAge, EveryInstanceGetsAPageEvenFromASmallTarget) {
  const auto out = split(2, {0, 5, 0, 0, 9, 0, 0, 0});
  EXPECT_EQ(out.size(), 8u);
  for (uint64_t x : out) EXPECT_GE(x, 1u);
  EXPECT_EQ(sum_of(out), 8u);
}

TEST(SplitByAge, OneInstanceTakesAll) {
  EXPECT_EQ(split(777, {0}), (std::vector<uint64_t>{777}));
  EXPECT_EQ(split(777, {123}), (std::vector<uint64_t>{777}));
}

/* The slices of one second, each split by slice_of_plan() from the
second's shares: every instance gets its share within the second, and the
second makes at most slices + instances - 1 batches instead of one per
instance per slice; a slice within one large share reaches one instance. */
TEST(SliceOfPlan, FewerBatchesSameShares) {
  const std::vector<uint64_t> weights{40, 0, 900, 35, 10, 0, 600, 15};
  const size_t n = weights.size();
  const uint64_t target = 2000;
  const auto plan = split(target, weights);
  Slicer s;
  std::vector<uint64_t> got(n, 0);
  size_t batches = 0;
  auto take = [&](uint64_t pages) {
    std::vector<uint64_t> out(n);
    buf_flush_pace::slice_of_plan(s.offset(), pages, plan.data(), n,
                                  out.data());
    EXPECT_EQ(sum_of(out), pages);
    size_t reached = 0;
    for (size_t i = 0; i < n; i++) {
      got[i] += out[i];
      if (out[i] > 0) reached++;
    }
    EXPECT_GE(reached, 1u);
    /* Instance 2's share, pages 51-1,172 of the line, holds slices 1-4
       (pages 200-999) whole. */
    if (s.offset() >= 200 && s.offset() + pages <= 1000) {
      EXPECT_EQ(reached, 1u) << "slice at offset " << s.offset();
    }
    batches += reached;
  };
  take(s.first(target, 0.0));
  ASSERT_EQ(s.count(), buf_flush_pace::MAX_SLICES);
  for (unsigned i = 1; i < s.count(); ++i) take(s.next(s.due()));
  EXPECT_EQ(got, plan) << "each instance flushes its share of the second";
  EXPECT_LE(batches, s.count() + n - 1);
  EXPECT_LT(batches, s.count() * n / 4);
}

TEST(SliceOfPlan, OneInstanceTakesEverySlice) {
  const std::vector<uint64_t> plan{1000};
  Slicer s;
  uint64_t pages = s.first(1000, 0.0);
  uint64_t out = 0;
  buf_flush_pace::slice_of_plan(s.offset(), pages, plan.data(), 1, &out);
  EXPECT_EQ(out, pages);
  pages = s.next(s.due());
  buf_flush_pace::slice_of_plan(s.offset(), pages, plan.data(), 1, &out);
  EXPECT_EQ(out, pages);
}

TEST(SliceOfPlan, PagesPastThePlanGoToTheLastInstance) {
  const std::vector<uint64_t> plan{10, 10};
  std::vector<uint64_t> out(2);
  buf_flush_pace::slice_of_plan(15, 10, plan.data(), 2, out.data());
  EXPECT_EQ(out, (std::vector<uint64_t>{0, 10}));
}

TEST(FlushPaceSlicer, OffsetIsThePagesHandedOutBefore) {
  Slicer s;
  EXPECT_EQ(s.first(500, 1.0), 500u - 6 * (500 / 7));
  EXPECT_EQ(s.offset(), 0u);
  uint64_t handed = 500 - 6 * (500 / 7);
  for (unsigned i = 1; i < s.count(); ++i) {
    const uint64_t pages = s.next(s.due());
    EXPECT_EQ(s.offset(), handed);
    handed += pages;
  }
  EXPECT_EQ(handed, 500u);
}

/** Stall lab A as Steady runs it (2026-12-04): 2.2 MB of redo a second,
the async and sync marks 71.6 and 77.1 MB (half-way between them is 1.25
s of redo below the sync mark), ~2,000 pages a second hold the age at the
async mark, and 9.7.2's sync-mode rounds (Engine::sync_rounds) write at
most 2,400 pages a second, their latency six times the device's. The
controller misses every third second and a second's flushing shows in
the age the next second. */
Engine lab_a_sync_rounds() {
  Engine eng = cold_start(1, 2.2e6, 2000);
  eng.async_mark = 71.6e6;
  eng.sync_mark = 77.1e6;
  eng.foreground_writes = 0;
  eng.sync_rounds = true;
  eng.sync_pages_ps = 1800;
  eng.sync_latency_factor = 6;
  return eng;
}

/** @return seconds in [from, to) with sync-mode page writes */
long sync_seconds_of(const Result &r, size_t from, size_t to) {
  return std::count_if(r.sync_flushed.begin() + from,
                       r.sync_flushed.begin() + to,
                       [](double p) { return p > 0; });
}

/* A stall of the page cleaner (here: the age set past the sync mark at
second 150) starts upstream's sync-mode flushing, whose rounds write at
once and back to back at six times the device's latency. The age is back
under the sync mark within seconds and stays there, and the capability
is not cut. */
TEST(FlushPaceClosedLoop, LeavesSyncModeAfterAStall) {
  const Device dev = lab_a_device();
  const Engine eng = lab_a_sync_rounds();
  auto stall = [](int t, Device *, Engine *e) {
    if (t == 150) e->age = e->sync_mark * 1.01;
  };
  const Result upstream = run(300, dev, eng, false, stall);
  EXPECT_GT(upstream.sync_seconds, 100) << "the simulated stall is not there";
  const Result r = run(300, dev, eng, true, stall);
  auto sync_seconds = [&r](size_t from, size_t to) {
    return sync_seconds_of(r, from, to);
  };
  EXPECT_EQ(sync_seconds(0, 150), 0);
  EXPECT_EQ(sync_seconds(160, 300), 0);
  EXPECT_GE(min_of(r.capability, 150, 300), 0.9 * r.capability[149]);
}

/* Stall lab A's redo log is small for its load: half-way between the
marks is 1.25 s of redo below the sync mark, less than the controller's
update interval with its lateness. The target leaves two seconds of redo
(AGE_ROOM_S) but stays above the async mark, so a two-second stall of the
page cleaner (the redo of two seconds added to the age at once, three
times) takes the age into sync-mode flushing not once; at the half-way
target each of them did (6 sync seconds). */
TEST(FlushPaceClosedLoop, SmallRedoLeavesRoomForAStall) {
  const Device dev = lab_a_device();
  Engine eng = lab_a_sync_rounds();
  eng.sync_pages_ps = 2000;
  const double held = 1.7e6; /* the redo a second at the settled rate */
  auto stalls = [held](int t, Device *, Engine *e) {
    if (t == 150 || t == 200 || t == 250) e->age += 2 * held;
  };
  const Result upstream = run(300, dev, eng, false, stalls);
  EXPECT_GT(upstream.sync_seconds, 100) << "the simulated stall is not there";
  const Result r = run(300, dev, eng, true, stalls);
  EXPECT_EQ(std::count_if(r.sync_flushed.begin(), r.sync_flushed.end(),
                          [](double p) { return p > 0; }),
            0);
  EXPECT_NEAR(mean_of(r.generated, 120, 150), held, 0.05 * held);
  /* The target: room below the sync mark, not below the async mark. */
  const double target = mean_of(r.age, 120, 150);
  EXPECT_LT(target, eng.sync_mark - 2 * held);
  EXPECT_GT(target, eng.async_mark);
}

/** Stall lab A's redo log as the controller sees it: the async mark
72.6 MB, the sync mark 78.2 MB, the free-check limit 83.9 MB (the marks
less the free-check margin). */
Engine lab_a_marks() {
  Engine eng;
  eng.async_mark = 72.6e6;
  eng.sync_mark = 78.2e6;
  eng.free_check = 83.9e6;
  return eng;
}

/* Stall lab A's data and redo log under sysbench oltp_write_only: 8 MB of
redo a second, marks as the controller sees them (async 72.6 MB, sync
78.2 MB, free-check limit 83.9 MB), 4,400 pages a second to hold the age
at the async mark, the controller's updates every 1-1.5 s (one second in
three without one). The checkpoint age runs ahead of the age by the redo
written since the last checkpoint; with the age at its target (the async
mark, 1.4 s of redo below the limit) and a checkpoint asked for only at
the updates, it reaches the limit after every second without an update
(the lab: redo-space waits in a third of the steady seconds). Asked for
also after the page cleaner's rounds between updates, one second of redo
ahead of the limit, it never does, with the age where it was and no more
page writes. */
TEST(FlushPaceClosedLoop, FastRedoCheckpointsBetweenUpdates) {
  const Device dev = lab_a_device();
  Engine eng = lab_a_marks();
  eng.redo_rate = 8e6;
  eng.need = 4400;
  eng.combining = 0.5;
  eng.flush_lag = true;
  eng.foreground_writes = 0;
  eng.skip_update_every = 3;
  eng.ckpt_every = 7;
  eng.request_ckpt = true;
  auto waits_from_30 = [&eng](const Result &r) {
    return std::count_if(r.ckpt_age.begin() + 30, r.ckpt_age.end(),
                         [&eng](double a) { return a >= eng.free_check; });
  };
  const Result at_updates = run(300, dev, eng, true, no_change);
  EXPECT_GT(waits_from_30(at_updates), 60) << "the simulated waits are not there";

  eng.ckpt_between_updates = true;
  const Result r = run(300, dev, eng, true, no_change);
  /* From a cold start the age runs into the sync mark on the way (as in
  the lab, where this mix reaches the async mark at second 4); from
  second 30 on it is held, and the checkpoint with it: */
  EXPECT_EQ(waits_from_30(r), 0);
  EXPECT_LT(max_of(r.age, 30, 300), eng.sync_mark);
  EXPECT_LT(max_of(r.ckpt_age, 30, 300), eng.free_check - 0.01 * eng.async_mark);
  EXPECT_NEAR(mean_of(r.age, 60, 300), age_target(eng), 0.02 * eng.async_mark);
  EXPECT_NEAR(mean_of(r.flushed, 60, 300), mean_of(at_updates.flushed, 60, 300),
              0.01 * eng.need);
}

/** Stall lab A under oltp_insert: 2.9 MB of redo a second, the marks
less the free-check margin, a device near its IOPS cap with the commits'
own writes, flushing that takes throughput from the transactions, and a
flush list that the load fills with the same 25,000 pages (the secondary
index's leaves), each changed every four seconds (Flush_list). */
Engine lab_a_insert() {
  Engine eng = lab_a_marks();
  eng.redo_rate = 2.9e6;
  eng.flush_cost = 0.00015;
  eng.skip_update_every = 3;
  eng.foreground_writes = 4500;
  eng.pool_pages = 262144;
  eng.list.on = true;
  eng.list.hot_pages = 25000;
  eng.list.touch_s = 4;
  eng.sync_rounds = true;
  eng.ckpt_every = 7;
  eng.request_ckpt = true;
  eng.ckpt_between_updates = true;
  return eng;
}

double cv_of(const std::vector<double> &v, size_t from, size_t to) {
  const double mean = mean_of(v, from, to);
  double ss = 0;
  for (size_t i = from; i < to; ++i) ss += (v[i] - mean) * (v[i] - mean);
  return std::sqrt(ss / (to - from)) / mean;
}

/** A paced run of 300 s of eng at stall lab A's device, the page cleaner
stalled for stall_s seconds from second 150. */
Result insert_after_cleaner_stall(const Engine &eng, int stall_s) {
  auto stall = [stall_s](int t, Device *, Engine *e) {
    e->cleaner_stalled = t >= 150 && t < 150 + stall_s;
  };
  return run(300, lab_a_device(), eng, true, stall);
}

/* The pages written in one second come back into the flush list within
seconds and are the oldest again one age later, so the advance a page
gives at the tail is the echo of the flushing one age before. Set from
the tail's advance alone the rate swung with that echo, 400 to 2,300
pages a second over ~35 s, into sync-mode rounds at the top of each swing
(generated CV 0.10, 9 sync-mode seconds; in the lab 400 to 1,300 pages).
With the list's span per page in the estimate (lsn_per_page()) the rate
stays within a factor of two, the sync mark is never reached and the
throughput is flat. */
TEST(FlushPaceClosedLoop, InsertMixEchoDoesNotSwing) {
  Device dev = lab_a_device();
  const Engine eng = lab_a_insert();
  const Result upstream = run(400, dev, eng, false, no_change);
  EXPECT_GT(upstream.sync_seconds, 50) << "the simulated stall is not there";

  const Result r = run(400, dev, eng, true, no_change);
  EXPECT_EQ(std::count_if(r.sync_flushed.begin() + 100, r.sync_flushed.end(),
                          [](double p) { return p > 0; }),
            0);
  EXPECT_LT(max_of(r.age, 100, 400), eng.sync_mark);
  EXPECT_LT(max_of(r.flushed, 100, 400), 2 * min_of(r.flushed, 100, 400));
  EXPECT_LT(cv_of(r.generated, 100, 400), 0.03);
}

/* In sync mode 9.7.2's average redo rate falls to nothing, and its rounds
flush only the pages older than the sync mark (Engine::sync_pins): the
age stays at the mark, in the lab 12-20 s under oltp_insert with pacing's
budget at 800-1,300 pages a second and 540-1,040 flushed. Once a stall
has taken the age past the mark, the rounds that carry the budget past
upstream's limit (sync_past_limit()) take it back below within seconds;
without them it stays at the mark until upstream's average is refreshed
(Engine::sync_pin_s). */
TEST(FlushPaceClosedLoop, LeavesPinnedSyncMode) {
  Engine eng = lab_a_insert();
  eng.sync_pins = true;
  eng.sync_pin_s = 30;
  const Result r = insert_after_cleaner_stall(eng, 4);
  EXPECT_GT(sync_seconds_of(r, 150, 160), 0)
      << "the stall does not reach the mark";
  EXPECT_LE(sync_seconds_of(r, 150, 300), 5);
  EXPECT_LT(max_of(r.age, 170, 300), eng.sync_mark);
}

/* Near the sync mark the lab's coordinator ran one sync round a second
and slept out the rest of it (stall lab A under oltp_insert, pacing
switched on in sync mode: 8 s of 800 sync-mode pages a second and nothing
else, with a budget of 1,100). A round carries max(upstream's target, a
slice); the rest of the budget goes to slices after it
(sync_second_rest()), so a 6 s stall of the page cleaner is flushed off
in 8 sync-mode seconds; with the rounds alone it took 31, and the age went
on past the mark. */
TEST(FlushPaceClosedLoop, SyncRoundsLeaveTheRestOfTheBudgetToSlices) {
  Engine eng = lab_a_insert();
  eng.sync_round_sleeps = true;
  const Result r = insert_after_cleaner_stall(eng, 6);
  EXPECT_GT(sync_seconds_of(r, 150, 160), 0)
      << "the stall does not reach the mark";
  EXPECT_LE(sync_seconds_of(r, 150, 300), 12);
  EXPECT_LT(max_of(r.age, 165, 300), eng.sync_mark);
}

/* After a sync round the rest of the second's budget goes out in slices,
the remainder of the division in the first; nothing is armed by a round
that did not open its window, while slices are pending, or when the round
already carries the budget. */
TEST(FlushPaceRound, SlicesAfterASyncRound) {
  using buf_flush_pace::sync_second_rest;
  EXPECT_EQ(sync_second_rest(1100, 800, true, false), 300u);
  EXPECT_EQ(sync_second_rest(1100, 800, false, false), 0u);
  EXPECT_EQ(sync_second_rest(1100, 800, true, true), 0u);
  EXPECT_EQ(sync_second_rest(700, 800, true, false), 0u);
  EXPECT_EQ(sync_second_rest(0, 800, true, false), 0u);
  buf_flush_pace::Slicer s;
  s.after(1100, 800, 10.0);
  EXPECT_EQ(s.count(), 5u) << "the round and 300 / 64 = 4 slices";
  EXPECT_EQ(s.next(10.1), 0u) << "none due with the round";
  uint64_t total = 0;
  double last = 0;
  for (double t = 10.0; t < 11.0; t += 0.01) {
    const uint64_t n = s.next(t);
    if (n > 0) {
      EXPECT_GE(s.offset(), 800u) << "the round took the first pages";
      total += n;
      last = t;
    }
  }
  EXPECT_EQ(total, 300u);
  EXPECT_LT(last, 11.0);
  EXPECT_LT(s.due(), 0);
  /* A small rest is one slice, half-way through the second. */
  s.after(830, 800, 20.0);
  EXPECT_EQ(s.next(20.49), 0u);
  EXPECT_EQ(s.next(20.5), 30u);
  /* first() still gives the remainder to the slice it returns. */
  EXPECT_EQ(s.first(1003, 30.0), 103u);
  EXPECT_EQ(s.next(30.12), 100u);
  EXPECT_EQ(s.offset(), 103u);
}

/* The list's mean span per page (age / pages) weighs as much as the
tail's advance, and is held within LIST_SPAN of it: a list that one page
held dirty for long makes old cannot cut the rate by more than half. */
TEST(FlushPaceController, AdvancePerPageFromTailAndList) {
  using buf_flush_pace::lsn_per_page;
  EXPECT_DOUBLE_EQ(lsn_per_page(2000, 80e6, 0), 2000) << "list unknown";
  EXPECT_DOUBLE_EQ(lsn_per_page(0, 80e6, 40000), 0) << "tail unknown";
  /* Tail 1,000, list 4,000 bytes a page: 2,000. */
  EXPECT_NEAR(lsn_per_page(1000, 80e6, 20000), 2000, 1e-6);
  EXPECT_NEAR(lsn_per_page(4000, 80e6, 80000), 2000, 1e-6);
  /* One page 80 MB old in a list of ten: read as 4x the tail's. */
  EXPECT_NEAR(lsn_per_page(1000, 80e6, 10), 2000, 1e-6);
  EXPECT_NEAR(lsn_per_page(1000, 1e3, 1000000), 500, 1e-6);
}

/* An interval in which upstream's sync-mode rounds ran (800 of its 2,500
flush-list pages) at 50 times the learned latency, with the rounds'
writes in flight at its end: their burst says nothing about the device,
so the capability is not cut and the age follower is not held to what
was flushed. The same interval without the sync rounds is cut. */
TEST(FlushPaceController, SyncRoundSaysNothingAboutTheDevice) {
  Controller ctl;
  Observation obs;
  const uint64_t learned = learn_quietly(&ctl, &obs);
  ASSERT_GT(learned, 2000u);
  obs.async_mark = 71600000;
  obs.sync_mark = 77100000;
  obs.lsn = 1000000000;
  obs.lsn_age = 77000000;
  obs.upstream = 800 + 400;
  obs.list_flushed = 2500;
  obs.writes = 2500;
  obs.submitted = 2500 + 800;
  obs.write_latency_us = 10000;
  /* Six intervals of 2.2 MB of redo each, from the same LSN. */
  auto six = [obs](Controller c, uint64_t sync_flushed) {
    Observation o = obs;
    o.sync_flushed = sync_flushed;
    for (int i = 0; i < 6; ++i) {
      o.lsn += 2200000;
      c.update(config(), o);
    }
    return c.last();
  };
  const Decision with_sync = six(ctl, 800);
  EXPECT_GE(with_sync.capability, learned);
  EXPECT_GT(with_sync.budget, obs.list_flushed) << "held to what was flushed";
  const Decision paced = six(ctl, 0);
  EXPECT_LT(paced.capability, learned);
  EXPECT_LE(paced.budget, obs.list_flushed);
}

/* Unit tests for the adaptive sync-stage wait: the per-tick decision, the
fsync moving average, and the wait loop on a fake clock. */

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>

#include "sql/binlog_group_commit_adaptive.h"

namespace {

using Step = Binlog_adaptive_wait_step;
using Trigger = Binlog_group_close_trigger;

/** A max delay that never binds, for the tests of the other rules. */
constexpr uint64_t NO_CAP = 1000000000;

Binlog_adaptive_wait_input input(uint64_t group, uint64_t on_the_way,
                                 uint64_t waited, uint64_t fsync) {
  Binlog_adaptive_wait_input in{};
  in.group_size = group;
  in.on_the_way = on_the_way;
  in.waited_usec = waited;
  in.tick_usec = 50;
  in.fsync_usec = fsync;
  in.max_wait_usec = NO_CAP;
  return in;
}

TEST(BinlogAdaptiveWaitStep, NobodyOnTheWayNeverWaits) {
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 0, 0, 5000)),
            Step::STOP_NOBODY_ON_THE_WAY);
  /* no fsync measured yet: nothing to weigh the wait against */
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 4, 0, 0)),
            Step::STOP_NOBODY_ON_THE_WAY);
}

TEST(BinlogAdaptiveWaitStep, WaitsWhileJoinersSaveMoreThanTheGroupPays) {
  /* lone leader, one joiner, 1 ms fsync: 50 us is worth it */
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 1, 0, 1000)), Step::WAIT);
  /* 10 members pay 10 x 100 us = 1000 us <= 1 joiner x 1000 us */
  EXPECT_EQ(binlog_adaptive_wait_step(input(10, 1, 50, 1000)), Step::WAIT);
  /* one more tick: 10 x 150 us > 1000 us */
  EXPECT_EQ(binlog_adaptive_wait_step(input(10, 1, 100, 1000)),
            Step::STOP_BUDGET);
  /* more joiners buy a longer wait */
  EXPECT_EQ(binlog_adaptive_wait_step(input(10, 2, 100, 1000)), Step::WAIT);
  /* a big group on a fast device does not wait for one more */
  EXPECT_EQ(binlog_adaptive_wait_step(input(64, 1, 0, 200)),
            Step::STOP_BUDGET);
}

TEST(BinlogAdaptiveWaitStep, NeverLongerThanHalfAnFsync) {
  /* 1 member, 100 on the way: only the half-fsync cap stops it */
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 100, 450, 1000)), Step::WAIT);
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 100, 451, 1000)),
            Step::STOP_BUDGET);
}

TEST(BinlogAdaptiveWaitStep, NoDelayCountEndsTheWaitFirst) {
  auto in = input(8, 5, 0, 1000);
  in.no_delay_count = 8;
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::STOP_COUNT);
  in.no_delay_count = 9;
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::WAIT);
  in.no_delay_count = 0; /* 0 means no count */
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::WAIT);
}

TEST(BinlogFsyncAverage, FirstSampleThenOneEighthSteps) {
  EXPECT_EQ(binlog_fsync_average(0, 800), 800u);
  EXPECT_EQ(binlog_fsync_average(0, 0), 1u); /* "seen" stays non-zero */
  EXPECT_EQ(binlog_fsync_average(800, 1600), 900u);
  EXPECT_EQ(binlog_fsync_average(800, 0), 700u);
  EXPECT_EQ(binlog_fsync_average(1, 0), 1u);
  uint64_t avg = 100;
  for (int i = 0; i < 100; i++) avg = binlog_fsync_average(avg, 2000);
  EXPECT_GE(avg, 1990u); /* follows a device that slowed down */
  EXPECT_LE(avg, 2000u);
}

TEST(BinlogFsyncAverage, OneSlowFsyncMovesItByAnEighthAtMost) {
  /* the jitter mechanism of issue 18: a 500 ms fsync on a 4 ms device used
  to lift the average to ~66 ms, and with it every following wait */
  EXPECT_EQ(binlog_fsync_average(4000, 500000), 4500u);
  uint64_t avg = 4000;
  avg = binlog_fsync_average(avg, 500000);
  for (int i = 0; i < 20; i++) avg = binlog_fsync_average(avg, 4000);
  EXPECT_LE(avg, 4050u); /* back within ~1% in 20 fsyncs */
}


/* A fake clock: sleeping advances time and lets the test act as the other
sessions (a flush leader handing its group on) at a given sleep. */
struct Fake {
  static inline uint64_t now = 0;
  static inline int sleeps = 0;
  static inline std::function<void(int)> on_sleep;
  static void sleep(int64_t usec) {
    now += static_cast<uint64_t>(usec);
    sleeps++;
    if (on_sleep) on_sleep(sleeps);
  }
  static uint64_t clock() { return now; }
  static void reset() {
    now = 1000000;
    sleeps = 0;
    on_sleep = nullptr;
  }
};
const Binlog_wait_clock fake_clock = {Fake::sleep, Fake::clock};

TEST(BinlogGroupCommitAdaptive, LoneCommitterNeverSleeps) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(2000);
  a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1);
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, NO_CAP, fake_clock), Trigger::NO_WAIT);
  EXPECT_EQ(Fake::sleeps, 0);
  EXPECT_EQ(a.waits(), 0u);
  EXPECT_EQ(a.wait_usec(), 0u);
}

TEST(BinlogGroupCommitAdaptive, WaitsUntilTheSessionsOnTheWayJoin) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(2000); /* tick = 2000 / 8 = 250 us */
  a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1); /* the leader's group */
  a.on_enter_flush_stage();
  a.on_enter_flush_stage(); /* two more committers are on the way */
  Fake::on_sleep = [&a](int n) {
    if (n == 2) a.on_leave_flush_stage(2); /* their flush leader hands on */
  };
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, NO_CAP, fake_clock),
            Trigger::ADAPTIVE);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.waits(), 1u);
  EXPECT_EQ(a.wait_usec(), 500u);
  EXPECT_EQ(a.stops_joined(), 1u); /* everyone on the way joined */
}

TEST(BinlogGroupCommitAdaptive, GivesUpWhenTheWaitCostsMoreThanItSaves) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(1000); /* tick 125 us */
  for (int i = 0; i < 5; i++) a.on_enter_flush_stage();
  /* the group of 4 moves on, one straggler never arrives;
     group of 4: 4 x 250 us = 1000 us is still worth 1 x 1000 us, 375 not */
  const uint64_t mark = a.on_leave_flush_stage(4);
  EXPECT_EQ(a.wait_for_joiners(4, mark, 0, NO_CAP, fake_clock),
            Trigger::ADAPTIVE);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.wait_usec(), 250u);
  EXPECT_EQ(a.stops_budget(), 1u);
}

TEST(BinlogGroupCommitAdaptive, JoinersGrowTheGroupAndTheCountEndsIt) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(4000);
  for (int i = 0; i < 6; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(2);
  Fake::on_sleep = [&a](int) { a.on_leave_flush_stage(1); };
  /* group 2, then 3, 4: no_delay_count 4 ends it with two still on the way */
  EXPECT_EQ(a.wait_for_joiners(2, mark, 4, NO_CAP, fake_clock),
            Trigger::ADAPTIVE);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.waits(), 1u);
  EXPECT_EQ(a.stops_count(), 1u);
}

TEST(BinlogGroupCommitAdaptive, HalfAnFsyncCapsTheWait) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(600); /* tick 75 us */
  for (int i = 0; i < 50; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1);
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, NO_CAP, fake_clock),
            Trigger::ADAPTIVE);
  EXPECT_EQ(a.wait_usec(), 300u); /* 4 ticks; a 5th would pass 300 us */
  EXPECT_EQ(a.last_wait_usec(), 300u);
  EXPECT_EQ(a.waits_in_bucket(1), 1u); /* 100 us < 300 us <= 1 ms */
}

TEST(BinlogGroupCommitAdaptive, LastWaitAndHistogramFollowEachGroup) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(4000); /* tick 250 us, cap 2 ms */
  for (int i = 0; i < 50; i++) a.on_enter_flush_stage();
  uint64_t mark = a.on_leave_flush_stage(1);
  a.wait_for_joiners(1, mark, 0, NO_CAP, fake_clock); /* waits to the cap */
  EXPECT_EQ(a.last_wait_usec(), 2000u);
  EXPECT_EQ(a.waits_in_bucket(2), 1u); /* 1 ms < 2 ms <= 10 ms */
  /* the next group finds nobody on the way: no wait, last wait 0 */
  mark = a.on_leave_flush_stage(49);
  EXPECT_EQ(a.wait_for_joiners(49, mark, 0, NO_CAP, fake_clock), Trigger::NO_WAIT);
  EXPECT_EQ(a.last_wait_usec(), 0u);
  EXPECT_EQ(a.waits(), 1u);
  EXPECT_EQ(Binlog_group_commit_adaptive::wait_bucket(100), 0);
  EXPECT_EQ(Binlog_group_commit_adaptive::wait_bucket(101), 1);
  EXPECT_EQ(Binlog_group_commit_adaptive::wait_bucket(10000), 2);
  EXPECT_EQ(Binlog_group_commit_adaptive::wait_bucket(10001), 3);
}

TEST(BinlogAdaptiveWaitStep, MaxDelayStopsTheWaitWhateverElseHolds) {
  /* 1 member, 100 on the way, a 1 s fsync: nothing but the max delay
     would stop it for half a second */
  auto in = input(1, 100, 1951, 1000000);
  in.max_wait_usec = 2000;
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::STOP_CAP);
  in.waited_usec = 1950; /* 1950 + 50 <= 2000: one more tick */
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::WAIT);
  in.waited_usec = 0;
  in.max_wait_usec = 0; /* 0: never sleep */
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::STOP_CAP);
  /* the count still ends it first */
  in.no_delay_count = 1;
  EXPECT_EQ(binlog_adaptive_wait_step(in), Step::STOP_COUNT);
}

TEST(BinlogGroupCommitAdaptive, ASlowDeviceWaitsNoLongerThanTheMaxDelay) {
  /* A device whose fsync slowed to a second: half an fsync would be
     500 ms per group; the max delay holds every wait to 2 ms. */
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(1000000); /* tick 250 us */
  for (int i = 0; i < 50; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1);
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, 2000, fake_clock),
            Trigger::ADAPTIVE);
  EXPECT_EQ(a.last_wait_usec(), 2000u); /* 8 ticks of 250 us, not 2000 */
  EXPECT_LE(a.wait_usec(), 2000u);
  EXPECT_EQ(a.stops_cap(), 1u);
  EXPECT_EQ(a.waits_in_bucket(3), 0u) << "no wait over 10 ms";
}

TEST(BinlogGroupCommitAdaptive, MaxDelayZeroNeverSleeps) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(4000);
  for (int i = 0; i < 10; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1);
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, 0, fake_clock), Trigger::NO_WAIT);
  EXPECT_EQ(Fake::sleeps, 0);
  EXPECT_EQ(a.waits(), 0u);
  EXPECT_EQ(a.stops_cap(), 0u) << "a group that did not wait has no stop";
}

TEST(BinlogGroupCommitAdaptive, EveryWaitHasExactlyOneStopReason) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(4000);
  /* Rounds of a leader and two on the way: both join (joined), one joins
     and the count of 2 is reached (count), a 500 us max delay (cap), or
     nobody comes until half the 4 ms fsync (budget). */
  for (int round = 0; round < 40; round++) {
    for (int i = 0; i < 3; i++) a.on_enter_flush_stage();
    const uint64_t mark = a.on_leave_flush_stage(1);
    uint64_t left = 0;
    const int first_sleep = Fake::sleeps + 1;
    Fake::on_sleep = [&a, &left, round, first_sleep](int n) {
      if (n != first_sleep) return;
      if (round % 4 == 0) left = 2;
      if (round % 4 == 1) left = 1;
      if (left > 0) a.on_leave_flush_stage(left);
    };
    a.wait_for_joiners(1, mark, round % 4 == 1 ? 2 : 0,
                       round % 4 == 2 ? 500 : NO_CAP, fake_clock);
    Fake::on_sleep = nullptr;
    /* whoever is still on the way moves on before the next round */
    if (left < 2) a.on_leave_flush_stage(2 - left);
  }
  EXPECT_EQ(a.waits(), 40u);
  EXPECT_EQ(a.stops_joined(), 10u);
  EXPECT_EQ(a.stops_count(), 10u);
  EXPECT_EQ(a.stops_cap(), 10u);
  EXPECT_EQ(a.stops_budget(), 10u);
}

TEST(BinlogGroupCommitAdaptive, SteadyClockMoves) {
  const uint64_t t0 = binlog_steady_clock.now_usec();
  binlog_steady_clock.sleep_usec(1000);
  EXPECT_GE(binlog_steady_clock.now_usec(), t0 + 1000);
}

/* The fsync estimate driven by simulated device series: it settles, follows
real changes without overshoot, and does not swing with noise or outliers.
The wait cap (half the estimate) moves with it. */
class FsyncSeries {
 public:
  /** Deterministic noise in [-1, 1). */
  double noise() {
    m_seed = m_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(m_seed >> 11) / 4503599627370496.0 - 1.0;
  }
  uint64_t feed(uint64_t sample) {
    m_avg = binlog_fsync_average(m_avg, sample);
    return m_avg;
  }
  uint64_t avg() const { return m_avg; }

 private:
  uint64_t m_seed = 42;
  uint64_t m_avg = 0;
};

TEST(BinlogFsyncSeries, SteadyDeviceSettlesAtOnce) {
  FsyncSeries f;
  for (int i = 0; i < 100; i++) EXPECT_EQ(f.feed(4000), 4000u);
}

TEST(BinlogFsyncSeries, NoisyDeviceWithOutliersStaysNearItsMean) {
  FsyncSeries f;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < 2000; i++) {
    /* +-50% noise around 4 ms, and every 50th fsync a 200 ms stall */
    uint64_t sample = static_cast<uint64_t>(4000 * (1.0 + 0.5 * f.noise()));
    if (i % 50 == 49) sample = 200000;
    f.feed(sample);
    if (i >= 100) {
      lo = std::min(lo, f.avg());
      hi = std::max(hi, f.avg());
    }
  }
  EXPECT_GE(lo, 3000u);
  EXPECT_LE(hi, 5600u); /* an unclamped 1/8 average reaches ~29 ms here */
  EXPECT_LT(static_cast<double>(hi) / lo, 1.8);
}

TEST(BinlogFsyncSeries, StepChangeIsFollowedWithoutOvershoot) {
  FsyncSeries f;
  for (int i = 0; i < 100; i++) f.feed(1000);
  int reached = -1;
  for (int i = 0; i < 200; i++) {
    f.feed(8000);
    EXPECT_LE(f.avg(), 8000u);
    if (reached < 0 && f.avg() >= 7000) reached = i;
  }
  EXPECT_GE(reached, 0);
  EXPECT_LE(reached, 40); /* about 1 s of fsyncs at 8 ms */
  for (int i = 0; i < 200; i++) f.feed(1000); /* and back down */
  EXPECT_LE(f.avg(), 1010u);
}

TEST(BinlogFsyncSeries, PeriodicDeviceDoesNotMakeTheCapSwing) {
  FsyncSeries f;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int i = 0; i < 1000; i++) {
    /* a journal commit every 4th fsync: 2 ms, 2 ms, 2 ms, 8 ms */
    f.feed(i % 4 == 3 ? 8000 : 2000);
    if (i >= 200) {
      lo = std::min(lo, f.avg());
      hi = std::max(hi, f.avg());
    }
  }
  const double cap_lo = lo / 2.0, cap_hi = hi / 2.0;
  EXPECT_GE(lo, 2000u);
  EXPECT_LE(hi, 5000u);
  EXPECT_LT((cap_hi - cap_lo) / ((cap_hi + cap_lo) / 2), 0.6);
}

}  // namespace

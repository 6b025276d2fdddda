/* Unit tests for the adaptive sync-stage wait: the per-tick decision, the
fsync moving average, and the wait loop on a fake clock. */

#include <gtest/gtest.h>

#include <functional>

#include "sql/binlog_group_commit_adaptive.h"

namespace {

using Step = Binlog_adaptive_wait_step;
using Trigger = Binlog_group_close_trigger;

Binlog_adaptive_wait_input input(uint64_t group, uint64_t on_the_way,
                                 uint64_t waited, uint64_t fsync) {
  Binlog_adaptive_wait_input in{};
  in.group_size = group;
  in.on_the_way = on_the_way;
  in.waited_usec = waited;
  in.tick_usec = 50;
  in.fsync_usec = fsync;
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

TEST(BinlogAdaptiveWaitStep, NeverLongerThanOneFsync) {
  /* 1 member, 100 on the way: only the one-fsync cap stops it */
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 100, 950, 1000)), Step::WAIT);
  EXPECT_EQ(binlog_adaptive_wait_step(input(1, 100, 951, 1000)),
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
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, fake_clock), Trigger::LOCK_WAIT);
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
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, fake_clock), Trigger::TIMEOUT);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.waits(), 1u);
  EXPECT_EQ(a.wait_usec(), 500u);
}

TEST(BinlogGroupCommitAdaptive, GivesUpWhenTheWaitCostsMoreThanItSaves) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(1000); /* tick 125 us */
  for (int i = 0; i < 5; i++) a.on_enter_flush_stage();
  /* the group of 4 moves on, one straggler never arrives;
     group of 4: 4 x 250 us = 1000 us is still worth 1 x 1000 us, 375 not */
  const uint64_t mark = a.on_leave_flush_stage(4);
  EXPECT_EQ(a.wait_for_joiners(4, mark, 0, fake_clock), Trigger::TIMEOUT);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.wait_usec(), 250u);
}

TEST(BinlogGroupCommitAdaptive, JoinersGrowTheGroupAndTheCountEndsIt) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(4000);
  for (int i = 0; i < 6; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(2);
  Fake::on_sleep = [&a](int) { a.on_leave_flush_stage(1); };
  /* group 2, then 3, 4: no_delay_count 4 ends it with two still on the way */
  EXPECT_EQ(a.wait_for_joiners(2, mark, 4, fake_clock), Trigger::COUNT);
  EXPECT_EQ(Fake::sleeps, 2);
  EXPECT_EQ(a.waits(), 1u);
}

TEST(BinlogGroupCommitAdaptive, OneFsyncCapsTheWait) {
  Fake::reset();
  Binlog_group_commit_adaptive a;
  a.on_fsync(600); /* tick 75 us */
  for (int i = 0; i < 50; i++) a.on_enter_flush_stage();
  const uint64_t mark = a.on_leave_flush_stage(1);
  EXPECT_EQ(a.wait_for_joiners(1, mark, 0, fake_clock), Trigger::TIMEOUT);
  EXPECT_EQ(a.wait_usec(), 600u); /* 8 ticks; a 9th would pass 600 us */
}

TEST(BinlogGroupCommitAdaptive, SteadyClockMoves) {
  const uint64_t t0 = binlog_steady_clock.now_usec();
  binlog_steady_clock.sleep_usec(1000);
  EXPECT_GE(binlog_steady_clock.now_usec(), t0 + 1000);
}

}  // namespace

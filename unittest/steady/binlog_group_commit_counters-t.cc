/* Unit tests for the binlog group commit counters and the classification
of why a group stopped taking members. */

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "sql/binlog_group_commit_counters.h"

namespace {

using Trigger = Binlog_group_close_trigger;

TEST(BinlogGroupCloseTrigger, NoDelayMeansLockWait) {
  /* delay 0: the count option has no effect, even if reached */
  EXPECT_EQ(binlog_group_close_trigger(true, 0, false), Trigger::NO_WAIT);
  EXPECT_EQ(binlog_group_close_trigger(true, 0, true), Trigger::NO_WAIT);
}

TEST(BinlogGroupCloseTrigger, NotSyncingGroupIsLockWait) {
  /* sync_binlog=N groups that do not fsync, and flush errors, never wait */
  EXPECT_EQ(binlog_group_close_trigger(false, 1000, false), Trigger::NO_WAIT);
  EXPECT_EQ(binlog_group_close_trigger(false, 1000, true), Trigger::NO_WAIT);
}

TEST(BinlogGroupCloseTrigger, DelayEndsByCountOrTimeout) {
  EXPECT_EQ(binlog_group_close_trigger(true, 1000, true), Trigger::COUNT);
  EXPECT_EQ(binlog_group_close_trigger(true, 1000, false), Trigger::TIMEOUT);
}

TEST(BinlogGroupCommitStats, CountsGroupsCommitsAndSyncs) {
  Binlog_group_commit_stats s;
  s.on_flush_stage(3);
  s.on_group(Trigger::TIMEOUT);
  s.on_sync();
  s.on_flush_stage(1);
  s.on_group(Trigger::NO_WAIT);
  EXPECT_EQ(s.commits(), 4u);
  EXPECT_EQ(s.groups(), 2u);
  EXPECT_EQ(s.syncs(), 1u);
  EXPECT_EQ(s.triggered(Trigger::COUNT), 0u);
  EXPECT_EQ(s.triggered(Trigger::TIMEOUT), 1u);
  EXPECT_EQ(s.triggered(Trigger::NO_WAIT), 1u);
}

TEST(BinlogGroupCommitStats, AdaptiveWaitsStayOutOfMysqlsTriggers) {
  /* A group the adaptive wait closed after a sleep is a group, but not a
     fixed delay that expired or reached its count. */
  Binlog_group_commit_stats s;
  s.on_group(Trigger::ADAPTIVE);
  s.on_group(Trigger::ADAPTIVE);
  s.on_group(Trigger::NO_WAIT);
  EXPECT_EQ(s.groups(), 3u);
  EXPECT_EQ(s.triggered(Trigger::ADAPTIVE), 2u);
  EXPECT_EQ(s.triggered(Trigger::TIMEOUT), 0u);
  EXPECT_EQ(s.triggered(Trigger::COUNT), 0u);
  EXPECT_EQ(s.triggered(Trigger::NO_WAIT), 1u);
}

TEST(BinlogGroupCommitStats, MergedFlushStagesMakeOneGroup) {
  /* Two flush-stage leaders queue behind a busy sync stage: one group. */
  Binlog_group_commit_stats s;
  s.on_flush_stage(2);
  s.on_flush_stage(5);
  s.on_flush_stage(0); /* a flush stage that wrote nothing adds nothing */
  s.on_group(Trigger::NO_WAIT);
  s.on_sync();
  EXPECT_EQ(s.commits(), 7u);
  EXPECT_EQ(s.groups(), 1u);
  EXPECT_EQ(s.syncs(), 1u);
}

TEST(BinlogGroupCommitStats, ConcurrentUpdatesAreNotLost) {
  /* Flush and sync stage leaders update concurrently with each other. */
  Binlog_group_commit_stats s;
  constexpr int kThreads = 4, kGroups = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&s] {
      for (int i = 0; i < kGroups; ++i) {
        s.on_flush_stage(2);
        s.on_group(i % 2 ? Trigger::COUNT : Trigger::NO_WAIT);
        s.on_sync();
      }
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(s.groups(), uint64_t{kThreads} * kGroups);
  EXPECT_EQ(s.commits(), uint64_t{kThreads} * kGroups * 2);
  EXPECT_EQ(s.syncs(), uint64_t{kThreads} * kGroups);
  EXPECT_EQ(s.triggered(Trigger::COUNT) + s.triggered(Trigger::NO_WAIT) +
                s.triggered(Trigger::TIMEOUT),
            s.groups());
}

}  // namespace

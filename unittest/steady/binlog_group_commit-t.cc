/* Unit tests for the calls ordered_commit() makes (sql/binlog_group_commit.h):
the flush hand-over, which sync-stage wait applies, and fsync accounting. */

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "sql/binlog_group_commit.h"

namespace {

/** A session as ordered_commit() chains them. */
struct Session {
  Session *next_to_commit = nullptr;
};

struct Queue {
  explicit Queue(int n) : sessions(n) {
    for (int i = 0; i + 1 < n; i++) sessions[i].next_to_commit = &sessions[i + 1];
  }
  const Session *head() const { return sessions.empty() ? nullptr : &sessions[0]; }
  std::vector<Session> sessions;
};

/* A fake clock for the adaptive wait. */
uint64_t fake_now = 0;
int fake_sleeps = 0;
void fake_sleep(int64_t usec) {
  fake_now += static_cast<uint64_t>(usec);
  fake_sleeps++;
}
uint64_t fake_clock_now() { return fake_now; }
const Binlog_wait_clock fake_clock = {fake_sleep, fake_clock_now};

class SyncWait : public ::testing::Test {
 protected:
  void SetUp() override {
    saved = opt_binlog_group_commit_sync_adaptive;
    fake_now = 1000000;
    fake_sleeps = 0;
    fixed_calls = 0;
    /* a 2 ms device, and 4 sessions on their way behind a lone leader */
    binlog_group_commit_adaptive.on_fsync(2000);
    for (int i = 0; i < 5; i++) binlog_group_commit_enter_flush();
    binlog_group_commit_leave_flush(Queue(1).head());
  }
  void TearDown() override {
    opt_binlog_group_commit_sync_adaptive = saved;
    /* the 4 still on the way arrive, so the next test starts clean */
    binlog_group_commit_leave_flush(Queue(4).head());
  }
  Binlog_group_close_trigger wait(long delay, uint64_t count, bool will_fsync,
                                  bool fixed_result = false) {
    return binlog_group_commit_sync_wait(
        {delay, count, will_fsync},
        [&] {
          fixed_calls++;
          return fixed_result;
        },
        fake_clock);
  }
  bool saved = false;
  int fixed_calls = 0;
};

TEST_F(SyncWait, AdaptiveWaitAppliesAtDelayZeroWhenTheGroupFsyncs) {
  opt_binlog_group_commit_sync_adaptive = true;
  EXPECT_EQ(wait(0, 0, true), Binlog_group_close_trigger::ADAPTIVE);
  EXPECT_EQ(fixed_calls, 0);
  EXPECT_GT(fake_sleeps, 0); /* nobody arrived: it slept to its cap */
  EXPECT_EQ(fake_now - 1000000, 1000u); /* half the 2 ms fsync */
}

TEST_F(SyncWait, TheMaxDelayOptionBoundsTheWait) {
  opt_binlog_group_commit_sync_adaptive = true;
  const unsigned long saved_max = opt_binlog_group_commit_sync_adaptive_max_delay;
  EXPECT_EQ(saved_max, BINLOG_ADAPTIVE_MAX_DELAY_DEFAULT);
  opt_binlog_group_commit_sync_adaptive_max_delay = 300;
  EXPECT_EQ(wait(0, 0, true), Binlog_group_close_trigger::ADAPTIVE);
  EXPECT_LE(fake_now - 1000000, 300u); /* not half the 2 ms fsync */
  opt_binlog_group_commit_sync_adaptive_max_delay = 0;
  const uint64_t before = fake_now;
  EXPECT_EQ(wait(0, 0, true), Binlog_group_close_trigger::NO_WAIT);
  EXPECT_EQ(fake_now, before);
  opt_binlog_group_commit_sync_adaptive_max_delay = saved_max;
}

TEST_F(SyncWait, OffMeansMysqlsWait) {
  opt_binlog_group_commit_sync_adaptive = false;
  EXPECT_EQ(wait(0, 0, true), Binlog_group_close_trigger::NO_WAIT);
  EXPECT_EQ(fixed_calls, 1);
  EXPECT_EQ(fake_sleeps, 0);
}

TEST_F(SyncWait, ANonZeroDelayTakesPrecedence) {
  opt_binlog_group_commit_sync_adaptive = true;
  EXPECT_EQ(wait(500, 0, true), Binlog_group_close_trigger::TIMEOUT);
  EXPECT_EQ(wait(500, 3, true, true), Binlog_group_close_trigger::COUNT);
  EXPECT_EQ(fixed_calls, 2);
  EXPECT_EQ(fake_sleeps, 0);
  EXPECT_TRUE(binlog_sync_wait_conflict(true, 500));
  EXPECT_FALSE(binlog_sync_wait_conflict(true, 0));
  EXPECT_FALSE(binlog_sync_wait_conflict(false, 500));
}

TEST_F(SyncWait, NoFsyncNoAdaptiveWait) {
  /* sync_binlog=0: the wait would save no fsync */
  opt_binlog_group_commit_sync_adaptive = true;
  EXPECT_EQ(wait(0, 0, false), Binlog_group_close_trigger::NO_WAIT);
  EXPECT_EQ(fake_sleeps, 0);
  EXPECT_EQ(fixed_calls, 1); /* MySQL's own (zero) delay, as upstream does */
}

TEST(FlushHandover, CountsTheQueueAndMarksTheGroup) {
  const uint64_t before = binlog_group_commit_adaptive.on_leave_flush_stage(0);
  binlog_group_commit_leave_flush(Queue(3).head());
  EXPECT_EQ(binlog_flush_handover().own_group, 3u);
  EXPECT_EQ(binlog_flush_handover().mark, before + 3);
  binlog_group_commit_leave_flush(static_cast<const Session *>(nullptr));
  EXPECT_EQ(binlog_flush_handover().own_group, 0u);
}

TEST(FsyncAccounting, CountsTheSyncAndTimesIt) {
  const uint64_t syncs = binlog_group_commit_stats.syncs();
  binlog_group_commit_on_sync(binlog_group_commit_clock_usec());
  EXPECT_EQ(binlog_group_commit_stats.syncs(), syncs + 1);
  EXPECT_GE(binlog_group_commit_adaptive.fsync_usec(), 1u);
}

}  // namespace

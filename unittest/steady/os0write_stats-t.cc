/* Unit tests for the completed-write counters (os0write_stats.h). */

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "os0write_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

TEST(OsWriteStats, NothingCountedWhileDisabled) {
  os_write_stats::set_enabled(false);
  const auto before = os_write_stats::read();
  os_write_stats::submitted();
  os_write_stats::completed(Clock::now());
  const auto after = os_write_stats::read();
  EXPECT_EQ(after.submitted, before.submitted);
  EXPECT_EQ(after.writes, before.writes);
  EXPECT_EQ(after.latency_us, before.latency_us);
}

TEST(OsWriteStats, CountsWritesAndTheirLatency) {
  os_write_stats::set_enabled(true);
  const auto before = os_write_stats::read();
  const auto submitted = Clock::now() - std::chrono::milliseconds(5);
  os_write_stats::submitted();
  os_write_stats::submitted();
  os_write_stats::submitted();
  os_write_stats::completed(submitted);
  os_write_stats::completed(submitted);
  const auto after = os_write_stats::read();
  EXPECT_EQ(after.submitted - before.submitted, 3u); /* one still queued */
  EXPECT_EQ(after.writes - before.writes, 2u);
  const double mean = os_write_stats::mean_latency_us(before, after);
  EXPECT_GE(mean, 5000);
  EXPECT_LT(mean, 5000 + 1000000); /* a very slow machine still passes */
}

TEST(OsWriteStats, NoWritesNoLatency) {
  const auto t = os_write_stats::read();
  EXPECT_EQ(os_write_stats::mean_latency_us(t, t), 0);
  os_write_stats::Totals back = t;
  back.writes = t.writes + 1; /* later reading older than the first */
  EXPECT_EQ(os_write_stats::mean_latency_us(back, t), 0);
}

TEST(OsWriteStats, ThreadsDoNotLoseCounts) {
  os_write_stats::set_enabled(true);
  const auto before = os_write_stats::read();
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([] {
      for (int j = 0; j < 10000; ++j) os_write_stats::completed(Clock::now());
    });
  }
  for (auto &t : threads) t.join();
  EXPECT_EQ(os_write_stats::read().writes - before.writes, 40000u);
}

}  // namespace

/* Unit tests for the redo log flush batch counters. */

#include <gtest/gtest.h>

#include "log0flush_stats.h"

namespace {

TEST(LogFlushStats, CountsBatchesAndBytes) {
  Log_flush_stats s;
  s.on_flush(1000, 1512);
  s.on_flush(1512, 9704);
  EXPECT_EQ(s.batches(), 2u);
  EXPECT_EQ(s.bytes(), 512u + 8192u);
}

TEST(LogFlushStats, FlushThatAdvancesNothingIsNotABatch) {
  Log_flush_stats s;
  s.on_flush(4096, 4096);
  s.on_flush(8192, 4096); /* never happens; must not wrap */
  EXPECT_EQ(s.batches(), 0u);
  EXPECT_EQ(s.bytes(), 0u);
}

TEST(LogFlushStats, GlobalInstanceStartsAtZero) {
  EXPECT_EQ(log_flush_stats.batches(), 0u);
  EXPECT_EQ(log_flush_stats.bytes(), 0u);
}

}  // namespace

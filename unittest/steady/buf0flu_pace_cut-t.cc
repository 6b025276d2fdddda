/* Unit tests for when device pacing cuts a second's flush-list target
into slices (buf_flush_pace::cut_target(), buf0flu_pace_rounds.h). The
shapes are the lab's: stall lab B (free-page waits) and a table rebuild
beside light OLTP, both at the cloud class. The server side, that an
uncut target goes out in one round a second, is the mtr test
steady.io_aware_flushing_uncut. */

#include <gtest/gtest.h>

#include "buf0flu_pace_rounds.h"

namespace {

using buf_flush_pace::cut_target;
using buf_flush_pace::lru_writing;
using buf_flush_pace::Slicer;

/* Flush-list batches a second makes of a target: one per slice. */
unsigned batches(uint64_t target, uint64_t budget, bool writing) {
  Slicer s;
  s.first(cut_target(budget, writing) ? target : 0, 10.0);
  return s.count();
}

/* A budget is always cut, whatever the LRU batches do: thousands of pages
sent at once would queue the commits' log writes behind them. */
TEST(FlushPaceCut, ABudgetIsCut) {
  EXPECT_TRUE(cut_target(2000, false));
  EXPECT_TRUE(cut_target(2000, true));
  EXPECT_EQ(batches(2000, 2000, false), buf_flush_pace::MAX_SLICES);
}

/* Stall lab B with pacing: the LRU batches write ~1,200 pages a second
(never under 64 in a second past the tenth); upstream's target is cut
even in a second with no budget, so that the LRU batches run between its
slices. */
TEST(FlushPaceCut, UpstreamsTargetIsCutWhileTheLruBatchesWrite) {
  EXPECT_TRUE(lru_writing(1200, 0));
  EXPECT_TRUE(lru_writing(64, 0));
  EXPECT_EQ(batches(800, 0, lru_writing(1200, 0)), 10u);
}

/* A thread that waited for a free page: the free lists are short of
pages, whatever the LRU batches wrote. */
TEST(FlushPaceCut, AFreePageWaitCountsAsWriting) {
  EXPECT_TRUE(lru_writing(0, 1));
  EXPECT_TRUE(cut_target(0, lru_writing(0, 3)));
}

/* A table rebuild beside light OLTP: no budget, the LRU batches writing
27-40 pages a second, no free-page wait. Upstream's target of ~1,850
pages goes out as upstream sends it, in one batch, not ten. */
TEST(FlushPaceCut, UpstreamsTargetGoesOutAtOnceWithACleanTail) {
  EXPECT_FALSE(lru_writing(30, 0));
  EXPECT_FALSE(lru_writing(63.9, 0));
  EXPECT_FALSE(cut_target(0, lru_writing(30, 0)));
  EXPECT_EQ(batches(1850, 0, lru_writing(30, 0)), 1u);
}

}  // namespace

/* Unit tests for the redo log capacity used when none is configured. */

#include <gtest/gtest.h>

#include "log0capacity_default.h"

namespace {

using namespace redo_capacity_default;

constexpr uint64_t LOTS = 1000 * GiB;

TEST(RedoCapacityDefault, OneBufferPoolOfRedo) {
  EXPECT_EQ(choose(1 * GiB, LOTS), 1 * GiB);
  EXPECT_EQ(choose(6 * GiB, LOTS), 6 * GiB);
}

TEST(RedoCapacityDefault, NeverBelowStock) {
  /* MySQL's default 128 MiB pool gets 128 MiB; smaller pools stock's. */
  EXPECT_EQ(choose(128 * MiB, LOTS), 128 * MiB);
  EXPECT_EQ(choose(24 * MiB, LOTS), STOCK);
  EXPECT_EQ(choose(0, LOTS), STOCK);
  /* A full disk does not go below what stock would take there. */
  EXPECT_EQ(choose(8 * GiB, 0), STOCK);
  EXPECT_EQ(choose(8 * GiB, 200 * MiB), STOCK);
}

TEST(RedoCapacityDefault, BoundedForRecoveryTime) {
  EXPECT_EQ(choose(64 * GiB, LOTS), MAX);
  EXPECT_EQ(choose(UINT64_MAX, UINT64_MAX), MAX);
}

TEST(RedoCapacityDefault, AtMostAQuarterOfTheRoom) {
  /* 8 GiB pool on a file system with 10 GiB of room: 2.5 GiB. */
  EXPECT_EQ(choose(8 * GiB, 10 * GiB), 2560 * MiB);
  /* The room counts the redo files already there: a server that took
     2.5 GiB keeps it on its next start (free space is now 7.5 GiB). */
  EXPECT_EQ(choose(8 * GiB, 7680 * MiB + 2560 * MiB), 2560 * MiB);
}

TEST(RedoCapacityDefault, WholeMiB) {
  EXPECT_EQ(choose(1 * GiB + 12345, LOTS), 1 * GiB);
  EXPECT_EQ(choose(8 * GiB, 4 * GiB + 7) % MiB, 0u);
}

}  // namespace

/* Unit tests for the size arithmetic of ALTER TABLESPACE ... SET EXTENT_SIZE:
rounding to whole extents, the grow-only rule, the limit, and chunking. */

#include <gtest/gtest.h>

#include <cstdint>

#include "fsp0prealloc_plan.h"

namespace {

using fsp_prealloc::Geometry;
using fsp_prealloc::Verdict;

constexpr uint64_t KiB = 1024;
constexpr uint64_t MiB = 1024 * KiB;
constexpr uint64_t GiB = 1024 * MiB;
/* PAGE_NO_MAX in fil0fil.h: 2^32 - 2. */
constexpr uint64_t kPageNoMax = 0xFFFFFFFFULL - 1;

/* Default 16K pages: 64 pages (1 MiB) per extent. */
Geometry page16k() { return {16 * 1024, 64, kPageNoMax}; }
/* 4K pages: 256 pages (1 MiB) per extent. */
Geometry page4k() { return {4 * 1024, 256, kPageNoMax}; }
/* 64K pages: 64 pages (4 MiB) per extent. */
Geometry page64k() { return {64 * 1024, 64, kPageNoMax}; }
/* Compressed KEY_BLOCK_SIZE=8 in a 16K instance: 128 pages per extent. */
Geometry compressed8k() { return {8 * 1024, 128, kPageNoMax}; }

TEST(PreallocPlan, RoundsUpToWholeExtents) {
  auto t = fsp_prealloc::plan_target(1 * GiB, 64, page16k());
  EXPECT_EQ(t.verdict, Verdict::GROW);
  EXPECT_EQ(t.pages, 65536u);

  /* One byte past 1 GiB needs one more extent. */
  t = fsp_prealloc::plan_target(1 * GiB + 1, 64, page16k());
  EXPECT_EQ(t.verdict, Verdict::GROW);
  EXPECT_EQ(t.pages, 65536u + 64);

  /* A partial page and a partial extent both round up. */
  t = fsp_prealloc::plan_target(100 * KiB + 1, 6, page16k());
  EXPECT_EQ(t.verdict, Verdict::GROW);
  EXPECT_EQ(t.pages, 64u);
}

TEST(PreallocPlan, PageSizesAndCompressed) {
  auto t = fsp_prealloc::plan_target(10 * MiB, 0, page4k());
  EXPECT_EQ(t.pages, 10u * 256);
  t = fsp_prealloc::plan_target(10 * MiB, 0, page64k());
  /* 10 MiB is 2.5 extents of 4 MiB: three extents. */
  EXPECT_EQ(t.pages, 3u * 64);
  t = fsp_prealloc::plan_target(3 * MiB, 0, compressed8k());
  EXPECT_EQ(t.pages, 3u * 128);
}

TEST(PreallocPlan, GrowOnly) {
  /* At the current size, below it, and zero: nothing to do. */
  EXPECT_EQ(fsp_prealloc::plan_target(2 * MiB, 128, page16k()).verdict,
            Verdict::LARGE_ENOUGH);
  EXPECT_EQ(fsp_prealloc::plan_target(1 * MiB, 128, page16k()).verdict,
            Verdict::LARGE_ENOUGH);
  EXPECT_EQ(fsp_prealloc::plan_target(0, 7, page16k()).verdict,
            Verdict::LARGE_ENOUGH);
  /* A request inside the last, partly used extent rounds up to that extent,
  which the tablespace already has. */
  EXPECT_EQ(fsp_prealloc::plan_target(2 * MiB - 1, 128, page16k()).verdict,
            Verdict::LARGE_ENOUGH);
  /* Just past it grows by one extent. */
  auto t = fsp_prealloc::plan_target(2 * MiB + 1, 128, page16k());
  EXPECT_EQ(t.verdict, Verdict::GROW);
  EXPECT_EQ(t.pages, 192u);
}

TEST(PreallocPlan, Limit) {
  const Geometry g = page16k();
  /* (2^32 - 2) pages rounded down to 64: 2^32 - 64 pages of 16 KiB. */
  const uint64_t limit = (0x100000000ULL - 64) * 16 * KiB;
  EXPECT_EQ(fsp_prealloc::max_bytes(g), limit);
  EXPECT_EQ(fsp_prealloc::plan_target(limit, 0, g).verdict, Verdict::GROW);
  EXPECT_EQ(fsp_prealloc::plan_target(limit, 0, g).pages,
            0x100000000ULL - 64);
  EXPECT_EQ(fsp_prealloc::plan_target(limit + 1, 0, g).verdict,
            Verdict::TOO_LARGE);
  /* The largest value the parser accepts (2^31-1 with a G suffix) must not
  overflow the arithmetic. */
  EXPECT_EQ(fsp_prealloc::plan_target(((1ULL << 31) - 1) * GiB, 0, g).verdict,
            Verdict::TOO_LARGE);
  EXPECT_EQ(fsp_prealloc::plan_target(UINT64_MAX, 0, g).verdict,
            Verdict::TOO_LARGE);
  /* Smaller pages address less. */
  EXPECT_EQ(fsp_prealloc::max_bytes(page4k()),
            (0x100000000ULL - 256) * 4 * KiB);
}

TEST(PreallocPlan, ChunkSize) {
  EXPECT_EQ(fsp_prealloc::chunk_pages(page16k()), 64 * MiB / (16 * KiB));
  EXPECT_EQ(fsp_prealloc::chunk_pages(page4k()), 64 * MiB / (4 * KiB));
  EXPECT_EQ(fsp_prealloc::chunk_pages(page64k()), 64 * MiB / (64 * KiB));
  /* An extent larger than a chunk still gives one whole extent. */
  const Geometry huge_extent{16 * 1024, 8192, kPageNoMax};
  EXPECT_EQ(fsp_prealloc::chunk_pages(huge_extent), 8192u);
}

TEST(PreallocPlan, ChunksWalkToTheTarget) {
  const Geometry g = page16k();
  const uint64_t target = fsp_prealloc::plan_target(1 * GiB, 0, g).pages;
  /* Start at an unaligned size, as a file autoextended by pages can be. */
  uint64_t size = 7;
  int chunks = 0;
  while (size < target) {
    const uint64_t next = fsp_prealloc::next_size(size, target, g);
    ASSERT_GT(next, size);
    ASSERT_LE(next, target);
    ASSERT_EQ(next % g.extent_pages, 0u);
    ASSERT_LE(next - size, fsp_prealloc::chunk_pages(g));
    size = next;
    ++chunks;
  }
  EXPECT_EQ(size, target);
  EXPECT_EQ(chunks, 16);
  /* The last chunk stops at the target. */
  EXPECT_EQ(fsp_prealloc::next_size(target - 64, target, g), target);
}

TEST(PreallocPlan, HeaderFollowsWholeExtentsOfTheFile) {
  const Geometry g = page16k();
  /* The file grew to the chunk end: the header follows. */
  EXPECT_EQ(fsp_prealloc::header_pages_after(4096, 64, g), 4096u);
  /* Disk full part of the way: only whole extents count. */
  EXPECT_EQ(fsp_prealloc::header_pages_after(1000, 64, g), 960u);
  /* The file did not grow past the header's extent: unchanged, never less. */
  EXPECT_EQ(fsp_prealloc::header_pages_after(100, 100, g), 100u);
  EXPECT_EQ(fsp_prealloc::header_pages_after(50, 100, g), 100u);
}

}  // namespace

/* The free-space guard refuses before a byte is written. */
TEST(PreallocFreeSpace, TenGigabytesOnATwoGigabyteFileSystem) {
  const uint64_t GiB = 1ULL << 30;
  /* A 2 GB file system with 1.9 GB free and a 4 MiB file. */
  const auto c = fsp_prealloc::check_free_space(10 * GiB, 4ULL << 20,
                                                1900ULL << 20, 2 * GiB, 5);
  EXPECT_FALSE(c.fits);
  EXPECT_EQ(c.needed_bytes, 10 * GiB - (4ULL << 20));
  EXPECT_EQ(c.reserve_bytes, (2 * GiB * 5 + 99) / 100);
}

TEST(PreallocFreeSpace, ReserveDecides) {
  const uint64_t total = 1000000;
  /* 100000 free; reserve 5% = 50000: up to 50000 bytes may be written. */
  EXPECT_TRUE(fsp_prealloc::check_free_space(50000, 0, 100000, total, 5).fits);
  EXPECT_FALSE(fsp_prealloc::check_free_space(50001, 0, 100000, total, 5).fits);
  /* The file's own size counts: only the growth needs space. */
  EXPECT_TRUE(
      fsp_prealloc::check_free_space(1050000, 1000000, 100000, total, 5).fits);
  /* 0% keeps only the hard limit: the free space itself. */
  EXPECT_TRUE(fsp_prealloc::check_free_space(100000, 0, 100000, total, 0).fits);
  EXPECT_FALSE(
      fsp_prealloc::check_free_space(100001, 0, 100000, total, 0).fits);
  /* 100% refuses every growth. */
  EXPECT_FALSE(fsp_prealloc::check_free_space(1, 0, total, total, 100).fits);
  /* Above 100 is read as 100. */
  EXPECT_EQ(fsp_prealloc::check_free_space(1, 0, total, total, 250)
                .reserve_bytes,
            total);
}

TEST(PreallocFreeSpace, NothingToWriteAlwaysFits) {
  /* A file already at (or past) the target needs no space, even on a full
  file system with a 100% reserve. */
  const auto c = fsp_prealloc::check_free_space(1 << 20, 2 << 20, 0, 1 << 30,
                                                100);
  EXPECT_TRUE(c.fits);
  EXPECT_EQ(c.needed_bytes, 0u);
}

TEST(PreallocFreeSpace, NoOverflowNearTheLimits) {
  const uint64_t huge = UINT64_MAX / 2;
  const auto c = fsp_prealloc::check_free_space(huge, 0, huge, UINT64_MAX, 5);
  EXPECT_FALSE(c.fits); /* needs everything, the reserve is not left */
  EXPECT_LT(c.reserve_bytes, UINT64_MAX / 10);
  EXPECT_GT(c.reserve_bytes, UINT64_MAX / 100 * 4);
}

/* Unit tests for the free-space reserve of ALTER TABLESPACE ... SET
EXTENT_SIZE across statements and chunks, against a simulated file system:
statements running at once, a load taking space while they run, and the
reserve that must stay free. */

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "fsp0prealloc_plan.h"
#include "fsp0prealloc_reserve.h"

namespace {

using fsp_prealloc::Fs_probe;
using fsp_prealloc::Fs_space;
using fsp_prealloc::Grant;
using fsp_prealloc::Reservations;

constexpr uint64_t MiB = 1024 * 1024;
constexpr uint64_t GiB = 1024 * MiB;
constexpr uint64_t kChunk = fsp_prealloc::CHUNK_BYTES;
constexpr uint32_t kPct = 5;
constexpr uint64_t kFs = 42;

/* A file system: what statvfs() would say, and what writing to it does. */
struct Sim_fs {
  uint64_t total;
  uint64_t free_bytes;

  Fs_probe probe() {
    return [this](Fs_space *space) {
      space->free_bytes = free_bytes;
      space->total_bytes = total;
      return true;
    };
  }
  uint64_t reserve() const {
    return fsp_prealloc::check_free_space(0, 0, 0, total, kPct).reserve_bytes;
  }
  /* A load or a file growth uses space; ENOSPC leaves the disk full. */
  uint64_t use(uint64_t bytes) {
    const uint64_t got = std::min(bytes, free_bytes);
    free_bytes -= got;
    return got;
  }
};

/* One SET EXTENT_SIZE statement, as fsp_preallocate() drives the book. */
struct Statement {
  Reservations::Claim claim;
  uint64_t left;
  uint64_t written{0};
  bool refused{false};
  bool stopped{false};

  explicit Statement(uint64_t bytes) : left(bytes) {}
  bool done() const { return refused || stopped || left == 0; }

  void open(Reservations *book, Sim_fs *fs) {
    refused = !book->open(&claim, kFs, left, fs->probe(), kPct).granted;
  }
  /* One chunk: asked, written, accounted. */
  void step(Reservations *book, Sim_fs *fs) {
    const uint64_t chunk = std::min(kChunk, left);
    if (!book->next_chunk(claim, chunk, fs->probe(), kPct).granted) {
      stopped = true;
      book->close(&claim);
      return;
    }
    const uint64_t got = fs->use(chunk);
    book->wrote(&claim, got);
    written += got;
    left -= chunk;
    if (left == 0) book->close(&claim);
  }
};

/* The case from the field: a 2 GB file system with 1.6 GB free, two
statements asking 1200M at once. Checked once per statement, both passed
and filled the disk. The second now sees the first's claim. */
TEST(PreallocReserve, SecondStatementSeesTheFirstsClaim) {
  Reservations book;
  Sim_fs fs{2 * GiB, 1600 * MiB};
  Statement a(1200 * MiB), b(1200 * MiB);
  a.open(&book, &fs);
  b.open(&book, &fs);
  EXPECT_FALSE(a.refused);
  EXPECT_TRUE(b.refused);
  EXPECT_EQ(book.claimed(kFs), 1200 * MiB);

  while (!a.done()) a.step(&book, &fs);
  EXPECT_FALSE(a.stopped);
  EXPECT_EQ(a.written, 1200 * MiB);
  EXPECT_EQ(b.written, 0u);
  EXPECT_EQ(fs.free_bytes, 400 * MiB);
  EXPECT_GE(fs.free_bytes, fs.reserve());
  EXPECT_EQ(book.claimed(kFs), 0u);
}

/* The refusal names what the other statements hold. */
TEST(PreallocReserve, RefusalReportsTheOtherClaims) {
  Reservations book;
  Sim_fs fs{2 * GiB, 1600 * MiB};
  Reservations::Claim first, second;
  ASSERT_TRUE(book.open(&first, kFs, 1200 * MiB, fs.probe(), kPct).granted);
  const Grant g = book.open(&second, kFs, 1200 * MiB, fs.probe(), kPct);
  EXPECT_FALSE(g.granted);
  EXPECT_TRUE(g.probed);
  EXPECT_EQ(g.others_bytes, 1200 * MiB);
  EXPECT_EQ(g.fs.free_bytes, 1600 * MiB);
  EXPECT_EQ(g.reserve_bytes, fs.reserve());
  EXPECT_EQ(second.left(), 0u);
  /* Nothing claimed by the refused statement. */
  EXPECT_EQ(book.claimed(kFs), 1200 * MiB);
}

/* A load takes space while a statement runs: the chunk that would cross
the reserve is refused, and what was grown stays. */
TEST(PreallocReserve, LoadDuringTheStatementStopsItAtTheReserve) {
  Reservations book;
  Sim_fs fs{2 * GiB, 1600 * MiB};
  Statement a(1200 * MiB);
  a.open(&book, &fs);
  ASSERT_FALSE(a.refused);
  int chunks = 0;
  while (!a.done()) {
    a.step(&book, &fs);
    if (++chunks == 4) fs.use(500 * MiB); /* binary log, another load */
  }
  EXPECT_TRUE(a.stopped);
  EXPECT_GT(a.written, 0u);
  EXPECT_LT(a.written, 1200 * MiB);
  EXPECT_GE(fs.free_bytes, fs.reserve());
  /* The next chunk would have crossed it. */
  EXPECT_LT(fs.free_bytes, fs.reserve() + kChunk);
  EXPECT_EQ(book.claimed(kFs), 0u);
}

/* Without the per-chunk check (only the statement's own guard), the same
load leaves the file system full: the behaviour the book replaces. */
TEST(PreallocReserve, OneCheckPerStatementFillsTheDisk) {
  Sim_fs fs{2 * GiB, 1600 * MiB};
  ASSERT_TRUE(fsp_prealloc::check_free_space(1200 * MiB, 0, fs.free_bytes,
                                             fs.total, kPct)
                  .fits);
  uint64_t left = 1200 * MiB;
  int chunks = 0;
  while (left > 0 && fs.free_bytes > 0) {
    const uint64_t chunk = std::min(kChunk, left);
    fs.use(chunk);
    left -= chunk;
    if (++chunks == 4) fs.use(500 * MiB);
  }
  EXPECT_EQ(fs.free_bytes, 0u);
}

/* Many statements of random sizes, opened at random moments, their chunks
interleaved: without a load the free space never falls below the reserve,
a refused statement writes nothing, and the book ends empty. */
TEST(PreallocReserve, InterleavedStatementsNeverCrossTheReserve) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 200; ++round) {
    Reservations book;
    Sim_fs fs{(1 + rng() % 8) * GiB, 0};
    fs.free_bytes = fs.total / 2 + rng() % (fs.total / 2);
    std::vector<Statement> st;
    const int n = 2 + static_cast<int>(rng() % 5);
    for (int i = 0; i < n; ++i) {
      st.emplace_back((1 + rng() % 40) * 32 * MiB);
    }
    std::vector<bool> opened(n, false);
    for (;;) {
      bool any = false;
      for (int i = 0; i < n; ++i) {
        if (!opened[i]) {
          if (rng() % 3 == 0) {
            st[i].open(&book, &fs);
            opened[i] = true;
          }
          any = true;
          continue;
        }
        if (st[i].done()) continue;
        any = true;
        if (rng() % 2 == 0) st[i].step(&book, &fs);
        ASSERT_GE(fs.free_bytes, fs.reserve()) << "round " << round;
      }
      if (!any) break;
    }
    for (const Statement &s : st) {
      if (s.refused) {
        EXPECT_EQ(s.written, 0u);
      }
    }
    EXPECT_EQ(book.claimed(kFs), 0u) << "round " << round;
  }
}

/* Claims on one file system do not count against another. */
TEST(PreallocReserve, FileSystemsAreSeparate) {
  Reservations book;
  Sim_fs fs{2 * GiB, 1600 * MiB};
  Reservations::Claim a, b;
  ASSERT_TRUE(book.open(&a, 1, 1200 * MiB, fs.probe(), kPct).granted);
  EXPECT_TRUE(book.open(&b, 2, 1200 * MiB, fs.probe(), kPct).granted);
  EXPECT_EQ(book.claimed(1), 1200 * MiB);
  EXPECT_EQ(book.claimed(2), 1200 * MiB);
  book.close(&a);
  book.close(&b);
  EXPECT_EQ(book.claimed(1), 0u);
  EXPECT_EQ(book.claimed(2), 0u);
}

/* A claim shrinks with what is written; closing drops the rest once. */
TEST(PreallocReserve, ClaimShrinksAndCloses) {
  Reservations book;
  Sim_fs fs{2 * GiB, 1600 * MiB};
  Reservations::Claim a;
  ASSERT_TRUE(book.open(&a, kFs, 300 * MiB, fs.probe(), kPct).granted);
  book.wrote(&a, 100 * MiB);
  EXPECT_EQ(a.left(), 200 * MiB);
  EXPECT_EQ(book.claimed(kFs), 200 * MiB);
  /* The file grew past the claim (rounding): never below zero. */
  book.wrote(&a, 500 * MiB);
  EXPECT_EQ(book.claimed(kFs), 0u);
  book.close(&a);
  book.close(&a);
  EXPECT_EQ(book.claimed(kFs), 0u);
}

/* A file system that cannot be asked refuses nothing, as before. */
TEST(PreallocReserve, UnknownFileSystemIsNotRefused) {
  Reservations book;
  const Fs_probe blind = [](Fs_space *) { return false; };
  Reservations::Claim a;
  const Grant g = book.open(&a, kFs, 100 * GiB, blind, kPct);
  EXPECT_TRUE(g.granted);
  EXPECT_FALSE(g.probed);
  EXPECT_TRUE(book.next_chunk(a, kChunk, blind, kPct).granted);
  book.close(&a);
  EXPECT_EQ(book.claimed(kFs), 0u);
}

}  // namespace

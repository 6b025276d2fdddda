/* Unit tests for the chunk loop of ALTER TABLESPACE ... SET EXTENT_SIZE,
against a simulated tablespace: the order of the steps (the reserve asked
before the file grows, FSP_SIZE raised only after it grew), and how the loop
ends on a refusal, a failed or partial extension, a kill and no progress. */

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fsp0prealloc_chunks.h"

namespace {

using fsp_prealloc::Chunks_end;
using fsp_prealloc::Geometry;

constexpr uint64_t kPageNoMax = 0xFFFFFFFFULL - 1;
/* 16K pages, 64 per extent: a 64 MiB chunk is 4096 pages. */
Geometry page16k() { return {16 * 1024, 64, kPageNoMax}; }
constexpr uint64_t kChunkPages = 4096;

/* A tablespace: FSP_SIZE, the data file's pages, and a log of the steps. */
class Sim_space : public fsp_prealloc::Chunk_ops {
 public:
  uint64_t header{0};
  uint64_t file{0};
  std::vector<std::string> steps;
  /* Knobs. */
  int refuse_at_chunk{0};   /* may_grow() says no at this chunk (1-based) */
  int fail_at_chunk{0};     /* extend_file() fails at this chunk */
  uint64_t partial_pages{0};/* pages a failing extension still adds */
  int kill_after_chunks{0}; /* interrupted() after this many chunks */
  bool stuck{false};        /* extensions add nothing and report success */
  uint64_t others_raise{0}; /* a concurrent extension raises FSP_SIZE */
  uint64_t grown_bytes{0};
  int chunks{0};

  bool interrupted() override {
    steps.push_back("interrupted?");
    return kill_after_chunks > 0 && chunks >= kill_after_chunks;
  }
  void wait_for_redo_space() override { steps.push_back("redo"); }
  void read_sizes(uint64_t *h, uint64_t *f) override {
    steps.push_back("read");
    *h = header;
    *f = file;
  }
  bool may_grow(uint64_t) override {
    steps.push_back("may_grow");
    return refuse_at_chunk == 0 || chunks + 1 < refuse_at_chunk;
  }
  bool extend_file(uint64_t pages, int *os_errno) override {
    steps.push_back("extend");
    ++chunks;
    if (chunks == fail_at_chunk) {
      file += partial_pages;
      *os_errno = 28;
      return false;
    }
    if (!stuck && pages > file) file = pages;
    if (others_raise > 0 && chunks == 1) {
      header = others_raise;
      if (file < others_raise) file = others_raise;
    }
    return true;
  }
  uint64_t file_pages() override { return file; }
  void grew(uint64_t bytes) override {
    steps.push_back("grew");
    grown_bytes += bytes;
  }
  uint64_t raise_header(uint64_t pages) override {
    steps.push_back("raise");
    /* FSP_SIZE never names pages the file lacks. */
    EXPECT_LE(pages, file);
    if (pages > header) header = pages;
    return header;
  }
};

TEST(PreallocChunks, GrowsChunkByChunkInOrder) {
  Sim_space s;
  s.header = s.file = 64;
  uint64_t reached = 0;
  int err = -1;
  const uint64_t target = 64 + 3 * kChunkPages;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, target, page16k(), &reached, &err),
            Chunks_end::DONE);
  EXPECT_EQ(reached, target);
  EXPECT_EQ(s.header, target);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(s.chunks, 3);
  EXPECT_EQ(s.grown_bytes, 3 * kChunkPages * 16 * 1024);
  /* Each chunk: asked, grown, accounted, then FSP_SIZE raised. */
  const std::vector<std::string> chunk{"interrupted?", "redo",  "read",
                                       "may_grow",     "extend", "grew",
                                       "raise"};
  for (int c = 0; c < 3; ++c) {
    for (size_t i = 0; i < chunk.size(); ++i) {
      EXPECT_EQ(s.steps[c * chunk.size() + i], chunk[i]) << c << "/" << i;
    }
  }
}

TEST(PreallocChunks, RefusedChunkLeavesTheFileAsItIs) {
  Sim_space s;
  s.header = s.file = 64;
  s.refuse_at_chunk = 2;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + 5 * kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::RESERVE);
  EXPECT_EQ(s.chunks, 1);
  EXPECT_EQ(s.file, 64 + kChunkPages);
  EXPECT_EQ(reached, 64 + kChunkPages);
  EXPECT_EQ(s.steps.back(), "may_grow");
}

TEST(PreallocChunks, PartialExtensionKeepsWholeExtents) {
  Sim_space s;
  s.header = s.file = 64;
  s.fail_at_chunk = 2;
  s.partial_pages = 100; /* one whole extent and 36 pages */
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + 5 * kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::EXTEND_FAILED);
  EXPECT_EQ(err, 28);
  EXPECT_EQ(reached, 64 + kChunkPages + 64);
  EXPECT_EQ(s.header, reached);
  EXPECT_EQ(s.grown_bytes, (kChunkPages + 100) * 16 * 1024);
}

TEST(PreallocChunks, KillStopsBetweenChunks) {
  Sim_space s;
  s.header = s.file = 64;
  s.kill_after_chunks = 2;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + 5 * kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::INTERRUPTED);
  EXPECT_EQ(s.chunks, 2);
  EXPECT_EQ(reached, 64 + 2 * kChunkPages);
}

TEST(PreallocChunks, NoProgressNeverSpins) {
  Sim_space s;
  s.header = s.file = 64;
  s.stuck = true;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + 5 * kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::NO_PROGRESS);
  EXPECT_EQ(s.chunks, 1);
}

/* A file already larger than FSP_SIZE (a crash after an extension, or
autoextend's rounding): those pages are not asked for again. */
TEST(PreallocChunks, FileLargerThanHeaderIsReused) {
  Sim_space s;
  s.header = 64;
  s.file = 64 + kChunkPages;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::DONE);
  EXPECT_EQ(s.grown_bytes, 0u);
  EXPECT_EQ(reached, 64 + kChunkPages);
  for (const std::string &step : s.steps) EXPECT_NE(step, "may_grow");
}

/* Another thread's extension raises FSP_SIZE past ours meanwhile. */
TEST(PreallocChunks, ConcurrentRaiseIsKept) {
  Sim_space s;
  s.header = s.file = 64;
  s.others_raise = 64 + 2 * kChunkPages;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64 + 3 * kChunkPages, page16k(),
                                         &reached, &err),
            Chunks_end::DONE);
  EXPECT_EQ(s.header, 64 + 3 * kChunkPages);
}

TEST(PreallocChunks, AlreadyLargeEnoughDoesNothing) {
  Sim_space s;
  s.header = s.file = 64 + kChunkPages;
  uint64_t reached = 0;
  int err = 0;
  EXPECT_EQ(fsp_prealloc::grow_in_chunks(s, 64, page16k(), &reached, &err),
            Chunks_end::DONE);
  EXPECT_EQ(s.chunks, 0);
}

}  // namespace

/* Copyright (c) 2026, Steady Server authors. GPL-2.0. */

/* Unit tests for mtr0log_unchanged.h: which writes may go without a redo
   record, and that a page rebuilt from its initial image and the records
   kept is the page the writes made. */

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "mtr0log_unchanged.h"

namespace {

using mlog_unchanged::encode;
using mlog_unchanged::may_skip;
using mlog_unchanged::same;
using mlog_unchanged::same_number;

TEST(MlogUnchanged, EncodeIsBigEndianLikeMachWrite) {
  unsigned char b[8];
  encode(0xAB, 1, b);
  EXPECT_EQ(b[0], 0xAB);
  encode(0x1234, 2, b);
  EXPECT_EQ(b[0], 0x12);
  EXPECT_EQ(b[1], 0x34);
  encode(0xDEADBEEF, 4, b);
  EXPECT_EQ(b[0], 0xDE);
  EXPECT_EQ(b[3], 0xEF);
  encode(0x0102030405060708ULL, 8, b);
  for (int i = 0; i < 8; i++) {
    EXPECT_EQ(b[i], i + 1);
  }
}

TEST(MlogUnchanged, OnlyTheWrittenWidthIsCompared) {
  /* A 2-byte write of 0x0102 over 01 02 ff: the third byte is not part of
     the write, so the write leaves the page as it is. */
  const unsigned char page[3] = {0x01, 0x02, 0xff};
  EXPECT_TRUE(same_number(page, 0x0102, 2));
  EXPECT_FALSE(same_number(page, 0x0103, 2));
  /* Bits above the width are not written (mach_write_to_2 keeps the low
     16 bits): 0x10102 written as 2 bytes is 01 02. */
  EXPECT_TRUE(same_number(page, 0x10102, 2));
  EXPECT_FALSE(same_number(page, 0x0102, 3));
}

TEST(MlogUnchanged, Page0KeepsItsRecordsWhenLogged) {
  EXPECT_FALSE(may_skip(true, 0));
  EXPECT_TRUE(may_skip(true, 1));
  EXPECT_TRUE(may_skip(true, 0xFFFFFFFEu));
  /* An unlogged mini-transaction has no record to keep, page 0 or not. */
  EXPECT_TRUE(may_skip(false, 0));
}

/* A page, the writes a workload makes to it, and the redo the writes leave:
   each write is skipped (no record) when may_skip and the bytes are the
   same, as mlog_write_ulint/ull/string do. Recovery applies the records in
   order to the page image it started from. */
struct Write {
  size_t offset;
  std::vector<unsigned char> bytes;
};

struct Page {
  uint32_t page_no;
  std::vector<unsigned char> bytes;
};

size_t run_and_log(Page &page, const std::vector<Write> &writes,
                   std::vector<Write> &redo) {
  size_t skipped = 0;
  for (const Write &w : writes) {
    if (same(page.bytes.data() + w.offset, w.bytes.data(), w.bytes.size()) &&
        may_skip(true, page.page_no)) {
      skipped++;
      continue;
    }
    std::copy(w.bytes.begin(), w.bytes.end(), page.bytes.begin() + w.offset);
    redo.push_back(w);
  }
  return skipped;
}

void recover(Page &page, const std::vector<Write> &redo) {
  for (const Write &w : redo) {
    std::copy(w.bytes.begin(), w.bytes.end(), page.bytes.begin() + w.offset);
  }
}

/* Writes drawn from a few values at a few places, as undo header fields
   are (a state, flags, a list address), so that many leave the page as it
   is; widths 1, 2, 4, 6 and 8 overlap one another. */
std::vector<Write> workload(std::mt19937 &rng, size_t n, size_t page_len) {
  const size_t widths[] = {1, 2, 4, 6, 8};
  const uint64_t values[] = {0, 1, 2, 0xFFFFFFFFu, 0x2A};
  std::vector<Write> writes;
  for (size_t i = 0; i < n; i++) {
    const size_t len = widths[rng() % 5];
    const size_t offset = (rng() % 6) * 3 % (page_len - len);
    Write w{offset, std::vector<unsigned char>(len)};
    unsigned char buf[8];
    encode(values[rng() % 5], len < 8 ? len : 8, buf);
    std::copy(buf, buf + len, w.bytes.begin());
    writes.push_back(w);
  }
  return writes;
}

TEST(MlogUnchanged, RecoveryFromTheRecordsKeptGivesThePageTheWritesMade) {
  std::mt19937 rng(20261203);
  size_t skipped_total = 0;
  for (int round = 0; round < 200; round++) {
    const size_t page_len = 32;
    Page initial{static_cast<uint32_t>(1 + round), std::vector<unsigned char>(page_len)};
    for (auto &b : initial.bytes) {
      b = static_cast<unsigned char>(rng() % 3);
    }
    /* The flushed image recovery starts from: the page as of some earlier
       write, here after the first k writes of the run. */
    const std::vector<Write> writes = workload(rng, 60, page_len);
    const size_t k = rng() % writes.size();

    Page running = initial;
    std::vector<Write> redo_before, redo_after;
    skipped_total += run_and_log(
        running, std::vector<Write>(writes.begin(), writes.begin() + k),
        redo_before);
    const Page flushed = running;
    skipped_total += run_and_log(
        running, std::vector<Write>(writes.begin() + k, writes.end()),
        redo_after);

    Page recovered = flushed;
    recover(recovered, redo_after);
    ASSERT_EQ(recovered.bytes, running.bytes) << "round " << round;

    /* From the initial image and all records, too. */
    Page from_start = initial;
    recover(from_start, redo_before);
    recover(from_start, redo_after);
    ASSERT_EQ(from_start.bytes, running.bytes) << "round " << round;
  }
  /* The workload does make unchanged writes, so the rule was exercised. */
  EXPECT_GT(skipped_total, 1000u);
}

TEST(MlogUnchanged, SkippingAChangingWriteWouldLoseIt) {
  /* The check the rule rests on: a write whose bytes differ must be
     logged, or recovery from the flushed image misses it. */
  Page page{7, std::vector<unsigned char>(8, 0)};
  const Page flushed = page;
  std::vector<Write> redo;
  Write w{2, {0, 5}};
  run_and_log(page, {w}, redo);
  ASSERT_EQ(redo.size(), 1u);
  Page recovered = flushed;
  recover(recovered, redo);
  EXPECT_EQ(recovered.bytes, page.bytes);
  Page lost = flushed;
  recover(lost, {});
  EXPECT_NE(lost.bytes, page.bytes);
}

TEST(MlogUnchanged, Page0WritesAreAllLogged) {
  Page page{0, std::vector<unsigned char>(8, 0)};
  std::vector<Write> redo;
  const size_t skipped = run_and_log(page, {{0, {0, 0, 0, 0}}, {4, {0}}}, redo);
  EXPECT_EQ(skipped, 0u);
  EXPECT_EQ(redo.size(), 2u);
}

}  // namespace

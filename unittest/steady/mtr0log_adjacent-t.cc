/* Copyright (c) 2026, Steady Server authors. GPL-2.0. */

/* Adjacent string writes as one record (mtr0log_adjacent.h), driven the way
mlog_log_string() drives it: a model mini-transaction log of string records
and other records, mini-transactions nested as InnoDB nests them, and a
model recovery that applies each committed log to blank pages. The pages
recovered must equal the pages written, with fewer records. */

#include "mtr0log_adjacent.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr size_t PAGE = 16384;
constexpr size_t PAGES = 3;
using Page = std::array<unsigned char, PAGE>;

/** A model mini-transaction: its log and how many records it holds. Record
layout: type (1 string, 2 other), page, offset (2), length (2), bytes; an
"other" record carries a 4-byte write at its offset. */
struct Mtr {
  std::vector<unsigned char> log;
  size_t records{0};
};

struct World {
  std::array<Page, PAGES> pages{};  // the running server's frames
  mlog_adjacent::Tail tail;
  size_t merged{0};
  size_t merged_on_page0{0};

  void start(Mtr &m) {
    tail.forget(&m);
    m.log.clear();
    m.log.reserve(1 << 20);  // the len field pointer must stay valid
    m.records = 0;
  }
  void commit(Mtr &m) { tail.forget(&m); }

  void write_string(Mtr &m, size_t page, size_t off, size_t len,
                    unsigned char fill) {
    std::memset(&pages[page][off], fill, len);
    const void *frame = &pages[page];
    if (tail.can_extend(&m, m.log.size(), frame, off, len, PAGE)) {
      m.log.insert(m.log.end(), &pages[page][off], &pages[page][off] + len);
      const size_t n = tail.extend(len, m.log.size());
      tail.len_field()[0] = n >> 8;
      tail.len_field()[1] = n & 0xFF;
      ++merged;
      if (page == 0) ++merged_on_page0;
      return;
    }
    m.log.push_back(1);
    m.log.push_back(static_cast<unsigned char>(page));
    m.log.push_back(off >> 8);
    m.log.push_back(off & 0xFF);
    const size_t len_at = m.log.size();
    m.log.push_back(len >> 8);
    m.log.push_back(len & 0xFF);
    m.log.insert(m.log.end(), &pages[page][off], &pages[page][off] + len);
    ++m.records;
    if (page != 0) {
      tail.remember(&m, m.log.size(), frame, off, len, &m.log[len_at]);
    } else {
      tail.forget(&m);
    }
  }

  void write_other(Mtr &m, size_t page, size_t off, unsigned char fill) {
    std::memset(&pages[page][off], fill, 4);
    m.log.push_back(2);
    m.log.push_back(static_cast<unsigned char>(page));
    m.log.push_back(off >> 8);
    m.log.push_back(off & 0xFF);
    m.log.push_back(0);
    m.log.push_back(4);
    m.log.insert(m.log.end(), &pages[page][off], &pages[page][off] + 4);
    ++m.records;
  }
};

/** Model recovery: apply one mini-transaction's log. */
size_t recover(const std::vector<unsigned char> &log,
             std::array<Page, PAGES> &pages) {
  size_t records = 0;
  for (size_t i = 0; i < log.size();) {
    const size_t page = log[i + 1];
    const size_t off = (log[i + 2] << 8) | log[i + 3];
    const size_t len = (log[i + 4] << 8) | log[i + 5];
    EXPECT_LE(off + len, PAGE);
    std::memcpy(&pages[page][off], &log[i + 6], len);
    i += 6 + len;
    ++records;
  }
  return records;
}

TEST(AdjacentStrings, RecoveredPagesEqualTheWrittenOnes) {
  std::mt19937 rng(7);
  World w;
  std::array<Page, PAGES> recovered{};
  size_t writes = 0, records = 0;
  for (int round = 0; round < 2000; ++round) {
    /* An outer mini-transaction, sometimes with an inner one started and
    committed in the middle of it, as InnoDB nests them in one thread. */
    Mtr outer, inner;
    w.start(outer);
    size_t last_page = 0, last_end = 64;
    const int n = 1 + rng() % 12;
    for (int k = 0; k < n; ++k) {
      Mtr &m = (rng() % 6 == 0) ? inner : outer;
      const bool nested = &m == &inner;
      if (nested) w.start(inner);
      /* Two mini-transactions never modify one page at once (the outer one
      holds its latch): the inner one writes page 2 only. */
      const size_t page =
          nested ? 2 : (rng() % 2 && last_page < 2 ? last_page : rng() % 2);
      const size_t len = 1 + rng() % 12;
      size_t off = rng() % 2 ? last_end : 38 + rng() % 200;
      if (off + len > PAGE) off = 38;
      const unsigned char fill = static_cast<unsigned char>(rng());
      if (rng() % 5 == 0) {
        w.write_other(m, page, off, fill);
        off += 4;
      } else {
        w.write_string(m, page, off, len, fill);
        off += len;
      }
      ++writes;
      last_page = page;
      last_end = off;
      if (nested) {
        w.commit(inner);
        const size_t r = recover(inner.log, recovered);
        EXPECT_EQ(r, inner.records);
        records += r;
      }
    }
    w.commit(outer);
    const size_t r = recover(outer.log, recovered);
    EXPECT_EQ(r, outer.records);
    records += r;
    ASSERT_EQ(recovered, w.pages) << "round " << round;
  }
  EXPECT_GT(w.merged, writes / 20) << "adjacent writes were merged";
  EXPECT_EQ(w.merged_on_page0, 0u);
  EXPECT_EQ(records + w.merged, writes);
}

TEST(AdjacentStrings, OnlyTheLastRecordOfTheSameMtrAndPage) {
  mlog_adjacent::Tail t;
  unsigned char len_field[2];
  int mtr, other;
  Page a, b;
  t.remember(&mtr, 100, &a, 40, 6, len_field);
  EXPECT_TRUE(t.can_extend(&mtr, 100, &a, 46, 6, PAGE));
  EXPECT_FALSE(t.can_extend(&other, 100, &a, 46, 6, PAGE)) << "other mtr";
  EXPECT_FALSE(t.can_extend(&mtr, 107, &a, 46, 6, PAGE)) << "a record since";
  EXPECT_FALSE(t.can_extend(&mtr, 100, &b, 46, 6, PAGE)) << "other page";
  EXPECT_FALSE(t.can_extend(&mtr, 100, &a, 47, 6, PAGE)) << "a gap";
  EXPECT_FALSE(t.can_extend(&mtr, 100, &a, 34, 6, PAGE)) << "before it";
  EXPECT_FALSE(t.can_extend(&mtr, 100, &a, 46, PAGE - 45, PAGE))
      << "past the page";
  EXPECT_EQ(t.extend(6, 106), 12u);
  EXPECT_TRUE(t.can_extend(&mtr, 106, &a, 52, 4, PAGE));
  t.forget(&other);
  EXPECT_TRUE(t.can_extend(&mtr, 106, &a, 52, 4, PAGE));
  t.forget(&mtr);
  EXPECT_FALSE(t.can_extend(&mtr, 106, &a, 52, 4, PAGE))
      << "a committed mtr's record, or one at the same address restarted";
}

TEST(AdjacentStrings, LengthFieldLimit) {
  mlog_adjacent::Tail t;
  unsigned char len_field[2];
  int mtr;
  static Page a;
  t.remember(&mtr, 10, &a, 0, mlog_adjacent::MAX_STRING_LEN - 2, len_field);
  EXPECT_TRUE(t.can_extend(&mtr, 10, &a, mlog_adjacent::MAX_STRING_LEN - 2, 2,
                           1 << 17));
  EXPECT_FALSE(t.can_extend(&mtr, 10, &a, mlog_adjacent::MAX_STRING_LEN - 2,
                            3, 1 << 17));
}

}  // namespace

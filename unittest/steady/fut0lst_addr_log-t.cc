/* Unit tests for how a file-list address write is logged. */

#include <gtest/gtest.h>

#include <cstring>

#include "fut0lst_addr_log.h"

namespace {

using namespace flst_addr_log;

constexpr uint32_t FIL_NULL = 0xFFFFFFFF;
/* Undo tablespace ids count down from just below 2^32. */
constexpr uint32_t UNDO_SPACE = 0xFFFFFFEF;

/* mach_write_compressed()'s encoding, written out independently: the
   number of leading 1 bits of the first byte says how many bytes follow. */
size_t mach_compressed_bytes(uint32_t v) {
  if (v < 0x80) return 1;
  if (v < 0x4000) return 2;
  if (v < 0x200000) return 3;
  if (v < 0x10000000) return 4;
  return 5;
}

TEST(FlstAddrLog, CompressedLengthsAtEveryBoundary) {
  for (uint32_t v : {0u, 0x7Fu, 0x80u, 0x3FFFu, 0x4000u, 0x1FFFFFu, 0x200000u,
                     0xFFFFFFFu, 0x10000000u, FIL_NULL}) {
    EXPECT_EQ(compressed_len(v), mach_compressed_bytes(v)) << v;
  }
}

TEST(FlstAddrLog, UndoTablespaceAddressesTakeOneRecord) {
  /* History list node in an undo log header on page 300 of an undo
     tablespace, pointing at another header: two records of 12 bytes
     (type 1, space 5, page 2, offset 2, value 2) against one of 18. */
  EXPECT_TRUE(as_one_record(UNDO_SPACE, 300, false, 301, 150));
  EXPECT_TRUE(as_one_record(UNDO_SPACE, 3, false, FIL_NULL, 0));
  EXPECT_EQ(nbytes_record_len(UNDO_SPACE, 300, 301) +
                nbytes_record_len(UNDO_SPACE, 300, 150) -
                string_record_len(UNDO_SPACE, 300, ADDR_LEN),
            6u);
}

TEST(FlstAddrLog, KeepsTwoRecordsWhenTheyAreShorter) {
  /* System tablespace, small page numbers and offsets: 6 + 6 < 13. */
  EXPECT_FALSE(as_one_record(0, 5, false, 7, 38));
  /* Equal length: nothing to gain, keep the stock records. */
  EXPECT_EQ(string_record_len(0, 5, ADDR_LEN),
            nbytes_record_len(0, 5, 300) + nbytes_record_len(0, 5, 38));
  EXPECT_FALSE(as_one_record(0, 5, false, 300, 38));
  /* Larger values tip it. */
  EXPECT_TRUE(as_one_record(0, 5, false, FIL_NULL, 0));
}

TEST(FlstAddrLog, NeverOnPageZeroOrAnAllocatedPage) {
  /* Recovery reads an MLOG_WRITE_STRING on page 0 as encryption info. */
  EXPECT_FALSE(as_one_record(UNDO_SPACE, 0, false, FIL_NULL, 0));
  EXPECT_FALSE(as_one_record(1234567, 0, false, 70000, 3000));
  /* Recovery asserts no string record lands on an ALLOCATED page. */
  EXPECT_FALSE(as_one_record(UNDO_SPACE, 300, true, 301, 150));
}

TEST(FlstAddrLog, EncodeLeavesThePageAsTheTwoRecordsDo) {
  /* What applying MLOG_4BYTES at FIL_ADDR_PAGE and MLOG_2BYTES at
     FIL_ADDR_BYTE leaves: mach_write_to_4 and mach_write_to_2. */
  for (uint32_t page : {0u, 1u, 0x12345678u, FIL_NULL}) {
    for (uint32_t boff : {0u, 38u, 0x3FFFu}) {
      unsigned char two[ADDR_LEN], one[ADDR_LEN];
      two[0] = page >> 24; two[1] = page >> 16; two[2] = page >> 8;
      two[3] = page; two[4] = boff >> 8; two[5] = boff;
      memset(one, 0xAB, sizeof one);
      encode(page, boff, one);
      EXPECT_EQ(memcmp(one, two, ADDR_LEN), 0) << page << ":" << boff;
    }
  }
}

}  // namespace

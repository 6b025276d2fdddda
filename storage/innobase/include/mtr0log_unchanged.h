/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/mtr0log_unchanged.h
 Writes that leave a page as it is: done without a redo record.

 mlog_write_ulint(), mlog_write_ull() and mlog_write_string() write bytes to
 a buffer pool page and log the write. When the page already holds exactly
 those bytes the record changes nothing: recovery rebuilds the page from the
 flushed page and the redo after it, and the bytes at that place are the
 ones an earlier, logged change (or a page-initialising record) put there,
 so replaying the skipped record would not change the recovered page
 either. Every write transaction makes such writes while it reuses a cached
 undo log and links it into the history list (flags, a state or a page
 number the header already holds), and each record costs 8-20 bytes.

 One page keeps every record: page 0. Recovery reads each MLOG_WRITE_STRING
 on page 0 of a tablespace other than the system one as the tablespace's
 encryption information, which it needs even when the page bytes are the
 same, and page 0's FSP header is rewritten rarely enough that nothing is
 lost by logging it as stock InnoDB does.

 A mini-transaction that does not write redo (MTR_LOG_NONE, MTR_LOG_NO_REDO)
 may skip any unchanged write: there is no record to save, and the page need
 not be marked modified for bytes that did not change.

 Pure logic: plain values in, a decision out, no server headers. */

#ifndef mtr0log_unchanged_h
#define mtr0log_unchanged_h

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mlog_unchanged {

/** Bytes of the widest write compared as a number (MLOG_8BYTES). */
constexpr size_t MAX_NUMBER_LEN = 8;

/** The low len bytes of val as the page holds them: big-endian, as
mach_write_to_1/2/4/8() store them.
@param[in]  val  value written
@param[in]  len  1, 2, 4 or 8
@param[out] buf  len bytes */
inline void encode(uint64_t val, size_t len, unsigned char *buf) {
  for (size_t i = 0; i < len; i++) {
    buf[len - 1 - i] = static_cast<unsigned char>(val >> (8 * i));
  }
}

/** Whether the page already holds the bytes a write would put there.
@param[in]  page_bytes  the place written to
@param[in]  bytes       the bytes written
@param[in]  len         how many
@return true if they are equal */
inline bool same(const unsigned char *page_bytes, const unsigned char *bytes,
                 size_t len) {
  return std::memcmp(page_bytes, bytes, len) == 0;
}

/** Whether a write of the value val (len bytes) leaves the page as it is.
@param[in]  page_bytes  the place written to
@param[in]  val         value written
@param[in]  len         1, 2, 4 or 8
@return true if the page already holds val there */
inline bool same_number(const unsigned char *page_bytes, uint64_t val,
                        size_t len) {
  unsigned char buf[MAX_NUMBER_LEN];
  encode(val, len, buf);
  return same(page_bytes, buf, len);
}

/** Whether a write that leaves the page as it is may go without a record.
@param[in]  logged   true if the mini-transaction writes redo
@param[in]  page_no  page number of the page written (read only when
                     logged)
@return false only for a logged write to page 0 */
constexpr bool may_skip(bool logged, uint32_t page_no) {
  return !logged || page_no != 0;
}

}  // namespace mlog_unchanged

#endif /* mtr0log_unchanged_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/mtr0log_adjacent.h
 Adjacent string writes of one mini-transaction logged as one record.

 mlog_log_string() logs a write of bytes to a page as an MLOG_WRITE_STRING
 record: type, space id, page number, page offset, length, then the bytes.
 When the next record of the same mini-transaction is another string write
 to the same page that starts where the first one ended (a file-list node's
 previous and next addresses, written one after the other), the second
 write can be appended to the first record instead: its length grows by the
 bytes written, and the second record's head (type, space id, page number,
 offset and length: 7 to 15 bytes, 11 to 13 in an undo tablespace) is not
 written. Recovery applies an MLOG_WRITE_STRING as one copy of its bytes to
 its page offset, so one record of both byte runs leaves the page exactly as
 the two records did: the same bytes, written in the same order, with no
 record for that page between them (the first record is still the last one
 of the mini-transaction log). The record type and its meaning are stock,
 so stock 9.7.2 recovers, clones and backs up the log.

 Only a record that is the last one of its mini-transaction's log can grow:
 Tail remembers the log's size right after it, and any record written since
 changes that size. A mini-transaction forgets its tail when it starts and
 when it commits, so that a later mini-transaction at the same address
 never extends a record of an earlier one.

 Records that must stay as they are (the caller does not remember them):
 page 0, where recovery of a tablespace other than the system one reads
 every MLOG_WRITE_STRING as encryption information and checks its length;
 the system tablespace: nothing a commit writes is there (undo logs live in
 undo tablespaces), so its pages (trx_sys, the dictionary header, the
 doublewrite area) keep stock's records at no cost.

 Pure logic: values in, decisions out; the caller does the writing. */

#ifndef mtr0log_adjacent_h
#define mtr0log_adjacent_h

#include <cstddef>
#include <cstdint>

namespace mlog_adjacent {

/** Longest string one MLOG_WRITE_STRING record carries: its length field
has 2 bytes. */
constexpr size_t MAX_STRING_LEN = 0xFFFF;

/** The last MLOG_WRITE_STRING record a thread wrote, while it may grow. */
class Tail {
 public:
  /** Remember a string record just written.
  @param[in]  mtr       the mini-transaction that logged it
  @param[in]  log_size  its log's size right after the record's bytes
  @param[in]  frame     the page frame written to
  @param[in]  offset    page offset of the first byte written
  @param[in]  len       bytes written
  @param[in]  len_field where the record's 2-byte length is in the log */
  void remember(const void *mtr, size_t log_size, const void *frame,
                size_t offset, size_t len, unsigned char *len_field) {
    m_mtr = mtr;
    m_log_size = log_size;
    m_frame = frame;
    m_end = offset + len;
    m_len = len;
    m_len_field = len_field;
  }

  /** Whether a string write can be appended to the remembered record.
  @param[in]  mtr        the mini-transaction logging the write
  @param[in]  log_size   its log's size now
  @param[in]  frame      the page frame written to
  @param[in]  offset     page offset of the first byte written
  @param[in]  len        bytes written
  @param[in]  page_size  bytes in the page
  @return true if the record is the last of the same mini-transaction's
  log, for the same page, ends at offset, and stays within the page and
  its length field */
  bool can_extend(const void *mtr, size_t log_size, const void *frame,
                  size_t offset, size_t len, size_t page_size) const {
    return m_mtr != nullptr && mtr == m_mtr && log_size == m_log_size &&
           frame == m_frame && offset == m_end && len > 0 &&
           m_len + len <= MAX_STRING_LEN && offset + len <= page_size;
  }

  /** Account for a write appended to the remembered record.
  @param[in]  len       bytes appended
  @param[in]  log_size  the log's size right after them
  @return the record's new string length, for its length field */
  size_t extend(size_t len, size_t log_size) {
    m_end += len;
    m_len += len;
    m_log_size = log_size;
    return m_len;
  }

  /** Where the remembered record's length field is. */
  unsigned char *len_field() const { return m_len_field; }

  /** Forget the record if a mini-transaction that starts or commits wrote it.
  @param[in]  mtr  the mini-transaction */
  void forget(const void *mtr) {
    if (mtr == m_mtr) {
      m_mtr = nullptr;
    }
  }

 private:
  /** The mini-transaction that wrote the record, or nullptr for none. */
  const void *m_mtr{nullptr};
  /** Its log's size right after the record. */
  size_t m_log_size{0};
  /** The page frame the record writes to. */
  const void *m_frame{nullptr};
  /** Page offset just past the record's bytes. */
  size_t m_end{0};
  /** The record's string length. */
  size_t m_len{0};
  /** The record's length field in the mini-transaction log. */
  unsigned char *m_len_field{nullptr};
};

/** The calling thread's last string record: a mini-transaction runs in one
thread, so each thread needs one. */
inline Tail &thread_tail() {
  static thread_local Tail tail;
  return tail;
}

}  // namespace mlog_adjacent

#endif /* mtr0log_adjacent_h */

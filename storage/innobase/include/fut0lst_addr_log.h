/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fut0lst_addr_log.h
 How a file-list address write is logged: as one record or as two.

 A file address (fil_addr_t in a list node or base node) is 6 bytes on the
 page: a 4-byte page number and a 2-byte byte offset. Stock InnoDB logs its
 write as an MLOG_4BYTES and an MLOG_2BYTES record, each with its own type,
 space id and page number. One MLOG_WRITE_STRING of the 6 bytes leaves the
 page the same and is shorter whenever the space id and page number take
 more than a few bytes, as they do in every undo tablespace (space ids near
 2^32 take 5 bytes): about 5 bytes less per address on the history list and
 undo page lists that every write transaction touches.

 Two kinds of page keep the stock records, because recovery treats an
 MLOG_WRITE_STRING there differently from the two small records:
 - page 0: recovery of a tablespace other than the system one reads every
   MLOG_WRITE_STRING on page 0 as the tablespace's encryption information
   and takes any other length as corrupt log;
 - a page whose FIL_PAGE_TYPE is still FIL_PAGE_TYPE_ALLOCATED: recovery
   asserts (debug builds) that no MLOG_WRITE_STRING is applied to one.

 Pure logic: plain values in, a decision out; the sizes follow
 mlog_write_initial_log_record_low(), mlog_write_ulint() and
 mlog_log_string(). */

#ifndef fut0lst_addr_log_h
#define fut0lst_addr_log_h

#include <cstddef>
#include <cstdint>

namespace flst_addr_log {

/** Bytes of a file address on the page (FIL_ADDR_SIZE). */
constexpr size_t ADDR_LEN = 6;

/** Bytes mach_write_compressed() takes for a 32-bit value.
@param[in]  v  value
@return 1 to 5 */
constexpr size_t compressed_len(uint32_t v) {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

/** Bytes of a record's type, space id and page number.
@param[in]  space_id  tablespace of the page
@param[in]  page_no   page number
@return 1 + the two compressed numbers */
constexpr size_t record_head_len(uint32_t space_id, uint32_t page_no) {
  return 1 + compressed_len(space_id) + compressed_len(page_no);
}

/** Bytes of an MLOG_1BYTE/2BYTES/4BYTES record writing value.
@param[in]  space_id  tablespace of the page
@param[in]  page_no   page number
@param[in]  value     value written
@return head, 2-byte page offset, compressed value */
constexpr size_t nbytes_record_len(uint32_t space_id, uint32_t page_no,
                                   uint32_t value) {
  return record_head_len(space_id, page_no) + 2 + compressed_len(value);
}

/** Bytes of an MLOG_WRITE_STRING record of len bytes.
@param[in]  space_id  tablespace of the page
@param[in]  page_no   page number
@param[in]  len       bytes written
@return head, 2-byte page offset, 2-byte length, the bytes */
constexpr size_t string_record_len(uint32_t space_id, uint32_t page_no,
                                   size_t len) {
  return record_head_len(space_id, page_no) + 2 + 2 + len;
}

/** Whether to log a file address write as one MLOG_WRITE_STRING.
@param[in]  space_id        tablespace of the page holding the address
@param[in]  page_no         page number of that page
@param[in]  page_allocated  true if the page's FIL_PAGE_TYPE is
                            FIL_PAGE_TYPE_ALLOCATED
@param[in]  addr_page       page number written
@param[in]  addr_boffset    byte offset written
@return true if one string record is allowed there and shorter than the
MLOG_4BYTES and MLOG_2BYTES records */
constexpr bool as_one_record(uint32_t space_id, uint32_t page_no,
                             bool page_allocated, uint32_t addr_page,
                             uint32_t addr_boffset) {
  if (page_no == 0 || page_allocated) {
    return false;
  }
  return string_record_len(space_id, page_no, ADDR_LEN) <
         nbytes_record_len(space_id, page_no, addr_page) +
             nbytes_record_len(space_id, page_no, addr_boffset);
}

/** The 6 bytes of a file address as the page holds them: the page number
big-endian at FIL_ADDR_PAGE (0), the byte offset big-endian at FIL_ADDR_BYTE
(4), as mach_write_to_4() and mach_write_to_2() store them.
@param[in]  addr_page     page number
@param[in]  addr_boffset  byte offset (low 16 bits)
@param[out] buf           ADDR_LEN bytes */
inline void encode(uint32_t addr_page, uint32_t addr_boffset,
                   unsigned char *buf) {
  buf[0] = static_cast<unsigned char>(addr_page >> 24);
  buf[1] = static_cast<unsigned char>(addr_page >> 16);
  buf[2] = static_cast<unsigned char>(addr_page >> 8);
  buf[3] = static_cast<unsigned char>(addr_page);
  buf[4] = static_cast<unsigned char>(addr_boffset >> 8);
  buf[5] = static_cast<unsigned char>(addr_boffset);
}

}  // namespace flst_addr_log

#endif /* fut0lst_addr_log_h */

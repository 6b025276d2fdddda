/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/trx0undo_xid.h
 The bytes an XA prepare logs for the XID in an undo log header.

 The undo log header keeps the XID as four contiguous fields starting at
 TRX_UNDO_XA_FORMAT: the format id, the gtrid length and the bqual length
 (4 bytes each, big-endian) and XIDDATASIZE (128) data bytes. Every reader
 of them uses the first gtrid + bqual data bytes only: recovery's
 trx_undo_read_xid copies the field into an XID, and the XID is compared
 (xid_t::eq), hashed (xid_t::key, key_length), printed (XA RECOVER) and
 matched by the binlog's crash recovery (get_my_xid) over those bytes alone.

 So a prepare can log the 12 header bytes and the used data bytes as one
 MLOG_WRITE_STRING, instead of three MLOG_4BYTES records and a 128-byte
 string: about 120 fewer redo bytes for a binlog transaction's 24-byte
 internal XID. The record type is stock, so a stock 9.7.2 server recovers
 the same page; the unused tail keeps whatever the page held, on the
 running server and in recovery alike, and no reader looks at it.

 Pure logic: plain values in, bytes out, no server headers. */

#ifndef trx0undo_xid_h
#define trx0undo_xid_h

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace undo_xid {

/** Bytes of the format id and the two lengths before the XID data. */
constexpr size_t HEADER_LEN = 12;

/** Data bytes of an XID (XIDDATASIZE in sql/xa.h). */
constexpr size_t DATA_LEN = 128;

/** Largest image: the header and every data byte. */
constexpr size_t MAX_IMAGE_LEN = HEADER_LEN + DATA_LEN;

/** The data bytes a reader of the XID uses.
@param[in]  gtrid_len  gtrid length of the XID
@param[in]  bqual_len  bqual length of the XID
@return gtrid_len + bqual_len, or DATA_LEN when the lengths are not those of
a valid XID (each 0..64 in MySQL; here only 0..DATA_LEN together is
assumed), so that nothing is left out for a reader with other rules. */
inline size_t used_data_len(long gtrid_len, long bqual_len) {
  if (gtrid_len < 0 || bqual_len < 0 ||
      gtrid_len + bqual_len > static_cast<long>(DATA_LEN)) {
    return DATA_LEN;
  }
  return static_cast<size_t>(gtrid_len + bqual_len);
}

/** Writes v big-endian into 4 bytes, as mach_write_to_4() does with the
low 32 bits of a ulint.
@param[out] b  where to write
@param[in]  v  value; only its low 32 bits are written */
inline void write_be4(unsigned char *b, long v) {
  const auto u = static_cast<uint32_t>(static_cast<unsigned long>(v));
  b[0] = static_cast<unsigned char>(u >> 24);
  b[1] = static_cast<unsigned char>(u >> 16);
  b[2] = static_cast<unsigned char>(u >> 8);
  b[3] = static_cast<unsigned char>(u);
}

/** Builds the bytes to write at TRX_UNDO_XA_FORMAT for an XID: the three
4-byte fields as the stock writer stores them, then the used data bytes.
@param[in]  format_id  format id of the XID
@param[in]  gtrid_len  gtrid length
@param[in]  bqual_len  bqual length
@param[in]  data       the XID's DATA_LEN data bytes
@param[out] buf        at least MAX_IMAGE_LEN bytes
@return number of bytes of buf to write: HEADER_LEN + used_data_len() */
inline size_t image(long format_id, long gtrid_len, long bqual_len,
                    const char *data, unsigned char *buf) {
  write_be4(buf, format_id);
  write_be4(buf + 4, gtrid_len);
  write_be4(buf + 8, bqual_len);
  const size_t used = used_data_len(gtrid_len, bqual_len);
  memcpy(buf + HEADER_LEN, data, used);
  return HEADER_LEN + used;
}

}  // namespace undo_xid

#endif /* trx0undo_xid_h */

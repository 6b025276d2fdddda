/* Unit tests for the XID bytes an XA prepare logs in an undo log header. */

#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "trx0undo_xid.h"

namespace {

using Field = std::array<unsigned char, undo_xid::MAX_IMAGE_LEN>;

/* The field as stock 9.7.2's trx_undo_write_xid leaves it: three 4-byte
   fields and all DATA_LEN data bytes. */
void stock_write(Field &f, long format, long gl, long bl, const char *data) {
  undo_xid::write_be4(f.data(), format);
  undo_xid::write_be4(f.data() + 4, gl);
  undo_xid::write_be4(f.data() + 8, bl);
  memcpy(f.data() + undo_xid::HEADER_LEN, data, undo_xid::DATA_LEN);
}

/* What a reader takes from the field: trx_undo_read_xid's lengths and
   format, then the gtrid + bqual bytes that XID comparison, hashing,
   printing and the binlog's recovery look at. */
struct Read_xid {
  uint32_t format, gl, bl;
  std::string used;
  bool operator==(const Read_xid &o) const {
    return format == o.format && gl == o.gl && bl == o.bl && used == o.used;
  }
};

uint32_t be4(const unsigned char *b) {
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
         (uint32_t{b[2]} << 8) | b[3];
}

Read_xid read(const Field &f) {
  Read_xid r{be4(f.data()), be4(f.data() + 4), be4(f.data() + 8), {}};
  r.used.assign(reinterpret_cast<const char *>(f.data()) + undo_xid::HEADER_LEN,
                r.gl + r.bl);
  return r;
}

/* A field that held a long XID before (a reused undo log header). */
Field stale_field() {
  Field f;
  char old[undo_xid::DATA_LEN];
  for (size_t i = 0; i < sizeof old; i++) old[i] = static_cast<char>(0xA0 + i);
  stock_write(f, 7, 64, 64, old);
  return f;
}

/* The internal XID of a binlog transaction: "MySQLXid", the 8-byte
   server_id, the 8-byte my_xid (xid_t::set(my_xid) in sql/xa.cc). */
void binlog_xid(char *data) {
  memset(data, 0, undo_xid::DATA_LEN);
  memcpy(data, "MySQLXid", 8);
  const unsigned char rest[16] = {1, 0, 0, 0, 0, 0, 0, 0,
                                  0x39, 0x30, 0, 0, 0, 0, 0, 0};
  memcpy(data + 8, rest, sizeof rest);
}

TEST(UndoXid, BinlogXidLogsHeaderAndUsedBytesOnly) {
  char data[undo_xid::DATA_LEN];
  binlog_xid(data);
  unsigned char buf[undo_xid::MAX_IMAGE_LEN];
  EXPECT_EQ(undo_xid::image(1, 24, 0, data, buf), 36u);
  const unsigned char header[12] = {0, 0, 0, 1, 0, 0, 0, 24, 0, 0, 0, 0};
  EXPECT_EQ(memcmp(buf, header, sizeof header), 0);
  EXPECT_EQ(memcmp(buf + 12, data, 24), 0);
}

TEST(UndoXid, ReaderSeesWhatStockWriterLeaves) {
  /* Over a field that held another XID, the compact image and the stock
     write must read back as the same XID, for every length split. */
  for (long gl = 0; gl <= 64; gl += 8) {
    for (long bl : {0L, 1L, 20L, 64L}) {
      char data[undo_xid::DATA_LEN];
      for (size_t i = 0; i < sizeof data; i++)
        data[i] = static_cast<char>(i < size_t(gl + bl) ? 'a' + i % 26 : 0);
      Field stock = stale_field(), compact = stale_field();
      stock_write(stock, 1, gl, bl, data);
      unsigned char buf[undo_xid::MAX_IMAGE_LEN];
      const size_t n = undo_xid::image(1, gl, bl, data, buf);
      EXPECT_EQ(n, undo_xid::HEADER_LEN + gl + bl);
      memcpy(compact.data(), buf, n);
      EXPECT_EQ(read(compact), read(stock)) << gl << "+" << bl;
    }
  }
}

TEST(UndoXid, NullXidLogsTheHeaderOnly) {
  /* XID::reset(): format -1, both lengths 0; -1 is stored as 0xFFFFFFFF,
     as mach_write_to_4 stores the low 32 bits of static_cast<ulint>(-1). */
  char data[undo_xid::DATA_LEN] = {};
  unsigned char buf[undo_xid::MAX_IMAGE_LEN];
  EXPECT_EQ(undo_xid::image(-1, 0, 0, data, buf), undo_xid::HEADER_LEN);
  EXPECT_EQ(be4(buf), 0xFFFFFFFFu);
}

TEST(UndoXid, LengthsOfNoValidXidLogEveryByte) {
  EXPECT_EQ(undo_xid::used_data_len(64, 64), 128u);
  EXPECT_EQ(undo_xid::used_data_len(-1, 0), undo_xid::DATA_LEN);
  EXPECT_EQ(undo_xid::used_data_len(0, -5), undo_xid::DATA_LEN);
  EXPECT_EQ(undo_xid::used_data_len(100, 100), undo_xid::DATA_LEN);
  char data[undo_xid::DATA_LEN] = {};
  unsigned char buf[undo_xid::MAX_IMAGE_LEN];
  EXPECT_EQ(undo_xid::image(1, 200, 0, data, buf), undo_xid::MAX_IMAGE_LEN);
}

}  // namespace

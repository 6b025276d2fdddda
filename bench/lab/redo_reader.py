"""Read InnoDB 9.7 redo (format 6, MySQL 8.0.30 and later): redo bytes per
record type.

Pure parsing: bytes and integers in, plain values (ints, strings, dicts)
out; no file or server access (bench/redo-types does the reading).

Layout, as InnoDB writes it (log0constants.h, log0files_io.cc):
  - A redo file (#innodb_redo/#ib_redoN) starts with a 2048-byte header of
    four 512-byte blocks: the file header (format, uuid, start LSN,
    creator, flags), checkpoint 1, encryption, checkpoint 2. Each header
    block ends with a CRC-32C of its first 508 bytes.
  - Then 512-byte blocks: a 12-byte header (block number with the old
    flush bit on top, data length, offset of the first record group
    starting in the block, epoch), 496 data bytes, a 4-byte CRC-32C.
    LSNs count every byte of the blocks, headers and trailers included;
    file offset = 2048 + (lsn - file start LSN).
  - The data bytes of consecutive blocks form one stream of mini-
    transactions (mtrs). An mtr is either one record whose type byte has
    MLOG_SINGLE_REC_FLAG (0x80) set, or several records ended by a 1-byte
    MLOG_MULTI_REC_END.
  - A record is a type byte, then (for page records) the space id and the
    page number in InnoDB's compressed integer form, then a body whose
    layout depends on the type (log0recv.cc recv_parse_or_apply_log_rec_body
    and the mlog_parse_*, page_cur_parse_*, btr_cur_parse_*,
    trx_undo_parse_* functions it calls). Index records (insert, update in
    place, delete mark, delete, list copy/delete, reorganize) start their
    body with an index descriptor (mlog_parse_index, index log version 1).

Scanner walks the stream and attributes every LSN of a range to exactly
one of: block framing (headers and trailers), a record type, "unparsed
(TYPE)" (bytes skipped after a record it cannot parse, up to the next
block's first record group), "incomplete (TYPE)" (a record cut by the end
of valid data) or "before first record group" (the tail of an mtr that
started before the range when no record group starts at the range's
start). So framing + all entries == to_lsn - from_lsn, exactly.
"""

BLOCK_SIZE = 512
BLOCK_HDR_SIZE = 12
BLOCK_TRL_SIZE = 4
BLOCK_DATA_SIZE = BLOCK_SIZE - BLOCK_HDR_SIZE - BLOCK_TRL_SIZE  # 496
FILE_HDR_SIZE = 4 * BLOCK_SIZE
CHECKPOINT_OFFSETS = (1 * BLOCK_SIZE, 3 * BLOCK_SIZE)
LOG_FORMAT_CURRENT = 6  # Log_format::VERSION_8_0_30
BLOCK_MAX_NO = 1 << 30
FLUSH_BIT = 0x80000000
ENCRYPT_BIT = 0x8000
NO_CHECKSUM_MAGIC = 0xDEADBEEF
LOG_START_LSN = 16 * BLOCK_SIZE

SINGLE_REC_FLAG = 0x80
PAGE_SIZE_MAX = 65536
SQL_NULL = 0xFFFFFFFF

# mlog_id_t (mtr0types.h), the types a 9.7 server can write.
TYPE_NAMES = {
    1: "MLOG_1BYTE", 2: "MLOG_2BYTES", 4: "MLOG_4BYTES", 8: "MLOG_8BYTES",
    11: "MLOG_REC_SEC_DELETE_MARK",
    19: "MLOG_PAGE_CREATE", 20: "MLOG_UNDO_INSERT", 21: "MLOG_UNDO_ERASE_END",
    22: "MLOG_UNDO_INIT", 24: "MLOG_UNDO_HDR_REUSE", 25: "MLOG_UNDO_HDR_CREATE",
    26: "MLOG_REC_MIN_MARK", 27: "MLOG_IBUF_BITMAP_INIT", 28: "MLOG_LSN",
    29: "MLOG_INIT_FILE_PAGE", 30: "MLOG_WRITE_STRING", 31: "MLOG_MULTI_REC_END",
    32: "MLOG_DUMMY_RECORD", 33: "MLOG_FILE_CREATE", 34: "MLOG_FILE_RENAME",
    35: "MLOG_FILE_DELETE", 36: "MLOG_COMP_REC_MIN_MARK",
    37: "MLOG_COMP_PAGE_CREATE",
    48: "MLOG_ZIP_WRITE_NODE_PTR", 49: "MLOG_ZIP_WRITE_BLOB_PTR",
    50: "MLOG_ZIP_WRITE_HEADER", 51: "MLOG_ZIP_PAGE_COMPRESS",
    57: "MLOG_PAGE_CREATE_RTREE", 58: "MLOG_COMP_PAGE_CREATE_RTREE",
    59: "MLOG_INIT_FILE_PAGE2", 61: "MLOG_INDEX_LOAD",
    62: "MLOG_TABLE_DYNAMIC_META", 63: "MLOG_PAGE_CREATE_SDI",
    64: "MLOG_COMP_PAGE_CREATE_SDI", 65: "MLOG_FILE_EXTEND", 66: "MLOG_TEST",
    67: "MLOG_REC_INSERT", 68: "MLOG_REC_CLUST_DELETE_MARK",
    69: "MLOG_REC_DELETE", 70: "MLOG_REC_UPDATE_IN_PLACE",
    71: "MLOG_LIST_END_COPY_CREATED", 72: "MLOG_PAGE_REORGANIZE",
    73: "MLOG_ZIP_PAGE_REORGANIZE", 74: "MLOG_ZIP_PAGE_COMPRESS_NO_DATA",
    75: "MLOG_LIST_END_DELETE", 76: "MLOG_LIST_START_DELETE",
}
# Written only by servers before 8.0.28 (the OBSOLETE_*_8027 types), or by
# debug builds with UNIV_LOG_LSN_DEBUG (MLOG_LSN): named, never parsed.
OBSOLETE_NAMES = {
    9: "OBSOLETE_MLOG_REC_INSERT_8027", 10: "OBSOLETE_MLOG_REC_CLUST_DELETE_MARK_8027",
    13: "OBSOLETE_MLOG_REC_UPDATE_IN_PLACE_8027", 14: "OBSOLETE_MLOG_REC_DELETE_8027",
    15: "OBSOLETE_MLOG_LIST_END_DELETE_8027", 16: "OBSOLETE_MLOG_LIST_START_DELETE_8027",
    17: "OBSOLETE_MLOG_LIST_END_COPY_CREATED_8027", 18: "OBSOLETE_MLOG_PAGE_REORGANIZE_8027",
    38: "OBSOLETE_MLOG_COMP_REC_INSERT_8027", 39: "OBSOLETE_MLOG_COMP_REC_CLUST_DELETE_MARK_8027",
    40: "OBSOLETE_MLOG_COMP_REC_SEC_DELETE_MARK",
    41: "OBSOLETE_MLOG_COMP_REC_UPDATE_IN_PLACE_8027", 42: "OBSOLETE_MLOG_COMP_REC_DELETE_8027",
    43: "OBSOLETE_MLOG_COMP_LIST_END_DELETE_8027", 44: "OBSOLETE_MLOG_COMP_LIST_START_DELETE_8027",
    45: "OBSOLETE_MLOG_COMP_LIST_END_COPY_CREATED_8027",
    46: "OBSOLETE_MLOG_COMP_PAGE_REORGANIZE_8027",
    52: "OBSOLETE_MLOG_ZIP_PAGE_COMPRESS_NO_DATA_8027",
    53: "OBSOLETE_MLOG_ZIP_PAGE_REORGANIZE_8027",
}

MULTI_REC_END = 31
DUMMY_RECORD = 32
TABLE_DYNAMIC_META = 62


def type_name(type_id):
    """The mlog_id_t name of a type byte (flag stripped), or MLOG_UNKNOWN_<n>."""
    t = type_id & ~SINGLE_REC_FLAG
    return TYPE_NAMES.get(t) or OBSOLETE_NAMES.get(t) or "MLOG_UNKNOWN_%d" % t


class Incomplete(Exception):
    """The record runs past the bytes available."""


class Unparsable(Exception):
    """A record this reader cannot parse (unknown type or impossible field)."""

    def __init__(self, type_id, why):
        super().__init__("%s: %s" % (type_name(type_id), why))
        self.type_id = type_id
        self.why = why


# --- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), as ut_crc32 ---

def _crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


_CRC = _crc_table()


def crc32c(data, crc=0):
    """CRC-32C of `data` (bytes-like), continuing from `crc`."""
    crc ^= 0xFFFFFFFF
    table = _CRC
    for b in data:
        crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# --- integers (mach0data) ---

def be(buf, pos, n):
    """Big-endian unsigned integer of n bytes at pos."""
    return int.from_bytes(buf[pos:pos + n], "big")


def _need(end, pos, n):
    if pos + n > end:
        raise Incomplete()


def read_compressed(buf, pos, end):
    """A 32-bit integer in InnoDB's compressed form (mach_parse_compressed):
    1 byte below 0x80, 2 below 0x4000, 3 below 0x200000, 4 below
    0x10000000, else 5 (0xF0 and 4 bytes); values near 2^32 take the
    'extended' 2..4-byte forms 111110nn, 1111110n, 11111110. Returns
    (value, next position)."""
    _need(end, pos, 1)
    b = buf[pos]
    if b < 0x80:
        return b, pos + 1
    if b < 0xC0:
        _need(end, pos, 2)
        return be(buf, pos, 2) & 0x3FFF, pos + 2
    if b < 0xE0:
        _need(end, pos, 3)
        return be(buf, pos, 3) & 0x1FFFFF, pos + 3
    if b < 0xF0:
        _need(end, pos, 4)
        return be(buf, pos, 4) & 0xFFFFFFF, pos + 4
    if b < 0xF8:
        _need(end, pos, 5)
        return be(buf, pos + 1, 4), pos + 5
    if b < 0xFC:
        _need(end, pos, 2)
        return (be(buf, pos, 2) & 0x3FF) | 0xFFFFFC00, pos + 2
    if b < 0xFE:
        _need(end, pos, 3)
        return (be(buf, pos, 3) & 0x1FFFF) | 0xFFFE0000, pos + 3
    if b == 0xFE:
        _need(end, pos, 4)
        return be(buf, pos + 1, 3) | 0xFF000000, pos + 4
    raise ValueError("0xFF does not start a compressed 32-bit integer")


def read_u64_compressed(buf, pos, end):
    """A 64-bit integer as mach_u64_parse_compressed: the high 32 bits
    compressed, then the low 32 bits as 4 plain bytes."""
    high, pos = read_compressed(buf, pos, end)
    _need(end, pos, 4)
    return (high << 32) | be(buf, pos, 4), pos + 4


def read_much_compressed(buf, pos, end):
    """A 64-bit integer as mach_parse_u64_much_compressed: below 2^32 one
    compressed integer; else 0xFF, the high and the low 32 bits each
    compressed."""
    _need(end, pos, 1)
    if buf[pos] != 0xFF:
        return read_compressed(buf, pos, end)
    high, pos = read_compressed(buf, pos + 1, end)
    low, pos = read_compressed(buf, pos, end)
    return (high << 32) | low, pos


# --- record bodies ---

def _bytes(end, pos, n):
    _need(end, pos, n)
    return pos + n


def _offset(t, buf, pos, end, limit=PAGE_SIZE_MAX):
    """A 2-byte page offset; returns (offset, next)."""
    _need(end, pos, 2)
    off = be(buf, pos, 2)
    if off >= limit:
        raise Unparsable(t, "page offset %d" % off)
    return off, pos + 2


def _index(t, buf, pos, end):
    """mlog_parse_index (index log version 1): version, flag, [n,
    [n_instant], n_uniq, n 2-byte field lengths], [versioned fields]."""
    _need(end, pos, 2)
    version, flag = buf[pos], buf[pos + 1]
    if version != 1:
        raise Unparsable(t, "index log version %d" % version)
    pos += 2
    comp, versioned, instant = flag & 1, flag & 2, flag & 4
    if not comp and not versioned:
        return pos
    _need(end, pos, 2)
    n = be(buf, pos, 2)
    pos += 2
    if comp:
        if instant:
            pos = _bytes(end, pos, 2)
        pos = _bytes(end, pos, 2 + 2 * n)  # n_uniq, then a length per field
    if versioned:
        _need(end, pos, 2)
        n_inst = be(buf, pos, 2)
        pos += 2
        for _ in range(n_inst):
            _need(end, pos, 4)
            phy = be(buf, pos + 2, 2)
            pos += 4 + (1 if phy & 0x8000 else 0) + (1 if phy & 0x4000 else 0)
        _need(end, pos, 0)
    return pos


def _sys_vals(t, buf, pos, end):
    """row_upd_parse_sys_vals: DB_TRX_ID position, 7-byte roll pointer,
    trx id (u64 compressed)."""
    _, pos = read_compressed(buf, pos, end)
    pos = _bytes(end, pos, 7)
    _, pos = read_u64_compressed(buf, pos, end)
    return pos


def _path(t, buf, pos, end):
    _need(end, pos, 2)
    n = be(buf, pos, 2)
    return _bytes(end, pos + 2, n)


def _body(t, buf, pos, end):
    """Parse the body of a page or file record of type t (flag stripped)
    starting at pos; returns (end position, detail key or None)."""
    if t in (1, 2, 4):
        _, pos = _offset(t, buf, pos, end)
        val, pos = read_compressed(buf, pos, end)
        if (t == 1 and val > 0xFF) or (t == 2 and val > 0xFFFF):
            raise Unparsable(t, "value %d too wide" % val)
        return pos, None
    if t == 8:
        _, pos = _offset(t, buf, pos, end)
        _, pos = read_u64_compressed(buf, pos, end)
        return pos, None
    if t == 30:  # MLOG_WRITE_STRING: offset, length, bytes
        off, pos = _offset(t, buf, pos, end)
        _need(end, pos, 2)
        n = be(buf, pos, 2)
        if off + n > PAGE_SIZE_MAX:
            raise Unparsable(t, "string of %d at %d" % (n, off))
        return _bytes(end, pos + 2, n), "len=%d" % n
    if t == 20:  # MLOG_UNDO_INSERT: length, undo record
        _need(end, pos, 2)
        n = be(buf, pos, 2)
        return _bytes(end, pos + 2, n), "len=%d" % n
    if t in (19, 37, 57, 58, 63, 64, 21, 27, 29, 59):
        return pos, None  # page create/init, undo erase end: no body
    if t == 22:  # MLOG_UNDO_INIT: undo type
        return read_compressed(buf, pos, end)[1], None
    if t in (24, 25):  # MLOG_UNDO_HDR_REUSE/CREATE: trx id
        return read_u64_compressed(buf, pos, end)[1], None
    if t in (26, 36):  # min rec mark: record offset
        return _bytes(end, pos, 2), None
    if t == 11:  # MLOG_REC_SEC_DELETE_MARK: value, offset
        return _bytes(end, pos, 3), None
    if t == 61:  # MLOG_INDEX_LOAD
        return _bytes(end, pos, 8), None
    if t == 65:  # MLOG_FILE_EXTEND: offset, size
        return _bytes(end, pos, 16), None
    if t == 33:  # MLOG_FILE_CREATE: flags, path
        return _path(t, buf, _bytes(end, pos, 4), end), None
    if t == 35:  # MLOG_FILE_DELETE: path
        return _path(t, buf, pos, end), None
    if t == 34:  # MLOG_FILE_RENAME: from, to
        return _path(t, buf, _path(t, buf, pos, end), end), None
    if t == 48:  # MLOG_ZIP_WRITE_NODE_PTR: offset, z_offset, node ptr
        return _bytes(end, pos, 2 + 2 + 4), None
    if t == 49:  # MLOG_ZIP_WRITE_BLOB_PTR: offset, z_offset, field ref
        return _bytes(end, pos, 2 + 2 + 20), None
    if t == 50:  # MLOG_ZIP_WRITE_HEADER: offset, length, bytes
        _need(end, pos, 2)
        n = buf[pos + 1]
        return _bytes(end, pos + 2, n), "len=%d" % n
    if t == 51:  # MLOG_ZIP_PAGE_COMPRESS: size, trailer, prev+next, data
        _need(end, pos, 4)
        size, trailer = be(buf, pos, 2), be(buf, pos + 2, 2)
        return _bytes(end, pos + 4, 8 + size + trailer), None
    if t == 66:  # MLOG_TEST: key, value, payload length, payload, 2 LSNs
        _need(end, pos, 18)
        n = be(buf, pos + 16, 2)
        return _bytes(end, pos + 18, n + 16), None
    if t in (67, 68, 69, 70, 71, 72, 73, 74, 75, 76):
        start = pos
        pos = _index(t, buf, pos, end)
        key = "index=%d" % (pos - start)
        return _index_body(t, buf, pos, end), key
    raise Unparsable(t, "type not parsed")


def _index_body(t, buf, pos, end):
    if t == 67:  # MLOG_REC_INSERT
        _, pos = _offset(t, buf, pos, end)
        return _insert(t, buf, pos, end)
    if t == 68:  # MLOG_REC_CLUST_DELETE_MARK: flags, value, sys, offset
        pos = _sys_vals(t, buf, _bytes(end, pos, 2), end)
        return _offset(t, buf, pos, end, PAGE_SIZE_MAX + 1)[1]
    if t == 70:  # MLOG_REC_UPDATE_IN_PLACE
        pos = _sys_vals(t, buf, _bytes(end, pos, 1), end)
        _, pos = _offset(t, buf, pos, end, PAGE_SIZE_MAX + 1)
        pos = _bytes(end, pos, 1)  # info bits
        n, pos = read_compressed(buf, pos, end)
        for _ in range(n):
            _, pos = read_compressed(buf, pos, end)  # field number
            length, pos = read_compressed(buf, pos, end)
            if length != SQL_NULL:
                pos = _bytes(end, pos, length)
        return pos
    if t in (69, 75, 76):  # delete, list end/start delete: offset
        return _bytes(end, pos, 2)
    if t == 71:  # MLOG_LIST_END_COPY_CREATED: length, short inserts
        _need(end, pos, 4)
        return _bytes(end, pos + 4, be(buf, pos, 4))
    if t == 72:  # MLOG_PAGE_REORGANIZE
        return pos
    return _bytes(end, pos, 1)  # 73, 74: compression level


def _insert(t, buf, pos, end):
    """page_cur_parse_insert_rec after the cursor offset: end segment
    length*2+flag; with the flag, info bits, origin offset, mismatch
    index; then the end segment."""
    seg, pos = read_compressed(buf, pos, end)
    if seg >= 2 * PAGE_SIZE_MAX:
        raise Unparsable(t, "end segment %d" % seg)
    if seg & 1:
        pos = _bytes(end, pos, 1)
        _, pos = read_compressed(buf, pos, end)
        _, pos = read_compressed(buf, pos, end)
    return _bytes(end, pos, seg >> 1)


def _dynamic_meta(t, buf, pos, end):
    """MLOG_TABLE_DYNAMIC_META: table id, version (both much compressed),
    persister type, then 1: count + count*12 bytes of corrupted index ids,
    2: auto-increment (much compressed)."""
    _, pos = read_much_compressed(buf, pos, end)
    _, pos = read_much_compressed(buf, pos, end)
    _need(end, pos, 1)
    kind = buf[pos]
    pos += 1
    if kind == 1:
        _need(end, pos, 1)
        n = buf[pos]
        if n == 0:
            raise Unparsable(t, "no corrupted index")
        return _bytes(end, pos + 1, 12 * n)
    if kind == 2:
        return read_much_compressed(buf, pos, end)[1]
    raise Unparsable(t, "metadata type %d" % kind)


def parse_record(buf, pos, end=None):
    """Parse one record at buf[pos:end]. Returns (type byte as written,
    end position, detail key or None); the type without the flag is
    type byte & 0x7F. Raises Incomplete when the record runs past end,
    Unparsable when the reader does not know how (or the bytes cannot be
    a record)."""
    if end is None:
        end = len(buf)
    _need(end, pos, 1)
    tb = buf[pos]
    t = tb & ~SINGLE_REC_FLAG
    if t in (MULTI_REC_END, DUMMY_RECORD):
        if tb & SINGLE_REC_FLAG:
            raise Unparsable(t, "single-record flag on a 1-byte record")
        return tb, pos + 1, None
    try:
        if t == TABLE_DYNAMIC_META:
            return tb, _dynamic_meta(t, buf, pos + 1, end), None
        if t not in TYPE_NAMES or t == 28:
            raise Unparsable(t, "type not parsed")
        _, p = read_compressed(buf, pos + 1, end)  # space id
        _, p = read_compressed(buf, p, end)  # page number
        p, key = _body(t, buf, p, end)
        return tb, p, key
    except ValueError as e:
        raise Unparsable(t, str(e))


# --- blocks, file headers, LSN arithmetic ---

def lsn_to_hdr_no(lsn):
    """The block number InnoDB writes in the block holding lsn."""
    return 1 + (lsn // BLOCK_SIZE) % BLOCK_MAX_NO


def lsn_to_epoch_no(lsn):
    return 1 + lsn // BLOCK_SIZE // BLOCK_MAX_NO


def lsn_to_sn(lsn):
    """Data-byte index of lsn: how many data bytes precede it. An LSN in a
    block header counts as that block's first data byte, one in a trailer
    as the next block's."""
    block, off = divmod(lsn, BLOCK_SIZE)
    off = min(max(off, BLOCK_HDR_SIZE), BLOCK_SIZE - BLOCK_TRL_SIZE)
    return block * BLOCK_DATA_SIZE + off - BLOCK_HDR_SIZE


def sn_to_lsn(sn):
    """The LSN of data byte sn (inverse of lsn_to_sn on data bytes)."""
    block, off = divmod(sn, BLOCK_DATA_SIZE)
    return block * BLOCK_SIZE + BLOCK_HDR_SIZE + off


def block_checksum_ok(block):
    stored = be(block, BLOCK_SIZE - 4, 4)
    return stored == NO_CHECKSUM_MAGIC or stored == crc32c(block[:BLOCK_SIZE - 4])


def parse_block_header(block):
    """The 12-byte header of a data block as a dict."""
    raw_no = be(block, 0, 4)
    raw_len = be(block, 4, 2)
    return {
        "hdr_no": raw_no & ~FLUSH_BIT,
        "flush_bit": bool(raw_no & FLUSH_BIT),
        "data_len": raw_len & ~ENCRYPT_BIT,
        "encrypted": bool(raw_len & ENCRYPT_BIT),
        "first_rec_group": be(block, 6, 2),
        "epoch_no": be(block, 8, 4),
    }


def parse_file_header(block):
    """The first block of a redo file: format, log_uuid, start_lsn, creator,
    flags and whether its checksum holds."""
    creator = bytes(block[16:48]).split(b"\0", 1)[0].decode("latin-1")
    return {
        "format": be(block, 0, 4),
        "log_uuid": be(block, 4, 4),
        "start_lsn": be(block, 8, 8),
        "creator": creator,
        "flags": be(block, 48, 4),
        "checksum_ok": block_checksum_ok(block),
    }


def parse_checkpoint(block):
    """The checkpoint LSN in a checkpoint header block, or None when the
    block is unused or its checksum fails."""
    if not block_checksum_ok(block):
        return None
    lsn = be(block, 8, 8)
    return lsn or None


def redo_file_id(name):
    """N of '#ib_redoN'; None for any other name ('#ib_redoN_tmp' spares)."""
    prefix = "#ib_redo"
    if name.startswith(prefix) and name[len(prefix):].isdigit():
        return int(name[len(prefix):])
    return None


def spare_file_id(name):
    """N of '#ib_redoN_tmp': a consumed file InnoDB renamed to keep as a
    spare; it keeps its header and old data until it is reused."""
    if name.endswith("_tmp"):
        return redo_file_id(name[:-4])
    return None


# --- the scanner ---

HEAD_PARTIAL = "before first record group"


class Scanner:
    """Feed consecutive 512-byte blocks (feed(block_lsn, block), starting
    with the block holding from_lsn) until feed returns False, then call
    report(). Bytes of [from_lsn, to_lsn) are attributed as the module doc
    says; to_lsn None means the end of valid data."""

    COMPACT_AT = 1 << 20

    def __init__(self, from_lsn, to_lsn=None, detail=False, check_checksums=True):
        self.from_lsn = from_lsn
        self.to_lsn = to_lsn
        self.from_sn = lsn_to_sn(from_lsn)
        self.to_sn = None if to_lsn is None else lsn_to_sn(to_lsn)
        self.detail = detail
        self.check_checksums = check_checksums
        self.types = {}
        self.mtrs = 0
        self.single_mtrs = 0
        self.cut = 0  # entries cut by from_lsn or to_lsn
        self.data = bytearray()
        self.data_sn = None  # sn of data[0]
        self.pos = 0
        self.next_lsn = None  # LSN of the next block expected
        self.end_lsn = None  # end of valid data, once seen
        self.end_reason = None
        self.parse_start_lsn = None
        self.state = "seek"  # seek -> parse <-> resync -> done
        self.in_group = False
        self.resync_sn = None
        self.resync_name = None
        self.boundaries = []  # sn of first record groups not yet used

    # accounting
    def _add(self, name, start_sn, end_sn, key=None):
        lo = max(start_sn, self.from_sn)
        hi = end_sn if self.to_sn is None else min(end_sn, self.to_sn)
        if hi <= lo:
            return
        if lo != start_sn or hi != end_sn:
            self.cut += 1
        e = self.types.get(name)
        if e is None:
            e = self.types[name] = {"count": 0, "bytes": 0, "detail": {}}
        e["count"] += 1
        e["bytes"] += hi - lo
        if key is not None and self.detail:
            d = e["detail"].setdefault(key, [0, 0])
            d[0] += 1
            d[1] += hi - lo

    def _in_range(self, sn):
        return sn >= self.from_sn and (self.to_sn is None or sn < self.to_sn)

    def feed(self, block_lsn, block):
        """Add one block; returns False once no further block is wanted."""
        if self.state == "done":
            return False
        if self.next_lsn is None:
            self.next_lsn = block_lsn - block_lsn % BLOCK_SIZE
            if self.next_lsn > self.from_lsn or self.from_lsn - self.next_lsn >= BLOCK_SIZE:
                raise ValueError("the first block must hold from_lsn")
        if block_lsn != self.next_lsn or len(block) != BLOCK_SIZE:
            raise ValueError("blocks must be fed in order, 512 bytes each")
        h = parse_block_header(block)
        bad = None
        if h["hdr_no"] != lsn_to_hdr_no(block_lsn):
            bad = "block number %d where %d was expected" % (h["hdr_no"], lsn_to_hdr_no(block_lsn))
        elif h["epoch_no"] != lsn_to_epoch_no(block_lsn):
            bad = "epoch %d where %d was expected" % (h["epoch_no"], lsn_to_epoch_no(block_lsn))
        elif self.check_checksums and not block_checksum_ok(block):
            bad = "checksum mismatch"
        elif h["encrypted"]:
            bad = "encrypted block (not supported)"
        elif h["data_len"] < BLOCK_HDR_SIZE or h["data_len"] > BLOCK_SIZE:
            bad = "data length %d" % h["data_len"]
        if bad:
            return self._end(block_lsn, "block at %d: %s" % (block_lsn, bad))
        self.next_lsn = block_lsn + BLOCK_SIZE
        block_sn = block_lsn // BLOCK_SIZE * BLOCK_DATA_SIZE
        stop = min(h["data_len"], BLOCK_SIZE - BLOCK_TRL_SIZE)
        if self.data_sn is None:
            self.data_sn = block_sn
        self.data += block[BLOCK_HDR_SIZE:stop]
        frg = h["first_rec_group"]
        if BLOCK_HDR_SIZE <= frg <= stop:
            self.boundaries.append(block_sn + frg - BLOCK_HDR_SIZE)
        full = h["data_len"] == BLOCK_SIZE
        self._advance()
        if not full and self.state != "done":
            return self._end(block_lsn + h["data_len"], "end of data (block at %d not full)" % block_lsn)
        return self.state != "done"

    def _cur_sn(self):
        return self.data_sn + self.pos

    def _end_sn(self):
        return self.data_sn + len(self.data)

    def _advance(self):
        while True:
            if self.state == "seek":
                if not self.boundaries:
                    return
                start = self.boundaries.pop(0)
                self._add(HEAD_PARTIAL, self.data_sn, start)
                self.pos = start - self.data_sn
                self.parse_start_lsn = sn_to_lsn(start)
                self.state = "parse"
            elif self.state == "resync":
                later = [b for b in self.boundaries if b > self.resync_sn]
                if not later:
                    self.boundaries = []
                    return
                target = later[0]
                self.boundaries = later[1:]
                self._add("unparsed (%s)" % self.resync_name, self.resync_sn, target)
                self.pos = target - self.data_sn
                self.in_group = False
                self.state = "parse"
            elif self.state == "parse":
                self._parse()
                if self.state == "parse":
                    # Group starts already passed are of no further use.
                    cur = self._cur_sn()
                    self.boundaries = [b for b in self.boundaries if b > cur]
                    return
            else:
                return

    def _parse(self):
        data, end = self.data, len(self.data)
        while True:
            sn = self.data_sn + self.pos
            if self.to_sn is not None and sn >= self.to_sn:
                self.state = "done"
                self.end_reason = self.end_reason or "reached to_lsn"
                return
            if self.pos >= end:
                break
            try:
                tb, nxt, key = parse_record(data, self.pos, end)
            except Incomplete:
                if self.to_sn is not None and self._end_sn() >= self.to_sn:
                    # The range ends inside this record: its bytes up to to_lsn.
                    self._add(type_name(data[self.pos]), sn, self.to_sn)
                    self.cut += 1
                    self.state = "done"
                    self.end_reason = "reached to_lsn"
                    return
                break
            except Unparsable as e:
                self.state = "resync"
                self.resync_sn = sn
                self.resync_name = type_name(e.type_id)
                return
            t = tb & ~SINGLE_REC_FLAG
            if not self.in_group:
                if tb & SINGLE_REC_FLAG or t == DUMMY_RECORD or t == MULTI_REC_END:
                    single = True
                else:
                    single = False
                    self.in_group = True
                if self._in_range(sn):
                    self.mtrs += 1
                    self.single_mtrs += single
            elif tb & SINGLE_REC_FLAG:
                self.state = "resync"
                self.resync_sn = sn
                self.resync_name = type_name(t) + " flagged single inside a group"
                return
            elif t == MULTI_REC_END:
                self.in_group = False
            self._add(type_name(t), sn, self.data_sn + nxt, key)
            self.pos = nxt
        if self.pos > self.COMPACT_AT:
            del self.data[:self.pos]
            self.data_sn += self.pos
            self.pos = 0

    def _end(self, lsn, reason):
        """Valid data ends at lsn: close whatever is open."""
        self.end_lsn = lsn
        self.end_reason = reason
        if self.data_sn is not None:
            end_sn = self._end_sn()
            if self.state == "seek":
                self._add(HEAD_PARTIAL, self.data_sn, end_sn)
            elif self.state == "resync":
                self._add("unparsed (%s)" % self.resync_name, self.resync_sn, end_sn)
            elif self.state == "parse" and self._cur_sn() < end_sn:
                self._add("incomplete (%s)" % type_name(self.data[self.pos]), self._cur_sn(), end_sn)
        self.state = "done"
        return False

    def finish(self, reason="no more blocks"):
        """No further block exists: close what is open at the last block."""
        if self.state != "done" and self.next_lsn is not None:
            self._end(self.next_lsn, reason)

    def report(self):
        """The attribution as a dict of plain values."""
        to_lsn = self.to_lsn
        if to_lsn is None or (self.end_lsn is not None and self.end_lsn < to_lsn):
            to_lsn = self.end_lsn if self.end_lsn is not None else self.next_lsn
        to_lsn = max(to_lsn or self.from_lsn, self.from_lsn)
        total = to_lsn - self.from_lsn
        data = max(lsn_to_sn(to_lsn) - self.from_sn, 0)
        record_bytes = sum(e["bytes"] for e in self.types.values())
        return {
            "from_lsn": self.from_lsn,
            "to_lsn": to_lsn,
            "requested_to_lsn": self.to_lsn,
            "end_of_data_lsn": self.end_lsn,
            "end_reason": self.end_reason,
            "parse_start_lsn": self.parse_start_lsn,
            "types": self.types,
            "framing_bytes": total - data,
            "record_bytes": record_bytes,
            "unattributed_bytes": data - record_bytes,
            "total_bytes": total,
            "mtrs": self.mtrs,
            "single_record_mtrs": self.single_mtrs,
            "cut_at_range_ends": self.cut,
        }

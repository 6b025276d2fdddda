"""InnoDB 9.7 redo records (format 6, MySQL 8.0.30 and later): the mlog
record types and the length of each record.

Pure parsing: bytes and integers in, plain values out. The block and file
layer (blocks, checksums, LSNs, the scanner) is lab.redo_reader.

Layout, as InnoDB writes it (mtr0types.h, mach0data.ic, log0recv.cc):
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
"""

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


def _body(t, buf, pos, end, offsets=False):
    """Parse the body of a page or file record of type t (flag stripped)
    starting at pos; returns (end position, detail key or None). With
    offsets, the key of a 1/2/4/8-byte or string write also names the
    page offset written (off=N), which tells the fields apart."""
    if t in (1, 2, 4):
        off, pos = _offset(t, buf, pos, end)
        val, pos = read_compressed(buf, pos, end)
        if (t == 1 and val > 0xFF) or (t == 2 and val > 0xFFFF):
            raise Unparsable(t, "value %d too wide" % val)
        return pos, ("off=%d" % off if offsets else None)
    if t == 8:
        off, pos = _offset(t, buf, pos, end)
        _, pos = read_u64_compressed(buf, pos, end)
        return pos, ("off=%d" % off if offsets else None)
    if t == 30:  # MLOG_WRITE_STRING: offset, length, bytes
        off, pos = _offset(t, buf, pos, end)
        _need(end, pos, 2)
        n = be(buf, pos, 2)
        if off + n > PAGE_SIZE_MAX:
            raise Unparsable(t, "string of %d at %d" % (n, off))
        key = "len=%d off=%d" % (n, off) if offsets else "len=%d" % n
        return _bytes(end, pos + 2, n), key
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


def parse_record(buf, pos, end=None, offsets=False):
    """Parse one record at buf[pos:end]. Returns (type byte as written,
    end position, detail key or None); the type without the flag is
    type byte & 0x7F. offsets: name the page offset in the key of a
    1/2/4/8-byte or string write (see _body). Raises Incomplete when the
    record runs past end, Unparsable when the reader does not know how (or
    the bytes cannot be a record)."""
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
        p, key = _body(t, buf, p, end, offsets)
        return tb, p, key
    except ValueError as e:
        raise Unparsable(t, str(e))

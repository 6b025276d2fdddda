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
    page number, then a body whose layout depends on the type; parsing one
    record is lab.redo_records.

Scanner walks the stream and attributes every LSN of a range to exactly
one of: block framing (headers and trailers), a record type, "unparsed
(TYPE)" (bytes skipped after a record it cannot parse, up to the next
block's first record group), "incomplete (TYPE)" (a record cut by the end
of valid data) or "before first record group" (the tail of an mtr that
started before the range when no record group starts at the range's
start). So framing + all entries == to_lsn - from_lsn, exactly.
"""

from .redo_records import (
    DUMMY_RECORD, MULTI_REC_END, SINGLE_REC_FLAG, Incomplete, Unparsable, be,
    parse_record, type_name,
)

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

    def __init__(self, from_lsn, to_lsn=None, detail=False, check_checksums=True,
                 offsets=False):
        self.from_lsn = from_lsn
        self.to_lsn = to_lsn
        self.from_sn = lsn_to_sn(from_lsn)
        self.to_sn = None if to_lsn is None else lsn_to_sn(to_lsn)
        self.detail = detail or offsets
        self.offsets = offsets
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
                tb, nxt, key = parse_record(data, self.pos, end, self.offsets)
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

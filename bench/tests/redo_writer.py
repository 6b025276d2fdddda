"""A redo writer for the redo tests (not a test module itself): InnoDB's
compressed integers, record bytes of each mlog type, and Block, which lays
mini-transactions out in 512-byte blocks with a valid CRC-32C as InnoDB's
log writer does.

Written from the format description (log0constants.h, mach0data.ic, the
mlog_parse_* functions), not from the reader (bench/lab/redo_reader.py,
bench/lab/redo_records.py), so the tests check one against the other.
"""


def crc32c_bitwise(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def comp(n):
    """mach_write_compressed."""
    if n < 0x80:
        return n.to_bytes(1, "big")
    if n < 0x4000:
        return (n | 0x8000).to_bytes(2, "big")
    if n < 0x200000:
        return (n | 0xC00000).to_bytes(3, "big")
    if n < 0x10000000:
        return (n | 0xE0000000).to_bytes(4, "big")
    if n >= 0xFFFFFC00:
        return ((n & 0x3FF) | 0xF800).to_bytes(2, "big")
    if n >= 0xFFFE0000:
        return ((n & 0x1FFFF) | 0xFC0000).to_bytes(3, "big")
    if n >= 0xFF000000:
        return ((n & 0xFFFFFF) | 0xFE000000).to_bytes(4, "big")
    return b"\xF0" + n.to_bytes(4, "big")


def u64comp(n):
    """mach_u64_write_compressed: high 32 bits compressed, low 4 plain."""
    return comp(n >> 32) + (n & 0xFFFFFFFF).to_bytes(4, "big")


def much(n):
    """mach_u64_write_much_compressed."""
    if n >> 32 == 0:
        return comp(n)
    return b"\xFF" + comp(n >> 32) + comp(n & 0xFFFFFFFF)


def b2(n):
    return n.to_bytes(2, "big")


def head(t, space=5, page=300, single=False):
    return bytes([t | (0x80 if single else 0)]) + comp(space) + comp(page)


def index_desc(n=4, n_uniq=1, comp_flag=True, instant=False, versioned=None):
    """mlog_open_and_write_index, version 1. versioned: list of
    (added, dropped) for the versioned fields."""
    flag = (1 if comp_flag else 0) | (2 if versioned else 0) | (4 if instant else 0)
    out = b"\x01" + bytes([flag])
    if not comp_flag and not versioned:
        return out
    out += b2(n)
    if comp_flag:
        if instant:
            out += b2(3)
        out += b2(n_uniq) + b"".join(b2(0x8004) for _ in range(n))
    if versioned:
        out += b2(len(versioned))
        for i, (added, dropped) in enumerate(versioned):
            phy = i | (0x8000 if added else 0) | (0x4000 if dropped else 0)
            out += b2(i) + b2(phy) + (b"\x01" if added else b"") + (b"\x02" if dropped else b"")
    return out


def sys_vals(trx_id=0x1234567):
    return comp(6) + b"\x01\x02\x03\x04\x05\x06\x07" + u64comp(trx_id)


def update_in_place(fields, idx=None, single=False):
    """fields: [(field_no, data or None for SQL NULL)]."""
    body = b"\x00" + sys_vals() + b2(0x7F) + b"\x00" + comp(len(fields))
    for no, data in fields:
        if data is None:
            body += comp(no) + comp(0xFFFFFFFF)
        else:
            body += comp(no) + comp(len(data)) + data
    return head(70, single=single) + (idx if idx is not None else index_desc()) + body


def write_string(data, offset=0x26, single=False):
    return head(30, single=single) + b2(offset) + b2(len(data)) + data


def undo_insert(data, single=False):
    return head(20, single=single) + b2(len(data)) + data


def nbytes(t, value, single=False):
    return head(t, single=single) + b2(0x38) + (u64comp(value) if t == 8 else comp(value))


def path(name):
    raw = name.encode() + b"\0"
    return b2(len(raw)) + raw


class Block:
    """Lays mtrs out in 512-byte blocks as InnoDB's log writer does."""

    def __init__(self, start_lsn):
        assert 12 <= start_lsn % 512 < 508  # after a block header
        self.start_lsn = start_lsn
        self.stream = bytearray()
        self.mtr_lsns = []  # (start, end) LSN of each mtr

    @staticmethod
    def lsn_after(lsn, n):
        """LSN reached after writing n data bytes from data position lsn."""
        while n:
            room = 508 - lsn % 512
            step = min(room, n)
            lsn += step
            n -= step
            if lsn % 512 == 508:
                lsn += 16
        return lsn

    def add(self, *records):
        start = self.lsn_after(self.start_lsn, len(self.stream))
        self.stream += b"".join(records)
        self.mtr_lsns.append((start, self.lsn_after(self.start_lsn, len(self.stream))))
        return self.mtr_lsns[-1]

    def end_lsn(self):
        return self.lsn_after(self.start_lsn, len(self.stream))

    def blocks(self, first_rec_groups=None, tail=0):
        """[(block_lsn, bytes)] up to the block holding the end; `tail`
        extra blocks of garbage after it (a block from the past)."""
        first_rec_groups = first_rec_groups or {}
        starts = [s for s, _ in self.mtr_lsns]
        end = self.end_lsn()
        out = []
        lsn = self.start_lsn - self.start_lsn % 512
        pos = 0
        while lsn <= end:
            blk = bytearray(512)
            lo = max(12, self.start_lsn - lsn)
            hi = min(508, end - lsn)
            if lsn == self.start_lsn - self.start_lsn % 512:
                blk[12:lo] = b"\0" * (lo - 12)
            data_len = 512 if end - lsn >= 508 else end - lsn
            blk[lo:hi] = self.stream[pos:pos + hi - lo]
            pos += max(hi - lo, 0)
            frg = next((s - lsn for s in starts if lsn <= s < lsn + 508), 0)
            frg = first_rec_groups.get(lsn, frg)
            blk[0:4] = (1 + lsn // 512 % (1 << 30)).to_bytes(4, "big")
            blk[4:6] = data_len.to_bytes(2, "big")
            blk[6:8] = frg.to_bytes(2, "big")
            blk[8:12] = (1 + lsn // 512 // (1 << 30)).to_bytes(4, "big")
            blk[508:512] = crc32c_bitwise(bytes(blk[:508])).to_bytes(4, "big")
            out.append((lsn, bytes(blk)))
            if data_len < 512:
                break
            lsn += 512
        for _ in range(tail):
            blk = bytearray(512)
            blk[0:4] = (7).to_bytes(4, "big")  # an old block number
            blk[4:6] = (512).to_bytes(2, "big")
            blk[508:512] = crc32c_bitwise(bytes(blk[:508])).to_bytes(4, "big")
            out.append((out[-1][0] + 512, bytes(blk)))
        return out

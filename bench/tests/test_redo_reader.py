"""lab.redo_reader and bench/redo-types on synthetic redo: every parsed
record type to its exact length, compressed-integer boundaries, blocks with
valid CRC-32C, a record across two blocks, single-record and multi-record
mtrs, resynchronisation after an unknown type, LSN ranges whose bytes add up
exactly, and the tool over redo files in a temporary datadir.

The writer here is written from the format description (log0constants.h,
mach0data.ic, the mlog_parse_* functions), not from the reader.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

import fakes  # noqa: F401  (puts bench/ on sys.path)
from lab import redo_reader as R

RUN_PATH = os.path.join(fakes.BENCH, "redo-types")


# --- an independent writer ---

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


# One example of every type the reader parses: (type, record bytes).
def all_records():
    # end segment length * 2, +1 when info bits, origin and mismatch follow;
    # 21 and 8 have bit 0 clear (so only bit 0 may mean "+1").
    ins_short = comp(2 * 21) + b"r" * 21
    ins_long = comp(2 * 8 + 1) + b"\x00" + comp(200) + comp(300) + b"q" * 8
    return [
        (1, nbytes(1, 0xFF)), (2, nbytes(2, 0xFFFF)), (4, nbytes(4, 0x10000000)),
        (8, nbytes(8, 0x123456789ABC)),
        (11, head(11) + b"\x01" + b2(0x80)),
        (19, head(19)), (37, head(37)), (57, head(57)), (58, head(58)),
        (63, head(63)), (64, head(64)),
        (20, undo_insert(b"u" * 33)),
        (21, head(21)), (22, head(22) + comp(2)),
        (24, head(24) + u64comp(0x100000007)), (25, head(25) + u64comp(77)),
        (26, head(26) + b2(0x63)), (36, head(36) + b2(0x63)),
        (27, head(27)), (29, head(29)), (59, head(59)),
        (30, write_string(b"x" * 40)),
        (31, b"\x1f"), (32, b"\x20"),
        (33, head(33, page=0) + b"\0\0\0\x21" + path("./test/t1.ibd")),
        (34, head(34, page=0) + path("./test/t1.ibd") + path("./test/t2.ibd")),
        (35, head(35, page=0) + path("./test/t2.ibd")),
        (48, head(48) + b2(0x80) + b2(0x90) + b"\0" * 4),
        (49, head(49) + b2(0x80) + b2(0x90) + b"\0" * 20),
        (50, head(50) + b"\x26\x05" + b"h" * 5),
        (51, head(51) + b2(30) + b2(10) + b"\0" * 8 + b"z" * 40),
        (61, head(61) + b"\0" * 8),
        (62, b"\x3e" + much(0x1_0000_0005) + much(3) + b"\x02" + much(1000)),
        (65, head(65, page=0) + b"\0" * 16),
        (66, head(66) + b"\0" * 16 + b2(3) + b"abc" + b"\0" * 16),
        (67, head(67) + index_desc() + b2(0x63) + ins_long),
        (68, head(68) + index_desc() + b"\x00\x01" + sys_vals() + b2(0x80)),
        (69, head(69) + index_desc() + b2(0x80)),
        (70, update_in_place([(1, b"abc"), (3, None), (2, b"")])),
        (71, head(71) + index_desc() + (len(ins_short) * 2).to_bytes(4, "big") + ins_short * 2),
        (72, head(72) + index_desc()),
        (73, head(73) + index_desc() + b"\x06"),
        (74, head(74) + index_desc() + b"\x06"),
        (75, head(75) + index_desc() + b2(0x70)),
        (76, head(76) + index_desc() + b2(0x70)),
    ]


class Block:
    """Lays mtrs out in 512-byte blocks as InnoDB's log writer does."""

    def __init__(self, start_lsn):
        assert R.BLOCK_HDR_SIZE <= start_lsn % 512 < 508
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


def scan(blocks, from_lsn, to_lsn=None, detail=False):
    sc = R.Scanner(from_lsn, to_lsn, detail=detail)
    for lsn, blk in blocks:
        if lsn + 512 <= from_lsn - from_lsn % 512:
            continue
        if not sc.feed(lsn, blk):
            break
    else:
        sc.finish()
    return sc.report()


def assert_adds_up(test, rep):
    parts = sum(e["bytes"] for e in rep["types"].values()) + rep["framing_bytes"]
    test.assertEqual(parts, rep["total_bytes"])
    test.assertEqual(rep["total_bytes"], rep["to_lsn"] - rep["from_lsn"])
    test.assertEqual(rep["unattributed_bytes"], 0)


# --- tests ---

class Checksums(unittest.TestCase):
    def test_crc32c_known_value_and_independent_implementation(self):
        self.assertEqual(R.crc32c(b"123456789"), 0xE3069283)
        self.assertEqual(R.crc32c(b""), 0)
        data = bytes(range(256)) * 2
        self.assertEqual(R.crc32c(data), crc32c_bitwise(data))

    def test_block_checksum(self):
        blk = Block(512 * 20 + 12)
        blk.add(nbytes(1, 1, single=True))
        (_, b), = blk.blocks()
        self.assertTrue(R.block_checksum_ok(b))
        broken = bytearray(b)
        broken[100] ^= 1
        self.assertFalse(R.block_checksum_ok(bytes(broken)))
        magic = bytearray(broken)
        magic[508:] = R.NO_CHECKSUM_MAGIC.to_bytes(4, "big")
        self.assertTrue(R.block_checksum_ok(bytes(magic)))


class CompressedIntegers(unittest.TestCase):
    # value -> bytes, checked by hand against mach_write_compressed
    CASES = [
        (0, "00"), (0x7F, "7f"), (0x80, "8080"), (0x3FFF, "bfff"),
        (0x4000, "c04000"), (0x1FFFFF, "dfffff"), (0x200000, "e0200000"),
        (0xFFFFFFF, "efffffff"), (0x10000000, "f010000000"),
        (0xFEFFFFFF, "f0feffffff"), (0xFF000000, "fe000000"),
        (0xFFFDFFFF, "fefdffff"), (0xFFFE0000, "fc0000"), (0xFFFFFBFF, "fdfbff"),
        (0xFFFFFC00, "f800"), (0xFFFFFFFF, "fbff"),
    ]

    def test_boundaries(self):
        for value, hexed in self.CASES:
            raw = bytes.fromhex(hexed)
            self.assertEqual(comp(value), raw, hex(value))
            buf = raw + b"\x55\x55"  # trailing bytes are not consumed
            self.assertEqual(R.read_compressed(buf, 0, len(buf)), (value, len(raw)), hex(value))
            for cut in range(len(raw)):
                with self.assertRaises(R.Incomplete):
                    R.read_compressed(raw, 0, cut)

    def test_0xff_is_not_a_32_bit_integer(self):
        with self.assertRaises(ValueError):
            R.read_compressed(b"\xff\0\0\0\0", 0, 5)

    def test_u64_compressed(self):
        for value, size in [(0, 5), (0x7F_FFFFFFFF, 5), (0x80_00000000, 6), (0x1_2345_6789_ABCD, 7)]:
            raw = u64comp(value)
            self.assertEqual(len(raw), size)
            self.assertEqual(R.read_u64_compressed(raw + b"\0", 0, len(raw) + 1), (value, size))

    def test_much_compressed(self):
        for value, size in [(5, 1), (0xFFFFFFFF, 2), (0x1_0000_0000, 3), (0x7F_0000_0080, 4)]:
            raw = much(value)
            self.assertEqual(len(raw), size, hex(value))
            self.assertEqual(R.read_much_compressed(raw + b"\0", 0, len(raw) + 1), (value, size))


class Records(unittest.TestCase):
    def test_every_parsed_type_to_its_exact_end(self):
        seen = set()
        for t, rec in all_records():
            seen.add(t)
            buf = rec + b"\x1f\xff\xff"  # what follows must not be consumed
            tb, end, _ = R.parse_record(buf, 0)
            self.assertEqual((tb & 0x7F, end), (t, len(rec)), R.type_name(t))
            self.assertNotIn("UNKNOWN", R.type_name(t))
            for cut in range(len(rec)):
                with self.assertRaises(R.Incomplete, msg="%s cut at %d" % (R.type_name(t), cut)):
                    R.parse_record(rec, 0, cut)
        unparsed = {28, 9, 10, 13, 14, 15, 16, 17, 18, 38, 39, 40, 41, 42, 43, 44, 45, 46, 52, 53}
        self.assertEqual(seen | unparsed, set(R.TYPE_NAMES) | set(R.OBSOLETE_NAMES))

    def test_single_record_flag_is_kept(self):
        tb, end, _ = R.parse_record(write_string(b"abc", single=True), 0)
        self.assertEqual((tb, end), (30 | 0x80, 11))

    def test_index_descriptor_forms(self):
        ups = [(1, b"abcd")]
        tail = update_in_place(ups, idx=b"")[1 + 1 + 2:]  # the body after head
        cases = {
            "redundant": (index_desc(comp_flag=False), 2),
            "compact": (index_desc(n=4), 2 + 2 + 2 + 8),
            "compact instant": (index_desc(n=4, instant=True), 2 + 2 + 2 + 2 + 8),
            "versioned": (index_desc(n=3, versioned=[(True, False), (True, True), (False, False)]),
                          2 + 2 + 2 + 6 + 2 + (4 + 1) + (4 + 2) + 4),
            "redundant versioned": (index_desc(n=3, comp_flag=False, versioned=[(False, True)]),
                                    2 + 2 + 2 + 5),
        }
        for what, (desc, size) in cases.items():
            self.assertEqual(len(desc), size, what)
            rec = head(70) + desc + tail
            _, end, key = R.parse_record(rec + b"\0\0", 0)
            self.assertEqual(end, len(rec), what)
            self.assertEqual(key, "index=%d" % size, what)

    def test_update_in_place_length_counts(self):
        rec = update_in_place([(1, b"a" * 200), (2, None)])
        # type 1 + space 1 + page 2 + index 14 + flags 1 + sys 6+1+7+5... exact:
        expect = 1 + 1 + 2 + 14 + 1 + (1 + 7 + 5) + 2 + 1 + 1 + (1 + 2 + 200) + (1 + 2)
        self.assertEqual(len(rec), expect)
        self.assertEqual(R.parse_record(rec + b"\0", 0)[1], expect)

    def test_impossible_values_are_unparsable(self):
        bad = [
            nbytes(1, 0x100),  # a 1-byte write of 256
            head(30) + b2(0xFFF0) + b2(0x20) + b"\0" * 0x20,  # string past 64 KiB
            head(70) + b"\x00\x01",  # index log version 0
            b"\x9f",  # MLOG_MULTI_REC_END with the single-record flag
            head(13) + b"\0" * 8,  # an 8.0.27 type
            head(100) + b"\0" * 8,  # no such type
            b"\x3e\x01\x01\x07\x00",  # dynamic metadata of an unknown kind
        ]
        for rec in bad:
            with self.assertRaises(R.Unparsable, msg=rec.hex()):
                R.parse_record(rec + b"\0" * 40, 0)

    def test_names(self):
        self.assertEqual(R.type_name(0x80 | 30), "MLOG_WRITE_STRING")
        self.assertEqual(R.type_name(13), "OBSOLETE_MLOG_REC_UPDATE_IN_PLACE_8027")
        self.assertEqual(R.type_name(99), "MLOG_UNKNOWN_99")


class Lsns(unittest.TestCase):
    def test_block_numbers_and_data_positions(self):
        self.assertEqual(R.lsn_to_hdr_no(8192), 17)
        self.assertEqual(R.lsn_to_hdr_no(512 * (1 << 30) + 5), 1)
        self.assertEqual(R.lsn_to_epoch_no(512 * (1 << 30)), 2)
        self.assertEqual(R.lsn_to_sn(512 * 3 + 12), 3 * 496)
        self.assertEqual(R.lsn_to_sn(512 * 3 + 5), 3 * 496)  # header: the first data byte
        self.assertEqual(R.lsn_to_sn(512 * 3 + 510), 4 * 496)  # trailer: the next block's
        for sn in (0, 495, 496, 1000):
            self.assertEqual(R.lsn_to_sn(R.sn_to_lsn(sn)), sn)
        self.assertEqual(R.redo_file_id("#ib_redo12"), 12)
        self.assertIsNone(R.redo_file_id("#ib_redo12_tmp"))


class Scanning(unittest.TestCase):
    START = 512 * 40 + 12

    def workload(self):
        """Two single-record mtrs, a three-record group, a group whose
        string spans two blocks, then filler."""
        w = Block(self.START)
        w.add(nbytes(4, 77, single=True))  # 1+1+2+2+1 = 7
        w.add(nbytes(1, 5), write_string(b"s" * 20), b"\x1f")  # 7 + 28 + 1
        w.add(write_string(b"L" * 700), undo_insert(b"u" * 10), b"\x1f")  # 708 + 16 + 1
        w.add(update_in_place([(1, b"v" * 8)], single=True))
        return w

    def test_types_counts_bytes_and_framing_are_exact(self):
        w = self.workload()
        rep = scan(w.blocks(), self.START)
        t = rep["types"]
        self.assertEqual(t["MLOG_4BYTES"], {"count": 1, "bytes": 7, "detail": {}})
        self.assertEqual((t["MLOG_1BYTE"]["count"], t["MLOG_1BYTE"]["bytes"]), (1, 7))
        self.assertEqual((t["MLOG_WRITE_STRING"]["count"], t["MLOG_WRITE_STRING"]["bytes"]), (2, 28 + 708))
        self.assertEqual((t["MLOG_UNDO_INSERT"]["count"], t["MLOG_UNDO_INSERT"]["bytes"]), (1, 16))
        self.assertEqual((t["MLOG_MULTI_REC_END"]["count"], t["MLOG_MULTI_REC_END"]["bytes"]), (2, 2))
        self.assertEqual(t["MLOG_REC_UPDATE_IN_PLACE"]["count"], 1)
        self.assertEqual((rep["mtrs"], rep["single_record_mtrs"]), (4, 2))
        self.assertEqual(t["MLOG_REC_UPDATE_IN_PLACE"]["bytes"], 46)
        data = 7 + 36 + 725 + 46
        self.assertEqual(rep["to_lsn"], w.end_lsn())
        self.assertEqual(rep["total_bytes"] - rep["framing_bytes"], data)
        # 814 data bytes from offset 12 of block 40 (its header is before
        # from_lsn): block 40's trailer and block 41's header.
        self.assertEqual(rep["framing_bytes"], 4 + 12)
        self.assertEqual(rep["to_lsn"], 512 * 41 + 12 + 814 - 496)
        self.assertEqual(rep["end_reason"], "end of data (block at %d not full)" % (512 * 41))
        assert_adds_up(self, rep)

    def test_a_record_across_two_blocks(self):
        w = Block(512 * 7 + 400)
        s, e = w.add(write_string(b"X" * 150, single=True))
        self.assertEqual(s // 512 + 1, e // 512)
        rep = scan(w.blocks(), s)
        self.assertEqual(rep["types"]["MLOG_WRITE_STRING"]["bytes"], 158)
        self.assertEqual(rep["framing_bytes"], 16)
        self.assertEqual(rep["total_bytes"], 158 + 16)
        assert_adds_up(self, rep)

    def test_range_covers_only_the_mtrs_between_the_lsns(self):
        w = self.workload()
        (_, _), (s1, _), (_, e2), _ = w.mtr_lsns
        rep = scan(w.blocks(), s1, e2)
        t = rep["types"]
        self.assertNotIn("MLOG_4BYTES", t)
        self.assertNotIn("MLOG_REC_UPDATE_IN_PLACE", t)
        self.assertEqual(t["MLOG_WRITE_STRING"]["bytes"], 28 + 708)
        self.assertEqual(rep["mtrs"], 2)
        self.assertEqual((rep["from_lsn"], rep["to_lsn"]), (s1, e2))
        self.assertEqual(rep["end_reason"], "reached to_lsn")
        self.assertEqual(rep["cut_at_range_ends"], 0)
        assert_adds_up(self, rep)

    def test_range_ending_inside_a_record_is_clipped(self):
        w = self.workload()
        s2, _ = w.mtr_lsns[2]
        rep = scan(w.blocks(), self.START, s2 + 100)
        self.assertEqual(rep["to_lsn"], s2 + 100)
        assert_adds_up(self, rep)
        ws = rep["types"]["MLOG_WRITE_STRING"]
        self.assertEqual(ws["count"], 2)
        framing_inside = 16 if (s2 // 512) != ((s2 + 100) // 512) else 0
        self.assertEqual(ws["bytes"], 28 + 100 - framing_inside)
        self.assertEqual(rep["cut_at_range_ends"], 1)

    def test_start_inside_an_mtr_waits_for_the_next_record_group(self):
        w = self.workload()
        s2, e2 = w.mtr_lsns[2]  # the 725-byte group spans a whole block
        inside = s2 + 600
        blocks = w.blocks()
        rep = scan(blocks, inside)
        self.assertEqual(rep["parse_start_lsn"], e2)
        head_bytes = rep["types"][R.HEAD_PARTIAL]["bytes"]
        self.assertEqual(head_bytes, R.lsn_to_sn(e2) - R.lsn_to_sn(inside))
        self.assertEqual(rep["types"]["MLOG_REC_UPDATE_IN_PLACE"]["count"], 1)
        self.assertNotIn("MLOG_UNDO_INSERT", rep["types"])
        assert_adds_up(self, rep)

    def test_resynchronises_at_the_next_record_group_after_an_unknown_type(self):
        w = Block(512 * 9 + 12)
        w.add(nbytes(2, 9, single=True))  # 7 bytes
        bad_start, _ = w.add(nbytes(1, 1), head(13) + b"\x01" * 30, nbytes(1, 1), b"\x1f")
        w.add(write_string(b"f" * 480, single=True))  # fills the rest of block 9
        good_start, _ = w.add(undo_insert(b"g" * 12, single=True))
        good_end = w.end_lsn()
        # Block 10's first record group is the undo insert (the string ends in it).
        self.assertEqual(good_start // 512, 10)
        rep = scan(w.blocks(), w.start_lsn)
        t = rep["types"]
        name = "unparsed (OBSOLETE_MLOG_REC_UPDATE_IN_PLACE_8027)"
        self.assertEqual(t[name]["bytes"], R.lsn_to_sn(good_start) - R.lsn_to_sn(bad_start + 7))
        self.assertEqual(t[name]["count"], 1)
        self.assertEqual(t["MLOG_1BYTE"]["count"], 1)  # the one before the unknown record
        self.assertNotIn("MLOG_WRITE_STRING", t)  # skipped: inside the unparsed span
        self.assertEqual(t["MLOG_UNDO_INSERT"]["bytes"], 18)
        self.assertEqual(rep["to_lsn"], good_end)
        assert_adds_up(self, rep)

    def test_unparsed_to_the_end_when_no_group_starts_later(self):
        w = Block(512 * 9 + 12)
        s, _ = w.add(head(100) + b"\0" * 20, b"\x1f")
        rep = scan(w.blocks(), s)
        self.assertEqual(rep["types"]["unparsed (MLOG_UNKNOWN_100)"]["bytes"], 25)
        assert_adds_up(self, rep)

    def test_valid_data_ends_at_a_bad_block(self):
        w = Block(512 * 30 + 12)
        for i in range(100):  # 100 x 35 bytes = 3500: seven full blocks and a part
            w.add(write_string(b"%03d" % i + b"w" * 24, single=True))
        full = [b for b in w.blocks() if int.from_bytes(b[1][4:6], "big") == 512]
        self.assertEqual(len(full), 7)
        # A block from the past (an older block number) after the full ones.
        old = bytearray(512)
        old[0:4] = (5).to_bytes(4, "big")
        old[4:6] = (512).to_bytes(2, "big")
        old[508:512] = crc32c_bitwise(bytes(old[:508])).to_bytes(4, "big")
        rep = scan(full + [(full[-1][0] + 512, bytes(old))], w.start_lsn)
        self.assertIn("block number 5 where", rep["end_reason"])
        self.assertEqual(rep["end_of_data_lsn"], full[-1][0] + 512)
        self.assertEqual(rep["types"]["MLOG_WRITE_STRING"]["count"], 7 * 496 // 35)
        self.assertEqual(rep["types"]["incomplete (MLOG_WRITE_STRING)"]["bytes"], 7 * 496 % 35)
        assert_adds_up(self, rep)
        # A broken checksum in block 3 ends the data at its start.
        broken = bytearray(full[3][1])
        broken[200] ^= 0x40
        rep = scan(full[:3] + [(full[3][0], bytes(broken))] + full[4:], w.start_lsn)
        self.assertEqual(rep["end_of_data_lsn"], full[3][0])
        self.assertIn("checksum", rep["end_reason"])
        self.assertEqual(rep["types"]["MLOG_WRITE_STRING"]["count"], 3 * 496 // 35)
        self.assertEqual(rep["types"]["incomplete (MLOG_WRITE_STRING)"]["bytes"], 3 * 496 % 35)
        assert_adds_up(self, rep)

    def test_detail_by_length(self):
        w = Block(512 * 3 + 12)
        w.add(write_string(b"x" * 128), write_string(b"y" * 4), write_string(b"z" * 128), b"\x1f")
        w.add(update_in_place([(1, b"a")], single=True))
        rep = scan(w.blocks(), w.start_lsn, detail=True)
        d = rep["types"]["MLOG_WRITE_STRING"]["detail"]
        self.assertEqual(d, {"len=128": [2, 2 * 136], "len=4": [1, 12]})
        self.assertEqual(rep["types"]["MLOG_REC_UPDATE_IN_PLACE"]["detail"], {"index=14": [1, 39]})
        self.assertEqual(scan(w.blocks(), w.start_lsn)["types"]["MLOG_WRITE_STRING"]["detail"], {})


class Tool(unittest.TestCase):
    """bench/redo-types over two redo files in a temporary datadir."""

    def make_datadir(self, tmp, w, checkpoint):
        redo = os.path.join(tmp, "#innodb_redo")
        os.makedirs(redo)
        blocks = dict(w.blocks())
        first = min(blocks)
        split = first + 3 * 512  # the second file starts three blocks in
        last = max(blocks) + 512
        for n, (lo, hi) in enumerate([(first, split), (split, last + 4 * 512)]):
            hdr = bytearray(2048)
            hdr[0:4] = (6).to_bytes(4, "big")
            hdr[8:16] = lo.to_bytes(8, "big")
            hdr[16:27] = b"MySQL 9.7.2"
            hdr[508:512] = crc32c_bitwise(bytes(hdr[:508])).to_bytes(4, "big")
            if n == 0:
                cp = bytearray(512)
                cp[8:16] = checkpoint.to_bytes(8, "big")
                cp[508:512] = crc32c_bitwise(bytes(cp[:508])).to_bytes(4, "big")
                hdr[512:1024] = cp
            body = b"".join(blocks.get(lsn, b"\0" * 512) for lsn in range(lo, hi, 512))
            with open(os.path.join(redo, "#ib_redo%d" % (n + 7)), "wb") as f:
                f.write(bytes(hdr) + body)
        with open(os.path.join(redo, "#ib_redo9_tmp"), "wb") as f:
            f.write(b"\0" * 4096)

    def run_tool(self, *args):
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("redo_types", RUN_PATH)
        spec = importlib.util.spec_from_loader("redo_types", loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = mod.main(list(args))
        return rc, out.getvalue()

    def test_json_from_checkpoint_to_end_across_files(self):
        w = Block(512 * 16 + 12)
        for i in range(60):  # about 2.5 KiB: five blocks over both files
            w.add(nbytes(2, i), undo_insert(b"u" * 20), b"\x1f")
        checkpoint = w.mtr_lsns[10][0]
        with tempfile.TemporaryDirectory() as tmp:
            self.make_datadir(tmp, w, checkpoint)
            rc, out = self.run_tool("--datadir", tmp, "--json")
            self.assertEqual(rc, 0)
            rep = json.loads(out)
            self.assertEqual((rep["from_lsn"], rep["to_lsn"]), (checkpoint, w.end_lsn()))
            self.assertEqual(rep["types"]["MLOG_UNDO_INSERT"]["count"], 50)
            self.assertEqual(rep["types"]["MLOG_UNDO_INSERT"]["bytes"], 50 * 26)
            self.assertEqual(rep["types"]["MLOG_MULTI_REC_END"]["count"], 50)
            assert_adds_up(self, rep)
            s, e = w.mtr_lsns[20][0], w.mtr_lsns[29][1]
            rc, out = self.run_tool("--datadir", tmp, "--from-lsn", str(s), "--to-lsn", str(e),
                                    "--trx", "10", "--detail")
            self.assertEqual(rc, 0)
            self.assertRegex(out, r"MLOG_UNDO_INSERT\s+10\s+260\s+26\.0")
            self.assertRegex(out, r"\n    len=20\s+10\s+260")
            self.assertRegex(out, r"total\s+%d\s" % (e - s))
            # A consumed file renamed to a spare keeps its data: still read.
            redo = os.path.join(tmp, "#innodb_redo")
            os.rename(os.path.join(redo, "#ib_redo7"), os.path.join(redo, "#ib_redo12_tmp"))
            rc, again = self.run_tool("--datadir", tmp, "--from-lsn", str(s), "--to-lsn", str(e),
                                      "--trx", "10", "--detail")
            self.assertEqual((rc, again), (0, out))

    def test_help_and_missing_redo(self):
        rc = os.system("%s %s --help >/dev/null" % (sys.executable, RUN_PATH))
        self.assertEqual(rc, 0)
        with tempfile.TemporaryDirectory() as tmp:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                rc, _ = self.run_tool("--datadir", tmp)
            self.assertEqual(rc, 1)
            self.assertIn("no redo files", err.getvalue())


if __name__ == "__main__":
    unittest.main()

"""lab.redo_records on synthetic records: every parsed record type to its
exact length (and Incomplete when cut anywhere), compressed-integer
boundaries, the index descriptor forms, and impossible values.

The records come from redo_writer, written from the format description,
not from the reader.

Run: python3 -m unittest discover -s bench/tests -v
"""

import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import redo_records as RR
from redo_writer import (
    b2, comp, head, index_desc, much, nbytes, path, sys_vals, u64comp, undo_insert,
    update_in_place, write_string,
)


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
            self.assertEqual(RR.read_compressed(buf, 0, len(buf)), (value, len(raw)), hex(value))
            for cut in range(len(raw)):
                with self.assertRaises(RR.Incomplete):
                    RR.read_compressed(raw, 0, cut)

    def test_0xff_is_not_a_32_bit_integer(self):
        with self.assertRaises(ValueError):
            RR.read_compressed(b"\xff\0\0\0\0", 0, 5)

    def test_u64_compressed(self):
        for value, size in [(0, 5), (0x7F_FFFFFFFF, 5), (0x80_00000000, 6), (0x1_2345_6789_ABCD, 7)]:
            raw = u64comp(value)
            self.assertEqual(len(raw), size)
            self.assertEqual(RR.read_u64_compressed(raw + b"\0", 0, len(raw) + 1), (value, size))

    def test_much_compressed(self):
        for value, size in [(5, 1), (0xFFFFFFFF, 2), (0x1_0000_0000, 3), (0x7F_0000_0080, 4)]:
            raw = much(value)
            self.assertEqual(len(raw), size, hex(value))
            self.assertEqual(RR.read_much_compressed(raw + b"\0", 0, len(raw) + 1), (value, size))


class Records(unittest.TestCase):
    def test_every_parsed_type_to_its_exact_end(self):
        seen = set()
        for t, rec in all_records():
            seen.add(t)
            buf = rec + b"\x1f\xff\xff"  # what follows must not be consumed
            tb, end, _ = RR.parse_record(buf, 0)
            self.assertEqual((tb & 0x7F, end), (t, len(rec)), RR.type_name(t))
            self.assertNotIn("UNKNOWN", RR.type_name(t))
            for cut in range(len(rec)):
                with self.assertRaises(RR.Incomplete, msg="%s cut at %d" % (RR.type_name(t), cut)):
                    RR.parse_record(rec, 0, cut)
        unparsed = {28, 9, 10, 13, 14, 15, 16, 17, 18, 38, 39, 40, 41, 42, 43, 44, 45, 46, 52, 53}
        self.assertEqual(seen | unparsed, set(RR.TYPE_NAMES) | set(RR.OBSOLETE_NAMES))

    def test_single_record_flag_is_kept(self):
        tb, end, _ = RR.parse_record(write_string(b"abc", single=True), 0)
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
            _, end, key = RR.parse_record(rec + b"\0\0", 0)
            self.assertEqual(end, len(rec), what)
            self.assertEqual(key, "index=%d" % size, what)

    def test_offsets_name_the_field_written(self):
        # 0x38 is where nbytes() writes, 0x26 where write_string() does
        for t in (1, 2, 4, 8):
            rec = nbytes(t, 7)
            self.assertIsNone(RR.parse_record(rec, 0)[2])
            self.assertEqual(RR.parse_record(rec, 0, offsets=True), (t, len(rec), "off=56"))
        rec = write_string(b"abcdef", offset=0x100)
        self.assertEqual(RR.parse_record(rec, 0)[2], "len=6")
        self.assertEqual(RR.parse_record(rec, 0, offsets=True)[2], "len=6 off=256")

    def test_update_in_place_length_counts(self):
        rec = update_in_place([(1, b"a" * 200), (2, None)])
        # type 1 + space 1 + page 2 + index 14 + flags 1 + sys 6+1+7+5... exact:
        expect = 1 + 1 + 2 + 14 + 1 + (1 + 7 + 5) + 2 + 1 + 1 + (1 + 2 + 200) + (1 + 2)
        self.assertEqual(len(rec), expect)
        self.assertEqual(RR.parse_record(rec + b"\0", 0)[1], expect)

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
            with self.assertRaises(RR.Unparsable, msg=rec.hex()):
                RR.parse_record(rec + b"\0" * 40, 0)

    def test_names(self):
        self.assertEqual(RR.type_name(0x80 | 30), "MLOG_WRITE_STRING")
        self.assertEqual(RR.type_name(13), "OBSOLETE_MLOG_REC_UPDATE_IN_PLACE_8027")
        self.assertEqual(RR.type_name(99), "MLOG_UNKNOWN_99")


if __name__ == "__main__":
    unittest.main()

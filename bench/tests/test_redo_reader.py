"""lab.redo_reader and bench/redo-types on synthetic redo: blocks with
valid CRC-32C, LSN arithmetic, a record across two blocks, single-record
and multi-record mtrs, resynchronisation after an unknown type, LSN ranges
whose bytes add up exactly, and the tool over redo files in a temporary
datadir. The record layer's own tests are test_redo_records.py.

The blocks come from redo_writer, written from the format description,
not from the reader.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import redo_reader as R
from redo_writer import (
    Block, crc32c_bitwise, head, nbytes, undo_insert, update_in_place, write_string,
)

RUN_PATH = os.path.join(fakes.BENCH, "redo-types")


def scan(blocks, from_lsn, to_lsn=None, detail=False, offsets=False):
    sc = R.Scanner(from_lsn, to_lsn, detail=detail, offsets=offsets)
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
        self.assertIs(R.block_checksum_ok(b), True)
        broken = bytearray(b)
        broken[100] ^= 1
        self.assertFalse(R.block_checksum_ok(bytes(broken)))
        magic = bytearray(broken)
        magic[508:] = R.NO_CHECKSUM_MAGIC.to_bytes(4, "big")
        self.assertIs(R.block_checksum_ok(bytes(magic)), True)


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

    def test_detail_by_offset(self):
        w = Block(512 * 3 + 12)
        w.add(write_string(b"x" * 6, offset=0x40), write_string(b"y" * 6, offset=0x46),
              write_string(b"z" * 6, offset=0x40), nbytes(4, 9), b"\x1f")
        rep = scan(w.blocks(), w.start_lsn, offsets=True)
        self.assertEqual(rep["types"]["MLOG_WRITE_STRING"]["detail"],
                         {"len=6 off=64": [2, 2 * 14], "len=6 off=70": [1, 14]})
        self.assertEqual(rep["types"]["MLOG_4BYTES"]["detail"], {"off=56": [1, 7]})
        assert_adds_up(self, rep)


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

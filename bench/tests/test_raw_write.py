"""lab.rawwrite (fio command, fio JSON, results table: pure) and
bench/raw-write for real where the host can (root, loop devices,
cgroup-v1 blkio, fio): the cap of the class must show in what fio gets.

Run: python3 -m unittest discover -s bench/tests -v
"""

import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import fakes
from harness import device as D  # noqa: E402
from lab import rawwrite as R  # noqa: E402

SCRIPT = os.path.join(fakes.BENCH, "raw-write")

FIO_JSON = {
    "fio version": "fio-3.33",
    "jobs": [{"jobname": "raw", "write": {
        "iops": 7993.4, "bw_bytes": 130963456,
        "clat_ns": {"max": 41000000, "percentile": {"50.000000": 1990656, "99.000000": 4014080}},
    }}],
}


class Pure(unittest.TestCase):
    def test_fio_cmd_writes_pages_direct_at_the_depth(self):
        cmd = R.fio_cmd("/mnt/x/raw.ibd", 4 * 1024 ** 3, 16, 20)
        self.assertEqual(cmd[0], "fio")
        for want in ("--rw=randwrite", "--bs=16384", "--direct=1", "--ioengine=libaio",
                     "--iodepth=16", "--runtime=20", "--filename=/mnt/x/raw.ibd",
                     "--output-format=json", "--time_based"):
            self.assertIn(want, cmd)

    def test_parse_fio_skips_notes_before_the_json(self):
        text = "note: both iodepth >= 1 and synchronous I/O engine are selected\n" + json.dumps(FIO_JSON)
        r = R.parse_fio(text)
        self.assertEqual(r["iops"], 7993.4)
        self.assertEqual(r["mb_s"], 131.0)
        self.assertEqual(r["lat_p50_us"], 1990.7)
        self.assertEqual(r["lat_p99_us"], 4014.1)
        self.assertEqual(r["lat_max_us"], 41000.0)

    def test_parse_fio_refuses_garbage(self):
        with self.assertRaises(ValueError):
            R.parse_fio("fio: pid=1, err=5/file:io_u.c")
        with self.assertRaises(ValueError):
            R.parse_fio(json.dumps({"jobs": []}))

    def test_table_names_the_best_depth(self):
        fio = R.parse_fio(json.dumps(FIO_JSON))
        low = dict(fio, iops=2000.0)
        rows = [R.row("ssd", {"write_iops": 8000}, 1, 20, low, 1990.0),
                R.row("ssd", {"write_iops": 8000}, 16, 20, fio, 7890.2)]
        self.assertEqual(R.best(rows)["depth"], 16)
        md = R.markdown(rows, "bench/raw-write --results x")
        self.assertIn("| ssd | 8000 | 16 | 7993 |", md)
        self.assertIn("Best: 7993 writes/s of 16 KiB at depth 16 on `ssd`.", md)
        self.assertEqual(set(rows[0]), set(R.COLUMNS))


class Cli(unittest.TestCase):
    def run_script(self, *args):
        return subprocess.run([SCRIPT] + list(args), capture_output=True, text=True)

    def test_help(self):
        p = self.run_script("--help")
        self.assertEqual(p.returncode, 0)
        self.assertIn("raw write test", p.stdout.lower())

    def test_bad_arguments(self):
        self.assertEqual(self.run_script("--results", "x", "--device", "floppy").returncode, 2)
        self.assertEqual(self.run_script("--results", "x", "--depths", "0").returncode, 2)

    @unittest.skipUnless(os.geteuid() == 0 and shutil.which("fio")
                         and not D.host_problems(need_throttle=True),
                         "needs root, loop devices, cgroup-v1 blkio and fio")
    def test_the_cap_is_what_fio_gets(self):
        """A 400 write IOPS cap on a loop device in RAM, which uncapped takes
        tens of thousands: fio must see about 400, and so must diskstats."""
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "res")
            p = self.run_script("--device", "ssd", "--write-iops", "400", "--depths", "8",
                                "--seconds", "3", "--file-gb", "0.25", "--image-dir", tmp,
                                "--results", out)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            with open(os.path.join(out, "raw.csv")) as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 1)
            self.assertGreater(float(rows[0]["iops"]), 300)
            self.assertLess(float(rows[0]["iops"]), 480)
            self.assertLess(float(rows[0]["dev_w_iops"]), 480)
            self.assertEqual([x for x in os.listdir(tmp) if x.endswith(".img")], [])


if __name__ == "__main__":
    unittest.main()

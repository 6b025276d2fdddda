"""lab.device: /proc/diskstats parsing and rates (pure), and the host checks.

Run: python3 -m unittest discover -s bench/tests -v
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from lab import device as D  # noqa: E402


class Diskstats(unittest.TestCase):
    LINE = "   7       0 loop0 %d 0 0 0 %d 0 %d 0 0 %d %d 0 0 0 0 0 0"

    def test_parse_and_delta(self):
        a = D.parse_diskstats_line(self.LINE % (10, 100, 1000, 0, 0))
        b = D.parse_diskstats_line(self.LINE % (30, 2100, 1000 + 2048 * 2, 500, 3000))
        self.assertEqual(a[0], "loop0")
        d = D.diskstats_delta(a[1], b[1], 2.0)
        self.assertEqual(d["dev_r_iops"], 10)
        self.assertEqual(d["dev_w_iops"], 1000)
        self.assertAlmostEqual(d["dev_w_mbps"], 4096 * 512 / 1e6 / 2)
        self.assertEqual(d["dev_util_pct"], 25)
        self.assertEqual(d["dev_avg_queue"], 1.5)

    def test_util_capped_and_bad_lines(self):
        a = D.parse_diskstats_line(self.LINE % (0, 0, 0, 0, 0))[1]
        b = D.parse_diskstats_line(self.LINE % (0, 0, 0, 5000, 0))[1]
        self.assertEqual(D.diskstats_delta(a, b, 1.0)["dev_util_pct"], 100.0)
        self.assertIsNone(D.parse_diskstats_line("7 0 loop0 1 2"))
        self.assertIsNone(D.diskstats_delta(a, b, 0))

    def test_cap_share(self):
        rates = {"dev_r_iops": 1500.0, "dev_w_iops": 600.0}
        self.assertEqual(D.cap_share(rates, {"write_iops": 3000, "read_iops": 3000}), 50.0)
        self.assertEqual(D.cap_share(rates, {"write_iops": 1200}), 50.0)
        self.assertIsNone(D.cap_share(rates, {}))



if __name__ == "__main__":
    unittest.main()

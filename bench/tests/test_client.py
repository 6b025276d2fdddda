"""lab.client: sysbench command lines in the order sysbench needs, and the
parsing of what our workloads print.

Run: python3 -m unittest discover -s bench/tests -v
"""

import os
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import client as C
from lab.scenarios import WORKLOADS


def cmd(command, **kw):
    args = dict(workload="oltp_insert", socket="/s/mysqld.sock", data=["--tables=4", "--table-size=1000"], threads=8,
                command=command, duration=60, workload_args=["--inserts_per_trx=2"],
                run_args=["--rate=200"], extra_args=["--rand-type=uniform"], workload_dir="/w")
    args.update(kw)
    return C.sysbench_cmd(**args)


class SysbenchCmd(unittest.TestCase):
    COMMON = ["sysbench", "/w/oltp_insert.lua", "--db-driver=mysql", "--mysql-socket=/s/mysqld.sock",
              "--mysql-user=root", "--mysql-db=sbtest", "--tables=4", "--table-size=1000", "--threads=8",
              "--inserts_per_trx=2"]

    def test_prepare_has_no_run_options(self):
        self.assertEqual(cmd("prepare"), self.COMMON + ["--rand-type=uniform", "prepare"])

    def test_cleanup_has_no_run_options(self):
        self.assertEqual(cmd("cleanup")[-2:], ["--rand-type=uniform", "cleanup"])
        self.assertNotIn("--rate=200", cmd("cleanup"))

    def test_run_order(self):
        self.assertEqual(cmd("run"), self.COMMON + [
            "--time=60", "--report-interval=1", "--percentile=99", "--histogram=off",
            "--rate=200", "--rand-type=uniform", "run"])

    def test_user_args_come_after_the_scenarios(self):
        # sysbench takes the last of a repeated option: the user's must win.
        c = cmd("run", run_args=["--rate=200"], extra_args=["--rate=50"])
        self.assertLess(c.index("--rate=200"), c.index("--rate=50"))
        self.assertEqual(c[-1], "run")
        self.assertEqual(C.offered_rate(c), 50)

    def test_default_workload_dir_holds_every_workload(self):
        c = C.sysbench_cmd("multi_insert", "/s", [], 1, "prepare")
        self.assertEqual(c[1], os.path.join(C.WORKLOAD_DIR, "multi_insert.lua"))
        for w in WORKLOADS:
            lua = C.sysbench_cmd(w, "/s", [], 1, "prepare")[1]
            self.assertIs(bool(os.path.isfile(lua)), True, lua)

    def test_warehouses_instead_of_tables(self):
        c = cmd("prepare", workload="tpcc_like", data=C.data_args({"warehouses": 10}), threads=2)
        self.assertIn("--warehouses=10", c)
        self.assertEqual([a for a in c if a.startswith(("--tables", "--table-size"))], [])
        self.assertEqual(c.index("--warehouses=10") + 1, c.index("--threads=2"))


class DataSize(unittest.TestCase):
    """A run's data is sbtest tables (--tables x --table-size) or warehouses."""

    def test_args(self):
        self.assertEqual(C.data_args({"tables": 8, "table_size": 1000000}), ["--tables=8", "--table-size=1000000"])
        self.assertEqual(C.data_args({"warehouses": 10}), ["--warehouses=10"])

    def test_label_and_units(self):
        self.assertEqual(C.data_label({"tables": 8, "table_size": 1000}), "8 x 1000 rows")
        self.assertEqual(C.data_label({"warehouses": 10}), "10 warehouses")
        self.assertEqual(C.data_label({"warehouses": 1}), "1 warehouse")
        self.assertEqual(C.data_units({"tables": 4, "table_size": 1000}), 4)
        self.assertEqual(C.data_units({"warehouses": 10}), 10)
        self.assertEqual(C.prepare_threads(C.data_units({"warehouses": 10}), cpus=2), 2)


class Parsing(unittest.TestCase):
    def test_report_line(self):
        # As bench/workloads/steady_common.lua prints it.
        line = "SB,%.0f,%u,%.2f,%.2f,%s,%s,%s,%.2f,%.2f\n" % (12, 16, 1234.5, 24690.0, "3.123", "5.500",
                                                               "20.000", 0.5, 0.0)
        sec, row = C.parse_report_line(line)
        self.assertEqual(sec, 12)
        self.assertEqual(row, {"threads_running": "16", "tps": "1234.50", "qps": "24690.00", "p95_ms": "3.123",
                               "p99_ms": "5.500", "max_ms": "20.000", "errors_ps": "0.50"})
        self.assertEqual(set(row), set(C.SB_FIELDS))

    def test_blank_percentiles_kept_blank(self):
        sec, row = C.parse_report_line("SB,3,2,10.00,20.00,,7.000,,0.00,0.00")
        self.assertEqual((row["p95_ms"], row["p99_ms"], row["max_ms"]), ("", "7.000", ""))

    def test_other_lines(self):
        for line in ("[ 1s ] thds: 16 tps: 100", "SB,1,2,3", "SB,x,2,3,4,5,6,7,8,9", "", "sb,1,2,3,4,5,6,7,8,9"):
            self.assertIsNone(C.parse_report_line(line), line)

    def test_started_line(self):
        self.assertIs(bool(C.is_started_line("Threads started!\n")), True)
        self.assertFalse(C.is_started_line("Initializing worker threads...\n"))

    def test_offered_rate(self):
        self.assertIsNone(C.offered_rate([]))
        self.assertEqual(C.offered_rate(["--rate=200", "--threads=4"]), 200)
        self.assertEqual(C.offered_rate(["--rate=200", "--rate=300"]), 300)   # the last wins
        self.assertIsNone(C.offered_rate(["--rate=200", "--rate=0"]))          # 0: unlimited
        self.assertEqual(C.offered_rate(["--rate=100", "--rate=fast"]), 100)   # unparsable ignored
        self.assertIsNone(C.offered_rate(["--rated=5", "rate=5"]))

    def test_prepare_threads(self):
        self.assertEqual(C.prepare_threads(8, cpus=2), 2)
        self.assertEqual(C.prepare_threads(1, cpus=16), 1)
        self.assertEqual(C.prepare_threads(0, cpus=4), 1)
        self.assertEqual(C.prepare_threads(64), min(64, os.cpu_count()))


if __name__ == "__main__":
    unittest.main()

"""lab.report: the result files a run leaves (per_second.csv, runs.csv,
summary.md, environment.txt) hold the right header and rows; bench/plot is
run on the result directory.

Run: python3 -m unittest discover -s bench/tests -v
"""

import csv
import os
import shutil
import tempfile
import unittest

import fakes
from lab import bulk_load as B
from lab import report as R
from lab import redo_files as RF
from lab import summary as S
from lab.scenarios import CONFIGS, DEVICES

T0 = 1700000000.0


def per_second(run_id, server, tps):
    rows = []
    for i, v in enumerate(tps, 1):
        r = {k: "" for k in S.PER_SECOND_COLUMNS}
        r.update({"run_id": run_id, "server": server, "second": i, "tps": v, "p99_ms": 5.0, "threads": 4,
                  "repeat": 1})
        rows.append(r)
    return rows


def info(run_id, server, rows, status="ok", error="", load=None):
    i = {"run_id": run_id, "server": server, "flavour": "mysql", "threads": 4, "repeat": 1, "status": status,
         "error": error, "server_version": "9.7.2", "init_s": 3.5, "wall_s": 60.0}
    if status == "ok":
        i["summary"] = S.summarize_run(rows, warmup=2)
    if load is not None:
        i["load"] = load
    return i


class Outputs(unittest.TestCase):
    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="steady-test-report-")
        self.addCleanup(shutil.rmtree, self.out, True)

    def read_csv(self, name):
        with open(os.path.join(self.out, name), newline="") as f:
            r = csv.reader(f)
            header = next(r)
            return header, [dict(zip(header, row)) for row in r]

    def test_three_files(self):
        a = per_second("01-steady-t4-r1", "steady", [100, 100, 100, 100, 100])
        b = per_second("02-vanilla-t4-r1", "vanilla", [50, 50, 50, 50, 50])
        infos = [info("01-steady-t4-r1", "steady", a), info("02-vanilla-t4-r1", "vanilla", b),
                 info("03-steady-t4-r2", "steady", [], status="failed", error="mysqld exited\nline two")]
        md = R.write_outputs(self.out, infos, a + b, "vanilla", "bench/run --scenario smoke")
        self.assertEqual(sorted(os.listdir(self.out)), ["per_second.csv", "runs.csv", "summary.md"])

        header, rows = self.read_csv("per_second.csv")
        self.assertEqual(header, S.PER_SECOND_COLUMNS)
        self.assertEqual(len(rows), 10)
        self.assertEqual((rows[0]["run_id"], rows[0]["second"], rows[0]["tps"]), ("01-steady-t4-r1", "1", "100"))
        self.assertEqual(rows[9]["server"], "vanilla")

        header, runs = self.read_csv("runs.csv")
        self.assertEqual(header, R.RUN_COLUMNS + [k for k, _, _ in S.RUN_METRICS + S.CAUSE_METRICS]
                         + ["dip_verdict", "error"])
        self.assertNotIn("load_s", header)                  # no loader ran: no load columns
        self.assertEqual([r["status"] for r in runs], ["ok", "ok", "failed"])
        self.assertEqual(float(runs[0]["mean_tps"]), 100)   # the summary merged into the row
        self.assertEqual(runs[0]["n_seconds"], "3")
        self.assertEqual(runs[0]["init_s"], "3.5")
        self.assertEqual(runs[2]["error"], "mysqld exited\nline two")
        self.assertEqual(runs[2]["mean_tps"], "")

        with open(os.path.join(self.out, "summary.md")) as f:
            text = f.read()
        self.assertIs(bool(text.startswith("# bench/run summary\n\nCommand:\n\n    bench/run --scenario smoke\n\n")), True)
        self.assertIs(bool(text.endswith(md)), True)
        self.assertIn("| 01-steady-t4-r1 | steady | 4 | 1 | ok | 100 |", md)
        self.assertIn("- `03-steady-t4-r2` (steady): mysqld exited", md)
        self.assertIn("ratio to vanilla", md)
        self.assertIn("2.00x", md)                          # steady's mean TPS over vanilla's
        self.assertNotIn("Bulk load", md)

    def test_config_recorded(self):
        rows = per_second("01-steady-t4-r1", "steady", [100] * 5)
        i = dict(info("01-steady-t4-r1", "steady", rows), config="stock")
        line = R.config_line("stock", CONFIGS["stock"])
        md = R.write_outputs(self.out, [i], rows, None, "bench/run --config stock", line)
        header, runs = self.read_csv("runs.csv")
        self.assertIn("config", header)
        self.assertEqual(runs[0]["config"], "stock")
        with open(os.path.join(self.out, "summary.md")) as f:
            text = f.read()
        self.assertIs(bool(text.startswith("# bench/run summary\n\nCommand:\n\n    bench/run --config stock\n\n"
                                           "config: stock: MySQL's default configuration")), True)
        self.assertIs(bool(text.endswith(md)), True)

    def test_load_columns_when_a_loader_ran(self):
        rows = per_second("01-steady+prealloc-t4-r1", "steady+prealloc", [100] * 20)
        loaded = B.parse_loader_output(["mark\t%s\t%.6f\n" % (k, T0 + v) for k, v in (
            ("create_start", 5.0), ("create_end", 5.1), ("load_start", 6.0), ("load_end", 12.0))]
            + ["rows\t1\t600\n"])
        load = B.summarize_load(rows, loaded, T0, warmup=2)
        infos = [info("01-steady+prealloc-t4-r1", "steady+prealloc", rows, load=load)]
        md = R.write_outputs(self.out, infos, rows, None, "bench/run --scenario bulk_load")
        header, runs = self.read_csv("runs.csv")
        self.assertEqual(header, R.RUN_COLUMNS + [k for k, _, _ in S.RUN_METRICS + S.CAUSE_METRICS] + B.RUN_COLUMNS
                         + ["dip_verdict", "error"])
        self.assertEqual(float(runs[0]["load_s"]), 6.0)
        self.assertEqual(runs[0]["load_rows"], "600")
        self.assertIn("### Bulk load, per run", md)

    def test_redo_columns_when_the_redo_was_written_through(self):
        rows = per_second("01-written-t4-r1", "written", [100] * 5) + per_second("02-fresh-t4-r1", "fresh", [100] * 5)
        written = dict(info("01-written-t4-r1", "written", rows[:5]), redo_files_written=32,
                       redo_written_mib=2016.0, redo_unwritten_before=64, redo_unwritten_after=0, redo_write_s=4.2)
        R.write_outputs(self.out, [written, info("02-fresh-t4-r1", "fresh", rows[5:])], rows, None, "bench/run")
        header, runs = self.read_csv("runs.csv")
        self.assertEqual(header[-len(RF.RUN_COLUMNS) - 2:-2], RF.RUN_COLUMNS)
        self.assertEqual((runs[0]["redo_unwritten_before"], runs[0]["redo_unwritten_after"]), ("64", "0"))
        self.assertEqual(runs[1]["redo_files_written"], "")
        R.write_outputs(self.out, [info("02-fresh-t4-r1", "fresh", rows[5:])], rows[5:], None, "bench/run")
        header, _ = self.read_csv("runs.csv")
        self.assertNotIn("redo_files_written", header)

    def test_per_second_alone(self):
        path = os.path.join(self.out, "p.csv")
        R.write_per_second(path, [])
        with open(path) as f:
            self.assertEqual(f.read().strip(), ",".join(S.PER_SECOND_COLUMNS))


class Environment(unittest.TestCase):
    def test_lines(self):
        dev = DEVICES["cloud"]
        text = R.environment_lines("cloud", dev, "loop", False, True, "/img", "stall-quick", {"duration": 120},
                                   [("steady", "mysql", "/b/mysqld", "9.7.2-steady"),
                                    ("mariadb", "mariadb", "/usr/sbin/mariadbd", "10.11")])
        lines = text.splitlines()
        self.assertEqual([x.split(":")[0] for x in lines[:4]], ["date", "kernel", "cpus", "memory"])
        self.assertIn("cpus: %d" % os.cpu_count(), lines)
        self.assertIs(bool(any(x.startswith("sysbench: ") for x in lines)), True)
        self.assertIn('device: cloud: %s; caps {"write_iops": 3000, "read_iops": 3000, "write_bps": 131072000, '
                      '"read_bps": 131072000} on the loop device; io_capacity 3000/6000; journal thread in the '
                      'cgroup' % dev["about"], lines)
        self.assertIn("settle after prepare: no (--no-settle)", lines)
        self.assertIn("redo and binary logs: on the data device", lines)
        self.assertIn("loop images under: /img", lines)
        self.assertIn('scenario: stall-quick {"duration": 120}', lines)
        self.assertEqual(lines[-2:], ["server steady (mysql): /b/mysqld: 9.7.2-steady",
                                      "server mariadb (mariadb): /usr/sbin/mariadbd: 10.11"])

    def test_config_and_the_servers_io_capacity(self):
        dev = dict(DEVICES["ssd"], io_capacity=None, io_capacity_max=None)     # as build_device makes it for stock
        text = R.environment_lines("ssd", dev, "loop", False, False, "/img", "x", {}, [],
                                   config=R.config_line("stock", CONFIGS["stock"]))
        self.assertIn("config: stock: %s" % CONFIGS["stock"], text.splitlines())
        self.assertIn("; io_capacity the server's default;", text)
        self.assertNotIn("config:", R.environment_lines("ssd", DEVICES["ssd"], "loop", False, False, "/img", "x",
                                                        {}, []))

    def test_backing_and_uncapped_journal(self):
        text = R.environment_lines("ssd", DEVICES["ssd"], "backing", True, False, "/img", "x", {}, [])
        self.assertIn("on the host disk under the loop file", text)
        self.assertIn("journal thread uncapped", text)
        self.assertIn("settle after prepare: yes", text)

    def test_log_device(self):
        text = R.environment_lines("cloud", DEVICES["cloud"], "loop", False, False, "/img", "x", {}, [],
                                   log_device=("nvme", DEVICES["nvme"]))
        self.assertIn("redo and binary logs: own loop device, nvme: %s; caps {}" % DEVICES["nvme"]["about"],
                      text.splitlines())


class Plot(unittest.TestCase):
    def test_runs_the_tool_on_the_directory(self):
        with tempfile.TemporaryDirectory() as d:
            tool = fakes.write_script(os.path.join(d, "plot"),
                                      "import os, sys\nopen(os.path.join(sys.argv[1], 'tps.png'), 'w').close()\n"
                                      "print('wrote tps.png')\nsys.exit(1)\n")
            out = os.path.join(d, "results")
            os.mkdir(out)
            self.assertEqual(R.plot(tool, out), "wrote tps.png")       # a failed plot is not fatal
            self.assertIs(bool(os.path.exists(os.path.join(out, "tps.png"))), True)


if __name__ == "__main__":
    unittest.main()

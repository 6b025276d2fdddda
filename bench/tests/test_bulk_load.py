"""Known input -> known output for bench/lab/bulk_load.py.

Run: python3 -m unittest discover -s bench/tests -v
"""

import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import bulk_load as B

MiB = 1024 ** 2
T0 = 1700000000.0      # OLTP start epoch of the made-up runs


def rows(tps, p99=None):
    out = []
    for i, v in enumerate(tps, 1):
        r = {"second": str(i), "tps": "" if v is None else str(v)}
        if p99:
            r["p99_ms"] = "" if p99[i - 1] is None else str(p99[i - 1])
        out.append(r)
    return out


def loader_output(marks, chunk_rows=(), sizes=None):
    lines = ["mark\t%s\t%.6f\n" % (k, T0 + v) for k, v in marks.items()]
    lines += ["rows\t%d\t%d\n" % (i, n) for i, n in enumerate(chunk_rows, 1)]
    lines += ["size\t%s\t%d\t%d\n" % (k, a, b) for k, (a, b) in (sizes or {}).items()]
    return B.parse_loader_output(lines)


class Sizes(unittest.TestCase):
    def test_prealloc_rounds_up_with_margin(self):
        # 1M rows x 260 B x 1.1 = 286e6 B -> 5 x 64 MiB (4 x 64 MiB = 268435456 is short)
        self.assertEqual(B.prealloc_bytes(1000000), 5 * 64 * MiB)
        self.assertEqual(B.prealloc_bytes(1, bytes_per_row=100, margin=1.0, align=MiB), MiB)
        self.assertEqual(B.prealloc_bytes(0), B.PREALLOC_ALIGN)   # never zero: a no-op statement

    def test_chunks_even_and_complete(self):
        self.assertEqual(B.chunk_sizes(10, 3), [4, 3, 3])
        self.assertEqual(B.chunk_sizes(4000000, 4), [1000000] * 4)
        self.assertEqual(B.chunk_sizes(2, 5), [1, 1])
        self.assertEqual(B.chunk_sizes(7, 0), [7])

    def test_seed_covers_largest_chunk(self):
        self.assertEqual(B.seed_rows(4000000, 4), 1000)     # 1000 x 1000 = 1M
        self.assertEqual(B.seed_rows(1000001, 1), 1001)
        self.assertEqual(B.seed_rows(500000, 2), 500)
        self.assertEqual(B.seed_rows(1, 1), 1)


class LoaderSql(unittest.TestCase):
    def test_prealloc_arm(self):
        sql = B.loader_sql(10, 3, prealloc=64 * MiB)
        self.assertIn("ALTER TABLESPACE `sbtest/load` SET EXTENT_SIZE = 67108864;", sql)
        self.assertEqual(sql.count("INSERT INTO sbtest.load"), 3)
        self.assertIn("LIMIT 4;", sql)
        order = [sql.index("'%s'" % m) for m in ("create_start", "create_end", "prealloc_start",
                                                 "prealloc_end", "load_start", "load_end")]
        self.assertEqual(order, sorted(order))
        self.assertIn("information_schema.INNODB_TABLESPACES", sql)

    def test_plain_arm_and_mariadb(self):
        sql = B.loader_sql(10, 1, flavour="mariadb")
        self.assertNotIn("ALTER TABLESPACE", sql)
        self.assertNotIn("prealloc", sql)
        self.assertIn("INNODB_SYS_TABLESPACES", sql)

    def test_rebuild_after_the_load(self):
        sql = B.loader_sql(10, 2, rebuild=True)
        self.assertEqual(sql.count("ALTER TABLE sbtest.load FORCE;"), 1)
        order = [sql.index(x) for x in ("'load_end'", "'rebuild_start'", "ALTER TABLE sbtest.load FORCE",
                                        "'rebuild_end'", "'rebuilt'")]
        self.assertEqual(order, sorted(order))
        self.assertNotIn("FORCE", B.loader_sql(10, 2))

    def test_seed(self):
        self.assertIn("WHERE id <= 1000;", B.seed_sql(4000000, 4))


class ParseOutput(unittest.TestCase):
    def test_lines(self):
        got = B.parse_loader_output([
            "mark\tload_start\t1700000030.250000\n",
            "rows\t1\t500\n", "rows\t2\t250\n",
            "size\tloaded\t50331648\t50335744\n",
            "ERROR 1064 (42000) at line 7: You have an error in your SQL syntax\n",
            "mark\tbroken\tnot-a-number\n",
            "something else\n",
        ])
        self.assertEqual(got["marks"], {"load_start": 1700000030.25})
        self.assertEqual(got["chunk_rows"], [500, 250])
        self.assertEqual(got["sizes"], {"loaded": (50331648, 50335744)})
        self.assertEqual(len(got["errors"]), 1)


class Windows(unittest.TestCase):
    def test_overlapping_seconds(self):
        # second n covers (n-1, n]
        self.assertEqual(list(B.window_seconds(30.2, 33.7)), [31, 32, 33, 34])
        self.assertEqual(list(B.window_seconds(30.0, 32.0)), [31, 32])
        self.assertEqual(list(B.window_seconds(30.5, 30.6)), [31])
        self.assertEqual(list(B.window_seconds(30.0, 30.0)), [31])
        self.assertEqual(list(B.window_seconds(None, 3)), [])
        self.assertEqual(list(B.window_seconds(5, 4)), [])

    def test_phase_of_second(self):
        steps = [("create", 20.1, 20.2), ("prealloc", 20.2, 22.5), ("load", 22.5, 25.0)]
        self.assertEqual(B.phase_of_second(20, steps), "")
        self.assertEqual(B.phase_of_second(21, steps), "prealloc")   # create too, prealloc is later
        self.assertEqual(B.phase_of_second(23, steps), "load")       # prealloc ends inside it
        self.assertEqual(B.phase_of_second(25, steps), "load")
        self.assertEqual(B.phase_of_second(26, steps), "")


class SummarizeLoad(unittest.TestCase):
    # 12 s of OLTP: 100 TPS, a dip during the load (s 7-9), p99 up there
    TPS = [50, 100, 100, 100, 100, 100, 40, 60, 80, 100, 100, 100]
    P99 = [9, 5, 5, 5, 5, 6, 50, 30, 20, 5, 5, 5]

    def test_prealloc_arm(self):
        loaded = loader_output(
            {"create_start": 4.5, "create_end": 4.6, "prealloc_start": 4.6, "prealloc_end": 5.8,
             "load_start": 6.2, "load_end": 8.9},
            chunk_rows=[300, 240],
            sizes={"preallocated": (64 * MiB, 64 * MiB), "loaded": (64 * MiB, 64 * MiB)})
        s = B.summarize_load(rows(self.TPS, self.P99), loaded, T0, warmup=1)
        self.assertAlmostEqual(s["prealloc_s"], 1.2, places=4)
        self.assertAlmostEqual(s["load_s"], 2.7, places=4)
        self.assertAlmostEqual(s["total_s"], 4.3, places=4)
        self.assertEqual(s["load_rows"], 540)
        self.assertAlmostEqual(s["rows_per_s"], 540 / 2.7, places=2)
        self.assertEqual(s["file_mb"], 64)
        self.assertEqual(s["prealloc_file_mb"], 64)
        # before: seconds 2..4 (warm-up 1, loader starts at 4.5)
        self.assertEqual(s["before_mean_tps"], 100)
        self.assertEqual(s["before_p99_median_ms"], 5)
        # load window 6.2..8.9 -> seconds 7, 8, 9
        self.assertEqual(s["load_oltp_seconds"], 3)
        self.assertEqual(s["load_mean_tps"], 60)
        self.assertEqual(s["load_worst_tps"], 40)
        self.assertEqual(s["load_p99_median_ms"], 30)
        self.assertEqual(s["load_p99_worst_ms"], 50)
        self.assertAlmostEqual(s["load_worst_over_before"], 0.4)
        # prealloc window 4.6..5.8 -> seconds 5, 6
        self.assertEqual(s["prealloc_worst_tps"], 100)
        self.assertEqual(s["prealloc_p99_worst_ms"], 6)
        # both: 4.6..8.9 -> seconds 5..9
        self.assertEqual(s["total_oltp_seconds"], 5)
        self.assertEqual(s["total_worst_tps"], 40)
        self.assertEqual(s["load_outlasted_s"], 0)
        self.assertAlmostEqual(s["load_start_s"], 6.2, places=4)
        self.assertAlmostEqual(s["load_end_epoch"], T0 + 8.9)

    def test_plain_arm_outlasting_the_oltp_run(self):
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6,
                                "load_start": 4.6, "load_end": 14.5}, chunk_rows=[1000])
        s = B.summarize_load(rows(self.TPS), loaded, T0, warmup=1)
        self.assertIsNone(s["prealloc_s"])
        self.assertIsNone(s["prealloc_worst_tps"])
        self.assertEqual(s["prealloc_oltp_seconds"], 0)
        self.assertAlmostEqual(s["total_s"], s["load_s"])
        self.assertAlmostEqual(s["load_outlasted_s"], 2.5, places=4)
        self.assertEqual(s["load_oltp_seconds"], 8)           # seconds 5..12: what was measured
        self.assertIsNone(s["file_mb"])
        self.assertIsNone(s["load_p99_worst_ms"])

    def test_rebuild_window(self):
        # load 4.6..6.0 (seconds 5, 6), rebuild 6.5..9.5 (seconds 7..10)
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6, "load_start": 4.6, "load_end": 6.0,
                                "rebuild_start": 6.5, "rebuild_end": 9.5}, chunk_rows=[100],
                               sizes={"loaded": (96 * MiB, 96 * MiB), "rebuilt": (80 * MiB, 80 * MiB)})
        s = B.summarize_load(rows(self.TPS, self.P99), loaded, T0, warmup=1)
        self.assertAlmostEqual(s["rebuild_s"], 3.0, places=4)
        self.assertEqual(s["rebuild_oltp_seconds"], 4)
        self.assertEqual(s["rebuild_worst_tps"], 40)
        self.assertEqual(s["rebuild_mean_tps"], 70)
        self.assertEqual(s["rebuild_p99_worst_ms"], 50)
        self.assertEqual(s["rebuild_p99_median_ms"], 25)
        self.assertEqual((s["file_mb"], s["rebuilt_file_mb"]), (96, 80))
        self.assertEqual(s["load_worst_tps"], 100)           # the dip is the rebuild's, not the load's
        self.assertAlmostEqual(s["total_s"], 1.4, places=4)  # prealloc+load leaves the rebuild out
        self.assertAlmostEqual(s["rebuild_end_s"], 9.5, places=4)
        self.assertEqual(s["load_outlasted_s"], 0)

    def test_rebuild_outlasting_the_oltp_run(self):
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6, "load_start": 4.6, "load_end": 6.0,
                                "rebuild_start": 6.0, "rebuild_end": 13.0}, chunk_rows=[100])
        s = B.summarize_load(rows(self.TPS), loaded, T0, warmup=1)
        self.assertAlmostEqual(s["load_outlasted_s"], 1.0, places=4)
        unfinished = loader_output({"create_start": 4.5, "create_end": 4.6, "load_start": 4.6,
                                    "load_end": 6.0, "rebuild_start": 6.0}, chunk_rows=[100])
        s = B.summarize_load(rows(self.TPS), unfinished, T0, warmup=1)
        self.assertIsNone(s["rebuild_s"])
        self.assertIsNone(s["rebuild_worst_tps"])
        self.assertEqual(s["load_outlasted_s"], 0)

    def test_unfinished_load(self):
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6, "load_start": 4.6})
        s = B.summarize_load(rows(self.TPS), loaded, T0, warmup=1)
        self.assertIsNone(s["load_s"])
        self.assertIsNone(s["total_s"])
        self.assertIsNone(s["load_worst_tps"])
        self.assertIsNone(s["load_outlasted_s"])
        self.assertIsNone(s["load_rows"])


class Markdown(unittest.TestCase):
    def run_info(self, run_id, server, repeat, load_s, worst, status="ok"):
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6,
                                "load_start": 5.0, "load_end": 5.0 + load_s}, chunk_rows=[100])
        tps = [100] * 5 + [worst] * 7
        return {"run_id": run_id, "server": server, "threads": 4, "repeat": repeat, "status": status,
                "load": B.summarize_load(rows(tps), loaded, T0, warmup=1)}

    def test_tables_and_ratios(self):
        runs = [self.run_info("01-steady+prealloc-t4-r1", "steady+prealloc", 1, 4.0, 80),
                self.run_info("02-vanilla-t4-r1", "vanilla", 1, 6.0, 40),
                self.run_info("03-steady+prealloc-t4-r2", "steady+prealloc", 2, 2.0, 80),
                self.run_info("04-vanilla-t4-r2", "vanilla", 2, 6.0, 40, status="failed")]
        md = B.markdown(runs, baseline="vanilla")
        self.assertIn("### Bulk load, per run", md)
        self.assertIn("| 04-vanilla-t4-r2 | vanilla | failed |", md)
        # steady+prealloc: load 3.0 s mean vs vanilla 6.0 (failed round left out)
        line = next(x for x in md.splitlines() if x.startswith("| steady+prealloc | 4 | 2 |"))
        self.assertIn("| 0.50x |", line)      # load s / vanilla
        self.assertIn("| 2.00x |", line)      # worst TPS in load / vanilla
        self.assertIn("| vanilla | 4 | 1 |", md)

    def test_oltp_behind_its_rate_is_flagged(self):
        loaded = loader_output({"create_start": 4.5, "create_end": 4.6,
                                "load_start": 5.0, "load_end": 8.0}, chunk_rows=[100])
        slow = B.summarize_load(rows([30] * 12), loaded, T0, warmup=1, offered_tps=200)
        fine = B.summarize_load(rows([195] * 12), loaded, T0, warmup=1, offered_tps=200)
        free = B.summarize_load(rows([30] * 12), loaded, T0, warmup=1)
        self.assertIs(slow["kept_up_before"], False)
        self.assertIs(fine["kept_up_before"], True)
        self.assertIsNone(free["kept_up_before"])
        md = B.markdown([{"run_id": "01-v", "server": "v", "threads": 2, "repeat": 1, "status": "ok",
                          "load": slow},
                         {"run_id": "02-v", "server": "v", "threads": 2, "repeat": 2, "status": "ok",
                          "load": fine}])
        self.assertIn("- `01-v`: 30 TPS against --rate=200", md)
        self.assertNotIn("`02-v`", md)

    def test_nothing_without_loads(self):
        self.assertEqual(B.markdown([{"run_id": "01", "server": "x", "status": "failed"}]), "")


if __name__ == "__main__":
    unittest.main()

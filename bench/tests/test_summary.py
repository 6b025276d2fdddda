"""Known input -> known output for bench/lab/summary.py.

Run: python3 -m unittest discover -s bench/tests -v
"""

import math
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import summary as S


def rows(tps, **cols):
    out = []
    for i, v in enumerate(tps, 1):
        r = {"second": str(i), "tps": "" if v is None else str(v)}
        for k, vals in cols.items():
            r[k] = "" if vals[i - 1] is None else str(vals[i - 1])
        out.append(r)
    return out


class SummarizeRun(unittest.TestCase):
    def test_flat_run(self):
        s = S.summarize_run(rows([50, 50, 100, 100, 100, 100]), warmup=2)
        self.assertEqual(s["n_seconds"], 4)
        self.assertEqual(s["mean_tps"], 100)
        self.assertEqual(s["worst_tps"], 100)
        self.assertEqual(s["worst_over_mean"], 1.0)
        self.assertEqual(s["cv"], 0.0)
        self.assertEqual(s["secs_below_half"], 0)

    def test_stall_run(self):
        # warm-up second 1 is left out; then 4 x 200 and one collapse to 50
        tps = [1, 200, 200, 200, 200, 50]
        s = S.summarize_run(rows(tps), warmup=1)
        self.assertEqual(s["n_seconds"], 5)
        self.assertAlmostEqual(s["mean_tps"], 170.0)
        self.assertEqual(s["worst_tps"], 50)
        self.assertAlmostEqual(s["worst_over_mean"], 50 / 170)
        # population sd of [200,200,200,200,50] = 60
        self.assertAlmostEqual(s["cv"], 60 / 170)
        self.assertEqual(s["secs_below_half"], 1)   # 50 < 85
        self.assertEqual(s["secs_below_70"], 1)     # 50 < 119, 200 is not

    def test_cv_after_the_first_minute(self):
        # a cold start's fast first minute, then 100/50 alternating: the
        # whole-run CV counts the first minute, cv_after_1min only s 61+
        tps = [300] * 60 + [100, 50] * 20
        s = S.summarize_run(rows(tps), warmup=10)
        self.assertAlmostEqual(s["cv_after_1min"], 25 / 75)
        self.assertGreater(s["cv"], 0.5)
        # a 60-second run (the quick shapes) has no such figure
        self.assertIsNone(S.summarize_run(rows([100] * 60), warmup=10)["cv_after_1min"])

    def test_first_percentile_second(self):
        # 300 measured seconds at 100 TPS with two hiccups (10 and 20) and a
        # third low second (60): the worst second is the hiccup, the 1st
        # percentile the third-worst second
        tps = [0] + [100] * 297 + [10, 20, 60]
        s = S.summarize_run(rows(tps), warmup=1)
        self.assertEqual(s["n_seconds"], 300)
        self.assertEqual(s["worst_tps"], 10)
        self.assertEqual(s["p1_tps"], 60)
        # under 100 seconds the 1st percentile is the worst second
        self.assertEqual(S.summarize_run(rows([0, 100, 40, 90]), warmup=1)["p1_tps"], 40)

    def test_sag_between_half_and_70(self):
        # mean 90: 60 is below 63 (70%) but not below 45 (half)
        s = S.summarize_run(rows([0, 100, 100, 100, 60]), warmup=1)
        self.assertEqual(s["secs_below_half"], 0)
        self.assertEqual(s["secs_below_70"], 1)

    def test_latency_dirty_util(self):
        tps = [10, 10, 10, 10]
        s = S.summarize_run(rows(tps, p99_ms=[99, 5, 7, 30], dirty_pct=[90, 10, None, 40],
                                 dev_util_pct=[100, 50, 70, 60], dev_w_iops=[1, 2, 4, 6]), warmup=1)
        self.assertEqual(s["p99_median_ms"], 7)      # median of 5, 7, 30
        self.assertEqual(s["p99_worst_ms"], 30)
        self.assertEqual(s["max_dirty_pct"], 40)     # blank cell skipped, warm-up 90 left out
        self.assertEqual(s["mean_util_pct"], 60)
        self.assertEqual(s["mean_w_iops"], 4)

    def test_cost_per_transaction(self):
        # seconds 3-4 measured: 1,000 + 3,000 transactions; 820 kB + 2,460 kB
        # of redo; 50 % + 150 % of a core; 100 + 300 pages flushed
        s = S.summarize_run(rows([9, 9, 1000, 3000],
                                 redo_bytes_ps=[1, 1, 820000, 2460000],
                                 mysqld_cpu_pct=[1, 1, 50, 150],
                                 pages_flushed_ps=[1, 1, 100, 300]), warmup=2)
        self.assertAlmostEqual(s["redo_bytes_per_trx"], 820.0)
        self.assertAlmostEqual(s["cpu_ms_per_trx"], 2000.0 / 4000)
        self.assertAlmostEqual(s["pages_flushed_per_trx"], 0.1)
        # a second without the column is left out of both sums
        s = S.summarize_run(rows([9, 9, 1000, 3000], redo_bytes_ps=[1, 1, None, 2460000]), warmup=2)
        self.assertAlmostEqual(s["redo_bytes_per_trx"], 820.0)

    def test_missing_columns_are_none(self):
        s = S.summarize_run(rows([5, 5, 5]), warmup=0)
        self.assertIsNone(s["p99_median_ms"])
        self.assertIsNone(s["max_dirty_pct"])

    def test_no_tps_after_warmup_raises(self):
        with self.assertRaises(ValueError):
            S.summarize_run(rows([100, 100]), warmup=10)
        with self.assertRaises(ValueError):
            S.summarize_run(rows([None, None, None]), warmup=0)

    def test_zero_mean(self):
        s = S.summarize_run(rows([0, 0, 0]), warmup=0)
        self.assertIsNone(s["cv"])
        self.assertIsNone(s["worst_over_mean"])


class Aggregates(unittest.TestCase):
    def run_info(self, run_id, server, repeat, tps, status="ok"):
        info = {"run_id": run_id, "server": server, "threads": 16, "repeat": repeat,
                "status": status, "error": "" if status == "ok" else "boom\nlog line"}
        if status == "ok":
            info["summary"] = S.summarize_run(rows(tps), warmup=0)
        return info

    def test_ratios_and_failed_runs_left_out(self):
        runs = [
            self.run_info("01", "steady", 1, [200, 200]),
            self.run_info("02", "vanilla", 1, [100, 100]),
            self.run_info("03", "steady", 2, [300, 300]),
            self.run_info("04", "vanilla", 2, [], status="failed"),
        ]
        md = S.summary_markdown(runs, baseline="vanilla")
        # steady mean over its 2 ok runs = 250, vanilla only its ok run = 100
        self.assertIn("| steady | 16 | 2 | 250 |", md)
        self.assertIn("| vanilla | 16 | 1 | 100 |", md)
        self.assertIn("2.50x", md)
        self.assertIn("Failed runs (not averaged in)", md)
        self.assertIn("`04` (vanilla): boom", md)
        pairs = S.pair_ratios(runs, "vanilla")
        self.assertEqual(len(pairs), 1)          # repeat 2 has no ok baseline
        self.assertAlmostEqual(pairs[0]["mean_tps"], 2.0)

    def test_two_baselines(self):
        """--feature's summary: ratios to vanilla and to the feature-off arm."""
        runs = [
            self.run_info("01", "vanilla", 1, [100, 100]),
            self.run_info("02", "steady-off", 1, [110, 110]),
            self.run_info("03", "steady-on", 1, [121, 121]),
        ]
        md = S.summary_markdown(runs, baseline=["vanilla", "steady-off"])
        self.assertIn("ratio to vanilla and to steady-off", md)
        self.assertIn("mean TPS/vanilla", md)
        self.assertIn("mean TPS/steady-off", md)
        on = [line for line in md.splitlines() if line.startswith("| steady-on | 16 | 1 |")][0]
        self.assertIn("| 1.21x |", on)      # to vanilla
        self.assertIn("| 1.10x |", on)      # to steady-off
        self.assertIn("### Per pair (same threads and repeat), ratio to vanilla", md)
        self.assertIn("### Per pair (same threads and repeat), ratio to steady-off", md)
        self.assertEqual(S.summary_markdown(runs, "vanilla"), S.summary_markdown(runs, ["vanilla"]))

    def test_no_baseline(self):
        md = S.summary_markdown([self.run_info("01", "mariadb", 1, [7, 9])], baseline=None)
        self.assertIn("| mariadb | 16 | 1 | 8 |", md)
        self.assertNotIn("ratio", md)

    def test_ratio_guards(self):
        self.assertIsNone(S.ratio(1, 0))
        self.assertIsNone(S.ratio(None, 2))
        self.assertEqual(S.ratio(3, 2), 1.5)


class Histogram(unittest.TestCase):
    # sysbench 1.0: 1024 buckets over 0.001..100000 ms
    MULT = 1023 / (math.log(100000) - math.log(0.001))
    DEDUCT = math.log(0.001)

    def bucket(self, ms):
        return int(math.floor((math.log(ms) - self.DEDUCT) * self.MULT + 0.5))

    def test_percentiles_like_sysbench(self):
        counts = [0] * 1024
        counts[self.bucket(1.0)] = 90     # 90 events at 1 ms
        counts[self.bucket(10.0)] = 9     # 9 at 10 ms
        counts[self.bucket(100.0)] = 1    # 1 at 100 ms
        p95 = S.histogram_percentile(counts, 95, self.MULT, self.DEDUCT)
        p99 = S.histogram_percentile(counts, 99, self.MULT, self.DEDUCT)
        p100 = S.histogram_percentile(counts, 100, self.MULT, self.DEDUCT)
        self.assertAlmostEqual(p95, 10.0, delta=0.2)
        self.assertAlmostEqual(p99, 10.0, delta=0.2)
        self.assertAlmostEqual(p100, 100.0, delta=2)
        self.assertIsNone(S.histogram_percentile([0] * 1024, 99, self.MULT, self.DEDUCT))


if __name__ == "__main__":
    unittest.main()

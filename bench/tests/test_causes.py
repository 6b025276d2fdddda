"""The stall lab's cause columns and dip reading (lab.causes), its summary
figures (lab.summary), the open-loop queue from sysbench's line
(lab.client), and the stall scenarios' settings (lab.scenarios): known
counters in, known columns and sentences out.

Run: python3 -m unittest discover -s bench/tests -v
"""

import csv
import os
import subprocess
import tempfile
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import causes as X
from lab import client as C
from lab import collect as K
from lab import summary as S
from lab.scenarios import ScenarioError, build_scenario

MiB = 1024 ** 2


def rnd(**kw):
    """A status round as the poller stores it: lower-case names, text values."""
    return {k.lower(): str(v) for k, v in kw.items()}


class Columns(unittest.TestCase):
    MARKS = dict(m_log_max_modified_age_async=80 * MiB, m_log_max_modified_age_sync=90 * MiB)

    def test_checkpoint_age_against_the_marks(self):
        cur = rnd(m_log_lsn_checkpoint_age=72 * MiB, **self.MARKS)
        out = X.columns(None, cur, 0)
        self.assertEqual((out["ckpt_async_pct"], out["ckpt_sync_pct"]), ("90.0", "80.0"))
        self.assertNotIn("sync_flush_waits_ps", out)         # no previous round: levels only

    def test_oldest_modification_age_against_the_async_mark(self):
        cur = rnd(m_log_lsn_current=1000 * MiB, m_log_lsn_buf_pool_oldest_approx=940 * MiB, **self.MARKS)
        self.assertEqual(X.columns(None, cur, 0)["oldest_async_pct"], "75.0")
        clean = rnd(m_log_lsn_current=1000 * MiB, m_log_lsn_buf_pool_oldest_approx=0, **self.MARKS)
        self.assertNotIn("oldest_async_pct", X.columns(None, clean, 0))   # no dirty page

    def test_pacing_levels_where_the_server_has_them(self):
        cur = rnd(m_buffer_flush_pace_budget=1850, m_buffer_flush_pace_capability=2400,
                  m_buffer_flush_pace_write_latency_us=310, m_buffer_flush_pace_pressure_ckpt_pct=42,
                  m_buffer_flush_pace_pressure_dirty_pct=12, m_buffer_flush_pace_lru_depth=1126,
                  m_buffer_flush_pace_baseline_latency_us=180)
        out = X.columns(None, cur, 0)
        self.assertEqual((out["pace_budget"], out["pace_capability"], out["pace_write_lat_us"], out["pace_p_ckpt"],
                          out["pace_p_dirty"], out["pace_lru_depth"], out["pace_baseline_us"]),
                         ("1850", "2400", "310", "42", "12", "1126", "180"))
        self.assertNotIn("pace_budget", X.columns(None, rnd(), 0))   # vanilla: blank

    def test_status_age_when_the_metric_is_off(self):
        out = X.columns(None, rnd(**self.MARKS), 0, status_age=45 * MiB)
        self.assertEqual(out["ckpt_sync_pct"], "50.0")
        self.assertEqual(X.columns(None, rnd(), 0, status_age=45 * MiB), {})   # no marks: no share

    def test_rates(self):
        prev = rnd(m_log_on_file_space_waits=1, m_buffer_flush_sync_waits=10, m_buffer_flush_sync_total_pages=1000,
                   m_buffer_flush_sync=7,
                   m_buffer_lru_get_free_waits=0, m_buffer_lru_single_flush_num_scan=5,
                   m_buffer_lru_batch_flush_total_pages=100, innodb_buffer_pool_wait_free=3,
                   innodb_buffer_pool_pages_free=500)
        cur = rnd(m_log_on_file_space_waits=61, m_buffer_flush_sync_waits=30, m_buffer_flush_sync_total_pages=5000,
                  m_buffer_flush_sync=12,
                  m_buffer_lru_get_free_waits=8, m_buffer_lru_single_flush_num_scan=5,
                  m_buffer_lru_batch_flush_total_pages=2100, innodb_buffer_pool_wait_free=7,
                  innodb_buffer_pool_pages_free=0)
        out = X.columns(prev, cur, 2.0)
        self.assertEqual(out, {"redo_space_waits_ps": "30.0", "sync_flush_waits_ps": "10.0",
                               "sync_flush_pages_ps": "2000.0", "sync_flush_rounds_ps": "2.5",
                               "free_waits_ps": "4.0", "single_flushes_ps": "0.0",
                               "lru_flush_pages_ps": "1000.0", "wait_free_ps": "2.0", "free_pages": "0"})

    def test_checkpoints_a_second(self):
        out = X.columns(rnd(m_log_checkpoints=40), rnd(m_log_checkpoints=43), 1.5)
        self.assertEqual(out["checkpoints_ps"], "2.0")
        self.assertNotIn("checkpoints_ps", X.columns(rnd(), rnd(), 1.0))   # MariaDB: blank
        self.assertIn("log_checkpoints", X.METRICS)
        self.assertIn("SET GLOBAL innodb_monitor_enable = 'log_checkpoints'", X.enable_sql())

    def test_batches_a_second(self):
        prev = rnd(m_buffer_flush_batches=100, m_buffer_flush_batch_total_pages=5000,
                   m_buffer_lru_batches_flush=7, innodb_dblwr_writes=40, innodb_dblwr_pages_written=900)
        cur = rnd(m_buffer_flush_batches=130, m_buffer_flush_batch_total_pages=8000,
                  m_buffer_lru_batches_flush=27, innodb_dblwr_writes=100, innodb_dblwr_pages_written=2900)
        out = X.columns(prev, cur, 2.0)
        self.assertEqual((out["list_batches_ps"], out["list_batch_pages_ps"], out["lru_batches_ps"],
                          out["dblwr_writes_ps"], out["dblwr_pages_ps"]),
                         ("15.0", "1500.0", "10.0", "30.0", "1000.0"))
        self.assertNotIn("list_batches_ps", X.columns(rnd(), rnd(), 1.0))   # counters off: blank
        for name in ("buffer_flush_batches", "buffer_LRU_batches_flush"):
            self.assertIn(name, X.METRICS)
            self.assertIn("SET GLOBAL innodb_monitor_enable = '%s'" % name, X.enable_sql())
        self.assertIn("Innodb_dblwr_writes", X.STATUS)

    def test_upstreams_adaptive_flushing_inputs(self):
        cur = rnd(m_buffer_flush_n_to_flush_requested=1600, m_buffer_flush_n_to_flush_by_age=2400,
                  m_buffer_flush_avg_page_rate=1500, m_buffer_flush_lsn_avg_rate=3200000)
        out = X.columns(None, cur, 0)
        self.assertEqual((out["af_target"], out["af_by_age"], out["af_avg_page_rate"], out["af_lsn_avg_rate"]),
                         ("1600", "2400", "1500", "3200000"))
        self.assertNotIn("af_target", X.columns(None, rnd(), 0))   # MariaDB: blank
        for name in ("buffer_flush_n_to_flush_by_age", "buffer_flush_lsn_avg_rate"):
            self.assertIn(name, X.METRICS)
        self.assertIn("SET GLOBAL innodb_monitor_enable = 'buffer_flush_lsn_avg_rate'", X.enable_sql())

    def test_a_counter_reset_is_not_a_negative_rate(self):
        out = X.columns(rnd(m_buffer_flush_sync_waits=50), rnd(m_buffer_flush_sync_waits=0), 1.0)
        self.assertEqual(out["sync_flush_waits_ps"], "0.0")

    def test_collector_round_carries_the_metrics(self):
        sql = K.status_sql("mysql", 3)
        self.assertIn("information_schema.INNODB_METRICS", sql)
        for name in X.METRICS:
            self.assertIn("'%s'" % name, sql)
        for name in X.STATUS:
            self.assertIn("'%s'" % name, sql)
        self.assertIs(bool(sql.endswith("SELECT '__end__', 3;\n")), True)
        # every metric read is switched on by one of the patterns
        for name in X.METRICS:
            self.assertIs(any(name == p or (p.endswith("%") and name.startswith(p[:-1])) for p in X.ENABLE),
                          True, name)

    def test_server_row_has_the_cause_columns(self):
        v0 = rnd(innodb_checkpoint_age=45 * MiB, m_buffer_flush_sync_waits=0, **self.MARKS)
        v1 = rnd(innodb_checkpoint_age=85 * MiB, m_buffer_flush_sync_waits=12, **self.MARKS)
        row = K.server_row((1.0, v0), (2.0, v1), "mysql", 100 * MiB)
        self.assertEqual(row["ckpt_age_pct"], "85.00")
        self.assertEqual(row["ckpt_sync_pct"], "94.4")
        self.assertEqual(row["sync_flush_waits_ps"], "12.0")
        self.assertEqual(set(X.COLUMNS) - set(S.PER_SECOND_COLUMNS), set())


def wave(n_good=20, n_dip=5, base=1000, dip=200):
    """Per-second rows: n_good flat seconds, then n_dip seconds of a wave in
    which the checkpoint age passes the sync mark, the page cleaner flushes
    in sync mode and commits wait for redo space."""
    rows = []
    for i in range(1, n_good + n_dip + 1):
        bad = i > n_good
        rows.append({"second": str(i), "tps": str(dip if bad else base), "p99_ms": "300" if bad else "20",
                     "ckpt_sync_pct": "101" if bad else "60", "ckpt_async_pct": "112" if bad else "67",
                     "redo_space_waits_ps": "12" if bad else "0", "free_waits_ps": "0",
                     "sync_flush_pages_ps": "3000" if bad else "0",
                     "dev_w_iops": "7900" if bad else "2000", "dev_avg_queue": "12" if bad else "1",
                     "queue_len": "400" if bad else "0", "free_pages": "1000", "max_ms": "900" if bad else "40",
                     "oldest_async_pct": "105" if bad else "70", "pages_flushed_ps": "3100" if bad else "400"})
    return rows


class Dips(unittest.TestCase):
    def test_split(self):
        low, rest = X.dips(wave(), warmup=0)
        self.assertEqual((len(low), len(rest)), (5, 20))

    def test_table_sets_dips_against_the_rest(self):
        table, n = X.dip_table(wave(), warmup=0)
        self.assertEqual(n, 5)
        got = {label: (a, b) for label, a, b in table}
        self.assertEqual(got["ckpt age % of sync mark"], ("101", "60"))
        self.assertEqual(got["redo space waits/s"], ("12.0", "0.0"))
        self.assertEqual(got["sync flush pages/s"], ("3000", "0"))
        self.assertEqual(got["client queue"], ("400", "0"))
        self.assertNotIn("host disk %util", got)                   # no column: no line

    def test_verdict_names_the_sync_flush(self):
        v = X.verdict(wave(), warmup=0)
        self.assertIn("5 s below 50% of the mean TPS", v)
        self.assertIn("sync-mode flushing first rose above 0 at second 21 (checkpoint age 101% of the sync mark", v)
        self.assertIn("redo space waits first rose above 0 at second 21", v)
        self.assertIn("redo space waits averaged 12.0/s in the dips (0.0/s elsewhere)", v)
        self.assertIn("checkpoint age averaged 112% of the async mark (67% elsewhere)", v)
        self.assertNotIn("free-page", v)                           # none in this run

    def test_verdict_free_page_waits(self):
        rows = wave()
        for r in rows[-5:]:
            r.update(free_waits_ps="40", redo_space_waits_ps="0", sync_flush_pages_ps="0", ckpt_async_pct="50")
        v = X.verdict(rows, warmup=0)
        self.assertIn("free-page waits averaged 40.0/s in the dips (0.0/s elsewhere)", v)
        self.assertNotIn("sync-mode", v)
        self.assertNotIn("redo space", v)

    def test_troughs_of_a_shallow_wave(self):
        # A wave that never halves TPS: no dip, yet the troughs are read.
        rows = wave(n_dip=5, dip=600)
        v = X.verdict(rows, warmup=0)
        head = "no second below 50% of the mean TPS; 5 s below 70% of it (troughs); "
        self.assertEqual(v[:len(head)], head)
        self.assertIn("sync-mode flushing averaged 3000 pages/s in the troughs (0/s elsewhere)", v)
        self.assertIn("redo space waits averaged 12.0/s in the troughs", v)
        self.assertEqual(X.dip_kind(rows, 0), "trough")
        self.assertEqual(X.dip_table(rows, 0)[1], 5)
        self.assertEqual(X.dip_kind(wave(), 0), "dip")             # a real dip is read as one
        self.assertEqual(X.dip_table(wave(), 0)[1], 5)

    def test_wait_free_named_when_only_it_moves(self):
        rows = wave()
        for r in rows[-5:]:
            r.update(wait_free_ps="9", redo_space_waits_ps="0", sync_flush_pages_ps="0", ckpt_async_pct="50")
        self.assertIn("Innodb_buffer_pool_wait_free rose 9.0/s in the dips (0.0/s elsewhere)",
                      X.verdict(rows, warmup=0))

    def test_log_signatures(self):
        log = ("2026-11-24T20:05:36Z 0 [Warning] [MY-014084] [InnoDB] Threads are unable to reserve space in "
               "redo log which can't be reclaimed due to the 'log_checkpointer' consumer still lagging\n"
               "2026-11-24T20:05:48Z 0 [Warning] [MY-014084] [InnoDB] Threads are unable to reserve space in "
               "redo log ...\n"
               "2026-11-24T20:06:00Z 0 [Note] [MY-011953] [InnoDB] Page cleaner took 4337ms to flush 400 pages\n"
               "2026-11-24T20:06:01Z 0 [Note] [MY-010116] [Server] mysqld starting\n")
        self.assertEqual(X.log_signatures(log), {"redo_full_warnings": 2, "page_cleaner_warnings": 1,
                                                 "free_block_warnings": 0})
        self.assertEqual(X.log_signatures(""), {"redo_full_warnings": 0, "page_cleaner_warnings": 0,
                                                "free_block_warnings": 0})

    def test_flat_run_has_no_dip(self):
        self.assertEqual(X.verdict(wave(n_dip=0), warmup=0), "no second below 50% of the mean TPS")
        self.assertEqual(X.dip_table(wave(n_dip=0), warmup=0), ([], 0))

    def test_open_loop_dips_are_latency(self):
        rows = wave(n_dip=0)
        for r in rows[-3:]:
            r["p99_ms"] = "250"                 # TPS holds at the rate; latency breaks the SLA
        self.assertEqual(X.dips(rows, 0)[0], [])
        self.assertEqual(len(X.dips(rows, 0, sla_ms=100)[0]), 3)
        self.assertIn("3 s below 50% of the mean TPS or with p99 above the 100 ms SLA", X.verdict(rows, 0, sla_ms=100))
        self.assertEqual(X.dip_table(rows, 0, sla_ms=100)[1], 3)
        self.assertEqual(X.verdict(wave(n_dip=0), 0, sla_ms=100),
                         "no second below 50% of the mean TPS or with p99 above the 100 ms SLA")

    def test_warmup_left_out(self):
        rows = wave(n_good=20, n_dip=0)
        rows[0]["tps"] = "1"
        self.assertEqual(X.dips(rows, warmup=1)[0], [])
        self.assertEqual(len(X.dips(rows, warmup=0)[0]), 1)


class Summary(unittest.TestCase):
    def test_cause_figures(self):
        s = S.summarize_run(wave(), warmup=0, sla_ms=100)
        self.assertEqual(s["max_ckpt_sync_pct"], 101)
        self.assertEqual(s["redo_space_waits"], 60)
        self.assertEqual(s["sync_flush_pages"], 15000)
        self.assertEqual(s["free_waits"], 0)
        self.assertEqual(s["max_queue"], 400)
        self.assertEqual(s["max_latency_ms"], 900)
        self.assertEqual(s["secs_over_sla"], 5)
        self.assertIsNone(S.summarize_run(wave(), warmup=0)["secs_over_sla"])   # no SLA given
        # past the async mark: the 5 wave seconds, their flushing and writes
        self.assertEqual((s["secs_past_async"], s["flushed_past_async"], s["w_iops_past_async"]), (5, 3100, 7900))

    def test_past_async_none_or_blank(self):
        rows = wave(n_dip=0)
        s = S.summarize_run(rows, warmup=0)
        self.assertEqual((s["secs_past_async"], s["flushed_past_async"], s["w_iops_past_async"]), (0, None, None))
        for r in rows:
            r["oldest_async_pct"] = ""      # a server without the metric: unknown, not zero
        s = S.summarize_run(rows, warmup=0)
        self.assertEqual((s["secs_past_async"], s["flushed_past_async"]), (None, None))

    def test_markdown_has_the_causes(self):
        rows = wave()
        info = {"run_id": "01-vanilla-t16-r1", "server": "vanilla", "threads": 16, "repeat": 1, "status": "ok",
                "summary": S.summarize_run(rows, 0, 100)}
        table, n = X.dip_table(rows, 0)
        info["dips"] = {"verdict": X.verdict(rows, 0), "table": table, "seconds": n}
        md = S.summary_markdown([info])
        self.assertIn("### Stall causes per run", md)
        self.assertIn("| 01-vanilla-t16-r1 | vanilla | 1 | 101 | 60 | 15000 | 0 |", md)
        self.assertIn("#### 01-vanilla-t16-r1 (vanilla): 5 s below 50%", md)
        self.assertIn("| redo space waits/s | 12.0 | 0.0 |", md)
        self.assertIn("| mean over | dip seconds (5) | other seconds |", md)

    def test_markdown_names_troughs(self):
        rows = wave(dip=600)
        info = {"run_id": "01-vanilla-t16-r1", "server": "vanilla", "threads": 16, "repeat": 1, "status": "ok",
                "summary": S.summarize_run(rows, 0)}
        table, n = X.dip_table(rows, 0)
        info["dips"] = {"verdict": X.verdict(rows, 0), "table": table, "seconds": n, "kind": X.dip_kind(rows, 0)}
        md = S.summary_markdown([info])
        self.assertIn("| mean over | trough seconds (5) | other seconds |", md)
        self.assertIn("(troughs); sync-mode flushing first rose", md)


class Plot(unittest.TestCase):
    PLOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "plot")

    def test_causes_chart_written_for_cause_columns(self):
        if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode:
            self.skipTest("python3-matplotlib is not installed (bench/install-deps)")
        with tempfile.TemporaryDirectory() as d:
            rows = wave()
            for r in rows:
                r.update(run_id="01-vanilla-t16-r1", server="vanilla", threads="16", repeat="1",
                         scenario="checkpoint_wave", device="ssd")
            with open(os.path.join(d, "per_second.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=S.PER_SECOND_COLUMNS, extrasaction="ignore")
                w.writeheader()
                w.writerows(rows)
            out = subprocess.run([self.PLOT, d], capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("causes.png", out.stdout)
            self.assertGreater(os.path.getsize(os.path.join(d, "causes.png")), 10000)
            # without any cause column there is no such chart
            for r in rows:
                for c in X.COLUMNS:
                    r.pop(c, None)
            with open(os.path.join(d, "per_second.csv"), "w", newline="") as f:
                w = csv.DictWriter(f, fieldnames=S.PER_SECOND_COLUMNS, extrasaction="ignore")
                w.writeheader()
                w.writerows(rows)
            os.remove(os.path.join(d, "causes.png"))
            subprocess.run([self.PLOT, d], capture_output=True, timeout=120)
            self.assertIs(os.path.exists(os.path.join(d, "causes.png")), False)


class OpenLoop(unittest.TestCase):
    def test_queue_from_the_report_line(self):
        sec, cols = C.parse_report_line("SB,7,64,2400.00,2400.00,5.1,9.9,80.0,0.00,0.00,312\n")
        self.assertEqual((sec, cols["queue_len"]), (7, "312"))
        self.assertNotIn("queue_len", C.parse_report_line("SB,7,64,2400.00,2400.00,5.1,9.9,80.0,0.00,0.00\n")[1])

    def test_rate_becomes_a_run_argument(self):
        sc = build_scenario("open_loop")
        self.assertEqual(sc["run_args"], ["--rate=2600"])
        self.assertEqual(sc["sla_ms"], 100)
        self.assertEqual(build_scenario("open_loop", overrides={"rate": 1800})["run_args"], ["--rate=1800"])
        self.assertEqual(build_scenario("checkpoint_wave", overrides={"rate": 900})["run_args"], ["--rate=900"])
        self.assertNotIn("run_args", build_scenario("checkpoint_wave"))              # closed loop
        self.assertEqual(build_scenario("open_loop", overrides={"rate": 0}).get("run_args", []), [])   # 0: closed
        self.assertEqual(C.offered_rate(build_scenario("bulk_load")["run_args"]), 200)

    def test_bad_rate_and_sla(self):
        with self.assertRaises(ScenarioError):
            build_scenario("open_loop", overrides={"rate": -1})
        with self.assertRaises(ScenarioError):
            build_scenario("open_loop", overrides={"sla_ms": 0})

    def test_stall_scenarios_model_their_setting(self):
        a = build_scenario("checkpoint_wave")
        self.assertEqual((a["redo"], a["io_capacity"], a["duration"]), (100 * MiB, (200, 400), 600))
        hot = a["tables"] * a["table_size"] * 240         # ~240 bytes a sysbench row on disk
        self.assertLess(hot, 0.8 * a["buffer_pool"])      # the hot set fits the pool
        self.assertGreaterEqual(hot / a["redo"], 25)      # and dwarfs the redo: waves, not jitter
        b = build_scenario("free_page_wait")
        data = b["tables"] * b["table_size"] * 240        # ~240 bytes a sysbench row on disk
        self.assertGreaterEqual(data / b["buffer_pool"], 6)   # several times the pool
        self.assertGreaterEqual(b["duration"], 600)
        self.assertEqual(b["io_capacity"], (200, 2000))   # at the device's rating no thread waited


if __name__ == "__main__":
    unittest.main()

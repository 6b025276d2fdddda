"""lab.collect: the status round's SQL, the per-second server and device
columns from known counters, the persistent status client against a fake
client that speaks the '__end__' protocol, and the Collector's loop on the
run's clock with a fake poller and fake diskstats.

Run: python3 -m unittest discover -s bench/tests -v
"""

import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest
from unittest import mock

import fakes
from harness import device
from lab import collect as K
from lab import summary as S

MiB = 1024 ** 2

# A status client: answers each round (the statements up to SELECT '__end__')
# with counters that grow by 10 a round, then the end marker.  argv: LOG MODE;
# LOG gets its argv and each round's number; MODE slow2 holds round 2 back
# 1 s, die2 exits at round 2.
FAKE_STATUS_CLIENT = r'''
import json, sys, time
log = open(sys.argv[1], "a")
mode = sys.argv[2]
log.write(json.dumps(sys.argv[3:]) + "\n")
log.flush()
rnd, out = 0, []
for line in sys.stdin:
    line = line.strip()
    if line.startswith("SHOW GLOBAL STATUS"):
        rnd += 1
        names = line.split("IN (", 1)[1].rstrip(");").replace("'", "").split(",")
        out = ["%s\t%d" % (n, 10 * rnd) for n in names]
    elif line.startswith("SELECT 'ps_"):
        out.append("%s\t7" % line.split("'")[1])
    elif line.startswith("SELECT '__end__'"):
        seq = int(line.split(",")[1].strip(" ;"))
        if mode == "slow2" and seq == 2:
            time.sleep(1.0)
        if mode == "die2" and seq == 2:
            sys.exit(0)
        log.write("%d\n" % seq)
        log.flush()
        print("\n".join(out + ["__end__\t%d" % seq]), flush=True)
'''


class StatusSql(unittest.TestCase):
    def test_mysql_round(self):
        sql = K.status_sql("mysql", 7)
        for name in K.STATUS_NAMES:
            self.assertIn("'%s'" % name, sql)
        self.assertIn("SELECT 'ps_binlog_misc', COUNT_MISC", sql)
        self.assertIn("SELECT 'ps_trx_rw', SUM(COUNT_READ_WRITE)", sql)
        self.assertIs(bool(sql.endswith("SELECT '__end__', 7;\n")), True)
        self.assertIs(bool(all(line.endswith(";") for line in sql.splitlines())), True)

    def test_mariadb_round_has_no_performance_schema(self):
        sql = K.status_sql("mariadb", 1)
        self.assertNotIn("performance_schema", sql)
        self.assertEqual(sql.splitlines()[-1], "SELECT '__end__', 1;")


class ServerRow(unittest.TestCase):
    def test_levels_only_without_previous_round(self):
        cur = (10.0, {"innodb_buffer_pool_pages_dirty": "250", "innodb_buffer_pool_pages_total": "1000",
                      "innodb_checkpoint_age": str(64 * MiB), "innodb_buffer_pool_pages_flushed": "5"})
        self.assertEqual(K.server_row(None, cur, "mysql", 256 * MiB),
                         {"dirty_pages": "250", "dirty_pct": "25.00", "ckpt_age_mb": "64.0", "ckpt_age_pct": "25.00"})

    def test_checkpoint_age_from_lsns(self):
        cur = (1.0, {"innodb_redo_log_current_lsn": str(100 * MiB), "innodb_redo_log_checkpoint_lsn": str(90 * MiB)})
        self.assertEqual(K.server_row(None, cur, "mysql", None), {"ckpt_age_mb": "10.0"})

    def test_mysql_rates(self):
        prev = (10.0, {"innodb_buffer_pool_pages_flushed": "100", "innodb_os_log_fsyncs": "10",
                       "ps_binlog_misc": "50", "ps_trx_rw": "1000", "innodb_data_fsyncs": "0",
                       "binlog_commits": "1000", "binlog_group_commits": "100",
                       "innodb_redo_log_flush_batches": "20"})
        cur = (12.0, {"innodb_buffer_pool_pages_flushed": "300", "innodb_os_log_fsyncs": "30",
                      "ps_binlog_misc": "90", "ps_trx_rw": "1400", "innodb_data_fsyncs": "999",
                      "binlog_commits": "1400", "binlog_group_commits": "140",
                      "innodb_redo_log_flush_batches": "60"})
        row = K.server_row(prev, cur, "mysql", None)
        self.assertEqual(row, {"pages_flushed_ps": "100.0", "redo_fsyncs_ps": "10.0", "binlog_syncs_ps": "20.0",
                               "commits_ps": "200.0", "innodb_fsyncs_ps": "499.5",
                               "group_commits_ps": "20.0", "commits_per_group": "10.00",
                               "redo_flush_batches_ps": "20.0"})

    def test_redo_bytes_per_second_from_either_lsn(self):
        prev = (10.0, {"innodb_redo_log_current_lsn": "1000"})
        cur = (12.0, {"innodb_redo_log_current_lsn": "5000"})
        self.assertEqual(K.server_row(prev, cur, "mysql", None)["redo_bytes_ps"], "2000")
        prev = (10.0, {"innodb_lsn_current": "7000"})
        cur = (11.0, {"innodb_lsn_current": "7494"})
        self.assertEqual(K.server_row(prev, cur, "mariadb", None)["redo_bytes_ps"], "494")
        self.assertNotIn("redo_bytes_ps", K.server_row(None, cur, "mariadb", None))

    def test_mariadb_sources(self):
        prev = (0.0, {"innodb_data_fsyncs": "0", "innodb_os_log_fsyncs": "0", "binlog_group_commits": "0",
                      "binlog_commits": "0", "ps_binlog_misc": "0"})
        cur = (1.0, {"innodb_data_fsyncs": "5", "innodb_os_log_fsyncs": "999", "binlog_group_commits": "4",
                     "binlog_commits": "8", "ps_binlog_misc": "999"})
        row = K.server_row(prev, cur, "mariadb", None)
        self.assertEqual((row["redo_fsyncs_ps"], row["binlog_syncs_ps"], row["commits_ps"]), ("5.0", "4.0", "8.0"))
        self.assertEqual(row["commits_per_group"], "2.00")

    def test_adaptive_wait_columns(self):
        prev = (0.0, {"binlog_group_commits": "100", "binlog_group_commit_adaptive_waits": "10",
                      "binlog_group_commit_adaptive_wait_usec": "5000", "binlog_group_commit_sync_avg_usec": "900"})
        cur = (2.0, {"binlog_group_commits": "300", "binlog_group_commit_adaptive_waits": "50",
                     "binlog_group_commit_adaptive_wait_usec": "45000", "binlog_group_commit_sync_avg_usec": "1200"})
        row = K.server_row(prev, cur, "mysql", None)
        self.assertEqual((row["adaptive_waits_ps"], row["adaptive_wait_us_per_group"], row["binlog_fsync_avg_us"]),
                         ("20.0", "200.0", "1200"))
        for col in ("adaptive_waits_ps", "adaptive_wait_us_per_group", "binlog_fsync_avg_us"):
            self.assertIn(col, S.PER_SECOND_COLUMNS)
        # No group committed this second: no mean wait per group.
        still = (3.0, dict(cur[1], binlog_group_commit_adaptive_wait_usec="46000"))
        self.assertNotIn("adaptive_wait_us_per_group", K.server_row(cur, still, "mysql", None))

    def test_vanilla_leaves_group_commit_blank(self):
        prev = (0.0, {"innodb_buffer_pool_pages_flushed": "0"})
        cur = (1.0, {"innodb_buffer_pool_pages_flushed": "7", "binlog_group_commits": "3"})
        self.assertEqual(K.server_row(prev, cur, "mysql", None), {"pages_flushed_ps": "7.0"})

    def test_no_groups_no_ratio_and_no_time_no_rates(self):
        v = {"binlog_commits": "5", "binlog_group_commits": "5"}
        row = K.server_row((0.0, v), (1.0, v), "mysql", None)
        self.assertEqual(row, {"group_commits_ps": "0.0"})
        self.assertEqual(K.server_row((1.0, v), (1.0, dict(v, binlog_commits="9")), "mysql", None), {})


class DeviceRow(unittest.TestCase):
    A = {"reads": 0, "writes": 0, "write_ms": 0, "sectors_written": 0, "in_flight": 0, "io_ticks_ms": 0,
         "queue_ms": 0}
    B = {"reads": 100, "writes": 1500, "write_ms": 3000, "sectors_written": 2048, "in_flight": 1,
         "io_ticks_ms": 500, "queue_ms": 2000}

    def test_reads_size_and_latency(self):
        b = dict(self.B, sectors_read=4096, read_ms=250)
        row = K.device_row(dict(self.A, sectors_read=0, read_ms=0), b, 2.0, {})
        self.assertEqual((row["dev_r_mbps"], row["dev_r_await_ms"]), ("1.0", "2.50"))

    def test_with_caps(self):
        row = K.device_row(self.A, self.B, 1.0, {"write_iops": 3000, "read_iops": 3000})
        self.assertEqual(row, {"dev_r_iops": "100.0", "dev_w_iops": "1500.0", "dev_w_mbps": "1.0",
                               "dev_util_pct": "50.0", "dev_avg_queue": "2.0", "dev_cap_pct": "50.0",
                               "dev_w_await_ms": "2.00", "dev_r_mbps": "0.0", "dev_r_await_ms": "0.00"})

    def test_host_disk_columns(self):
        row = K.device_row(self.A, self.B, 1.0, {}, self.A, dict(self.A, writes=300, io_ticks_ms=900))
        self.assertEqual((row["host_w_iops"], row["host_util_pct"]), ("300.0", "90.0"))
        self.assertNotIn("host_w_iops", K.device_row(self.A, self.B, 1.0, {}, None, self.B))

    def test_host_cpu_columns(self):
        a = {"busy": 1000, "idle": 5000, "iowait": 10, "steal": 0}
        b = {"busy": 1150, "idle": 5040, "iowait": 15, "steal": 8}
        # 2 s at 100 ticks/s: 150 busy ticks are 75 % of one core
        self.assertEqual(K.host_cpu_row(a, b, 100, 2.0),
                         {"host_cpu_pct": "75.0", "host_iowait_pct": "2.5", "host_steal_pct": "4.0"})
        self.assertEqual(K.host_cpu_row(None, b, 100, 2.0), {})

    def test_log_device_columns(self):
        before = dict(self.A, flushes=1000, flush_ms=40)
        after = dict(self.B, flushes=3000, flush_ms=140)
        row = K.log_device_row(before, after, 2.0)
        self.assertEqual(row, {"log_w_iops": "750.0", "log_w_mbps": "0.5", "log_w_await_ms": "2.000",
                               "log_util_pct": "25.0", "log_flush_ps": "1000.0", "log_flush_ms": "0.050"})
        self.assertEqual(K.log_device_row(None, after, 1.0), {})
        self.assertEqual(K.log_device_row(before, before, 0), {})

    def test_without_caps_or_samples(self):
        self.assertNotIn("dev_cap_pct", K.device_row(self.A, self.B, 1.0, {}))
        self.assertEqual(K.device_row(None, self.B, 1.0, {}), {})
        self.assertEqual(K.device_row(self.A, None, 1.0, {}), {})
        self.assertEqual(K.device_row(self.A, self.B, 0, {}), {})


class Clock(unittest.TestCase):
    def test_mark_and_release(self):
        c = K.RunClock()
        self.assertFalse(c.started.is_set())
        c.mark()
        self.assertIs(bool(c.started.is_set()), True)
        self.assertAlmostEqual(c.t_start, time.monotonic(), delta=1)
        self.assertAlmostEqual(c.t_start_epoch, time.time(), delta=1)
        c = K.RunClock()
        c.release()
        self.assertIs(bool(c.started.is_set()), True)
        self.assertIsNone(c.t_start)


class Poller(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="steady-test-collect-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.script = fakes.write_script(os.path.join(self.tmp, "client"), FAKE_STATUS_CLIENT)
        self.log = os.path.join(self.tmp, "client.log")
        self.err = open(os.path.join(self.tmp, "client.err"), "w")
        self.addCleanup(self.err.close)

    def poller(self, mode, flavour="mysql"):
        p = K.StatusPoller([self.script, self.log, mode, "--socket=/s"], flavour, self.err)
        self.addCleanup(self.stop, p)
        return p

    def stop(self, p):
        fakes.kill_quietly(p.proc)
        p.reader.join(timeout=5)
        for f in (p.proc.stdin, p.proc.stdout):
            try:
                f.close()
            except OSError:
                pass

    def rounds(self):
        with open(self.log) as f:
            return f.read().splitlines()[1:]

    def test_rounds_come_back(self):
        p = self.poller("ok")
        p.poll(5)
        t1, v1 = p.latest
        self.assertEqual(v1["innodb_buffer_pool_pages_dirty"], "10")     # names lowercased
        self.assertEqual(v1["ps_binlog_misc"], "7")
        self.assertEqual(set(v1), {n.lower() for n in K.STATUS_NAMES} | {"ps_binlog_misc", "ps_trx_rw"})
        p.poll(5)
        t2, v2 = p.latest
        self.assertGreater(t2, t1)
        self.assertEqual(v2["innodb_buffer_pool_pages_dirty"], "20")
        self.assertEqual(self.rounds(), ["1", "2"])
        with open(self.log) as f:
            self.assertEqual(f.readline().strip(), '["--socket=/s", "-N", "-B", "--unbuffered", "--force"]')
        p.close()
        self.assertEqual(p.proc.returncode, 0)      # stdin closed: the client ended

    def test_late_round_is_not_repeated(self):
        p = self.poller("slow2")
        p.poll(5)
        first = p.latest
        t0 = time.monotonic()
        p.poll(0.2)                                 # round 2 does not come back in time
        self.assertLess(time.monotonic() - t0, 1)
        self.assertIs(p.latest, first)
        self.assertIs(bool(p.pending), True)
        p.poll(0.2)                                 # still pending: no round 3 asked
        self.assertEqual(p.seq, 2)
        p.poll(5)                                   # waits for the pending round
        self.assertIsNot(p.latest, first)
        self.assertEqual(p.latest[1]["innodb_buffer_pool_pages_dirty"], "20")
        self.assertEqual(self.rounds(), ["1", "2"])

    def test_client_death_ends_polling(self):
        p = self.poller("die2")
        p.poll(5)
        p.poll(5)
        deadline = time.monotonic() + 5
        while p.alive and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(p.alive)
        t0 = time.monotonic()
        p.poll(5)                                   # returns at once, no error
        self.assertLess(time.monotonic() - t0, 1)
        self.assertEqual(p.latest[1]["innodb_buffer_pool_pages_dirty"], "10")

    def test_mariadb_rounds(self):
        p = self.poller("ok", flavour="mariadb")
        p.poll(5)
        self.assertNotIn("ps_binlog_misc", p.latest[1])


class FakePoller:
    """Counters that grow at a known rate per second of wall time."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.latest = None
        self.polls = 0

    def poll(self, wait):
        self.polls += 1
        now = time.monotonic()
        el = now - self.t0
        self.latest = (now, {"innodb_buffer_pool_pages_flushed": str(100 * el),
                             "innodb_buffer_pool_pages_dirty": "50", "innodb_buffer_pool_pages_total": "100",
                             "ps_trx_rw": str(400 * el)})


class CollectorLoop(unittest.TestCase):
    def fake_diskstats(self, t0):
        def read(name):
            self.names.append(name)
            el = time.monotonic() - t0
            return {"reads": 0, "writes": int(1000 * el), "write_ms": 0, "sectors_written": 0, "in_flight": 0,
                    "io_ticks_ms": int(250 * el), "queue_ms": 0}
        return read

    def test_rows_keyed_by_second(self):
        self.names = []
        gone = subprocess.Popen(["true"])
        gone.wait()
        poller, clock, stop = FakePoller(), K.RunClock(), threading.Event()
        coll = K.Collector(poller, clock, stop, {"mysqld": os.getpid(), "sysbench": gone.pid}, "loop42",
                           {"write_iops": 2000}, "mysql", 100 * MiB)
        with mock.patch.object(device, "read_diskstats", self.fake_diskstats(time.monotonic())):
            t = threading.Thread(target=coll.loop, daemon=True)
            t.start()
            clock.mark()
            time.sleep(2.3)
            stop.set()
            t.join(timeout=5)
        self.assertFalse(t.is_alive())
        self.assertEqual(sorted(coll.rows), [1, 2])
        self.assertEqual(set(self.names), {"loop42"})
        for k, row in coll.rows.items():
            self.assertAlmostEqual(float(row["dev_w_iops"]), 1000, delta=20)
            self.assertAlmostEqual(float(row["dev_cap_pct"]), 50, delta=2)
            self.assertAlmostEqual(float(row["dev_util_pct"]), 25, delta=2)
            self.assertAlmostEqual(float(row["pages_flushed_ps"]), 100, delta=10)
            self.assertAlmostEqual(float(row["commits_ps"]), 400, delta=40)
            self.assertEqual(row["dirty_pct"], "50.00")
            self.assertIn("mysqld_cpu_pct", row)            # this process: measurable
            self.assertNotIn("sysbench_cpu_pct", row)       # gone: no column, no error
            self.assertGreaterEqual(float(row["host_cpu_pct"]), 0)   # the host's /proc/stat, every second
        self.assertGreaterEqual(poller.polls, 3)             # one before second 1, one a second
        self.assertIsNotNone(coll.own_cpu_pct(0))

    def test_no_start_no_rows(self):
        poller, clock, stop = FakePoller(), K.RunClock(), threading.Event()
        coll = K.Collector(poller, clock, stop, {}, "loop42", {}, "mysql", None)
        stop.set()
        clock.release()
        t0 = time.monotonic()
        coll.loop()
        self.assertLess(time.monotonic() - t0, 1)
        self.assertEqual((coll.rows, poller.polls), ({}, 0))


if __name__ == "__main__":
    unittest.main()

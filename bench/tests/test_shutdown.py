"""lab.shutdown: the timed clean shutdown after a run (--shutdown clean),
against a fake instance; and its summary table.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
import os
import tempfile
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository on sys.path)
from fakes import FakeSql
from lab import shutdown as SD


class FakeInstance:
    """Records the order of what it is asked; stop() advances the fake clock
    by `takes` seconds and reports whether it stopped."""

    def __init__(self, sql, clock, takes, stops=True):
        self.sql, self.clock, self.takes, self.stops = sql, clock, takes, stops
        self.stop_calls = []

    def stop(self, timeout=300, discard=False, how="term"):
        self.stop_calls.append({"timeout": timeout, "discard": discard,
                                "after": list(self.sql.statements)})
        self.clock.now += self.takes
        return self.stops


class Clock:
    now = 100.0

    def __call__(self):
        return self.now


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


class CleanShutdown(unittest.TestCase):
    def shut(self, takes, stops=True, dirty="4321", mode="clean"):
        clock = Clock()
        sql = FakeSql({}, dirty=[dirty])
        inst = FakeInstance(sql, clock, takes, stops)
        with quiet():
            facts, error = SD.clean_shutdown(inst, "r1", timeout=60, clock=clock, mode=mode)
        return facts, error, inst

    def test_writes_the_dirty_pages_and_times_the_stop(self):
        facts, error, inst = self.shut(takes=12.34)
        self.assertIsNone(error)
        self.assertEqual(facts, {"shutdown_dirty_pages": 4321, "shutdown_s": 12.3, "shutdown_fast": 1,
                                 "shutdown_server_s": None, "shutdown_innodb_s": None})
        [call] = inst.stop_calls
        # a stop that writes every dirty page, not the discarding one the lab uses otherwise
        self.assertEqual(call["discard"], False)
        self.assertEqual(call["timeout"], 60)
        # the dirty pages are read, and fast_shutdown set to MySQL's default, before the stop
        self.assertEqual(call["after"], ["SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'",
                                         "SET GLOBAL innodb_fast_shutdown=1"])

    def test_slow_shutdown_sets_fast_shutdown_0_before_the_stop(self):
        facts, error, inst = self.shut(takes=3.0, mode="slow")
        self.assertIsNone(error)
        self.assertEqual(facts["shutdown_fast"], 0)
        [call] = inst.stop_calls
        self.assertEqual(call["after"][-1], "SET GLOBAL innodb_fast_shutdown=0")
        _, error, _ = self.shut(takes=60.0, stops=False, mode="slow")
        self.assertEqual(error, "slow shutdown: not stopped in 60 s, killed")

    def test_a_stop_past_the_timeout_fails_the_run(self):
        facts, error, _ = self.shut(takes=60.0, stops=False)
        self.assertEqual(facts["shutdown_s"], 60.0)
        self.assertEqual(error, "clean shutdown: not stopped in 60 s, killed")

    def test_unknown_dirty_count_is_blank(self):
        facts, error, _ = self.shut(takes=1.0, dirty=None)
        self.assertIsNone(error)
        self.assertIsNone(facts["shutdown_dirty_pages"])


# A MySQL 9.7.2 stop at log_error_verbosity=3, as the lab's error logs have
# it (docs/bench/2026-12-07-shutdown-phases, run 01), trimmed.
STOP_LOG = """\
2026-12-07T12:47:50.462556Z 0 [System] [MY-013172] [Server] Received SHUTDOWN from user <via user signal>. Shutting down mysqld (Version: 9.7.2-steady).
2026-12-07T12:47:50.465804Z 0 [Note] [MY-012330] [InnoDB] FTS optimize thread exiting.
2026-12-07T12:47:51.199092Z 0 [Note] [MY-010120] [Server] Binlog end
2026-12-07T12:47:51.201374Z 0 [Note] [MY-013072] [InnoDB] Starting shutdown...
2026-12-07T12:47:51.414982Z 0 [Note] [MY-013084] [InnoDB] Log background threads are being closed...
2026-12-07T12:47:52.321035Z 0 [Note] [MY-012980] [InnoDB] Shutdown completed; log sequence number 3024634752
2026-12-07T12:47:52.323666Z 0 [System] [MY-010910] [Server] mysqld: Shutdown complete (mysqld 9.7.2-steady)  Steady
"""
# An earlier stop in the same log (the server restarted since).
EARLIER_STOP = """\
2026-12-07T12:40:00.000000Z 0 [System] [MY-013172] [Server] Received SHUTDOWN from user <via user signal>.
2026-12-07T12:40:05.000000Z 0 [Note] [MY-013072] [InnoDB] Starting shutdown...
2026-12-07T12:40:09.000000Z 0 [Note] [MY-012980] [InnoDB] Shutdown completed; log sequence number 1
"""


class StopPhases(unittest.TestCase):
    def test_the_two_phases_of_a_stop(self):
        self.assertEqual(SD.stop_phases(STOP_LOG), {"shutdown_server_s": 0.74, "shutdown_innodb_s": 1.12})

    def test_the_last_stop_in_the_log_counts(self):
        self.assertEqual(SD.stop_phases(EARLIER_STOP + STOP_LOG),
                         {"shutdown_server_s": 0.74, "shutdown_innodb_s": 1.12})

    def test_a_log_without_the_notes_gives_no_phases(self):
        # the default verbosity logs the receipt and the end only
        system_only = "\n".join(l for l in STOP_LOG.splitlines() if "[System]" in l)
        self.assertEqual(SD.stop_phases(system_only), {"shutdown_server_s": None, "shutdown_innodb_s": None})
        self.assertEqual(SD.stop_phases(""), {"shutdown_server_s": None, "shutdown_innodb_s": None})


class LoggingInstance(FakeInstance):
    """A fake instance with an error log: its stop appends `stop_log`, the
    way mysqld logs its stop, but only the Notes if verbosity 3 was set."""

    def __init__(self, sql, clock, takes, errlog, stop_log):
        super().__init__(sql, clock, takes)
        self.errlog, self.stop_log = errlog, stop_log

    def stop(self, timeout=300, discard=False, how="term"):
        noted = "SET GLOBAL log_error_verbosity=3" in self.sql.statements
        lines = [l for l in self.stop_log.splitlines() if noted or "[System]" in l]
        with open(self.errlog, "a") as f:
            f.write("\n".join(lines) + "\n")
        return super().stop(timeout, discard, how)


class CleanShutdownPhases(unittest.TestCase):
    def test_the_stop_is_logged_and_its_phases_read(self):
        with tempfile.TemporaryDirectory() as d:
            errlog = os.path.join(d, "mysqld.err")
            with open(errlog, "w") as f:
                f.write(EARLIER_STOP)    # the run's own log, with a stop before the measured one
            clock = Clock()
            inst = LoggingInstance(FakeSql({}, dirty=["17500"]), clock, 1.86, errlog, STOP_LOG)
            with quiet():
                facts, error = SD.clean_shutdown(inst, "r1", timeout=60, clock=clock)
        self.assertIsNone(error)
        self.assertEqual(facts["shutdown_server_s"], 0.74)
        self.assertEqual(facts["shutdown_innodb_s"], 1.12)
        [call] = inst.stop_calls
        self.assertEqual(call["after"][-1], "SET GLOBAL log_error_verbosity=3")

    def test_a_missing_log_gives_blank_phases_not_a_failure(self):
        clock = Clock()
        inst = LoggingInstance(FakeSql({}, dirty=["10"]), clock, 1.0, "/nonexistent/mysqld.err", STOP_LOG)
        inst.stop = lambda timeout=300, discard=False, how="term": True
        with quiet():
            facts, error = SD.clean_shutdown(inst, "r1", timeout=60, clock=clock)
        self.assertIsNone(error)
        self.assertIsNone(facts["shutdown_innodb_s"])


def info(server, secs, dirty=1000, status="ok", fast=1, before=None, innodb=None):
    return {"server": server, "status": status, "shutdown_s": secs, "shutdown_dirty_pages": dirty,
            "shutdown_fast": fast, "shutdown_server_s": before, "shutdown_innodb_s": innodb}


class Markdown(unittest.TestCase):
    def test_no_table_without_a_timed_shutdown(self):
        self.assertEqual(SD.markdown([{"server": "a", "status": "ok"}], "a"), "")

    def test_means_and_ratio_to_the_baseline(self):
        md = SD.markdown([info("off", 10.0, 3000), info("on", 6.0, 1000), info("off", 14.0, 5000),
                          info("on", 8.0, 2000), info("on", 99.0, status="failed")], "off")
        self.assertIn("| server | runs | dirty pages at stop | shutdown s | shutdown s / off |", md)
        self.assertIn("| off | 2 | 4000 | 12.0 | 1.00x |", md)
        self.assertIn("| on | 2 | 1500 | 7.0 | 0.58x |", md)   # the failed run is not averaged in

    def test_the_title_names_the_mode(self):
        self.assertIn("(innodb_fast_shutdown=1, caps in force)", SD.markdown([info("a", 3.0)], None))
        self.assertIn("(innodb_fast_shutdown=0, caps in force)", SD.markdown([info("a", 3.0, fast=0)], None))

    def test_phases_and_innodbs_ratio_to_the_baseline(self):
        md = SD.markdown([info("off", 1.5, before=0.5, innodb=0.9), info("on", 2.3, before=1.3, innodb=0.95),
                          info("off", 1.7, before=0.7, innodb=0.9), info("on", 2.1, before=1.2, innodb=0.85)],
                         "off")
        self.assertIn("| server | runs | dirty pages at stop | shutdown s | shutdown s / off "
                      "| before InnoDB's part s | InnoDB's part s | InnoDB's part / off |", md)
        self.assertIn("| off | 2 | 1000 | 1.6 | 1.00x | 0.60 | 0.90 | 1.00x |", md)
        # the whole stop 1.38x, InnoDB's part, where the flushing is, 1.00x
        self.assertIn("| on | 2 | 1000 | 2.2 | 1.38x | 1.25 | 0.90 | 1.00x |", md)
        self.assertIn("InnoDB's part: from InnoDB's `Starting shutdown`", md)

    def test_without_phases_no_phase_columns(self):
        md = SD.markdown([info("off", 1.5), info("on", 2.0)], "off")
        self.assertNotIn("InnoDB's part", md)

    def test_without_a_baseline_no_ratio_column(self):
        md = SD.markdown([info("a", 3.0)], None)
        self.assertIn("| a | 1 | 1000 | 3.0 |", md)
        self.assertNotIn("/", md.split("\n")[4])


class RunsCsv(unittest.TestCase):
    def test_columns_only_where_a_shutdown_was_timed(self):
        from lab import report as R
        self.assertNotIn("shutdown_s", R.run_columns([{"server": "a"}]))
        cols = R.run_columns([info("a", 1.0)])
        self.assertEqual(cols[cols.index("shutdown_dirty_pages"):][:5],
                         ["shutdown_dirty_pages", "shutdown_s", "shutdown_fast", "shutdown_server_s",
                          "shutdown_innodb_s"])


if __name__ == "__main__":
    unittest.main()

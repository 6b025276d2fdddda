"""lab.shutdown: the timed clean shutdown after a run (--shutdown clean),
against a fake instance; and its summary table.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
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
        self.assertEqual(facts, {"shutdown_dirty_pages": 4321, "shutdown_s": 12.3, "shutdown_fast": 1})
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


def info(server, secs, dirty=1000, status="ok", fast=1):
    return {"server": server, "status": status, "shutdown_s": secs, "shutdown_dirty_pages": dirty,
            "shutdown_fast": fast}


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

    def test_without_a_baseline_no_ratio_column(self):
        md = SD.markdown([info("a", 3.0)], None)
        self.assertIn("| a | 1 | 1000 | 3.0 |", md)
        self.assertNotIn("/", md.split("\n")[4])


class RunsCsv(unittest.TestCase):
    def test_columns_only_where_a_shutdown_was_timed(self):
        from lab import report as R
        self.assertNotIn("shutdown_s", R.run_columns([{"server": "a"}]))
        cols = R.run_columns([info("a", 1.0)])
        self.assertEqual(cols[cols.index("shutdown_dirty_pages"):][:3],
                         ["shutdown_dirty_pages", "shutdown_s", "shutdown_fast"])


if __name__ == "__main__":
    unittest.main()

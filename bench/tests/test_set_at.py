"""lab.set_at: --set-at's parsing and quoting, and the switcher that runs
each SET GLOBAL at its second of the run's clock, records when it
completed and what failed, and runs nothing once the run has ended.

Run: python3 -m unittest discover -s bench/tests -v
"""

import threading
import time
import unittest

import fakes  # noqa: F401 - puts bench/ and the repository root on sys.path
from lab import set_at as SA
from lab.collect import RunClock


class Parse(unittest.TestCase):
    def test_all_servers_or_one(self):
        got = SA.parse(["120:on:innodb_x=ON", "30:innodb_y=5"], ["on", "off"])
        self.assertEqual(got, [(30.0, None, "innodb_y", "5"), (120.0, "on", "innodb_x", "ON")])
        self.assertEqual(SA.for_arm(got, ("on", "on")), [(30.0, "innodb_y", "5"), (120.0, "innodb_x", "ON")])
        self.assertEqual(SA.for_arm(got, ("off", "off")), [(30.0, "innodb_y", "5")])

    def test_bad_input_is_refused(self):
        for bad in ["abc", "x:innodb_x=1", "-1:innodb_x=1", "10:innodb_x", "10:nobody:innodb_x=1",
                    "10:innodb x=1", "10:x;DROP=1"]:
            with self.assertRaises(SA.SetAtError, msg=bad):
                SA.parse([bad], ["on"])

    def test_values_quoted_unless_numbers_or_words(self):
        self.assertEqual(SA.statement("a", "ON"), "SET GLOBAL a = ON")
        self.assertEqual(SA.statement("a", "2.5"), "SET GLOBAL a = 2.5")
        self.assertEqual(SA.statement("a", "8:0"), "SET GLOBAL a = '8:0'")
        self.assertEqual(SA.statement("a", "it's"), "SET GLOBAL a = 'it\\'s'")


class Switcher(unittest.TestCase):
    def run_switcher(self, changes, run_sql, end_after):
        clock, stop = RunClock(), threading.Event()
        sw = SA.Switcher(changes, run_sql, clock, stop)
        sw.start()
        clock.mark()
        time.sleep(end_after)
        stop.set()
        sw.join(5)
        self.assertFalse(sw.thread.is_alive())
        return sw.done

    def test_each_statement_at_its_second(self):
        ran = []
        done = self.run_switcher([(0.2, "a", "ON"), (0.5, "b", "'x'")],
                                 lambda stmt: ran.append((stmt, time.monotonic())), 0.8)
        self.assertEqual([s for s, _ in ran], ["SET GLOBAL a = ON", "SET GLOBAL b = '\\'x\\''"])
        self.assertEqual([d["option"] for d in done], ["a", "b"])
        self.assertGreaterEqual(done[0]["done_s"], 0.2)
        self.assertLess(done[0]["done_s"], 0.45)
        self.assertGreaterEqual(done[1]["done_s"], 0.5)
        self.assertEqual(SA.column(done)[:6], "0.2:a=")

    def test_nothing_after_the_run_ends(self):
        ran = []
        done = self.run_switcher([(0.1, "a", "1"), (30, "b", "2")], ran.append, 0.3)
        self.assertEqual(ran, ["SET GLOBAL a = 1"])
        self.assertEqual(len(done), 1)

    def test_a_failure_is_recorded_and_the_next_still_runs(self):
        def run(stmt):
            if " a " in stmt:
                return "ERROR 1193 (HY000): Unknown system variable 'a'"
            if " b " in stmt:
                raise RuntimeError("client gone")
            return None
        done = self.run_switcher([(0, "a", "1"), (0, "b", "1"), (0, "c", "1")], run, 0.3)
        self.assertEqual([d["error"] is None for d in done], [False, False, True])
        self.assertIn("a=1 failed: ERROR 1193", SA.column(done))
        self.assertIn("b=1 failed: client gone", SA.column(done))

    def test_a_run_that_never_started_runs_nothing(self):
        clock, stop = RunClock(), threading.Event()
        ran = []
        sw = SA.Switcher([(0, "a", "1")], ran.append, clock, stop)
        sw.start()
        stop.set()
        clock.release()
        sw.join(5)
        self.assertEqual((ran, sw.done), ([], []))


if __name__ == "__main__":
    unittest.main()

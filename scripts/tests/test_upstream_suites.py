"""scripts/upstream-suites: parsing mtr's output into verdicts, the CSV round
trip, the Steady-vs-vanilla diff and its exit status, and the command line
(a fake mtr in a temporary STEADY_CACHE stands in for the real builds; no
server is started).

Run: python3 -m unittest discover -s scripts/tests -v
"""

import datetime
import importlib.machinery
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(SCRIPTS, "upstream-suites")


def load_script():
    """The script has no .py suffix: load it by path, without writing a
    .pyc next to it."""
    loader = importlib.machinery.SourceFileLoader("upstream_suites_under_test", SCRIPT)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        loader.exec_module(mod)
    finally:
        sys.dont_write_bytecode = saved
    return mod


U = load_script()

# A Steady run in mtr's own format (lib/mtr_report.pm): combinations, a
# skip before any worker took the test (no worker tag), disabled, fails
# with their diagnostics, a fail then retry-pass, a fail then retry-fail,
# a test run without worker tag (--parallel=1), a timestamped line, the
# shutdown_report pseudo-test and the summary.
STEADY_LOG = """\
Logging: /root/.cache/steady/tree/steady/mysql-test/mysql-test-run.pl  --suite=binlog,innodb,main,sys_vars --vardir=/root/.cache/steady/upstream-var/steady --force --retry=0 --max-test-fail=0 --parallel=2
MySQL Version 9.7.2
Checking supported features
Using suites: binlog,innodb,main,sys_vars
Collecting tests
 - Adding combinations for binlog
Removing old var directory
Creating var directory '/root/.cache/steady/upstream-var/steady'
Installing system database
Using parallel: 2

==============================================================================
                  TEST NAME                   WORKER RESULT  TIME (ms) COMMENT
------------------------------------------------------------------------------
worker[1] mysql-test-run: WARNING: running this script as _root_ will cause some tests to be skipped
[  4%] binlog.binlog_foo 'mix'                  [ skipped ]  Doesn't support --binlog-format = 'mixed'
[  8%] binlog.binlog_foo 'row'                  w1  [ pass ]   2531
[ 12%] binlog.binlog_foo 'stmt'                 w2  [ pass ]   2210
[ 16%] main.x                                   [ disabled ]  Bug#12345 fails when the moon is full
[ 20%] innodb.bar                               w2  [ fail ]
        Test ended at 2026-11-24 11:02:03

CURRENT_TEST: innodb.bar
mysqltest: At line 32: Query 'SELECT * FROM t9' failed.
ERROR 1146 (42S02): Table 'test.t9' doesn't exist
The result from queries just before the failure was:
CREATE TABLE t1 (a INT) ENGINE=InnoDB;
safe_process[12345]: Child process: 12346, exit: 1

 - the logfile can be found in '/root/.cache/steady/upstream-var/steady/log/innodb.bar/bar.log'

[ 24%] innodb.flaky                             w1  [ fail ]
        Test ended at 2026-11-24 11:02:09

CURRENT_TEST: innodb.flaky
--- /root/.cache/steady/tree/steady/mysql-test/suite/innodb/r/flaky.result	2026-11-24 10:00:00
+++ /root/.cache/steady/upstream-var/steady/log/flaky.reject	2026-11-24 11:02:09
@@ -1,2 +1,2 @@
-a
+b
mysqltest: Result content mismatch

[ 24%] innodb.flaky                             w1  [ retry-pass ]   1200
[ 28%] innodb.warn                              w2  [ fail ]  Found warnings/errors in error log file!
        Test ended at 2026-11-24 11:05:00
line
2026-11-24T11:04:59.123456Z 0 [ERROR] [MY-012345] [InnoDB] Something bad happened
^ Found warnings in /root/.cache/steady/upstream-var/steady/log/mysqld.1.err
ok

[ 32%] innodb.slow                              w1  [ fail ]  timeout after 900 seconds
        Test ended at 2026-11-24 11:20:00

Test case timeout after 900 seconds

[ 36%] innodb.retried                           w2  [ fail ]
        Test ended at 2026-11-24 11:21:00

CURRENT_TEST: innodb.retried
mysqltest: At line 1: first try
[ 36%] innodb.retried                           w2  [ retry-fail ]
        Test ended at 2026-11-24 11:21:30

CURRENT_TEST: innodb.retried
mysqltest: At line 2: second try
[ 40%] innodb.big_one                           [ skipped ]  Test needs 'big-test' or 'only-big-test' option.
[ 44%] innodb.only_skipped_on_steady            w1  [ skipped ]  Requires a feature Steady lacks
[ 48%] sys_vars.innodb_adaptive_flushing_io_device_basic w2  [ pass ]      6
[ 52%] main.no_worker                           [ pass ]     33
261124 11:22:01 [ 56%] main.stamped                           w1  [ pass ]      5
[100%] shutdown_report                          w0  [ pass ]       
------------------------------------------------------------------------------
The servers were restarted 9 times
The servers were reinitialized 0 times
Spent 138.218 of 412 seconds executing testcases

Completed: Failed 5/11 tests, 54.55% were successful.

Failing test(s): innodb.bar innodb.flaky innodb.retried innodb.slow innodb.warn

The log files in var/log may give you some hint of what went wrong.

2 tests were skipped, 1 by the test itself.

mysql-test-run: *** ERROR: there were failing test cases
upstream-suites: mtr exit status 1, wall time 415.5 s
"""

# Vanilla on the same suites: innodb.bar passes here (fails only on
# Steady), innodb.only_skipped_on_steady passes (skipped only on Steady),
# innodb.warn fails on both, main.only_vanilla_fails fails only here, and
# Steady's own new sys_vars test does not exist.
VANILLA_LOG = """\
==============================================================================
------------------------------------------------------------------------------
[  4%] binlog.binlog_foo 'mix'                  [ skipped ]  Doesn't support --binlog-format = 'mixed'
[  8%] binlog.binlog_foo 'row'                  w1  [ pass ]   2500
[ 12%] binlog.binlog_foo 'stmt'                 w2  [ pass ]   2200
[ 16%] main.x                                   [ disabled ]  Bug#12345 fails when the moon is full
[ 20%] innodb.bar                               w2  [ pass ]   4100
[ 24%] innodb.flaky                             w1  [ pass ]   1100
[ 28%] innodb.warn                              w2  [ fail ]  Found warnings/errors in error log file!
        Test ended at 2026-11-24 12:05:00
line
2026-11-24T12:04:59.123456Z 0 [ERROR] [MY-012345] [InnoDB] Something bad happened
^ Found warnings in /root/.cache/steady/upstream-var/vanilla/log/mysqld.1.err
ok

[ 32%] innodb.slow                              w1  [ pass ]  80000
[ 36%] innodb.retried                           w2  [ pass ]    900
[ 40%] innodb.big_one                           [ skipped ]  Test needs 'big-test' or 'only-big-test' option.
[ 44%] innodb.only_skipped_on_steady            w1  [ pass ]     77
[ 48%] main.only_vanilla_fails                  w2  [ fail ]
        Test ended at 2026-11-24 12:06:00

CURRENT_TEST: main.only_vanilla_fails
mysqltest: At line 3: vanilla-only trouble
[ 52%] main.no_worker                           [ pass ]     30
[ 56%] main.stamped                             w1  [ pass ]      4
[100%] shutdown_report                          w0  [ pass ]       
------------------------------------------------------------------------------
Completed: Failed 2/12 tests, 83.33% were successful.
upstream-suites: mtr exit status 1, wall time 390.0 s
"""

STEADY_VERDICTS = {
    "binlog.binlog_foo 'mix'": "skipped",
    "binlog.binlog_foo 'row'": "pass",
    "binlog.binlog_foo 'stmt'": "pass",
    "main.x": "disabled",
    "innodb.bar": "fail",
    "innodb.flaky": "pass",
    "innodb.warn": "fail",
    "innodb.slow": "fail",
    "innodb.retried": "fail",
    "innodb.big_one": "skipped",
    "innodb.only_skipped_on_steady": "skipped",
    "sys_vars.innodb_adaptive_flushing_io_device_basic": "pass",
    "main.no_worker": "pass",
    "main.stamped": "pass",
}


def parse(text):
    return U.parse_log(text.splitlines(True))


class ResultLines(unittest.TestCase):
    def test_pass_with_worker_and_time(self):
        self.assertEqual(
            U.parse_result_line("[ 41%] sys_vars.innodb_adaptive_flushing_io_device_basic w2  [ pass ]      6"),
            ("sys_vars.innodb_adaptive_flushing_io_device_basic", "pass", "6"))

    def test_combination_is_part_of_the_id(self):
        self.assertEqual(
            U.parse_result_line("[ 50%] binlog.binlog_foo 'mix'                 w1  [ skipped ]  "
                                "Test needs 'statement' binlog format"),
            ("binlog.binlog_foo 'mix'", "skipped", "Test needs 'statement' binlog format"))

    def test_two_combinations_and_odd_names(self):
        self.assertEqual(U.parse_result_line("[  1%] rpl.rpl-x_y.z 'row'  'innodb_page_size=4k' w1 [ fail ]"),
                         ("rpl.rpl-x_y.z 'row' 'innodb_page_size=4k'", "fail", ""))

    def test_fail_disabled_and_no_worker(self):
        self.assertEqual(U.parse_result_line("[ 52%] innodb.bar                              w2  [ fail ]"),
                         ("innodb.bar", "fail", ""))
        self.assertEqual(U.parse_result_line("[ 60%] main.x                                  [ disabled ]  reason text"),
                         ("main.x", "disabled", "reason text"))
        self.assertEqual(U.parse_result_line("main.y                                   [ pass ]     33"),
                         ("main.y", "pass", "33"))

    def test_timestamp_and_carriage_return_prefixes(self):
        self.assertEqual(U.parse_result_line("261124 11:22:01 [ 56%] main.stamped   w1  [ pass ]      5")[0],
                         "main.stamped")
        self.assertEqual(U.parse_result_line("\r          \r[ 56%] main.cr   w1  [ skipped ]  why\n"),
                         ("main.cr", "skipped", "why"))

    def test_shutdown_report(self):
        self.assertEqual(U.parse_result_line("[100%] shutdown_report                          w0  [ pass ]       "),
                         ("shutdown_report", "pass", ""))

    def test_other_lines_are_not_verdicts(self):
        for line in ("Completed: Failed 2/31 tests, 93.55% were successful.",
                     "Failing test(s): innodb.bar innodb.flaky",
                     "worker[1] mysql-test-run: WARNING: running this script as _root_ will cause some tests to be skipped",
                     "                  TEST NAME                   WORKER RESULT  TIME (ms) COMMENT",
                     "mysqltest: At line 32: Query 'SELECT * FROM t9' failed.",
                     "main.x [ passed ]", "[ 10%] main.x w1 [ unknown ]", ""):
            self.assertIsNone(U.parse_result_line(line), line)

    def test_normalize_verdict(self):
        cases = {"pass": "pass", "fail": "fail", "skipped": "skipped", "disabled": "disabled",
                 "retry-pass": "pass", "retry-fail": "fail", "noskip-pass": "pass", "noskip-fail": "fail",
                 "noskip-retry-fail": "fail", "opt-pass": "pass"}
        for raw, want in cases.items():
            self.assertEqual(U.normalize_verdict(raw), want, raw)
        with self.assertRaises(ValueError):
            U.normalize_verdict("exp-fail")


class FailReasons(unittest.TestCase):
    def test_mysqltest_line_with_its_error(self):
        self.assertEqual(U.fail_reason("", ["        Test ended at 2026-11-24 11:02:03", "",
                                            "CURRENT_TEST: innodb.bar",
                                            "mysqltest: At line 32: Query 'SELECT 1' failed.",
                                            "ERROR 1146 (42S02): Table 'test.t9' doesn't exist"]),
                         "mysqltest: At line 32: Query 'SELECT 1' failed. ERROR 1146 (42S02): Table 'test.t9' doesn't exist")

    def test_comment_on_the_verdict_line_comes_first(self):
        self.assertEqual(U.fail_reason("timeout after 900 seconds", ["Test ended at x", "", "Test case timeout"]),
                         "timeout after 900 seconds")
        r = U.fail_reason("Found warnings/errors in error log file!",
                          ["Test ended at x", "line", "2026-11-24T11:04:59Z 0 [ERROR] [MY-1] [InnoDB] Bad", "ok"])
        self.assertEqual(r, "Found warnings/errors in error log file! 2026-11-24T11:04:59Z 0 [ERROR] [MY-1] [InnoDB] Bad")

    def test_fallback_and_length(self):
        self.assertEqual(U.fail_reason("", ["        Test ended at x", "", "Server failed to restart"]),
                         "Server failed to restart")
        self.assertEqual(U.fail_reason("", []), "")
        self.assertLessEqual(len(U.fail_reason("x" * 1000, [])), U.REASON_MAX)


class ParseLog(unittest.TestCase):
    def setUp(self):
        self.run = parse(STEADY_LOG)

    def verdicts(self, run):
        return {t: v for t, (v, _) in run.results.items()}

    def test_every_verdict(self):
        self.assertEqual(self.verdicts(self.run), STEADY_VERDICTS)

    def test_counts(self):
        c = sum(U.count_by_suite(self.run.results).values(), U.Counter())
        self.assertEqual((c["pass"], c["fail"], c["skipped"], c["disabled"]), (6, 4, 3, 1))
        self.assertEqual(U.count_by_suite(self.run.results)["innodb"],
                         U.Counter({"fail": 4, "pass": 1, "skipped": 2}))

    def test_reasons(self):
        r = {t: reason for t, (_, reason) in self.run.results.items()}
        self.assertEqual(r["innodb.bar"], "mysqltest: At line 32: Query 'SELECT * FROM t9' failed. "
                                          "ERROR 1146 (42S02): Table 'test.t9' doesn't exist")
        self.assertEqual(r["innodb.slow"], "timeout after 900 seconds")
        self.assertTrue(r["innodb.warn"].startswith("Found warnings/errors in error log file! "))
        self.assertIn("[InnoDB] Something bad happened", r["innodb.warn"])
        self.assertEqual(r["binlog.binlog_foo 'mix'"], "Doesn't support --binlog-format = 'mixed'")
        self.assertEqual(r["main.x"], "Bug#12345 fails when the moon is full")
        self.assertEqual(r["innodb.big_one"], "Test needs 'big-test' or 'only-big-test' option.")
        self.assertEqual(r["binlog.binlog_foo 'row'"], "")   # not the time in ms

    def test_retries_last_verdict_counts(self):
        self.assertEqual(self.run.results["innodb.flaky"][0], "pass")
        self.assertIn("retry", self.run.results["innodb.flaky"][1])
        self.assertEqual(self.run.results["innodb.retried"], ("fail", "mysqltest: At line 2: second try"))
        self.assertIn("innodb.flaky", self.run.ever_failed)

    def test_shutdown_report_is_a_check_not_a_test(self):
        self.assertNotIn("shutdown_report", self.run.results)
        self.assertEqual(self.run.checks, {"shutdown_report": ("pass", "")})
        self.assertNotIn("shutdown_report", U.csv_text(self.run.results))

    def test_summary_time_and_status(self):
        self.assertEqual(self.run.summary, "Completed: Failed 5/11 tests, 54.55% were successful.")
        self.assertTrue(self.run.complete)
        self.assertEqual((self.run.mtr_failed, self.run.mtr_total), (5, 11))
        self.assertEqual(self.run.wall_seconds, 415.5)        # the trailer wins over "Spent"
        self.assertEqual(self.run.exit_status, 1)
        self.assertEqual(self.run.error, "there were failing test cases")

    def test_parser_agrees_with_mtr_totals(self):
        self.assertEqual(U.parse_problems(self.run), [])
        self.assertEqual(U.parse_problems(parse(VANILLA_LOG)), [])

    def test_disagreement_with_mtr_totals_is_a_doubt(self):
        run = parse(STEADY_LOG.replace("Failed 5/11 tests", "Failed 6/12 tests"))
        self.assertEqual(U.parse_problems(run), ["mtr counted 6 failed of 12, the parser 5 of 11"])

    def test_fail_as_last_line_and_failed_shutdown(self):
        run = parse("[ 10%] main.a  w1  [ pass ]  3\n"
                    "[100%] shutdown_report  w0  [ fail ]\n"
                    "        Test ended at 2026-11-24 11:00:00\n\n"
                    "Mysqld reported failures at shutdown, see above\n\n"
                    "[ 50%] main.b  w1  [ fail ]\n"
                    "mysqltest: At line 9: boom\n")
        self.assertEqual(run.checks["shutdown_report"],
                         ("fail", "Mysqld reported failures at shutdown, see above"))
        self.assertEqual(run.results["main.b"], ("fail", "mysqltest: At line 9: boom"))
        self.assertFalse(run.complete)
        self.assertIn("mtr did not complete", U.parse_problems(run)[0])

    def test_all_successful_summary_and_spent(self):
        run = parse("[ 50%] main.a  w1  [ pass ]  3\n[100%] shutdown_report  w0  [ pass ]\n"
                    "Spent 1.5 of 100 seconds executing testcases\n\nCompleted: All 2 tests were successful.\n")
        self.assertEqual((run.mtr_failed, run.mtr_total, run.wall_seconds), (0, 2, 100.0))
        self.assertEqual(U.parse_problems(run), [])

    def test_aborted_run(self):
        run = parse("Collecting tests\nmysql-test-run: *** ERROR: Could not find 'nope' in 'innodb' suite\n")
        self.assertEqual(run.results, {})
        self.assertEqual(U.parse_problems(run), [
            "no test verdict in the log",
            "mtr did not complete (no \"Completed:\" summary): Could not find 'nope' in 'innodb' suite"])


class CsvFiles(unittest.TestCase):
    def test_round_trip(self):
        run = parse(STEADY_LOG)
        text = U.csv_text(run.results)
        self.assertTrue(text.startswith("test,verdict,reason\n"))
        self.assertIn("binlog.binlog_foo 'mix',skipped,Doesn't support --binlog-format = 'mixed'\n", text)
        back = U.parse_csv(text)
        self.assertEqual(dict(back.results), dict(run.results))
        self.assertEqual(back.source, "csv")

    def test_commas_and_quotes_in_reasons(self):
        results = {"main.q": ("fail", 'mysqltest: At line 1: "x", y')}
        self.assertEqual(dict(U.parse_csv(U.csv_text(results)).results), results)

    def test_bad_csv(self):
        with self.assertRaises(ValueError):
            U.parse_csv("name,result\nmain.a,pass\n")
        with self.assertRaises(ValueError):
            U.parse_csv("test,verdict,reason\nmain.a,passed,\n")


class Diff(unittest.TestCase):
    def setUp(self):
        self.steady, self.vanilla = parse(STEADY_LOG), parse(VANILLA_LOG)
        self.differ, self.only = U.diff_runs(self.steady.results, self.vanilla.results)

    def test_only_on_steady(self):
        self.assertEqual([(t, s, v) for t, s, _, v, _ in self.only], [
            ("innodb.bar", "fail", "pass"),                        # passes on vanilla, fails on Steady
            ("innodb.only_skipped_on_steady", "skipped", "pass"),  # skipped only on Steady
            ("innodb.retried", "fail", "pass"),                    # failed its retry too
            ("innodb.slow", "fail", "pass")])                      # timeout

    def test_every_difference(self):
        self.assertEqual([(t, s, v) for t, s, _, v, _ in self.differ], [
            ("innodb.bar", "fail", "pass"),
            ("innodb.only_skipped_on_steady", "skipped", "pass"),
            ("innodb.retried", "fail", "pass"),
            ("innodb.slow", "fail", "pass"),
            ("main.only_vanilla_fails", None, "fail"),
            ("sys_vars.innodb_adaptive_flushing_io_device_basic", "pass", None)])

    def test_not_steady_only(self):
        tests = {t for t, *_ in self.only}
        self.assertNotIn("innodb.warn", tests)          # fails on both
        self.assertNotIn("innodb.flaky", tests)         # passed on retry
        self.assertNotIn("innodb.big_one", tests)       # skipped on both
        self.assertNotIn("main.x", tests)               # disabled on both
        self.assertNotIn("sys_vars.innodb_adaptive_flushing_io_device_basic", tests)  # Steady's own test
        self.assertNotIn("main.only_vanilla_fails", tests)  # fails on vanilla, no line on Steady

    def test_steady_only_rule(self):
        yes = [("fail", "pass"), ("fail", None), ("fail", "skipped"), ("fail", "disabled"), ("skipped", "pass"),
               ("disabled", "pass"), (None, "pass")]
        no = [("pass", "fail"), ("pass", None), ("pass", "skipped"), ("fail", "fail"), ("skipped", "skipped"),
              ("skipped", None), ("skipped", "fail"), ("disabled", "skipped"), ("pass", "pass"), (None, "skipped"),
              (None, "fail")]
        for s, v in yes:
            self.assertTrue(U.steady_only(s, v), (s, v))
        for s, v in no:
            self.assertFalse(U.steady_only(s, v), (s, v))

    def test_exit_status(self):
        self.assertEqual(U.exit_status({"steady": self.steady, "vanilla": self.vanilla}), 1)
        self.assertEqual(U.exit_status({"steady": self.vanilla, "vanilla": self.vanilla}), 0)
        # Steady only: a failure is enough.
        self.assertEqual(U.exit_status({"steady": self.steady}), 1)
        clean = parse("[ 50%] main.a  w1  [ pass ]  3\n[ 60%] main.b  [ skipped ]  why\n")
        self.assertEqual(U.exit_status({"steady": clean}), 0)
        self.assertEqual(U.exit_status({"steady": parse("nothing\n"), "vanilla": clean}), 1)

    def test_failed_shutdown_only_on_steady(self):
        bad = parse(VANILLA_LOG.replace("shutdown_report                          w0  [ pass ]",
                                        "shutdown_report                          w0  [ fail ]"))
        self.assertEqual(U.exit_status({"steady": bad, "vanilla": self.vanilla}), 1)
        self.assertEqual(U.exit_status({"steady": bad, "vanilla": bad}), 0)

    def test_markdown(self):
        md = U.render_markdown({"steady": self.steady, "vanilla": self.vanilla},
                               {"suites": "binlog, innodb, main, sys_vars", "date": "2026-11-24 11:40 UTC",
                                "command": "scripts/upstream-suites --suites binlog,innodb,main,sys_vars"})
        self.assertIn("**4 test(s) fail or skip only on Steady.**", md)
        self.assertIn("| innodb | steady | 1 | 4 | 2 | 0 | 7 |", md)
        self.assertIn("| innodb | vanilla | 5 | 1 | 1 | 0 | 7 |", md)
        self.assertIn("| **all** | steady | 6 | 4 | 3 | 1 | 14 |", md)
        self.assertIn("| steady | - | - | 0:06:56 | Completed: Failed 5/11 tests, 54.55% were successful. |", md)
        self.assertIn("| vanilla | - | - | 0:06:30 |", md)
        only = md.split("## Tests that fail or skip only on Steady")[1].split("## Every test")[0]
        self.assertIn("| innodb.bar | fail | mysqltest: At line 32:", only)
        self.assertIn("| innodb.only_skipped_on_steady | skipped | Requires a feature Steady lacks | pass |", only)
        self.assertNotIn("innodb.warn", only)
        self.assertIn("| main.only_vanilla_fails | not run |  | fail |", md)
        # tests/docs/check-links wants every dated name in docs/bench/index.md
        self.assertIsNone(re.search(r"\b20\d\d-\d\d-\d\d-[a-z0-9]", md))

    def test_markdown_escapes_pipes(self):
        s = U.MtrRun()
        s.results["main.p"] = ("fail", "a | b `c`")
        v = U.MtrRun()
        v.results["main.p"] = ("pass", "")
        md = U.render_markdown({"steady": s, "vanilla": v}, {"suites": "main"})
        self.assertIn("| main.p | fail | a \\| b 'c' | pass |  |", md)

    def test_markdown_one_server(self):
        md = U.render_markdown({"steady": self.steady}, {"suites": "innodb"})
        self.assertIn("## Failures on steady", md)
        self.assertIn("| innodb.slow | timeout after 900 seconds |", md)
        self.assertIn("Only steady ran: no comparison.", md)


FAKE_MTR = """\
#!/bin/sh
# Stands in for mysql-test-run.pl: records its arguments, prints a canned log.
here=$(cd "$(dirname "$0")" && pwd)
printf '%s\\n' "$PWD" "$@" > "$here/args"
cat "$here/canned.log"
exit 1
"""


class CommandLine(unittest.TestCase):
    NOW = datetime.datetime(2026, 11, 24, 11, 40, tzinfo=datetime.timezone.utc)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="upstream-suites-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.cache = os.path.join(self.tmp, "cache")
        self.env = {"STEADY_CACHE": self.cache}

    def make_build(self, rel, log):
        d = os.path.join(self.cache, rel, "mysql-test")
        os.makedirs(d)
        with open(os.path.join(d, "mtr"), "w") as f:
            f.write(FAKE_MTR)
        os.chmod(os.path.join(d, "mtr"), 0o755)
        with open(os.path.join(d, "canned.log"), "w") as f:
            f.write(log.split("upstream-suites: mtr exit")[0])     # the tool writes its own trailer
        return d

    def main(self, argv):
        out, err = io.StringIO(), io.StringIO()
        rc = U.main(argv, env=self.env, out=out, err=err, now=self.NOW)
        return rc, out.getvalue(), err.getvalue()

    def test_full_run_with_fake_mtr(self):
        sd = self.make_build("build/steady", STEADY_LOG)
        vd = self.make_build("vanilla/build/steady", VANILLA_LOG)
        res = os.path.join(self.tmp, "res")
        rc, out, err = self.main(["--suites", "binlog,innodb,main,sys_vars", "--parallel", "3", "--results", res])
        self.assertEqual(rc, 1, out + err)
        with open(os.path.join(sd, "args")) as f:
            args = f.read().splitlines()
        self.assertEqual(args, [sd, "--suite=binlog,innodb,main,sys_vars",
                                "--vardir=" + os.path.join(self.cache, "upstream-var", "steady"),
                                "--force", "--retry=0", "--max-test-fail=0", "--parallel=3"])
        with open(os.path.join(vd, "args")) as f:
            self.assertIn("--vardir=" + os.path.join(self.cache, "upstream-var", "vanilla"), f.read())
        self.assertEqual(sorted(os.listdir(res)), ["diff.md", "steady.csv", "steady.log", "vanilla.csv", "vanilla.log"])
        with open(os.path.join(res, "steady.csv")) as f:
            rows = U.parse_csv(f.read()).results
        self.assertEqual({t: v for t, (v, _) in rows.items()}, STEADY_VERDICTS)
        with open(os.path.join(res, "steady.log")) as f:
            log = f.read()
        self.assertIn("[ 20%] innodb.bar", log)
        self.assertRegex(log, r"\nupstream-suites: mtr exit status 1, wall time [\d.]+ s\n$")
        with open(os.path.join(res, "diff.md")) as f:
            md = f.read()
        self.assertIn("**4 test(s) fail or skip only on Steady.**", md)
        self.assertIn("[steady.log](steady.log)", md)
        self.assertIn("`scripts/upstream-suites --suites binlog,innodb,main,sys_vars --parallel 3`", md)
        self.assertNotIn(res, md)
        self.assertIn("4 test(s) fail or skip only on Steady", out)
        self.assertIn("[ 20%] innodb.bar", out)                # verdict lines echoed
        self.assertNotIn("Installing system database", out)    # the rest only in the log
        # --compare recomputes the same diff from the files left behind.
        rc2, md2, _ = self.main(["--compare", os.path.join(res, "steady.csv"), os.path.join(res, "vanilla.log")])
        self.assertEqual(rc2, 1)
        self.assertIn("**4 test(s) fail or skip only on Steady.**", md2)

    def test_same_results_exit_0(self):
        self.make_build("build/steady", VANILLA_LOG)
        self.make_build("vanilla/build/steady", VANILLA_LOG)
        rc, out, err = self.main(["--suites", "innodb", "--results", os.path.join(self.tmp, "r")])
        self.assertEqual(rc, 0, out + err)
        self.assertIn("0 test(s) fail or skip only on Steady", out)

    def test_missing_vanilla_build_is_77_and_runs_nothing(self):
        sd = self.make_build("build/steady", STEADY_LOG)
        res = os.path.join(self.tmp, "r")
        rc, out, err = self.main(["--suites", "innodb", "--results", res])
        self.assertEqual(rc, 77)
        self.assertIn("vanilla build missing: " + os.path.join(self.cache, "vanilla", "build", "steady"), err)
        self.assertIn("scripts/build --vanilla", err)
        self.assertFalse(os.path.exists(os.path.join(sd, "args")))
        self.assertFalse(os.path.exists(res))
        # ... and leaving it out runs Steady alone.
        rc, out, err = self.main(["--suites", "innodb", "--servers", "steady", "--results", res])
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(sorted(os.listdir(res)), ["diff.md", "steady.csv", "steady.log"])

    def test_debug_builds_missing(self):
        self.make_build("build/steady", STEADY_LOG)
        self.make_build("vanilla/build/steady", VANILLA_LOG)
        rc, out, err = self.main(["--suites", "innodb", "--debug", "--results", os.path.join(self.tmp, "r")])
        self.assertEqual(rc, 77)
        self.assertIn("debug steady build missing: " + os.path.join(self.cache, "build-debug", "steady"), err)
        self.assertIn("debug vanilla build missing: " + os.path.join(self.cache, "vanilla", "build-debug", "steady"), err)
        self.assertIn("no script makes debug builds yet", err)

    def test_dry_run(self):
        self.make_build("build/steady", STEADY_LOG)
        self.make_build("vanilla/build/steady", VANILLA_LOG)
        rc, out, err = self.main(["--suites", "innodb,sys_vars", "--dry-run", "--mtr-opt=--big-test"])
        self.assertEqual(rc, 0, err)
        want = os.path.join(U.REPO, "docs", "upstream", "2026-11-24-innodb+sys_vars")
        self.assertIn("./mtr --suite=innodb,sys_vars --vardir=%s --force --retry=0 --max-test-fail=0 --parallel="
                      % os.path.join(self.cache, "upstream-var", "steady"), out)
        self.assertIn(" --big-test) 2>&1 | tee %s/steady.log" % want, out)
        self.assertIn("tee %s/vanilla.log" % want, out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "build", "steady", "mysql-test", "args")))

    def test_sample_names_the_tests(self):
        self.make_build("build/steady", STEADY_LOG)
        sample = os.path.join(self.tmp, "sample.list")
        with open(sample, "w") as f:
            f.write("# a quick sample\ninnodb.bar\n\nsys_vars.all_vars  # comment\n")
        rc, out, err = self.main(["--sample", sample, "--servers", "steady", "--dry-run", "--results", "/r"])
        self.assertEqual(rc, 0, err)
        self.assertNotIn("--suite=", out)
        self.assertIn("--parallel=2 innodb.bar sys_vars.all_vars)", out)
        rc, out, err = self.main(["--sample", sample, "--suites", "innodb", "--dry-run"])
        self.assertEqual(rc, 2)
        self.assertIn("--sample tests outside --suites: sys_vars.all_vars", err)

    def test_default_results_dir_does_not_overwrite(self):
        repo = self.tmp
        first = U.default_results_dir(repo, ["innodb", "sys_vars"], False, False, self.NOW)
        self.assertEqual(first, os.path.join(repo, "docs", "upstream", "2026-11-24-innodb+sys_vars"))
        os.makedirs(first)
        self.assertEqual(U.default_results_dir(repo, ["innodb", "sys_vars"], False, False, self.NOW), first + "-2")
        self.assertTrue(U.default_results_dir(repo, ["innodb"], True, True, self.NOW).endswith(
            "2026-11-24-innodb-sample-debug"))

    def test_refusals(self):
        for argv, msg in ((["--suites", "innodb", "--servers", "steady,oracle"], "unknown server 'oracle'"),
                          ([], "give --suites"),
                          (["--suites", "inno db"], "bad suite 'inno db'"),
                          (["--suites", "innodb", "--parallel", "0"], "bad --parallel '0'"),
                          (["--compare", "a.csv", "b.csv", "--suites", "x"], "--compare takes only --results"),
                          (["--compare", os.path.join(self.tmp, "nope.csv"), "b.csv"], "cannot read")):
            rc, out, err = self.main(argv + ["--dry-run"] if "--compare" not in argv else argv)
            self.assertEqual(rc, 2, (argv, out, err))
            self.assertIn(msg, err)

    def test_help_and_exit_77_from_the_real_program(self):
        p = subprocess.run([sys.executable, "-B", SCRIPT, "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("usage: scripts/upstream-suites", p.stdout)
        self.assertIn("--compare STEADY VANILLA", p.stdout)
        env = dict(os.environ, STEADY_CACHE=self.cache)
        p = subprocess.run([sys.executable, "-B", SCRIPT, "--suites", "innodb", "--results",
                            os.path.join(self.tmp, "r")], capture_output=True, text=True, env=env, timeout=60)
        self.assertEqual(p.returncode, 77, p.stderr)
        self.assertIn("steady build missing", p.stderr)
        self.assertNotIn("Traceback", p.stderr)


if __name__ == "__main__":
    unittest.main()

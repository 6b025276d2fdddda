"""scripts/upstream-suites: parsing mtr's output into verdicts, the reasons,
retries, internal checks, and the CSV round trip."""

import unittest

from upstream_fixtures import STEADY_LOG, STEADY_VERDICTS, U, VANILLA_LOG, parse


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
        self.assertRegex(r["innodb.warn"], r"^Found warnings/errors in error log file! ")
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
        self.assertIs(self.run.complete, True)
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
        self.assertEqual(text.split("\n", 1)[0], "test,verdict,reason")
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

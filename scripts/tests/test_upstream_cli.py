"""scripts/upstream-suites: the Steady-vs-vanilla diff and its exit status,
diff.md, and the command line (a fake mtr in a temporary STEADY_CACHE stands
in for the real builds; no server is started)."""

import datetime
import fcntl
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from upstream_fixtures import SCRIPT, STEADY_LOG, STEADY_VERDICTS, U, VANILLA_LOG, parse


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
            self.assertIs(bool(U.steady_only(s, v)), True, (s, v))
        for s, v in no:
            self.assertIs(bool(U.steady_only(s, v)), False, (s, v))

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
# Is the build's mtr lock (scripts/upstream_suites/buildlock.py) held by the tool?
if ! command -v flock >/dev/null; then echo no-flock
elif flock -n "$here/.steady-mtr.lock" true; then echo free; else echo held; fi > "$here/lock"
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
        for d in (sd, vd):      # each mtr ran holding its build's lock
            with open(os.path.join(d, "lock")) as f:
                self.assertEqual(f.read(), "held\n")
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

    def test_waits_while_another_mtr_holds_the_build(self):
        sd = self.make_build("build/steady", VANILLA_LOG)
        fd = os.open(os.path.join(sd, ".steady-mtr.lock"), os.O_RDWR | os.O_CREAT)
        self.addCleanup(os.close, fd)
        fcntl.flock(fd, fcntl.LOCK_EX)
        out, err, result = io.StringIO(), io.StringIO(), {}
        t = threading.Thread(target=lambda: result.setdefault("rc", U.main(
            ["--suites", "innodb", "--servers", "steady", "--results", os.path.join(self.tmp, "r")],
            env=self.env, out=out, err=err, now=self.NOW)))
        t.start()
        deadline = time.monotonic() + 20
        while "waiting for it to end" not in out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIn("another mtr run holds " + os.path.join(sd, ".steady-mtr.lock"), out.getvalue())
        time.sleep(0.3)
        self.assertFalse(os.path.exists(os.path.join(sd, "args")))     # mtr not started while held
        fcntl.flock(fd, fcntl.LOCK_UN)
        t.join(30)
        self.assertFalse(t.is_alive())
        self.assertEqual(result["rc"], 1, out.getvalue() + err.getvalue())  # the canned log has failures
        with open(os.path.join(sd, "args")) as f:                      # mtr ran once the lock was free
            self.assertIn("--suite=innodb", f.read().splitlines())
        with open(os.path.join(sd, "lock")) as f:                      # ... holding it
            self.assertEqual(f.read(), "held\n")
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)                  # released after the run

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
        self.assertIn("build it with scripts/build --debug (make debug)", err)
        self.assertIn("build it with scripts/build --vanilla --debug (make vanilla-debug)", err)

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
        self.assertEqual(os.path.basename(U.default_results_dir(repo, ["innodb"], True, True, self.NOW)),
                         "2026-11-24-innodb-sample-debug")

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

"""lab.loader: the bulk loader starts its client at second load_at of the
run's clock, feeds it the SQL, keeps and parses its 'mark' lines, and turns
a failing, late or hung client into an error (a fake client script).

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
import os
import shutil
import tempfile
import threading
import time
import unittest

import fakes
from lab import loader as L
from lab.collect import RunClock

# argv: MODE.  Records its argv, nice level, start time and stdin beside
# itself, then answers like `mysql -N -B` running the loader's script.
FAKE_LOADER_CLIENT = r'''#!/bin/sh
dir=$(dirname "$0")
mode=$1
printf '%s\n' "$@" > "$dir/argv"
cut -d' ' -f19 /proc/$$/stat > "$dir/nice"
date +%s.%N > "$dir/started"
mark() { printf 'mark\t%s\t%s\n' "$1" "$(date +%s.%N)"; }
case $mode in
  cannot-connect)
    echo "ERROR 2002 (HY000): Can't connect to local server through socket '/x'"; exit 1 ;;
esac
cat > "$dir/stdin"
mark create_start
case $mode in
  ok)
    mark create_end; mark load_start; printf 'rows\t1\t600\n'; mark load_end ;;
  fail)
    echo "ERROR 1146 (42S02) at line 3: Table 'sbtest.load_seed' doesn't exist"; exit 1 ;;
  odd)
    echo "something odd happened"; exit 2 ;;
  hang)
    exec sleep 60 ;;
esac
'''

SQL = "SELECT 'mark', 'create_start', UNIX_TIMESTAMP(NOW(6));\nINSERT INTO sbtest.load SELECT 1;\n"


class Loader(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="steady-test-loader-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.bin = os.path.join(self.tmp, "bin")
        self.client = fakes.write_script(os.path.join(self.bin, "client"), FAKE_LOADER_CLIENT)
        self.rundir = os.path.join(self.tmp, "run")
        os.mkdir(self.rundir)
        self.clock, self.stop = RunClock(), threading.Event()
        self.recorded = []
        self.out = io.StringIO()

    def loader(self, mode, load_at=0, nice=0):
        ld = L.BulkLoader([self.client, mode], SQL, self.rundir, self.clock, self.stop, load_at, "01-x",
                          nice=nice, record_pid=lambda pid, what: self.recorded.append((what, pid)))
        self.addCleanup(self.reap, ld)
        return ld

    def reap(self, ld):
        if ld.proc is not None:
            fakes.kill_quietly(ld.proc)
            ld.proc.stdout.close()
        ld.thread.join(timeout=5)

    def run_loader(self, ld, wait=10):
        with contextlib.redirect_stdout(self.out):
            ld.start()
            ld.finish(wait)

    def read(self, name, where=None):
        with open(os.path.join(where or self.bin, name)) as f:
            return f.read()

    def test_loads_at_its_second(self):
        ld = self.loader("ok", load_at=1)
        self.clock.mark()
        self.run_loader(ld)
        self.assertIsNone(ld.error)
        self.assertIs(bool(ld.ran), True)
        started = float(self.read("started"))
        self.assertGreaterEqual(started, self.clock.t_start_epoch + 1 - 0.05)   # not before second 1
        self.assertEqual(self.read("stdin"), SQL)                              # the whole script on stdin
        self.assertEqual(self.read("argv").split(), ["ok", "-N", "-B", "--unbuffered"])
        r = ld.result
        self.assertEqual(sorted(r["marks"]), ["create_end", "create_start", "load_end", "load_start"])
        self.assertGreaterEqual(r["marks"]["load_start"], started)
        self.assertEqual(r["chunk_rows"], [600])
        self.assertEqual(self.read("loader.sql", self.rundir), SQL)
        self.assertEqual(self.read("loader.log", self.rundir), "".join(ld.lines))
        self.assertEqual(len(ld.lines), 5)
        self.assertEqual(self.recorded, [("bulk loader client", ld.proc.pid)])
        log = self.out.getvalue()
        self.assertRegex(log, r"01-x: loader load_start at second 1\.\d")
        self.assertNotIn("loader create_start", log)         # the first step is not news

    def test_nice(self):
        ld = self.loader("ok", nice=4)
        base = os.nice(0)
        self.clock.mark()
        self.run_loader(ld)
        self.assertEqual(int(self.read("nice")), min(19, base + 4))

    def test_failing_client(self):
        ld = self.loader("fail")
        self.clock.mark()
        self.run_loader(ld)
        self.assertIs(bool(ld.ran), True)
        self.assertEqual(ld.error, "client exited 1: ERROR 1146 (42S02) at line 3: Table 'sbtest.load_seed' "
                                   "doesn't exist")
        self.assertIn("create_start", ld.result["marks"])

    def test_failure_without_error_line_shows_the_log(self):
        ld = self.loader("odd")
        self.clock.mark()
        self.run_loader(ld)
        self.assertIs(bool(ld.error.startswith("client exited 2: ")), True)
        self.assertIn("something odd happened", ld.error)

    def test_client_that_cannot_connect(self):
        ld = self.loader("cannot-connect")
        self.clock.mark()
        self.run_loader(ld)
        self.assertEqual(ld.error, "client exited 1: ERROR 2002 (HY000): Can't connect to local server "
                                   "through socket '/x'")

    def test_run_ends_before_the_load(self):
        ld = self.loader("ok", load_at=30)
        self.clock.mark()
        threading.Timer(0.2, self.stop.set).start()
        t0 = time.monotonic()
        self.run_loader(ld)
        self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(ld.error, "the OLTP run ended before the load's start (second 30)")
        self.assertFalse(ld.ran)
        self.assertFalse(os.path.exists(os.path.join(self.bin, "started")))
        self.assertEqual(self.recorded, [])

    def test_run_never_started(self):
        ld = self.loader("ok")
        self.clock.release()
        self.run_loader(ld)
        self.assertFalse(ld.ran)
        self.assertIsNone(ld.error)
        self.assertFalse(os.path.exists(os.path.join(self.bin, "started")))

    def test_hung_load_is_stopped(self):
        ld = self.loader("hang")
        self.clock.mark()
        t0 = time.monotonic()
        self.run_loader(ld, wait=1)
        self.assertLess(time.monotonic() - t0, 8)
        self.assertIsNotNone(ld.error)
        self.assertFalse(ld.thread.is_alive())
        self.assertEqual(ld.proc.returncode, -9)           # the client was killed and reaped
        self.assertFalse(fakes.pid_exists(ld.proc.pid))
        self.assertEqual(list(ld.result["marks"]), ["create_start"])

    def test_hung_load_says_it_was_stopped(self):
        # finish() kills a hung client: the error must say the load outlasted
        # the run, not that the client failed (exit -9).
        ld = self.loader("hang")
        self.clock.mark()
        self.run_loader(ld, wait=1)
        self.assertEqual(ld.error, "load still running 1 s after the OLTP run ended: stopped")

if __name__ == "__main__":
    unittest.main()

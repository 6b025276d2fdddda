"""The bulk_load scenario's second client, beside the OLTP run (process side;
the SQL and the figures are lab.bulk_load's pure functions).

At second load_at of the OLTP run it creates the fresh table sbtest.load, on
a prealloc arm grows its file (ALTER TABLESPACE ... SET EXTENT_SIZE), then
fills it with INSERT ... SELECT.  One connection with the whole script on its
stdin; every step is stamped with the server's clock, so the timings do not
depend on this side.
"""

import os
import signal
import subprocess
import threading
import time

from harness.proc import log, niced, tail

from . import bulk_load as B


class BulkLoader:
    """Values in: the client command, the SQL, where to write, the run's
    clock and stop event, the load's start second.  Results out: .result
    (parsed marks), .ran, .error."""

    def __init__(self, client_base, sql, rundir, clock, stop, load_at, run_id,
                 nice=0, record_pid=None):
        self.client_base = list(client_base)
        self.sql = sql
        self.rundir = rundir
        self.clock = clock
        self.stop = stop
        self.load_at = load_at
        self.run_id = run_id
        self.nice = nice
        self.record_pid = record_pid or (lambda pid, what: None)
        self.lines = []
        self.proc = None
        self.error = None
        self.ran = False
        self.thread = threading.Thread(target=self._main, daemon=True)

    @property
    def result(self):
        return B.parse_loader_output(self.lines)

    def start(self):
        self.thread.start()

    def _main(self):
        try:
            self._load()
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            self.error = self.error or "harness error: %s" % e

    def _load(self):
        self.clock.started.wait()
        if self.clock.t_start_epoch is None:
            return                      # sysbench never started: nothing to load beside
        delay = self.clock.t_start_epoch + self.load_at - time.time()
        if self.stop.wait(max(0.0, delay)):
            self.error = "the OLTP run ended before the load's start (second %d)" % self.load_at
            return
        with open(os.path.join(self.rundir, "loader.sql"), "w") as f:
            f.write(self.sql)
        cmd = niced(self.client_base + ["-N", "-B", "--unbuffered"], self.nice)
        logpath = os.path.join(self.rundir, "loader.log")
        with open(logpath, "w") as out:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, text=True, bufsize=1,
                                         start_new_session=True)
            self.record_pid(self.proc.pid, "bulk loader client")
            self.ran = True
            try:
                self.proc.stdin.write(self.sql)
                self.proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass                    # the client died: its output says why
            for line in self.proc.stdout:
                out.write(line)
                out.flush()
                self.lines.append(line)
                self._note(line)
            rc = self.proc.wait()
        if rc != 0 and not self.error:
            errors = self.result["errors"] or [tail(logpath, 3).strip()]
            self.error = "client exited %d: %s" % (rc, " ".join(errors))

    def _note(self, line):
        f = line.rstrip("\n").split("\t")
        if f[0] == "mark" and len(f) == 3 and f[1] != "create_start":
            try:
                at = float(f[2]) - self.clock.t_start_epoch
            except ValueError:
                return
            log("%s: loader %s at second %.1f" % (self.run_id, f[1], at))

    def finish(self, wait):
        """Wait up to `wait` s for the load to end; then stop the client."""
        self.thread.join(timeout=wait)
        if self.thread.is_alive():
            # Said first, so the client's death by our kill is not taken for
            # a failure of its own.
            self.error = self.error or ("load still running %d s after the OLTP run ended: stopped" % wait)
            if self.proc and self.proc.poll() is None:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            self.thread.join(timeout=10)

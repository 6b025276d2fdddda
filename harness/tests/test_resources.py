"""harness.resources: what a run records is what its teardown (or a later
--cleanup) undoes, and nothing else: a pid that now names another process is
never signalled, a run whose owner still lives is left alone.

Processes here are real `sleep`s.  A test reaps them in a background thread,
as init would for a process that is not ours, so a SIGKILL makes them vanish.

Run: python3 -m unittest discover -s harness/tests -v
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import time
import types
import unittest
from unittest import mock

import fakes
from harness import resources as R
from harness.proc import proc_start_time


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


class Base(unittest.TestCase):
    def setUp(self):
        self.state_dir = tempfile.mkdtemp(prefix="steady-test-state-")
        self.addCleanup(shutil.rmtree, self.state_dir, True)

    def sleeper(self, reap=True):
        p = subprocess.Popen(["sleep", "60"])
        self.addCleanup(fakes.kill_quietly, p)
        if reap:
            fakes.reap_in_background(p)
        return p

    def read_state(self, path):
        with open(path) as f:
            return json.load(f)


class Record(Base):
    def test_state_file_follows_every_record(self):
        res = R.Resources("run-a", state_dir=self.state_dir)
        path = os.path.join(self.state_dir, "run-a.json")
        self.assertEqual(res.path, path)
        st = self.read_state(path)
        self.assertEqual((st["owner_pid"], st["owner_start"]), (os.getpid(), proc_start_time(os.getpid())))
        res.record("loop", "/dev/loop7")
        res.record("loop", "/dev/loop8")            # single resources replace
        res.record("dirs", "/tmp/a")
        res.record("dirs", "/tmp/b")                # pids and dirs accumulate
        p = self.sleeper()
        res.record_pid(p.pid, "sleeper")
        st = self.read_state(path)
        self.assertEqual(st["loop"], "/dev/loop8")
        self.assertEqual(st["dirs"], ["/tmp/a", "/tmp/b"])
        self.assertEqual(st["pids"], [{"pid": p.pid, "start": proc_start_time(p.pid), "what": "sleeper"}])
        self.assertEqual(os.listdir(self.state_dir), ["run-a.json"])   # no .tmp left behind

    def test_state_dir_is_made(self):
        d = os.path.join(self.state_dir, "deeper", "state")
        R.Resources("run-b", state_dir=d)
        self.assertIs(bool(os.path.isfile(os.path.join(d, "run-b.json"))), True)


class Teardown(Base):
    def test_kills_recorded_process_removes_dirs_and_record(self):
        res = R.Resources("run-c", state_dir=self.state_dir)
        p = self.sleeper()
        res.record_pid(p.pid, "sleeper")
        scratch = tempfile.mkdtemp(prefix="steady-test-scratch-")
        self.addCleanup(shutil.rmtree, scratch, True)
        open(os.path.join(scratch, "f"), "w").close()
        res.record("dirs", scratch)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            errors = res.teardown()
        self.assertEqual(errors, [])
        self.assertEqual(p.wait(timeout=5), -9)
        self.assertFalse(os.path.exists(scratch))
        self.assertFalse(os.path.exists(res.path))
        self.assertIn("cleanup run-c: killing sleeper pid %d" % p.pid, buf.getvalue())

    def test_keep_image(self):
        image = os.path.join(self.state_dir, "run.img")
        open(image, "w").close()
        scratch = tempfile.mkdtemp(prefix="steady-test-scratch-")
        self.addCleanup(shutil.rmtree, scratch, True)
        st = {"run_id": "r", "pids": [], "image": image, "dirs": [scratch]}
        self.assertEqual(R.teardown_state(dict(st), quiet=True, keep_image=True), [])
        self.assertIs(bool(os.path.exists(image)), True)
        self.assertFalse(os.path.exists(scratch))
        self.assertEqual(R.teardown_state(dict(st), quiet=True), [])
        self.assertFalse(os.path.exists(image))

    def test_newest_process_is_killed_first(self):
        res = R.Resources("run-order", state_dir=self.state_dir)
        older, newer = self.sleeper(), self.sleeper()
        res.record_pid(older.pid, "older")
        res.record_pid(newer.pid, "newer")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(res.teardown(), [])
        out = buf.getvalue()
        self.assertLess(out.index("killing newer"), out.index("killing older"))

    def test_reused_pid_is_not_signalled(self):
        res = R.Resources("run-d", state_dir=self.state_dir)
        p = self.sleeper()
        # The recorded start time is not this process's: the number was reused.
        res.record("pids", {"pid": p.pid, "start": proc_start_time(p.pid) + 1, "what": "stranger"})
        with quiet():
            self.assertEqual(res.teardown(), [])
        time.sleep(0.1)
        self.assertIsNone(p.poll())
        self.assertIs(bool(fakes.pid_exists(p.pid)), True)

    def test_gone_process_is_fine(self):
        res = R.Resources("run-e", state_dir=self.state_dir)
        p = subprocess.Popen(["true"])
        res.record_pid(p.pid, "short-lived")
        p.wait()
        with quiet():
            self.assertEqual(res.teardown(), [])
        self.assertFalse(os.path.exists(res.path))

    def test_record_kept_when_teardown_fails(self):
        res = R.Resources("run-f", state_dir=self.state_dir)
        p = self.sleeper()
        res.record_pid(p.pid, "immortal")
        # A process that does not die (here: kill made a no-op).
        with mock.patch.object(R.os, "kill"), mock.patch.object(R, "time", types.SimpleNamespace(sleep=lambda s: None)):
            with quiet():
                errors = res.teardown()
        self.assertEqual(errors, ["pid %d (immortal) did not die" % p.pid])
        self.assertIs(bool(os.path.exists(res.path)), True)      # kept for --cleanup
        self.assertIsNone(p.poll())

    def test_own_unreaped_child_is_torn_down_promptly(self):
        # A recorded process that is a child of the tearing-down process
        # itself stays a zombie after SIGKILL until waited for (and keeps its
        # start time): teardown must reap it, not report "did not die".
        # SIGKILL lands asynchronously: on a loaded machine the child may
        # need a few ms to become a zombie, so each poll waits 10 ms (at
        # most 1 s in all, against the 10 s a hanging teardown would take).
        res = R.Resources("run-g", state_dir=self.state_dir)
        p = self.sleeper(reap=False)
        res.record_pid(p.pid, "own child")
        real_sleep = time.sleep
        with mock.patch.object(R, "time", types.SimpleNamespace(sleep=lambda s: real_sleep(0.01))):
            with quiet():
                errors = res.teardown()
        self.assertEqual(errors, [])


class Leftovers(Base):
    def owned_run(self, run_id, owner):
        """A run recorded by `owner`, with a live sleeper and a scratch dir."""
        res = R.Resources(run_id, state_dir=self.state_dir, owner_pid=owner.pid)
        victim = self.sleeper()
        res.record_pid(victim.pid, "victim")
        scratch = tempfile.mkdtemp(prefix="steady-test-scratch-")
        self.addCleanup(shutil.rmtree, scratch, True)
        res.record("dirs", scratch)
        return res, victim, scratch

    def test_dead_owner_is_cleaned_up(self):
        owner = self.sleeper()
        res, victim, scratch = self.owned_run("run-dead-owner", owner)
        os.kill(owner.pid, 9)
        owner.wait(timeout=5)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(R.cleanup_leftovers(explicit=True, state_dir=self.state_dir), 0)
        self.assertEqual(victim.wait(timeout=5), -9)
        self.assertFalse(os.path.exists(scratch))
        self.assertFalse(os.path.exists(res.path))
        self.assertIn("leftover of interrupted run run-dead-owner", buf.getvalue())
        self.assertIn("1 leftover run(s) found, 0 not fully cleaned", buf.getvalue())

    def test_live_owner_is_left_alone(self):
        owner = self.sleeper()
        res, victim, scratch = self.owned_run("run-live-owner", owner)
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(R.cleanup_leftovers(explicit=True, state_dir=self.state_dir), 0)
        time.sleep(0.1)
        self.assertIsNone(victim.poll())
        self.assertIs(bool(os.path.isdir(scratch)), True)
        self.assertIs(bool(os.path.exists(res.path)), True)
        self.assertIn("belongs to pid %d, still running: left alone" % owner.pid, buf.getvalue())

    def test_owner_pid_reused_counts_as_dead(self):
        owner = self.sleeper()
        res, victim, scratch = self.owned_run("run-reused-owner", owner)
        st = self.read_state(res.path)
        st["owner_start"] -= 1          # the pid now names a younger process
        with open(res.path, "w") as f:
            json.dump(st, f)
        with quiet():
            self.assertEqual(R.cleanup_leftovers(state_dir=self.state_dir), 0)
        self.assertEqual(victim.wait(timeout=5), -9)
        self.assertIsNone(owner.poll())

    def test_unreadable_record_is_left_for_a_human(self):
        bad = os.path.join(self.state_dir, "broken.json")
        with open(bad, "w") as f:
            f.write("{not json")
        other = os.path.join(self.state_dir, "notes.txt")
        open(other, "w").close()
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(R.cleanup_leftovers(explicit=True, state_dir=self.state_dir), 0)
        self.assertIs(bool(os.path.exists(bad) and os.path.exists(other)), True)
        self.assertIn("unreadable state file %s" % bad, buf.getvalue())

    def test_failed_teardown_is_counted_and_record_kept(self):
        owner = self.sleeper()
        res, victim, scratch = self.owned_run("run-stuck", owner)
        os.kill(owner.pid, 9)
        owner.wait(timeout=5)
        with mock.patch.object(R.device, "teardown", return_value=["could not unmount /x"]):
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf):
                self.assertEqual(R.cleanup_leftovers(state_dir=self.state_dir), 1)
        self.assertIs(bool(os.path.exists(res.path)), True)
        self.assertIn("cleanup of run-stuck incomplete: could not unmount /x", buf.getvalue())

    def test_no_state_dir(self):
        missing = os.path.join(self.state_dir, "none")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            self.assertEqual(R.cleanup_leftovers(explicit=True, state_dir=missing), 0)
        self.assertIn("nothing recorded in %s" % missing, buf.getvalue())
        self.assertFalse(os.path.exists(missing))


if __name__ == "__main__":
    unittest.main()

"""What a run creates, recorded by id as it goes, undone newest first.

The state file names each resource (pids with their start time, loop image,
loop device, mount point, cgroup, scratch dirs), so a later `--cleanup`, or the
next run, undoes exactly what a killed run made and never touches anything
else (a reused pid, a loop device now backing another file).
"""

import json
import os
import signal
import time

from . import device, paths
from .proc import log, pid_running, proc_start_time


class Resources:
    """One run's record: a JSON file under harness.paths.state_dir()."""

    def __init__(self, run_id, state_dir=None, owner_pid=None):
        """owner_pid: the process whose death makes this run a leftover
        (default: this one)."""
        self.run_id = run_id
        state_dir = state_dir or paths.state_dir()
        os.makedirs(state_dir, exist_ok=True)
        self.path = os.path.join(state_dir, run_id + ".json")
        me = owner_pid or os.getpid()
        self.state = {"run_id": run_id, "owner_pid": me, "owner_start": proc_start_time(me),
                      "pids": [], "image": None, "loop": None, "mount": None,
                      "cgroup": None, "dirs": []}
        self.save()

    def save(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f, indent=1)
        os.replace(tmp, self.path)

    def record(self, key, value):
        """Note one resource the moment it exists (pids and dirs accumulate)."""
        if key in ("pids", "dirs"):
            self.state[key].append(value)
        else:
            self.state[key] = value
        self.save()

    def record_pid(self, pid, what):
        self.record("pids", {"pid": pid, "start": proc_start_time(pid), "what": what})

    def teardown(self, quiet=False):
        """Undo everything; remove the record if that worked.  Returns errors."""
        errors = teardown_state(self.state, quiet=quiet)
        if not errors:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass
        return errors


def _pid_matches(entry):
    """The recorded process is still there and alive (same pid and start
    time; a zombie, killed but not yet reaped by us, counts as gone)."""
    return pid_running(entry["pid"]) and proc_start_time(entry["pid"]) == entry["start"]



def _kill_recorded(entries, note, errors):
    for entry in reversed(entries):
        if not _pid_matches(entry):
            continue
        note("killing %s pid %d" % (entry["what"], entry["pid"]))
        try:
            os.kill(entry["pid"], signal.SIGKILL)
        except ProcessLookupError:
            pass
        # A killed child of ours stays a zombie until its Popen owner waits
        # for it: _pid_matches counts that as gone, and leaves the exit
        # status to the owner.
        for _ in range(100):
            if not _pid_matches(entry):
                break
            time.sleep(0.1)
        else:
            errors.append("pid %d (%s) did not die" % (entry["pid"], entry["what"]))


def teardown_state(st, quiet=False, keep_image=False):
    """Undo one recorded run, newest resource first; keep_image leaves the
    loop image file in place.  Returns a list of errors."""
    errors = []

    def note(msg):
        if not quiet:
            log("cleanup %s: %s" % (st["run_id"], msg))

    _kill_recorded(st.get("pids", []), note, errors)
    errors += device.teardown(st.get("image"), st.get("loop"), st.get("mount"),
                              st.get("cgroup"), note, keep_image=keep_image)
    for d in st.get("dirs", []):
        device.remove_tree(d)
    return errors


def cleanup_leftovers(explicit=False, state_dir=None):
    """Tear down recorded runs whose owner process is gone.  Returns failures."""
    state_dir = state_dir or paths.state_dir()
    if not os.path.isdir(state_dir):
        if explicit:
            log("nothing recorded in %s" % state_dir)
        return 0
    found = failures = 0
    for fn in sorted(os.listdir(state_dir)):
        if not fn.endswith(".json"):
            continue
        path = os.path.join(state_dir, fn)
        try:
            with open(path) as f:
                st = json.load(f)
        except (OSError, ValueError):
            log("unreadable state file %s: remove it by hand after checking" % path)
            continue
        if proc_start_time(st["owner_pid"]) == st.get("owner_start"):
            if explicit:
                log("run %s belongs to pid %d, still running: left alone" % (st["run_id"], st["owner_pid"]))
            continue
        found += 1
        log("leftover of interrupted run %s: cleaning up" % st["run_id"])
        errors = teardown_state(st)
        if errors:
            failures += 1
            log("cleanup of %s incomplete: %s" % (st["run_id"], "; ".join(errors)))
        else:
            os.unlink(path)
    if explicit:
        log("cleanup: %d leftover run(s) found, %d not fully cleaned" % (found, failures))
    return failures

"""--set-at: SET GLOBAL at a given second of the measured run, as a DBA
changes a dynamic option on a loaded server (for example switching device
pacing on while the server is in sync-mode flushing).

parse() and for_arm() are pure; Switcher is the thread that runs the
statements on the run's clock and records when each one completed.
"""

import re
import threading
import time

OPTION_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NUMBER_RE = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")
WORD_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RUN_COLUMNS = ["set_at"]


class SetAtError(ValueError):
    pass


def parse(specs, names):
    """['120:on:innodb_x=ON', '60:innodb_y=5'] -> [(second, target or None,
    option, value)], ordered by second.  names: the servers a target may
    name."""
    out = []
    for s in specs:
        sec, sep, rest = s.partition(":")
        try:
            second = float(sec)
        except ValueError:
            second = -1
        if not sep or second < 0:
            raise SetAtError("bad --set-at %r: expected SECOND:[SERVER:]OPTION=VALUE" % s)
        target = None
        if ":" in rest.split("=", 1)[0]:
            target, rest = rest.split(":", 1)
            if target not in names:
                raise SetAtError("--set-at %s: %s is not in --servers" % (s, target))
        if "=" not in rest:
            raise SetAtError("bad --set-at %r: expected SECOND:[SERVER:]OPTION=VALUE" % s)
        k, v = (x.strip() for x in rest.split("=", 1))
        statement(k, v)             # refuses what it cannot quote
        out.append((second, target, k, v))
    return sorted(out, key=lambda c: c[0])


def for_arm(changes, arm_names):
    """The changes for one arm (its name and base name): [(second, option, value)]."""
    return [(s, k, v) for s, t, k, v in changes if t is None or t in arm_names]


def statement(option, value):
    """SET GLOBAL for one option: numbers and words (ON, OFF, DEFAULT)
    as they are, anything else as a quoted string."""
    if not OPTION_RE.match(option):
        raise SetAtError("--set-at: %r is not an option name" % option)
    if NUMBER_RE.match(value) or WORD_RE.match(value):
        lit = value
    else:
        lit = "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "SET GLOBAL %s = %s" % (option, lit)


def column(done):
    """runs.csv's set_at text: 'second:option=value' (second it completed,
    from the run's start), '; '-separated, an error after ' failed: '."""
    parts = []
    for d in done:
        p = "%s:%s=%s" % ("%.1f" % d["done_s"] if d["done_s"] is not None else "-",
                          d["option"], d["value"])
        if d["error"]:
            p += " failed: " + d["error"]
        parts.append(p)
    return "; ".join(parts)


class Switcher:
    """Values in: the changes [(second, option, value)], a run function
    (statement -> error text or None), the run's clock and stop event.
    Results out: .done, one dict per change reached before the run ended."""

    def __init__(self, changes, run_sql, clock, stop, log=lambda msg: None):
        self.changes = list(changes)
        self.run_sql = run_sql
        self.clock = clock
        self.stop = stop
        self.log = log
        self.done = []
        self.thread = threading.Thread(target=self._main, daemon=True)

    def start(self):
        self.thread.start()

    def join(self, timeout=None):
        self.thread.join(timeout)

    def _main(self):
        self.clock.started.wait()
        if self.clock.t_start is None:
            return                      # the run never started
        for second, option, value in self.changes:
            delay = self.clock.t_start + second - time.monotonic()
            if self.stop.wait(max(0.0, delay)):
                return
            stmt = statement(option, value)
            try:
                error = self.run_sql(stmt)
            except Exception as e:      # noqa: BLE001 - the run goes on; the error is recorded
                error = "%s" % e
            done_s = time.monotonic() - self.clock.t_start
            self.done.append({"second": second, "done_s": done_s, "option": option,
                              "value": value, "error": error})
            self.log("%s at second %.1f%s" % (stmt, done_s, ": " + error if error else ""))

"""The timed shutdown after a measured run (bench/run --shutdown clean or
slow): how long a server takes to stop the way a DBA stops it after load,
with the pages the run left dirty still to write and the device caps still
in force.  Values in, figures out; talks to the server through a harness
Instance."""

import datetime
import os
import re
import statistics
import time

from harness.proc import log

from . import summary as S

# How long a clean shutdown may take before the run counts as failed: the
# lab's largest pool (4 GB, 262,144 pages) all dirty at the cloud class's
# 3,000 write IOPS takes ~90 s of page writes; 15 minutes is ten times that.
TIMEOUT_S = 900

RUN_COLUMNS = ["shutdown_dirty_pages", "shutdown_s", "shutdown_fast", "shutdown_server_s",
               "shutdown_innodb_s"]

# The error log's messages that split a MySQL stop, logged at
# log_error_verbosity=3 (Notes): the server received the stop; InnoDB's own
# shutdown starts (after the connections, the purge threads and the binary
# log have stopped); InnoDB's shutdown completed (its final flush of the
# dirty pages and the checkpoint done).  A clean stop of 1-2 s carries up to
# half a second of run-to-run spread before InnoDB's part starts, not
# following the dirty pages (docs/bench/2026-12-07-shutdown-phases), so the
# flushing's cost is read on InnoDB's part.
RECEIVED = "MY-013172"
INNODB_START = "MY-013072"
INNODB_DONE = "MY-012980"
_CODE = re.compile(r"\[(MY-\d{6})\]")

# --shutdown mode -> innodb_fast_shutdown: clean is MySQL's default stop
# (every dirty page written); slow (0) also finishes the purge and the
# change buffer merge first, as before an upgrade or a file copy.
MODES = {"clean": 1, "slow": 0}


def _stamp(line):
    """The time of an error log line (ISO 8601, UTC), or None."""
    try:
        return datetime.datetime.fromisoformat(line.split(" ", 1)[0].rstrip("Z"))
    except ValueError:
        return None


def stop_phases(text):
    """The phases of the last stop in an error log's text: shutdown_server_s,
    from the stop's receipt to InnoDB's shutdown starting, and
    shutdown_innodb_s, from there to InnoDB's shutdown completed, in seconds
    (None where a message is missing: a server that logs no Notes, or
    another flavour's log)."""
    lines = text.splitlines()
    start = max((i for i, line in enumerate(lines) if RECEIVED in line), default=None)
    got = {}
    for line in lines[start:] if start is not None else []:
        m = _CODE.search(line)
        if m and m.group(1) in (RECEIVED, INNODB_START, INNODB_DONE) and m.group(1) not in got:
            got[m.group(1)] = _stamp(line)

    def between(a, b):
        if got.get(a) is None or got.get(b) is None:
            return None
        return round((got[b] - got[a]).total_seconds(), 2)

    return {"shutdown_server_s": between(RECEIVED, INNODB_START),
            "shutdown_innodb_s": between(INNODB_START, INNODB_DONE)}


def log_size(path):
    """A log's size in bytes, or None if it cannot be read."""
    try:
        return os.path.getsize(path) if path else None
    except OSError:
        return None


def read_from(path, offset):
    """The text a log gained after byte `offset` ('' if unreadable)."""
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""


def clean_shutdown(inst, run_id, timeout=TIMEOUT_S, clock=time.monotonic, mode="clean"):
    """Stop `inst` with innodb_fast_shutdown set by `mode` (MODES: clean is
    MySQL's default stop, every dirty page written, no full purge) and time
    it, from the request until the process has gone; the stop's messages are
    logged (log_error_verbosity=3, set just before it) and its phases read
    from the error log (stop_phases()).  Returns (facts, error): facts holds
    shutdown_dirty_pages (dirty when asked to stop), shutdown_s,
    shutdown_fast, shutdown_server_s and shutdown_innodb_s; error is None,
    or why the run fails (it did not stop within `timeout` and was
    killed)."""
    fast = MODES[mode]
    dirty = inst.sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
    inst.sql.query("SET GLOBAL innodb_fast_shutdown=%d" % fast, check=False)
    errlog = getattr(inst, "errlog", None)
    err_from = log_size(errlog)
    if err_from is not None:
        inst.sql.query("SET GLOBAL log_error_verbosity=3", check=False)
    t0 = clock()
    stopped = inst.stop(timeout=timeout)
    secs = round(clock() - t0, 1)
    facts = {"shutdown_dirty_pages": None if dirty is None else int(dirty), "shutdown_s": secs,
             "shutdown_fast": fast}
    facts.update(stop_phases(read_from(errlog, err_from) if err_from is not None else ""))
    if not stopped:
        return facts, "%s shutdown: not stopped in %d s, killed" % (mode, timeout)
    log("%s: %s shutdown in %.1f s (%s dirty pages when asked)" % (run_id, mode, secs, dirty))
    return facts, None


def _mean(infos, key):
    vals = [i[key] for i in infos if i.get(key) is not None]
    return statistics.fmean(vals) if vals else None


def markdown(infos, baseline=None):
    """summary.md's clean-shutdown table: per server, the mean dirty pages
    when asked to stop, the mean seconds to stop and, where the error log
    timed them, the means of the stop's two phases (stop_phases()), with the
    ratios of the whole stop and of InnoDB's part to `baseline`'s; "" when
    no run measured a shutdown."""
    done = [i for i in infos if i.get("status") == "ok" and i.get("shutdown_s") is not None]
    if not done:
        return ""
    servers = list(dict.fromkeys(i["server"] for i in done))
    phased = any(i.get("shutdown_innodb_s") is not None for i in done)
    base_runs = [i for i in done if i["server"] == baseline] if baseline else []
    base = _mean(base_runs, "shutdown_s")
    base_innodb = _mean(base_runs, "shutdown_innodb_s")
    header = ["server", "runs", "dirty pages at stop", "shutdown s"]
    if base:
        header.append("shutdown s / %s" % baseline)
    if phased:
        header += ["before InnoDB's part s", "InnoDB's part s"]
        if base_innodb:
            header.append("InnoDB's part / %s" % baseline)
    rows = []
    for name in servers:
        mine = [i for i in done if i["server"] == name]
        secs = _mean(mine, "shutdown_s")
        cells = [name, len(mine), S.fmt(_mean(mine, "shutdown_dirty_pages"), "{:.0f}"), S.fmt(secs, "{:.1f}")]
        if base:
            cells.append(S.fmt(secs / base, "{:.2f}x"))
        if phased:
            innodb = _mean(mine, "shutdown_innodb_s")
            cells += [S.fmt(_mean(mine, "shutdown_server_s"), "{:.2f}"), S.fmt(innodb, "{:.2f}")]
            if base_innodb:
                cells.append(S.fmt(innodb / base_innodb if innodb is not None else None, "{:.2f}x"))
        rows.append(cells)
    fast = ", ".join(str(v) for v in sorted({i.get("shutdown_fast", 1) for i in done}, reverse=True))
    note = ""
    if phased:
        note = ("\nInnoDB's part: from InnoDB's `Starting shutdown` to its `Shutdown completed` in the error "
                "log (the final flush and checkpoint); before it: from the stop's receipt (connections, purge "
                "and binary log stopped).\n")
    return ("\n\n### Shutdown after the run (innodb_fast_shutdown=%s, caps in force)\n\n" % fast
            + S.markdown_table(header, rows) + "\n" + note)

"""The timed shutdown after a measured run (bench/run --shutdown clean or
slow): how long a server takes to stop the way a DBA stops it after load,
with the pages the run left dirty still to write and the device caps still
in force.  Values in, figures out; talks to the server through a harness
Instance."""

import statistics
import time

from harness.proc import log

from . import summary as S

# How long a clean shutdown may take before the run counts as failed: the
# lab's largest pool (4 GB, 262,144 pages) all dirty at the cloud class's
# 3,000 write IOPS takes ~90 s of page writes; 15 minutes is ten times that.
TIMEOUT_S = 900

RUN_COLUMNS = ["shutdown_dirty_pages", "shutdown_s", "shutdown_fast"]

# --shutdown mode -> innodb_fast_shutdown: clean is MySQL's default stop
# (every dirty page written); slow (0) also finishes the purge and the
# change buffer merge first, as before an upgrade or a file copy.
MODES = {"clean": 1, "slow": 0}


def clean_shutdown(inst, run_id, timeout=TIMEOUT_S, clock=time.monotonic, mode="clean"):
    """Stop `inst` with innodb_fast_shutdown set by `mode` (MODES: clean is
    MySQL's default stop, every dirty page written, no full purge) and time
    it, from the request until the process has gone.  Returns (facts, error):
    facts holds shutdown_dirty_pages (dirty when asked to stop), shutdown_s
    and shutdown_fast; error is None, or why the run fails (it did not stop
    within `timeout` and was killed)."""
    fast = MODES[mode]
    dirty = inst.sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
    inst.sql.query("SET GLOBAL innodb_fast_shutdown=%d" % fast, check=False)
    t0 = clock()
    stopped = inst.stop(timeout=timeout)
    secs = round(clock() - t0, 1)
    facts = {"shutdown_dirty_pages": None if dirty is None else int(dirty), "shutdown_s": secs,
             "shutdown_fast": fast}
    if not stopped:
        return facts, "%s shutdown: not stopped in %d s, killed" % (mode, timeout)
    log("%s: %s shutdown in %.1f s (%s dirty pages when asked)" % (run_id, mode, secs, dirty))
    return facts, None


def _mean(infos, key):
    vals = [i[key] for i in infos if i.get(key) is not None]
    return statistics.fmean(vals) if vals else None


def markdown(infos, baseline=None):
    """summary.md's clean-shutdown table: per server, the mean dirty pages
    when asked to stop and the mean seconds to stop, and the seconds' ratio
    to `baseline`'s; "" when no run measured a shutdown."""
    done = [i for i in infos if i.get("status") == "ok" and i.get("shutdown_s") is not None]
    if not done:
        return ""
    servers = list(dict.fromkeys(i["server"] for i in done))
    base = _mean([i for i in done if i["server"] == baseline], "shutdown_s") if baseline else None
    header = ["server", "runs", "dirty pages at stop", "shutdown s"]
    if base:
        header.append("shutdown s / %s" % baseline)
    rows = []
    for name in servers:
        mine = [i for i in done if i["server"] == name]
        secs = _mean(mine, "shutdown_s")
        cells = [name, len(mine), S.fmt(_mean(mine, "shutdown_dirty_pages"), "{:.0f}"), S.fmt(secs, "{:.1f}")]
        if base:
            cells.append(S.fmt(secs / base, "{:.2f}x"))
        rows.append(cells)
    fast = ", ".join(str(v) for v in sorted({i.get("shutdown_fast", 1) for i in done}, reverse=True))
    return ("\n\n### Shutdown after the run (innodb_fast_shutdown=%s, caps in force)\n\n" % fast
            + S.markdown_table(header, rows) + "\n")

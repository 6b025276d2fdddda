"""The settle between sysbench prepare and the measured run: flush what
prepare left dirty and let the checkpoint follow, so every server starts
equally clean (bench/README.md, "What one server run does").  Talks to the
server through a harness Sql; no other state."""

import time

from harness.proc import log


# A settled server's checkpoint age, share of the redo capacity: what the
# checkpointer leaves once the flush is done (vanilla on checkpoint_wave: 2-4
# MB of 100 MB a second into the run).  Without waiting for it a server that
# kept its dirty pages low during prepare started at once, its checkpoint
# 30-76 % of the redo capacity old, against 3-9 % for a server that settled
# (checkpoint_wave, every device-paced run 2026-11-24..26).
SETTLE_AGE_SHARE = 0.05
# Polls without the age falling after which the settle stops waiting for it.
SETTLE_AGE_STALL = 10


def checkpoint_age(sql):
    """Checkpoint age in bytes (MariaDB's status, else MySQL's redo LSNs), or None."""
    age = sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_checkpoint_age'")
    if age is not None:
        return int(age)
    cur = sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_current_lsn'")
    ck = sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_redo_log_checkpoint_lsn'")
    if cur is None or ck is None:
        return None
    return max(0, int(cur) - int(ck))


def settle(sql, timeout, run_id, redo_bytes=None):
    """Flush what prepare left dirty and let the checkpoint follow, so every
    server starts equally clean: at most 100 dirty pages and, given
    redo_bytes, a checkpoint age of at most SETTLE_AGE_SHARE of it (or no
    longer falling).  Returns (seconds, dirty pages left)."""
    orig = {v: sql.value("SELECT @@global.%s" % v)
            for v in ("innodb_max_dirty_pages_pct_lwm", "innodb_max_dirty_pages_pct")}
    t0 = time.monotonic()
    dirty = None
    age = None
    try:
        sql.query("SET GLOBAL innodb_max_dirty_pages_pct_lwm=0", check=False)
        sql.query("SET GLOBAL innodb_max_dirty_pages_pct=0", check=False)
        while time.monotonic() - t0 < timeout:
            dirty = sql.value("SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'")
            if dirty is not None and int(dirty) <= 100:
                break
            time.sleep(1)
        if redo_bytes and dirty is not None and int(dirty) <= 100:
            best, stalled = None, 0
            while time.monotonic() - t0 < timeout:
                age = checkpoint_age(sql)
                if age is None or age <= SETTLE_AGE_SHARE * redo_bytes:
                    break
                stalled = stalled + 1 if best is not None and age >= best else 0
                if stalled >= SETTLE_AGE_STALL:
                    log("%s: checkpoint age stays at %.1f MB" % (run_id, age / 2 ** 20))
                    break
                best = age if best is None else min(best, age)
                time.sleep(1)
    finally:
        for v in ("innodb_max_dirty_pages_pct", "innodb_max_dirty_pages_pct_lwm"):
            if orig[v] is not None:
                sql.query("SET GLOBAL %s=%s" % (v, orig[v]), check=False)
    secs = round(time.monotonic() - t0, 1)
    log("%s: settled in %.0f s (%s dirty pages left%s)" % (
        run_id, secs, dirty, "" if age is None else ", checkpoint age %.1f MB" % (age / 2 ** 20)))
    return secs, dirty

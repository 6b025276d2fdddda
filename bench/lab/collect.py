"""Per-second sampling beside a measured run: server status through one
persistent client connection, the run's loop device from /proc/diskstats,
and the CPU of the server and of the load generator.

Collector.rows maps second -> {column: text} (columns of
lab.summary.PER_SECOND_COLUMNS); server_row() is the pure part.
"""

import os
import subprocess
import threading
import time

from harness import device
from harness.proc import host_cpu_ticks, proc_cpu_ticks

from . import causes

MiB = 1024 ** 2

STATUS_NAMES = [
    "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_total",
    "Innodb_buffer_pool_pages_flushed", "Innodb_os_log_fsyncs",
    "Innodb_redo_log_current_lsn", "Innodb_redo_log_checkpoint_lsn",
    "Innodb_checkpoint_age", "Binlog_commits", "Binlog_group_commits",
    # MariaDB's current LSN (MySQL: Innodb_redo_log_current_lsn)
    "Innodb_lsn_current",
    "Innodb_data_fsyncs", "Com_commit",
    # Steady's group commit counters (vanilla has none of them)
    "Binlog_group_commit_syncs", "Innodb_redo_log_flush_batches",
    # Steady's adaptive commit wait (binlog_group_commit_sync_adaptive)
    "Binlog_group_commit_adaptive_waits", "Binlog_group_commit_adaptive_wait_usec",
    "Binlog_group_commit_sync_avg_usec"] + causes.STATUS


def status_sql(flavour, seq):
    """One round of the per-second collector's queries, ending in a marker."""
    sql = "SHOW GLOBAL STATUS WHERE Variable_name IN (%s);\n" % ",".join("'%s'" % n for n in STATUS_NAMES)
    sql += causes.metrics_sql()
    if flavour == "mysql":
        # MySQL counts neither binlog syncs nor all commits in status
        # variables; performance_schema (on by default) does.
        sql += ("SELECT 'ps_binlog_misc', COUNT_MISC FROM performance_schema.file_summary_by_event_name "
                "WHERE EVENT_NAME='wait/io/file/sql/binlog';\n"
                "SELECT 'ps_trx_rw', SUM(COUNT_READ_WRITE) FROM "
                "performance_schema.events_transactions_summary_global_by_event_name;\n")
    return sql + "SELECT '__end__', %d;\n" % seq


class RunClock:
    """Second 0 of the measured run, set when sysbench's threads start."""

    def __init__(self):
        self.started = threading.Event()
        self.t_start = None          # time.monotonic()
        self.t_start_epoch = None    # time.time(): the loader's marks use this clock

    def mark(self):
        self.t_start = time.monotonic()
        self.t_start_epoch = time.time()
        self.started.set()

    def release(self):
        """Wake the waiters without a start (the run ended before it began)."""
        self.started.set()


class StatusPoller:
    """A persistent client connection that answers one status round at a time.

    One connection for the whole run instead of a process per second keeps
    the collector well under 1% of a core.  A round that does not come back
    within the tick (server stalled) is left pending, not repeated; its
    answer is used when it arrives.
    """

    def __init__(self, client_base, flavour, errlog):
        self.flavour = flavour
        self.proc = subprocess.Popen(
            list(client_base) + ["-N", "-B", "--unbuffered", "--force"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog,
            text=True, bufsize=1, start_new_session=True)
        self.cond = threading.Condition(threading.Lock())
        self.seq = 0
        self.pending = False
        self.latest = None    # (monotonic time, {name: value})
        self._acc = {}
        self.alive = True
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2:
                continue
            name, val = parts[0], parts[1]
            if name == "__end__":
                with self.cond:
                    self.latest = (time.monotonic(), self._acc)
                    self._acc = {}
                    self.pending = False
                    self.cond.notify_all()
            else:
                self._acc[name.lower()] = val
        with self.cond:
            self.alive = False
            self.cond.notify_all()

    def poll(self, wait):
        """Ask for a round unless one is pending; wait up to `wait` seconds."""
        with self.cond:
            if not self.alive:
                return
            if not self.pending:
                self.seq += 1
                self.pending = True
                try:
                    self.proc.stdin.write(status_sql(self.flavour, self.seq))
                    self.proc.stdin.flush()
                except (BrokenPipeError, OSError):
                    self.alive = False
                    return
            self.cond.wait_for(lambda: not self.pending or not self.alive, timeout=wait)

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout=5)
        self.proc.stdout.close()


def _num(d, name):
    try:
        return float(d[name])
    except (KeyError, ValueError, TypeError):
        return None


def server_row(prev, cur, flavour, redo_bytes):
    """Per-second server columns from two status rounds (time, {name: value}).

    prev None: only the levels (dirty pages, checkpoint age), no rates.
    """
    v = cur[1]
    out = {}
    dirty = _num(v, "innodb_buffer_pool_pages_dirty")
    total = _num(v, "innodb_buffer_pool_pages_total")
    if dirty is not None:
        out["dirty_pages"] = "%d" % dirty
        if total:
            out["dirty_pct"] = "%.2f" % (100.0 * dirty / total)
    age = _num(v, "innodb_checkpoint_age")
    if age is None:
        cur_lsn = _num(v, "innodb_redo_log_current_lsn")
        ck_lsn = _num(v, "innodb_redo_log_checkpoint_lsn")
        if cur_lsn is not None and ck_lsn is not None:
            age = cur_lsn - ck_lsn
    if age is not None:
        out["ckpt_age_mb"] = "%.1f" % (age / MiB)
        if redo_bytes:
            out["ckpt_age_pct"] = "%.2f" % (100.0 * age / redo_bytes)
    dt = cur[0] - prev[0] if prev is not None else 0
    out.update(causes.columns(prev[1] if prev is not None else None, v, dt, age))
    if prev is None:
        return out
    p = prev[1]
    mysql = flavour == "mysql"
    out.update(redo_bytes_column(p, v, dt))
    for col, name in (("pages_flushed_ps", "innodb_buffer_pool_pages_flushed"),
                      # MariaDB 10.11 has no redo-only count: all InnoDB fsyncs
                      # (redo dominates: data files are O_DIRECT).
                      ("redo_fsyncs_ps", "innodb_os_log_fsyncs" if mysql else "innodb_data_fsyncs"),
                      ("binlog_syncs_ps", "ps_binlog_misc" if mysql else "binlog_group_commits"),
                      # Every InnoDB fsync: data files (a checkpoint syncs
                      # each one written since the last), doublewrite, redo.
                      ("innodb_fsyncs_ps", "innodb_data_fsyncs"),
                      ("commits_ps", "ps_trx_rw" if mysql else "binlog_commits")):
        a, b = _num(p, name), _num(v, name)
        if a is not None and b is not None and dt > 0:
            out[col] = "%.1f" % ((b - a) / dt)
    # Group commit as the server itself counts it, where it does: same
    # source for every server that has it, blank for the others.
    deltas = {}
    for name in ("binlog_commits", "binlog_group_commits", "innodb_redo_log_flush_batches"):
        a, b = _num(p, name), _num(v, name)
        if a is not None and b is not None and dt > 0:
            deltas[name] = b - a
    if "binlog_group_commits" in deltas:
        out["group_commits_ps"] = "%.1f" % (deltas["binlog_group_commits"] / dt)
        if deltas["binlog_group_commits"] > 0 and "binlog_commits" in deltas:
            out["commits_per_group"] = "%.2f" % (deltas["binlog_commits"] / deltas["binlog_group_commits"])
    if "innodb_redo_log_flush_batches" in deltas:
        out["redo_flush_batches_ps"] = "%.1f" % (deltas["innodb_redo_log_flush_batches"] / dt)
    out.update(adaptive_wait_columns(p, v, dt, deltas.get("binlog_group_commits")))
    return out


def redo_bytes_column(p, v, dt):
    """redo_bytes_ps: redo written in one second, the LSN's advance
    (MySQL's Innodb_redo_log_current_lsn, MariaDB's Innodb_lsn_current).
    Both LSNs count bytes of the redo stream; MySQL's includes its 512-byte
    blocks' 16 bytes of framing, which is part of what it writes."""
    for name in ("innodb_redo_log_current_lsn", "innodb_lsn_current"):
        a, b = _num(p, name), _num(v, name)
        if a is not None and b is not None and dt > 0:
            return {"redo_bytes_ps": "%.0f" % ((b - a) / dt)}
    return {}


def adaptive_wait_columns(p, v, dt, groups):
    """Steady's adaptive commit wait in one second: groups whose leader
    waited, the mean wait per group, and the fsync time the controller
    believes (blank where the server has no such counters)."""
    out = {}
    fsync = _num(v, "binlog_group_commit_sync_avg_usec")
    if fsync is not None:
        out["binlog_fsync_avg_us"] = "%d" % fsync
    a, b = _num(p, "binlog_group_commit_adaptive_waits"), _num(v, "binlog_group_commit_adaptive_waits")
    if a is not None and b is not None and dt > 0:
        out["adaptive_waits_ps"] = "%.1f" % ((b - a) / dt)
    a, b = _num(p, "binlog_group_commit_adaptive_wait_usec"), _num(v, "binlog_group_commit_adaptive_wait_usec")
    if a is not None and b is not None and groups:
        out["adaptive_wait_us_per_group"] = "%.1f" % ((b - a) / groups)
    return out


def device_row(prev, cur, seconds, caps, host_prev=None, host_cur=None):
    """Per-second device columns from two diskstats samples of the run's
    loop device (and of the host disk under its image, when given)."""
    row = {}
    if host_prev and host_cur:
        h = device.diskstats_delta(host_prev, host_cur, seconds)
        if h is not None:
            row["host_w_iops"] = "%.1f" % h["dev_w_iops"]
            row["host_util_pct"] = "%.1f" % h["dev_util_pct"]
    if not (prev and cur):
        return row
    rates = device.diskstats_delta(prev, cur, seconds)
    if rates is None:
        return row
    row.update({k: "%.2f" % v if k.endswith("_await_ms") else "%.1f" % v for k, v in rates.items()})
    share = device.cap_share(rates, caps)
    if share is not None:
        row["dev_cap_pct"] = "%.1f" % share
    return row


def log_device_row(prev, cur, seconds):
    """Per-second columns of the logs' own device (--log-device): its writes,
    how long they and its flushes (the logs' fsyncs) took, and how busy it
    was.  {} without two samples."""
    if not (prev and cur):
        return {}
    rates = device.diskstats_delta(prev, cur, seconds)
    flush = device.flush_delta(prev, cur, seconds)
    if rates is None or flush is None:
        return {}
    return {"log_w_iops": "%.1f" % rates["dev_w_iops"], "log_w_mbps": "%.1f" % rates["dev_w_mbps"],
            "log_w_await_ms": "%.3f" % rates["dev_w_await_ms"], "log_util_pct": "%.1f" % rates["dev_util_pct"],
            "log_flush_ps": "%.1f" % flush["flush_ps"], "log_flush_ms": "%.3f" % flush["flush_ms"]}


def host_cpu_row(prev, cur, hz, seconds):
    """Per-second host CPU columns from two host_cpu_ticks samples, each as %
    of one core like the per-process columns: every process and the kernel
    busy (host_cpu_pct), CPUs idle waiting on IO (host_iowait_pct), and time
    the hypervisor gave elsewhere (host_steal_pct).  A dip with mysqld's CPU
    down while the host's stays up or its steal rises is the host's, not the
    server's.  {} without two samples."""
    if not (prev and cur) or seconds <= 0:
        return {}
    out = {}
    for col, kind in (("host_cpu_pct", "busy"), ("host_iowait_pct", "iowait"),
                      ("host_steal_pct", "steal")):
        out[col] = "%.1f" % (100.0 * (cur[kind] - prev[kind]) / hz / seconds)
    return out


class Collector:
    """Samples server status, the loop device and CPU once a second, on the
    run's clock.  Values in: the poller, pids, device name, caps, flavour and
    redo size; result out: .rows."""

    def __init__(self, poller, clock, stop, pids, dev_name, caps, flavour, redo_bytes, host_dev=None,
                 log_dev=None):
        self.poller = poller
        self.clock = clock
        self.stop = stop
        self.pids = dict(pids)          # {"mysqld": pid, "sysbench": pid}
        self.dev_name = dev_name
        self.caps = caps
        self.flavour = flavour
        self.redo_bytes = redo_bytes
        self.host_dev = host_dev        # host disk under the loop image, or None
        self.log_dev = log_dev          # the logs' own loop device (--log-device), or None
        self.rows = {}
        self.hz = os.sysconf("SC_CLK_TCK")
        self.cpu0 = time.process_time()
        self.wall0 = time.monotonic()

    def own_cpu_pct(self, client_ticks):
        """CPU of the measuring side, as % of one core: this process
        (collector, sysbench output parsing) plus its status client."""
        wall = time.monotonic() - self.wall0
        used = time.process_time() - self.cpu0 + client_ticks / self.hz
        return round(100.0 * used / wall, 2) if wall > 0 else None

    def loop(self):
        self.clock.started.wait()
        if self.stop.is_set() or self.clock.t_start is None:
            return
        prev_disk, prev_t = device.read_diskstats(self.dev_name), time.monotonic()
        prev_host = device.read_diskstats(self.host_dev) if self.host_dev else None
        prev_log = device.read_diskstats(self.log_dev) if self.log_dev else None
        prev_cpu = {w: proc_cpu_ticks(pid) for w, pid in self.pids.items()}
        prev_host_cpu = host_cpu_ticks()
        self.poller.poll(0.9)
        prev_srv = self.poller.latest
        k = 0
        while not self.stop.is_set():
            k += 1
            delay = self.clock.t_start + k - time.monotonic()
            if delay > 0 and self.stop.wait(delay):
                break
            now = time.monotonic()
            d = device.read_diskstats(self.dev_name)
            h = device.read_diskstats(self.host_dev) if self.host_dev else None
            row = device_row(prev_disk, d, now - prev_t, self.caps, prev_host, h)
            prev_host = h
            if self.log_dev:
                lg = device.read_diskstats(self.log_dev)
                row.update(log_device_row(prev_log, lg, now - prev_t))
                prev_log = lg
            for what, pid in self.pids.items():
                c = proc_cpu_ticks(pid)
                if c is not None and prev_cpu[what] is not None:
                    row[what + "_cpu_pct"] = "%.1f" % (100.0 * (c - prev_cpu[what]) / self.hz / (now - prev_t))
                prev_cpu[what] = c
            host_cpu = host_cpu_ticks()
            row.update(host_cpu_row(prev_host_cpu, host_cpu, self.hz, now - prev_t))
            prev_host_cpu = host_cpu
            prev_disk, prev_t = d, now
            self.poller.poll(0.8)
            cur = self.poller.latest
            if cur is not None and (prev_srv is None or cur[0] > prev_srv[0]):
                row.update(server_row(prev_srv, cur, self.flavour, self.redo_bytes))
                prev_srv = cur
            self.rows[k] = row

"""Stall causes: what InnoDB itself says is holding commits back, one
column a second, and a reading of the dips against those columns.  Pure:
counters in, columns and findings out (bench/tests/test_causes.py).

Where the counters come from (MySQL 9.7.2, storage/innobase/srv/srv0mon.cc;
the field notes: ../shared/design/stalls.md):

- the checkpoint-age wave: log_lsn_checkpoint_age against
  log_max_modified_age_async (7/8 of the redo's soft capacity: the page
  cleaner flushes for redo space) and log_max_modified_age_sync (15/16:
  the page cleaner flushes in sync mode, pages counted in
  buffer_flush_sync_total_pages); past the free-check limit user threads
  wait for redo space in log_free_check_wait(), counted in
  log_on_file_space_waits.  (buffer_flush_sync_waits, despite its name,
  only counts rounds of buf_flush_sync_all_buf_pools(), a full flush of
  every pool, in 9.7.2: kept as a column, not read as a cause);
- free-page waits: buffer_LRU_get_free_waits (a user thread slept in
  buf_LRU_get_free_block because no page was free),
  buffer_LRU_single_flush_num_scan (it flushed a page itself),
  Innodb_buffer_pool_wait_free (the server's status counter for the same),
  Innodb_buffer_pool_pages_free;
- the device: write IOPS, queue and write latency of the run's loop device,
  and of the host disk under its image file.

The INNODB_METRICS counters are off by default; enable_sql() turns on the
ones read here (the same for every server, a few increments per page).
"""

import statistics

# INNODB_METRICS rows read each second, and the patterns that enable them.
METRICS = ["log_lsn_checkpoint_age", "log_lsn_current", "log_lsn_buf_pool_oldest_approx",
           "log_max_modified_age_async", "log_max_modified_age_sync",
           "log_on_file_space_waits", "buffer_flush_sync_waits", "buffer_flush_sync_total_pages",
           # sync-mode rounds (batches): with the pages, how large and how many a second
           "buffer_flush_sync",
           "buffer_LRU_get_free_waits", "buffer_LRU_single_flush_num_scan",
           "buffer_LRU_batch_flush_total_pages",
           # flush-list and LRU batches: how many and how large (the page
           # cleaner's writes in fewer, larger batches or in many small ones)
           "buffer_flush_batches", "buffer_flush_batch_total_pages", "buffer_LRU_batches_flush",
           # Steady's device-paced flushing (enabled at startup; absent elsewhere)
           "buffer_flush_pace_budget", "buffer_flush_pace_capability",
           "buffer_flush_pace_write_latency_us", "buffer_flush_pace_pressure_ckpt_pct",
           "buffer_flush_pace_pressure_dirty_pct", "buffer_flush_pace_lru_depth",
           "buffer_flush_pace_baseline_latency_us",
           # every checkpoint written (upstream's periodic ones and those pacing asks for)
           "log_checkpoints",
           # upstream's adaptive flushing: its target and the inputs it is set from
           # (the averages are refreshed every innodb_flushing_avg_loops iterations)
           "buffer_flush_n_to_flush_requested", "buffer_flush_n_to_flush_by_age",
           "buffer_flush_avg_page_rate", "buffer_flush_lsn_avg_rate"]
ENABLE = ["log_lsn_checkpoint_age", "log_lsn_current", "log_lsn_buf_pool_oldest_approx", "log_max_modified_age_%", "log_on_file_space_%", "buffer_flush_sync%",
          "buffer_LRU_get_free_waits", "buffer_LRU_single_flush%", "buffer_LRU_batch_flush%",
          "buffer_flush_batches", "buffer_flush_batch_total_pages", "buffer_LRU_batches_flush",
          "buffer_flush_pace%", "log_checkpoints", "buffer_flush_n_to_flush%",
          "buffer_flush_avg_page_rate", "buffer_flush_lsn_avg_rate"]
# Status variables the cause columns need (beside lab.collect's).
STATUS = ["Innodb_buffer_pool_wait_free", "Innodb_buffer_pool_pages_free",
          # doublewrite batches (each one write and sync of the doublewrite
          # file before the pages' own writes) and the pages they carried
          "Innodb_dblwr_writes", "Innodb_dblwr_pages_written"]
PREFIX = "m_"   # INNODB_METRICS names in a status round, told apart from status names

# Per-second columns this module fills (lab.summary.PER_SECOND_COLUMNS).
COLUMNS = ["ckpt_async_pct", "ckpt_sync_pct", "redo_space_waits_ps", "sync_flush_waits_ps", "sync_flush_pages_ps",
           "sync_flush_rounds_ps",
           "free_waits_ps", "single_flushes_ps", "wait_free_ps", "lru_flush_pages_ps",
           "free_pages", "oldest_async_pct", "pace_budget", "pace_capability", "pace_write_lat_us",
           "pace_p_ckpt", "pace_p_dirty", "pace_lru_depth", "pace_baseline_us", "checkpoints_ps",
           "af_target", "af_by_age", "af_avg_page_rate", "af_lsn_avg_rate",
           "list_batches_ps", "list_batch_pages_ps", "lru_batches_ps", "dblwr_writes_ps", "dblwr_pages_ps"]

# Gauges copied as they are: column -> INNODB_METRICS row in a round.
LEVELS = {"pace_budget": PREFIX + "buffer_flush_pace_budget",
          "pace_capability": PREFIX + "buffer_flush_pace_capability",
          "pace_write_lat_us": PREFIX + "buffer_flush_pace_write_latency_us",
          "pace_p_ckpt": PREFIX + "buffer_flush_pace_pressure_ckpt_pct",
          "pace_p_dirty": PREFIX + "buffer_flush_pace_pressure_dirty_pct",
          "pace_lru_depth": PREFIX + "buffer_flush_pace_lru_depth",
          "pace_baseline_us": PREFIX + "buffer_flush_pace_baseline_latency_us",
          "af_target": PREFIX + "buffer_flush_n_to_flush_requested",
          "af_by_age": PREFIX + "buffer_flush_n_to_flush_by_age",
          "af_avg_page_rate": PREFIX + "buffer_flush_avg_page_rate",
          "af_lsn_avg_rate": PREFIX + "buffer_flush_lsn_avg_rate"}

# Counters turned into per-second rates: column -> counter in a round.
RATES = {"redo_space_waits_ps": PREFIX + "log_on_file_space_waits",
         "sync_flush_waits_ps": PREFIX + "buffer_flush_sync_waits",
         "sync_flush_pages_ps": PREFIX + "buffer_flush_sync_total_pages",
         "sync_flush_rounds_ps": PREFIX + "buffer_flush_sync",
         "free_waits_ps": PREFIX + "buffer_lru_get_free_waits",
         "single_flushes_ps": PREFIX + "buffer_lru_single_flush_num_scan",
         "lru_flush_pages_ps": PREFIX + "buffer_lru_batch_flush_total_pages",
         "wait_free_ps": "innodb_buffer_pool_wait_free",
         "checkpoints_ps": PREFIX + "log_checkpoints",
         "list_batches_ps": PREFIX + "buffer_flush_batches",
         "list_batch_pages_ps": PREFIX + "buffer_flush_batch_total_pages",
         "lru_batches_ps": PREFIX + "buffer_lru_batches_flush",
         "dblwr_writes_ps": "innodb_dblwr_writes",
         "dblwr_pages_ps": "innodb_dblwr_pages_written"}


def enable_sql():
    """Statements that switch the counters on (a missing one is an error the
    caller ignores: MariaDB lacks some)."""
    return ["SET GLOBAL innodb_monitor_enable = '%s'" % n for n in ENABLE]


def metrics_sql():
    """One query of a status round: name (prefixed) and value of METRICS."""
    return ("SELECT CONCAT('%s', NAME), COUNT FROM information_schema.INNODB_METRICS "
            "WHERE NAME IN (%s);\n" % (PREFIX, ",".join("'%s'" % n for n in METRICS)))


def _num(d, name):
    try:
        return float(d[name])
    except (KeyError, ValueError, TypeError):
        return None


def columns(prev, cur, dt, status_age=None):
    """Cause columns from two status rounds ({lower-case name: text}).

    prev None: levels only.  status_age: the checkpoint age from status
    variables, used when INNODB_METRICS has none (counters off).
    """
    out = {}
    age = _num(cur, PREFIX + "log_lsn_checkpoint_age")
    if age is None:
        age = status_age
    for col, mark in (("ckpt_async_pct", "log_max_modified_age_async"),
                      ("ckpt_sync_pct", "log_max_modified_age_sync")):
        m = _num(cur, PREFIX + mark.lower())
        if age is not None and m:
            out[col] = "%.1f" % (100.0 * age / m)
    # The age of the oldest modification, which the page cleaner's flushing
    # moves (the checkpoint age trails it by up to a checkpoint interval).
    lsn, oldest = _num(cur, PREFIX + "log_lsn_current"), _num(cur, PREFIX + "log_lsn_buf_pool_oldest_approx")
    mark = _num(cur, PREFIX + "log_max_modified_age_async")
    if lsn and oldest and mark:
        out["oldest_async_pct"] = "%.1f" % (100.0 * max(0.0, lsn - oldest) / mark)
    free = _num(cur, "innodb_buffer_pool_pages_free")
    if free is not None:
        out["free_pages"] = "%d" % free
    for col, name in LEVELS.items():
        v = _num(cur, name)
        if v is not None:
            out[col] = "%d" % v
    if prev is None or dt <= 0:
        return out
    for col, name in RATES.items():
        a, b = _num(prev, name), _num(cur, name)
        if a is not None and b is not None:
            out[col] = "%.1f" % (max(0.0, b - a) / dt)
    return out


# ---------------------------------------------------------------------------
# The server's own words: warnings InnoDB writes to the error log when a
# stall's mechanism is at work, counted over the measured run.
LOG_SIGNATURES = [
    # log0chkp.cc/log0buf.cc: user threads cannot reserve redo space until
    # the checkpoint advances (MY-014084 in 9.7.2)
    ("redo_full_warnings", "unable to reserve space in redo log"),
    # buf0flu.cc: a page cleaner iteration overran its second (MY-011953)
    ("page_cleaner_warnings", "Page cleaner took"),
    # buf0lru.cc: a thread looped over 20 times for a free page
    ("free_block_warnings", "Difficult to find free blocks"),
]


def log_signatures(text):
    """{figure: count of error-log lines carrying its signature}."""
    lines = text.splitlines()
    return {key: sum(1 for x in lines if sig in x) for key, sig in LOG_SIGNATURES}


# ---------------------------------------------------------------------------
# Reading the dips.

# What the page lists for each dip: column, label, format.
DIP_COLUMNS = [("tps", "TPS", "{:.0f}"), ("p99_ms", "p99 ms", "{:.1f}"),
               ("queue_len", "client queue", "{:.0f}"),
               ("ckpt_sync_pct", "ckpt age % of sync mark", "{:.0f}"),
               ("redo_space_waits_ps", "redo space waits/s", "{:.1f}"),
               ("sync_flush_pages_ps", "sync flush pages/s", "{:.0f}"),
               ("free_waits_ps", "free-page waits/s", "{:.1f}"),
               ("wait_free_ps", "Innodb_buffer_pool_wait_free/s", "{:.1f}"),
               ("free_pages", "free pages", "{:.0f}"),
               ("dirty_pct", "dirty %", "{:.1f}"),
               ("pages_flushed_ps", "pages flushed/s", "{:.0f}"),
               ("dev_w_iops", "device write IOPS", "{:.0f}"),
               ("dev_avg_queue", "device queue", "{:.1f}"),
               ("dev_w_await_ms", "device write ms", "{:.2f}"),
               ("host_util_pct", "host disk %util", "{:.0f}"),
               ("log_flush_ms", "log device ms per flush", "{:.3f}"),
               ("binlog_fsync_avg_us", "binlog fsync us (Steady)", "{:.0f}"),
               ("mysqld_cpu_pct", "mysqld CPU %", "{:.0f}")]

DIP_SHARE = 0.5    # a dip second: TPS below this share of the run's mean
# With no dip, the troughs of a wave: seconds below this share of the mean.
# A run that waves between 0.55 and 1.2 of its mean has no dip, yet the
# reader still needs the cause under its troughs.
TROUGH_SHARE = 0.7


def _f(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def _mean(rows, col):
    vals = [x for x in (_f(r.get(col)) for r in rows) if x is not None]
    return statistics.fmean(vals) if vals else None


def dips(rows, warmup, share=DIP_SHARE, sla_ms=None):
    """The measured rows split into (dip seconds, other seconds): a dip is a
    second whose TPS is below `share` of the run's mean TPS or, with an SLA
    (an open-loop run, where TPS holds at the offered rate and a stall shows
    as latency), whose p99 is above sla_ms."""
    measured = [r for r in rows if (_f(r.get("second")) or 0) > warmup and _f(r.get("tps")) is not None]
    if not measured:
        return [], []
    mean = statistics.fmean(_f(r["tps"]) for r in measured)

    def bad(r):
        return _f(r["tps"]) < share * mean or bool(sla_ms and (_f(r.get("p99_ms")) or 0) > sla_ms)
    return [r for r in measured if bad(r)], [r for r in measured if not bad(r)]


def _dip_words(share, sla_ms):
    words = "below %d%% of the mean TPS" % round(100 * share)
    return words + (" or with p99 above the %g ms SLA" % sla_ms if sla_ms else "")


def first_rise(rows, col, warmup):
    """(second, row) of the first measured second where `col` is above 0."""
    for r in rows:
        if (_f(r.get("second")) or 0) > warmup and (_f(r.get(col)) or 0) > 0:
            return int(_f(r["second"])), r
    return None, None


def _read(rows, warmup, share, sla_ms):
    """(dip seconds, other seconds, the share that picked them): the dips
    at `share` or, when there are none, the troughs at TROUGH_SHARE."""
    low, rest = dips(rows, warmup, share, sla_ms)
    if not low and TROUGH_SHARE > share:
        low, rest = dips(rows, warmup, TROUGH_SHARE, None)
        return low, rest, TROUGH_SHARE
    return low, rest, share


def dip_kind(rows, warmup, share=DIP_SHARE, sla_ms=None):
    """"dip" or "trough": which seconds dip_table() and verdict() read."""
    return "dip" if _read(rows, warmup, share, sla_ms)[2] == share else "trough"


def dip_table(rows, warmup, share=DIP_SHARE, sla_ms=None):
    """[(label, value in dips, value elsewhere)] for DIP_COLUMNS, the
    number of dip seconds; without a dip, the same for the troughs below
    TROUGH_SHARE of the mean; empty list when the run has neither."""
    low, rest, _ = _read(rows, warmup, share, sla_ms)
    if not low:
        return [], 0
    table = []
    for col, label, spec in DIP_COLUMNS:
        a, b = _mean(low, col), _mean(rest, col)
        if a is None and b is None:
            continue
        table.append((label, "-" if a is None else spec.format(a), "-" if b is None else spec.format(b)))
    return table, len(low)


def verdict(rows, warmup, share=DIP_SHARE, sla_ms=None):
    """One sentence naming what the counters show under the dips (or that
    there were none); the reader checks it against dip_table()."""
    low, rest, used = _read(rows, warmup, share, sla_ms)
    if not low:
        return "no second " + _dip_words(share, sla_ms)
    head = "%d s %s" % (len(low), _dip_words(share, sla_ms))
    if used != share:
        head = "no second %s; %d s below %d%% of it (troughs)" % (_dip_words(share, sla_ms), len(low),
                                                                round(100 * used))
    where = "dips" if used == share else "troughs"
    said = []
    for col, what in (("sync_flush_pages_ps", "sync-mode flushing"), ("redo_space_waits_ps", "redo space waits")):
        sec, row = first_rise(rows, col, warmup)
        if sec is not None:
            said.append("%s first rose above 0 at second %d (checkpoint age %s%% of the sync mark, %s%% of "
                        "the async mark)" % (what, sec, row.get("ckpt_sync_pct") or "?",
                                             row.get("ckpt_async_pct") or "?"))
    sa, sr = _mean(low, "sync_flush_pages_ps"), _mean(rest, "sync_flush_pages_ps")
    if sa:
        said.append("sync-mode flushing averaged %.0f pages/s in the %s (%.0f/s elsewhere)" % (sa, where, sr or 0.0))
    rw, rr = _mean(low, "redo_space_waits_ps"), _mean(rest, "redo_space_waits_ps")
    if rw:
        said.append("redo space waits averaged %.1f/s in the %s (%.1f/s elsewhere)" % (rw, where, rr or 0.0))
    a, b = _mean(low, "ckpt_async_pct"), _mean(rest, "ckpt_async_pct")
    if a is not None and a >= 100:
        said.append("in the %s the checkpoint age averaged %.0f%% of the async mark (%s elsewhere)"
                    % (where, a, "-" if b is None else "%.0f%%" % b))
    fw, fr = _mean(low, "free_waits_ps"), _mean(rest, "free_waits_ps")
    if fw:
        said.append("free-page waits averaged %.1f/s in the %s (%.1f/s elsewhere)" % (fw, where, fr or 0.0))
    # A thread that found no free page and flushed one itself; the waits
    # above count only its third try onwards.
    ww, wr2 = _mean(low, "wait_free_ps"), _mean(rest, "wait_free_ps")
    if ww:
        said.append("Innodb_buffer_pool_wait_free rose %.1f/s in the %s (%.1f/s elsewhere)" % (ww, where, wr2 or 0.0))
    wa, wr = _mean(low, "dev_w_iops"), _mean(rest, "dev_w_iops")
    qa, qr = _mean(low, "dev_avg_queue"), _mean(rest, "dev_avg_queue")
    if wa is not None and wr:
        said.append("device writes %.0f/s in the %s vs %.0f/s elsewhere, queue %s vs %s" % (
            wa, where, wr, "-" if qa is None else "%.1f" % qa, "-" if qr is None else "%.1f" % qr))
    ha = _mean(low, "host_util_pct")
    if ha is not None:
        said.append("host disk %%util %.0f%% in the %s (%s elsewhere)" % (
            ha, where, "-" if _mean(rest, "host_util_pct") is None else "%.0f%%" % _mean(rest, "host_util_pct")))
    return "%s; %s" % (head, "; ".join(said) if said else "no cause counter moved")

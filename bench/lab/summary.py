"""Pure summary math for bench/run: per-second rows in, figures out.

Nothing here touches the system; every function takes plain values and returns
plain values so bench/tests/test_summary.py can pin the numbers.
"""

import math
import statistics

# Per-second CSV schema (bench/README.md documents each column).
PER_SECOND_COLUMNS = [
    "run_id", "scenario", "workload", "server", "flavour", "device", "threads",
    "repeat", "second",
    # sysbench, from our report hook (bench/workloads/steady_common.lua)
    "tps", "qps", "p95_ms", "p99_ms", "max_ms", "errors_ps", "threads_running",
    # open-loop runs (--rate): events waiting for a free client thread
    "queue_len",
    # server, sampled once a second through one persistent client connection
    "dirty_pages", "dirty_pct", "ckpt_age_mb", "ckpt_age_pct",
    "pages_flushed_ps", "redo_fsyncs_ps", "binlog_syncs_ps", "commits_ps",
    "innodb_fsyncs_ps",
    # redo written per second (the LSN's advance)
    "redo_bytes_ps",
    # group commit, where the server counts it (Steady, MariaDB; blank for vanilla)
    "group_commits_ps", "commits_per_group", "redo_flush_batches_ps",
    # Steady's adaptive commit wait: groups that waited, mean wait per group,
    # the binlog fsync time the controller believes (blank elsewhere)
    "adaptive_waits_ps", "adaptive_wait_us_per_group", "binlog_fsync_avg_us",
    # the run's own loop device, from /proc/diskstats
    "dev_r_iops", "dev_w_iops", "dev_w_mbps", "dev_util_pct", "dev_cap_pct",
    "dev_avg_queue", "dev_w_await_ms", "dev_r_mbps", "dev_r_await_ms",
    # the host disk under the loop image (blank when the image is in RAM)
    "host_w_iops", "host_util_pct",
    # the logs' own loop device (--log-device; blank without one): writes,
    # write and flush latency (each flush is a redo or binlog fsync), %util
    "log_w_iops", "log_w_mbps", "log_w_await_ms", "log_util_pct", "log_flush_ps", "log_flush_ms",
    # stall causes from INNODB_METRICS and status (lab.causes)
    "ckpt_async_pct", "ckpt_sync_pct", "redo_space_waits_ps", "sync_flush_waits_ps", "sync_flush_pages_ps",
    "sync_flush_rounds_ps", "free_waits_ps", "single_flushes_ps", "wait_free_ps", "lru_flush_pages_ps",
    "free_pages", "oldest_async_pct",
    # Steady's device-paced flushing: budget and capability (pages/s), page
    # write latency (us), checkpoint-age and dirty-page pressure (0-100) and
    # the LRU depth (free pages per instance) as the controller saw them,
    # and the baseline latency its limit is set from (blank elsewhere)
    "pace_budget", "pace_capability", "pace_write_lat_us", "pace_p_ckpt",
    "pace_p_dirty", "pace_lru_depth", "pace_baseline_us",
    # checkpoints written a second (INNODB_METRICS log_checkpoints; blank
    # for MariaDB)
    "checkpoints_ps",
    # upstream's adaptive flushing (INNODB_METRICS buffer_flush_*): the pages
    # it asked for, its pages-for-age term, and its averaged page and redo
    # rates (LSN/s), refreshed every innodb_flushing_avg_loops iterations
    # (blank for MariaDB)
    "af_target", "af_by_age", "af_avg_page_rate", "af_lsn_avg_rate",
    # batches a second: flush-list (all callers: paced, adaptive, sync) and
    # their pages, LRU flush batches, doublewrite batches and their pages
    "list_batches_ps", "list_batch_pages_ps", "lru_batches_ps", "dblwr_writes_ps", "dblwr_pages_ps",
    # who burns the CPU (100 = one core): server and load generator
    "mysqld_cpu_pct", "sysbench_cpu_pct",
    # the whole host (/proc/stat, 100 = one core): busy, idle waiting on IO,
    # taken by the hypervisor
    "host_cpu_pct", "host_iowait_pct", "host_steal_pct",
    # bulk_load: the loader step (create, prealloc, load) overlapping the second
    "load_phase",
]

# Per-run summary: what the Markdown table and runs.csv carry.
RUN_METRICS = [
    ("mean_tps", "mean TPS", "{:.0f}"),
    ("worst_tps", "worst 1 s TPS", "{:.0f}"),
    ("worst_over_mean", "worst/mean", "{:.2f}"),
    ("p1_tps", "1st pct 1 s TPS", "{:.0f}"),
    ("cv", "CV", "{:.3f}"),
    ("cv_after_1min", "CV after 1st min", "{:.3f}"),
    ("secs_below_half", "s < 50% mean", "{:d}"),
    ("secs_below_70", "s < 70% mean", "{:d}"),
    ("p99_median_ms", "p99 median ms", "{:.1f}"),
    ("p99_worst_ms", "p99 worst ms", "{:.1f}"),
    ("max_dirty_pct", "max dirty %", "{:.1f}"),
    ("mean_util_pct", "mean dev %util", "{:.0f}"),
    ("mean_w_iops", "mean write IOPS", "{:.0f}"),
    ("redo_bytes_per_trx", "redo B/trx", "{:.0f}"),
    ("cpu_ms_per_trx", "mysqld CPU ms/trx", "{:.3f}"),
    ("pages_flushed_per_trx", "pages flushed/trx", "{:.3f}"),
]

# Per-run stall-cause figures (lab.causes columns), in their own table.
CAUSE_METRICS = [
    ("max_ckpt_sync_pct", "max ckpt age % of sync mark", "{:.0f}"),
    ("redo_space_waits", "redo space waits", "{:.0f}"),
    ("sync_flush_pages", "sync flush pages", "{:.0f}"),
    ("free_waits", "free-page waits", "{:.0f}"),
    ("wait_free", "Innodb_buffer_pool_wait_free", "{:.0f}"),
    ("min_free_pages", "min free pages", "{:.0f}"),
    ("max_queue", "max client queue", "{:.0f}"),
    ("max_latency_ms", "max latency ms", "{:.0f}"),
    ("secs_over_sla", "s with p99 > SLA", "{:d}"),
    # lab.causes.LOG_SIGNATURES, from mysqld's error log over the measured run
    ("redo_full_warnings", "redo-full warnings", "{:d}"),
    ("page_cleaner_warnings", "page cleaner overrun warnings", "{:d}"),
    ("free_block_warnings", "free-block warnings", "{:d}"),
    # Seconds in which the oldest modification was past the async mark
    # (upstream's aggressive flushing), and the mean page-cleaner flushing
    # and device writes over them: what issue 17's "close to the device"
    # bar compares with the raw write test (bench/raw-write).
    ("secs_past_async", "s past async mark", "{:d}"),
    ("flushed_past_async", "pages flushed/s past async", "{:.0f}"),
    ("w_iops_past_async", "device writes/s past async", "{:.0f}"),
]

# The ratios the per-server and per-pair tables print.
PAIR_KEYS = ("mean_tps", "worst_tps", "p1_tps", "cv", "p99_median_ms")

# Metrics whose ratio to the baseline server is printed per server.
RATIO_METRICS = ["mean_tps", "worst_tps", "worst_over_mean", "p1_tps", "cv", "cv_after_1min",
                 "p99_median_ms", "p99_worst_ms", "max_dirty_pct",
                 "mean_util_pct", "redo_bytes_per_trx", "cpu_ms_per_trx",
                 "pages_flushed_per_trx"]


def to_float(value):
    """CSV cell -> float, or None for a blank or unparsable cell."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return None if (isinstance(value, float) and math.isnan(value)) else float(value)
    value = value.strip()
    if not value:
        return None
    try:
        f = float(value)
    except ValueError:
        return None
    return None if math.isnan(f) else f


def _present(values):
    return [v for v in (to_float(x) for x in values) if v is not None]


# The first minute after a cold start runs on an empty redo log: until the
# checkpoint age nears the async mark nothing has to be flushed, and the
# stall lab's A ran 1.25-1.31x its mean TPS there on both servers
# (2026-11-27), most of a flat run's whole-run CV.  CV from this second on
# says how flat the run is once flushing has to keep up.
SETTLED_FROM_S = 61


def cv_after(measured, from_s):
    """CV of the TPS of the rows from second from_s on, against their own
    mean; None if fewer than 10 such seconds or a zero mean."""
    tps = _present(r.get("tps") for r in measured
                   if (to_float(r.get("second")) or 0) >= from_s)
    if len(tps) < 10:
        return None
    mean = statistics.fmean(tps)
    return statistics.pstdev(tps) / mean if mean > 0 else None


def low_percentile(values, pct):
    """The nearest-rank pct-th percentile of `values` (the k-th lowest, k =
    ceil(n x pct / 100), at least 1); None if empty.

    A run's single worst second is its noisiest figure (one scheduling
    hiccup on a 2-core host sets it); the 1st percentile of a 300-s run is
    its third-worst second, which one such second does not move."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(len(ordered) * pct / 100.0))
    return ordered[min(len(ordered), rank) - 1]


def summarize_run(rows, warmup=10, sla_ms=None):
    """Summary of one run from its per-second rows (dicts keyed by column).

    Seconds 1..warmup are left out (connection ramp, first flushes).  Returns a
    dict with the RUN_METRICS keys plus n_seconds; a metric whose column has no
    value in the measured seconds is None.  Raises ValueError when no measured
    second has a TPS value: such a run cannot be summarised.
    """
    measured = [r for r in rows if (to_float(r.get("second")) or 0) > warmup]
    tps = _present(r.get("tps") for r in measured)
    if not tps:
        raise ValueError("no per-second TPS after the %d s warm-up" % warmup)
    mean = statistics.fmean(tps)
    worst = min(tps)
    out = {
        "n_seconds": len(tps),
        "mean_tps": mean,
        "worst_tps": worst,
        "worst_over_mean": (worst / mean) if mean > 0 else None,
        "p1_tps": low_percentile(tps, 1),
        # population standard deviation: the run is the whole population
        "cv": (statistics.pstdev(tps) / mean) if mean > 0 else None,
        "secs_below_half": sum(1 for v in tps if v < 0.5 * mean),
        "secs_below_70": sum(1 for v in tps if v < 0.7 * mean),
        "cv_after_1min": cv_after(measured, SETTLED_FROM_S),
    }
    p99 = _present(r.get("p99_ms") for r in measured)
    out["p99_median_ms"] = statistics.median(p99) if p99 else None
    out["p99_worst_ms"] = max(p99) if p99 else None
    dirty = _present(r.get("dirty_pct") for r in measured)
    out["max_dirty_pct"] = max(dirty) if dirty else None
    util = _present(r.get("dev_util_pct") for r in measured)
    out["mean_util_pct"] = statistics.fmean(util) if util else None
    wiops = _present(r.get("dev_w_iops") for r in measured)
    out["mean_w_iops"] = statistics.fmean(wiops) if wiops else None
    out.update(per_trx_figures(measured))
    out.update(cause_figures(measured, p99, sla_ms))
    return out


def per_trx_figures(measured):
    """Cost per transaction over the measured seconds: redo bytes, mysqld CPU
    milliseconds and pages flushed, each the sum of its per-second column over
    the seconds that have both it and a TPS, divided by those seconds'
    transactions. None where the column is blank (a server without it)."""
    out = {}
    for key, name, scale in (("redo_bytes_per_trx", "redo_bytes_ps", 1.0),
                             # 100 % = one core for one second = 1000 ms
                             ("cpu_ms_per_trx", "mysqld_cpu_pct", 10.0),
                             ("pages_flushed_per_trx", "pages_flushed_ps", 1.0)):
        pairs = [(to_float(r.get(name)), to_float(r.get("tps"))) for r in measured]
        pairs = [(a, t) for a, t in pairs if a is not None and t is not None]
        trx = sum(t for _, t in pairs)
        out[key] = (scale * sum(a for a, _ in pairs) / trx) if pairs and trx > 0 else None
    return out


def cause_figures(measured, p99, sla_ms):
    """CAUSE_METRICS of the measured rows.  Counts are sums of the
    per-second rates (the collector's seconds are about 1 s long)."""
    def col(name):
        return _present(r.get(name) for r in measured)
    out = {}
    v = col("ckpt_sync_pct")
    out["max_ckpt_sync_pct"] = max(v) if v else None
    for key, name in (("redo_space_waits", "redo_space_waits_ps"), ("sync_flush_pages", "sync_flush_pages_ps"),
                      ("free_waits", "free_waits_ps"),
                      ("wait_free", "wait_free_ps")):
        v = col(name)
        out[key] = sum(v) if v else None
    v = col("free_pages")
    out["min_free_pages"] = min(v) if v else None
    v = col("queue_len")
    out["max_queue"] = max(v) if v else None
    v = col("max_ms")
    out["max_latency_ms"] = max(v) if v else None
    out["secs_over_sla"] = sum(1 for x in p99 if x > sla_ms) if sla_ms and p99 else None
    out.update(past_async(measured))
    return out


def past_async(measured):
    """secs_past_async: the measured seconds with the oldest modification
    at or past the async mark (oldest_async_pct >= 100); flushed_past_async
    and w_iops_past_async: the means of pages_flushed_ps and dev_w_iops over
    those seconds. All three are None when the run has no oldest_async_pct
    column (a server without it); with the column but no second past the
    mark, the count is 0 and the two means are None, as they are when the
    column they average is blank."""
    past = [r for r in measured if (to_float(r.get("oldest_async_pct")) or 0) >= 100]
    if not _present(r.get("oldest_async_pct") for r in measured):
        return {"secs_past_async": None, "flushed_past_async": None, "w_iops_past_async": None}
    out = {"secs_past_async": len(past)}
    for key, name in (("flushed_past_async", "pages_flushed_ps"), ("w_iops_past_async", "dev_w_iops")):
        v = _present(r.get(name) for r in past)
        out[key] = statistics.fmean(v) if v else None
    return out


def aggregate_server(run_summaries, metrics=None):
    """Mean of each metric (default RUN_METRICS: (key, label, format)
    tuples) over the successful runs of one server."""
    agg = {"runs": len(run_summaries)}
    for key, _, _ in (RUN_METRICS if metrics is None else metrics):
        vals = [s[key] for s in run_summaries if s.get(key) is not None]
        agg[key] = statistics.fmean(vals) if vals else None
    return agg


def ratio(a, b):
    """a/b, or None when either side is missing or b is zero."""
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt(value, spec="{:.2f}"):
    """Format a metric for the Markdown table; '-' for a missing value."""
    if value is None:
        return "-"
    if spec == "{:d}":
        return str(int(round(value)))
    return spec.format(value)


def markdown_table(header, rows):
    """A GitHub-flavoured Markdown table from a header list and row lists."""
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def baselines_of(baseline):
    """A baseline argument (None, a server name or a list of them) -> list."""
    if not baseline:
        return []
    return [baseline] if isinstance(baseline, str) else list(baseline)


def summary_markdown(runs, baseline=None):
    """Markdown summary of a whole bench run.

    runs: list of dicts with run_id, server, threads, repeat, status ('ok' or
    'failed'), error (str) and, when ok, summary (dict from summarize_run).
    baseline: server name the ratios are taken against, or a list of them
    (a ratio column set and a per-pair table for each; None: no ratios).
    """
    bases = baselines_of(baseline)
    out = []
    header = ["run", "server", "threads", "repeat", "status"] + [m[1] for m in RUN_METRICS]
    rows = []
    for r in runs:
        s = r.get("summary") or {}
        cells = [r["run_id"], r["server"], r["threads"], r["repeat"], r["status"]]
        cells += [fmt(s.get(k), spec) if r["status"] == "ok" else "-" for k, _, spec in RUN_METRICS]
        rows.append(cells)
    out.append("### Per run\n")
    out.append(markdown_table(header, rows))

    ok = [r for r in runs if r["status"] == "ok"]
    if ok and any((r.get("summary") or {}).get(k) is not None for r in ok for k, _, _ in CAUSE_METRICS):
        out.append("\n### Stall causes per run (lab.causes; sums of per-second counts)\n")
        out.append(markdown_table(["run", "server", "repeat"] + [m[1] for m in CAUSE_METRICS], [
            [r["run_id"], r["server"], r["repeat"]] + [fmt(r["summary"].get(k), spec) for k, _, spec in CAUSE_METRICS]
            for r in ok]))
    for r in ok:
        if r.get("dips"):
            out.append("\n#### %s (%s): %s\n" % (r["run_id"], r["server"], r["dips"]["verdict"]))
            if r["dips"]["table"]:
                out.append(markdown_table(["mean over", "%s seconds (%d)" % (r["dips"].get("kind") or "dip",
                                                                             r["dips"]["seconds"]),
                                           "other seconds"],
                                          [list(t) for t in r["dips"]["table"]]))

    failed = [r for r in runs if r["status"] != "ok"]
    if failed:
        out.append("\n### Failed runs (not averaged in)\n")
        for r in failed:
            lines = (r.get("error", "").strip() or "failed").splitlines()
            out.append("- `%s` (%s): %s" % (r["run_id"], r["server"], lines[0]))
            if len(lines) > 1:
                out.append("\n  ```\n" + "\n".join("  " + x for x in lines[1:]) + "\n  ```")

    # Per server and thread count: mean over ok repeats, ratio to baseline.
    groups = {}
    for r in runs:
        if r["status"] == "ok":
            groups.setdefault((r["threads"], r["server"]), []).append(r["summary"])
    if groups:
        out.append("\n### Per server (mean over successful repeats)%s\n"
                   % ((", ratio to " + " and to ".join(bases)) if bases else ""))
        header = ["server", "threads", "ok runs"] + [m[1] for m in RUN_METRICS]
        for base_name in bases:
            header += ["%s/%s" % (k, base_name) for k in ("mean TPS", "worst TPS", "1st pct TPS", "CV",
                                                          "p99 median")]
        rows = []
        for (threads, server) in sorted(groups, key=lambda k: (int(k[0]), k[1])):
            agg = aggregate_server(groups[(threads, server)])
            cells = [server, threads, agg["runs"]] + [fmt(agg[k], spec) for k, _, spec in RUN_METRICS]
            for base_name in bases:
                base = groups.get((threads, base_name))
                b = aggregate_server(base) if base else {}
                for k in PAIR_KEYS:
                    cells.append(fmt(ratio(agg[k], b.get(k)), "{:.2f}x"))
            rows.append(cells)
        out.append(markdown_table(header, rows))

        for baseline in bases:
            pairs = pair_ratios(runs, baseline)
            if pairs:
                out.append("\n### Per pair (same threads and repeat), ratio to %s\n" % baseline)
                header = ["server", "threads", "repeat", "mean TPS", "worst TPS", "1st pct TPS", "CV",
                          "p99 median"]
                out.append(markdown_table(header, [
                    [p["server"], p["threads"], p["repeat"]] +
                    [fmt(p[k], "{:.2f}x") for k in PAIR_KEYS]
                    for p in pairs]))
    return "\n".join(out) + "\n"


def pair_ratios(runs, baseline):
    """Ratios of each ok run to the ok baseline run of the same threads+repeat."""
    base = {(r["threads"], r["repeat"]): r["summary"] for r in runs
            if r["server"] == baseline and r["status"] == "ok"}
    pairs = []
    for r in runs:
        if r["server"] == baseline or r["status"] != "ok":
            continue
        b = base.get((r["threads"], r["repeat"]))
        if not b:
            continue
        p = {"server": r["server"], "threads": r["threads"], "repeat": r["repeat"]}
        for k in RATIO_METRICS:
            p[k] = ratio(r["summary"].get(k), b.get(k))
        pairs.append(p)
    return pairs


def histogram_percentile(counts, percentile, range_mult, range_deduct):
    """Percentile of a sysbench log-bucket histogram, as sysbench computes it.

    Mirrors sb_histogram_get_pct_intermediate() in sysbench 1.0: the smallest
    bucket whose cumulative count reaches round(n * p / 100); its value is
    exp(i / range_mult + range_deduct) milliseconds.  The Lua hook does the
    same arithmetic; this copy exists so the unit tests can pin it.
    """
    n = sum(counts)
    if n == 0:
        return None
    nmax = math.floor(n * percentile / 100.0 + 0.5)
    cur = 0
    i = 0
    for i, c in enumerate(counts):
        cur += c
        if cur >= nmax:
            break
    return math.exp(i / range_mult + range_deduct)

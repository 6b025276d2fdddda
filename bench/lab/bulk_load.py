"""Pure parts of the bulk_load scenario: the loader's SQL, its output, and the
OLTP figures inside the load window.

Nothing here touches the system; bench/tests/test_bulk_load.py pins the
numbers.  Times are seconds from the OLTP run's start (sysbench's "Threads
started!"), so sysbench's report second n covers the interval (n-1, n].
"""

import math
import statistics

from .summary import _present, aggregate_server, fmt, markdown_table, ratio, to_float

MiB = 1024 ** 2

LOAD_TABLE = "sbtest.load"
SEED_TABLE = "sbtest.load_seed"
TABLESPACE = "sbtest/load"          # a file-per-table tablespace is named db/table
STEPS = ("create", "prealloc", "load", "rebuild")   # the loader's timed steps, in order

# Size of sbtest.load's file per loaded row, for the default preallocation.
# A row is id 8 + k 4 + c 120 + pad 60 bytes + ~25 bytes of record header,
# transaction id and roll pointer: ~220 bytes in a full page.  Seen: 100000
# rows -> 30 MiB file on vanilla 9.7.2 (315 bytes a row, but at that size
# several MB are extents InnoDB reserves ahead, and below 32 MiB the file
# grows 1 MiB at a time); a first full run should confirm it
# (bench/README.md, "Bulk load").
FILE_BYTES_PER_ROW = 260
PREALLOC_MARGIN = 1.10              # "slightly more than the final size"
PREALLOC_ALIGN = 64 * MiB


def prealloc_bytes(rows, bytes_per_row=FILE_BYTES_PER_ROW, margin=PREALLOC_MARGIN,
                   align=PREALLOC_ALIGN):
    """Bytes to preallocate for `rows` rows: the expected file size plus a
    margin, rounded up to `align` so the statement reads well."""
    need = rows * bytes_per_row * margin
    return max(1, math.ceil(need / align)) * align


def chunk_sizes(rows, chunks):
    """`rows` split into `chunks` INSERT statements as evenly as possible."""
    chunks = max(1, min(chunks, rows))
    base, extra = divmod(rows, chunks)
    return [base + (1 if i < extra else 0) for i in range(chunks)]


def seed_rows(rows, chunks):
    """Rows of the seed table whose cross join with itself covers the
    largest chunk (each chunk is one INSERT ... SELECT of that join)."""
    return math.isqrt(max(chunk_sizes(rows, chunks)) - 1) + 1


def seed_sql(rows, chunks):
    """Setup before the measured run: a small copy of sbtest1, so the loader
    reads a table no OLTP client writes (no lock waits either way)."""
    n = seed_rows(rows, chunks)
    return ("DROP TABLE IF EXISTS {seed};\n"
            "CREATE TABLE {seed} (id INT PRIMARY KEY, k INT NOT NULL, "
            "c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL);\n"
            "INSERT INTO {seed} SELECT id, k, c, pad FROM sbtest.sbtest1 WHERE id <= {n};\n"
            "SELECT COUNT(*) FROM {seed};\n").format(seed=SEED_TABLE, n=n)


def _mark(name):
    # Each marker is its own statement: NOW(6) is that statement's start,
    # on the server's clock, so client-side buffering does not matter.
    return "SELECT 'mark', '%s', UNIX_TIMESTAMP(NOW(6));\n" % name


def _size(when, flavour):
    view = ("information_schema.INNODB_TABLESPACES" if flavour == "mysql"
            else "information_schema.INNODB_SYS_TABLESPACES")   # MariaDB 10.11
    return ("SELECT 'size', '%s', FILE_SIZE, ALLOCATED_SIZE FROM %s WHERE NAME = '%s';\n"
            % (when, view, TABLESPACE))


def loader_sql(rows, chunks, prealloc=None, flavour="mysql", rebuild=False):
    """The loader's whole session: create the fresh table, preallocate it
    (when `prealloc` bytes are given), then load `rows` rows in `chunks`
    INSERT ... SELECT statements, then (with `rebuild`) rebuild the loaded
    table with ALTER TABLE ... FORCE, with a timestamp around every step and
    the file size after each.  Output lines (mysql -N -B):
      mark <step> <epoch>    size <when> <file bytes> <allocated bytes>
      rows <chunk> <rows inserted>
    """
    sizes = chunk_sizes(rows, chunks)
    out = [
        # The seed's cross join is built in memory, not in chunk files on
        # the measured device.
        "SET SESSION join_buffer_size = 16777216;\n",
        _mark("create_start"),
        "CREATE TABLE %s (id BIGINT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, "
        "c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL);\n" % LOAD_TABLE,
        _mark("create_end"),
        _size("created", flavour),
    ]
    if prealloc:
        out += [_mark("prealloc_start"),
                "ALTER TABLESPACE `%s` SET EXTENT_SIZE = %d;\n" % (TABLESPACE, prealloc),
                _mark("prealloc_end"),
                _size("preallocated", flavour)]
    out.append(_mark("load_start"))
    for i, n in enumerate(sizes, 1):
        out += ["INSERT INTO %s (k, c, pad) SELECT a.k, a.c, b.pad FROM %s a CROSS JOIN %s b "
                "LIMIT %d;\n" % (LOAD_TABLE, SEED_TABLE, SEED_TABLE, n),
                "SELECT 'rows', %d, ROW_COUNT();\n" % i]
    out += [_mark("load_end"), _size("loaded", flavour)]
    if rebuild:
        # A table rebuild as a DBA runs one after a load: every page read,
        # sorted into a new index and written, while the OLTP goes on.
        out += [_mark("rebuild_start"), "ALTER TABLE %s FORCE;\n" % LOAD_TABLE,
                _mark("rebuild_end"), _size("rebuilt", flavour)]
    return "".join(out)


def parse_loader_output(lines):
    """The loader client's output -> {marks: {step: epoch}, chunk_rows: [..],
    sizes: {when: (file, allocated)}, errors: [..]}; other lines ignored."""
    marks, chunk_rows, sizes, errors = {}, [], {}, []
    for line in lines:
        f = line.rstrip("\n").split("\t")
        try:
            if f[0] == "mark" and len(f) == 3:
                marks[f[1]] = float(f[2])
            elif f[0] == "rows" and len(f) == 3:
                chunk_rows.append(int(f[2]))
            elif f[0] == "size" and len(f) == 4:
                sizes[f[1]] = (int(f[2]), int(f[3]))
            elif line.startswith("ERROR"):
                errors.append(line.strip())
        except ValueError:
            continue
    return {"marks": marks, "chunk_rows": chunk_rows, "sizes": sizes, "errors": errors}


def phases(loaded, t0_epoch):
    """[(step, start, end)] in seconds from the OLTP start, for the steps
    that finished: create, prealloc (prealloc arms), load, rebuild (with
    --rebuild)."""
    m = loaded["marks"]
    out = []
    for step in STEPS:
        a, b = m.get(step + "_start"), m.get(step + "_end")
        if a is not None and b is not None:
            out.append((step, a - t0_epoch, b - t0_epoch))
    return out


def window_seconds(start, end):
    """Report seconds n whose interval (n-1, n] overlaps [start, end]; at
    least the second holding `start`."""
    if start is None or end is None or end < start:
        return range(0)
    first = math.floor(start) + 1
    return range(first, max(first, math.ceil(end)) + 1)


def phase_of_second(n, steps):
    """The last step overlapping report second n ('' for none), for the
    per-second CSV's load_phase column."""
    name = ""
    for step, a, b in steps:
        if n in window_seconds(a, b):
            name = step
    return name


def window_stats(rows, seconds):
    """OLTP figures over the report seconds in `seconds`: n, mean and worst
    TPS, median and worst of the per-second p99.  None where no value."""
    want = set(seconds)
    inside = [r for r in rows if int(to_float(r.get("second")) or 0) in want]
    tps = _present(r.get("tps") for r in inside)
    p99 = _present(r.get("p99_ms") for r in inside)
    return {
        "n": len(tps),
        "mean_tps": statistics.fmean(tps) if tps else None,
        "worst_tps": min(tps) if tps else None,
        "p99_median_ms": statistics.median(p99) if p99 else None,
        "p99_worst_ms": max(p99) if p99 else None,
    }


def summarize_load(rows, loaded, t0_epoch, warmup=10, offered_tps=None):
    """One run's bulk-load figures: step times, file sizes, and the OLTP side
    before the loader started and during prealloc, load and both.

    rows: the run's per-second rows; loaded: parse_loader_output(); t0_epoch:
    the OLTP start on the same clock as the marks; offered_tps: sysbench's
    --rate, if any.  Keys: LOAD_METRICS plus those of LOAD_TIMES.
    """
    m = {k: v - t0_epoch for k, v in loaded["marks"].items()}

    def span(step):
        a, b = m.get(step + "_start"), m.get(step + "_end")
        return (a, b, (b - a) if a is not None and b is not None else None)

    c0, _, create_s = span("create")
    p0, p1, prealloc_s = span("prealloc")
    l0, l1, load_s = span("load")
    r0, r1, rebuild_s = span("rebuild")
    op_start = p0 if p0 is not None else l0
    out = {
        "create_s": create_s,
        "prealloc_s": prealloc_s,
        "load_s": load_s,
        "rebuild_s": rebuild_s,
        "total_s": (l1 - op_start) if l1 is not None and op_start is not None else None,
        "load_rows": sum(loaded["chunk_rows"]) if loaded["chunk_rows"] else None,
        "oltp_start_epoch": t0_epoch,
        "offered_tps": offered_tps,
    }
    out["rows_per_s"] = ratio(out["load_rows"], load_s)
    for step in STEPS:
        for edge in ("start", "end"):
            key = "%s_%s" % (step, edge)
            out[key + "_s"] = m.get(key)
            out[key + "_epoch"] = loaded["marks"].get(key)
    for when, prefix in (("preallocated", "prealloc_file"), ("loaded", "file"), ("rebuilt", "rebuilt_file")):
        size = loaded["sizes"].get(when)
        out[prefix + "_bytes"] = size[0] if size else None
        out[prefix + "_allocated_bytes"] = size[1] if size else None
        out[prefix + "_mb"] = size[0] / MiB if size else None

    # Untouched OLTP: after the warm-up, before the loader's first statement.
    before_end = math.floor(c0) if c0 is not None else warmup
    before = window_stats(rows, range(warmup + 1, before_end + 1))
    out["before_mean_tps"] = before["mean_tps"]
    out["before_p99_median_ms"] = before["p99_median_ms"]
    for prefix, (a, b) in (("load", (l0, l1)), ("prealloc", (p0, p1)), ("total", (op_start, l1)),
                           ("rebuild", (r0, r1))):
        st = window_stats(rows, window_seconds(a, b))
        for key in ("mean_tps", "worst_tps", "p99_median_ms", "p99_worst_ms"):
            out["%s_%s" % (prefix, key)] = st[key]
        out[prefix + "_oltp_seconds"] = st["n"]
    out["load_worst_over_before"] = ratio(out["load_worst_tps"], out["before_mean_tps"])
    # Under --rate, sysbench's latency counts the wait in its own queue: a
    # server below the offered rate before the load has a growing backlog,
    # and every latency figure measures that backlog.
    out["kept_up_before"] = (None if not offered_tps or out["before_mean_tps"] is None
                             else out["before_mean_tps"] >= 0.9 * offered_tps)
    last = max((int(to_float(r.get("second")) or 0) for r in rows
                if to_float(r.get("tps")) is not None), default=0)
    # A load (or its rebuild) that ends after the OLTP run has part of its
    # window unmeasured.
    end = r1 if r1 is not None else l1
    out["load_outlasted_s"] = max(0.0, end - last) if end is not None else None
    return out


# What summary.md shows per run and per server (key, label, format).
LOAD_METRICS = [
    ("prealloc_s", "prealloc s", "{:.1f}"),
    ("load_s", "load s", "{:.1f}"),
    ("total_s", "prealloc+load s", "{:.1f}"),
    ("rows_per_s", "rows/s", "{:.0f}"),
    ("prealloc_file_mb", "file MB after prealloc", "{:.0f}"),
    ("file_mb", "final file MB", "{:.0f}"),
    ("before_mean_tps", "OLTP TPS before", "{:.0f}"),
    ("load_mean_tps", "OLTP TPS in load", "{:.0f}"),
    ("load_worst_tps", "worst 1 s TPS in load", "{:.0f}"),
    ("load_worst_over_before", "worst in load/before", "{:.2f}"),
    ("load_p99_median_ms", "p99 median ms in load", "{:.1f}"),
    ("load_p99_worst_ms", "p99 worst ms in load", "{:.1f}"),
    ("prealloc_worst_tps", "worst 1 s TPS in prealloc", "{:.0f}"),
    ("prealloc_p99_worst_ms", "p99 worst ms in prealloc", "{:.1f}"),
    ("total_worst_tps", "worst 1 s TPS in prealloc+load", "{:.0f}"),
    ("total_p99_worst_ms", "p99 worst ms in prealloc+load", "{:.1f}"),
    ("rebuild_s", "rebuild s", "{:.1f}"),
    ("rebuilt_file_mb", "file MB after rebuild", "{:.0f}"),
    ("rebuild_mean_tps", "OLTP TPS in rebuild", "{:.0f}"),
    ("rebuild_worst_tps", "worst 1 s TPS in rebuild", "{:.0f}"),
    ("rebuild_p99_median_ms", "p99 median ms in rebuild", "{:.1f}"),
    ("rebuild_p99_worst_ms", "p99 worst ms in rebuild", "{:.1f}"),
    ("load_outlasted_s", "load after OLTP end s", "{:.1f}"),
]

# runs.csv only: where each step sat in time, and the raw sizes.
LOAD_TIMES = [
    "offered_tps", "kept_up_before", "oltp_start_epoch", "create_s",
    "create_start_s", "create_end_s", "prealloc_start_s", "prealloc_end_s",
    "load_start_s", "load_end_s", "rebuild_start_s", "rebuild_end_s",
    "create_start_epoch", "create_end_epoch", "prealloc_start_epoch", "prealloc_end_epoch",
    "load_start_epoch", "load_end_epoch", "rebuild_start_epoch", "rebuild_end_epoch",
    "load_rows", "prealloc_file_bytes", "prealloc_file_allocated_bytes",
    "file_bytes", "file_allocated_bytes", "rebuilt_file_bytes", "rebuilt_file_allocated_bytes",
    "load_oltp_seconds", "prealloc_oltp_seconds", "total_oltp_seconds", "rebuild_oltp_seconds",
]

RUN_COLUMNS = [k for k, _, _ in LOAD_METRICS] + [k for k in LOAD_TIMES if k not in
                                                 {m[0] for m in LOAD_METRICS}]

# Ratios to the baseline server: time (lower is better) and the OLTP side.
RATIO_METRICS = [
    ("load_s", "load s"),
    ("total_s", "prealloc+load s"),
    ("load_worst_tps", "worst TPS in load"),
    ("load_p99_worst_ms", "p99 worst in load"),
    ("total_worst_tps", "worst TPS in prealloc+load"),
    ("rebuild_s", "rebuild s"),
    ("rebuild_worst_tps", "worst TPS in rebuild"),
    ("rebuild_p99_worst_ms", "p99 worst in rebuild"),
]


def aggregate(loads):
    """Mean of each LOAD_METRICS value over one server's ok runs."""
    return aggregate_server(loads, LOAD_METRICS)


def markdown(runs, baseline=None):
    """Markdown tables of the bulk load: per run, then per server (and
    thread count) with ratios to `baseline`.  runs: bench/run's run infos,
    each with status and, when the loader ran, 'load' (summarize_load)."""
    with_load = [r for r in runs if r.get("load")]
    if not with_load:
        return ""
    out = ["\n### Bulk load, per run (OLTP figures inside each step's window)\n"]
    header = ["run", "server", "status"] + [label for _, label, _ in LOAD_METRICS]
    out.append(markdown_table(header, [
        [r["run_id"], r["server"], r["status"]] +
        [fmt(r["load"].get(k), spec) for k, _, spec in LOAD_METRICS] for r in with_load]))
    behind = [r for r in with_load if r["load"].get("kept_up_before") is False]
    if behind:
        out.append("\nOLTP below 90% of its offered rate before the load (sysbench's latency then "
                   "includes a growing queue wait; lower --rate):\n")
        out += ["- `%s`: %.0f TPS against --rate=%d" % (r["run_id"], r["load"]["before_mean_tps"],
                                                       r["load"]["offered_tps"]) for r in behind]
    groups = {}
    for r in with_load:
        if r["status"] == "ok":
            groups.setdefault((r["threads"], r["server"]), []).append(r["load"])
    if not groups:
        return "\n".join(out) + "\n"
    out.append("\n### Bulk load, per server (mean over successful repeats)%s\n"
               % ((", ratio to " + baseline) if baseline else ""))
    header = ["server", "threads", "ok runs"] + [label for _, label, _ in LOAD_METRICS]
    if baseline:
        header += ["%s/%s" % (label, baseline) for _, label in RATIO_METRICS]
    rows = []
    for threads, server in sorted(groups, key=lambda k: (int(k[0]), k[1])):
        agg = aggregate(groups[(threads, server)])
        cells = [server, threads, agg["runs"]] + [fmt(agg[k], spec) for k, _, spec in LOAD_METRICS]
        if baseline:
            base = groups.get((threads, baseline))
            b = aggregate(base) if base else {}
            cells += [fmt(ratio(agg[k], b.get(k)), "{:.2f}x") for k, _ in RATIO_METRICS]
        rows.append(cells)
    out.append(markdown_table(header, rows))
    return "\n".join(out) + "\n"

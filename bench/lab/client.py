"""The load client, sysbench: command lines and output parsing (pure).

Every workload in bench/workloads/ prints one machine-readable line a second
(bench/workloads/steady_common.lua):
  SB,<second>,<threads_running>,<tps>,<qps>,<p95_ms>,<p99_ms>,<max_ms>,<errors/s>,<reconnects/s>,<queue>
(<queue>: events of an open-loop run, --rate, waiting for a client thread;
absent from lines of older hooks.)
"""

import os

WORKLOAD_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "workloads")
SB_FIELDS = ["threads_running", "tps", "qps", "p95_ms", "p99_ms", "max_ms", "errors_ps"]
STARTED_LINE = "Threads started!"


def data_args(sc):
    """The options that size a run's data: --warehouses for a warehouse
    workload (tpcc_like: its settings hold "warehouses"), else sbtest's
    --tables and --table-size."""
    if sc.get("warehouses") is not None:
        return ["--warehouses=%d" % sc["warehouses"]]
    return ["--tables=%d" % sc["tables"], "--table-size=%d" % sc["table_size"]]


def data_label(sc):
    """The run's data in words, for the log: '10 warehouses', '8 x 1000000 rows'."""
    if sc.get("warehouses") is not None:
        return "%d warehouse%s" % (sc["warehouses"], "" if sc["warehouses"] == 1 else "s")
    return "%d x %d rows" % (sc["tables"], sc["table_size"])


def data_units(sc):
    """What `prepare` loads in parallel: warehouses, or tables."""
    return sc["warehouses"] if sc.get("warehouses") is not None else sc["tables"]


def sysbench_cmd(workload, socket, data, threads, command, duration=None,
                 workload_args=(), run_args=(), extra_args=(), workload_dir=None):
    """sysbench command line for `command` (prepare, run, cleanup).

    data: the options that size the data (data_args); workload_args go to
    every command (they shape the data), run_args only to `run` (e.g.
    --rate), extra_args (the user's) last, before the command.
    """
    workload_dir = workload_dir or WORKLOAD_DIR
    cmd = ["sysbench", os.path.join(workload_dir, workload + ".lua"),
           "--db-driver=mysql", "--mysql-socket=" + socket,
           "--mysql-user=root", "--mysql-db=sbtest"] + list(data) + [
           "--threads=%d" % threads]
    cmd += list(workload_args)
    if command == "run":
        cmd += ["--time=%d" % duration, "--report-interval=1",
                "--percentile=99", "--histogram=off"] + list(run_args)
    return cmd + list(extra_args) + [command]


def prepare_threads(units, cpus=None):
    """Threads for `sysbench prepare`: one per table (or warehouse: data_units),
    at most one per CPU."""
    return max(1, min(units, cpus or os.cpu_count() or 1))


def offered_rate(args):
    """sysbench's --rate in `args` (the last one given wins), None if unlimited."""
    rate = None
    for a in args:
        if a.startswith("--rate="):
            try:
                rate = int(a.split("=", 1)[1]) or None
            except ValueError:
                pass
    return rate


def parse_report_line(line):
    """One SB, line -> (second, {column: text}); None for any other line."""
    if not line.startswith("SB,"):
        return None
    f = line.strip().split(",")
    if len(f) < 9:
        return None
    try:
        sec = int(f[1])
    except ValueError:
        return None
    out = dict(zip(SB_FIELDS, f[2:9]))
    if len(f) > 10:
        out["queue_len"] = f[10]
    return sec, out


def is_started_line(line):
    """sysbench printed that its threads run: second 0 of the measured run."""
    return line.startswith(STARTED_LINE)

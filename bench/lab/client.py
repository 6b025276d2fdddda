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


def sysbench_cmd(workload, socket, tables, table_size, threads, command, duration=None,
                 workload_args=(), run_args=(), extra_args=(), workload_dir=None):
    """sysbench command line for `command` (prepare, run, cleanup).

    workload_args go to every command (they shape the data), run_args only
    to `run` (e.g. --rate), extra_args (the user's) last, before the command.
    """
    workload_dir = workload_dir or WORKLOAD_DIR
    cmd = ["sysbench", os.path.join(workload_dir, workload + ".lua"),
           "--db-driver=mysql", "--mysql-socket=" + socket,
           "--mysql-user=root", "--mysql-db=sbtest",
           "--tables=%d" % tables, "--table-size=%d" % table_size,
           "--threads=%d" % threads]
    cmd += list(workload_args)
    if command == "run":
        cmd += ["--time=%d" % duration, "--report-interval=1",
                "--percentile=99", "--histogram=off"] + list(run_args)
    return cmd + list(extra_args) + [command]


def prepare_threads(tables, cpus=None):
    """Threads for `sysbench prepare`: one per table, at most one per CPU."""
    return max(1, min(tables, cpus or os.cpu_count() or 1))


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

#!/usr/bin/env python3
"""Per run, the median of per-second columns over the seconds with p99
above the SLA and over the other seconds of a window, to see whether any
flushing or device state goes with the seconds over the SLA.

usage: over_sla_state.py [--sla MS] [--window A-B] [--columns C1,C2,...]
                         [--servers S1,S2] DIR
"""
import argparse
import csv
import os
import statistics

COLUMNS = ("p95_ms,p99_ms,max_ms,queue_len,ckpt_age_pct,dirty_pct,pages_flushed_ps,"
           "list_batches_ps,pace_budget,pace_write_lat_us,pace_p_ckpt,"
           "dev_w_iops,dev_cap_pct,dev_avg_queue,dev_w_await_ms,"
           "redo_fsyncs_ps,binlog_syncs_ps,mysqld_cpu_pct,host_cpu_pct,"
           "host_iowait_pct")


def median(rows, col):
    vals = []
    for r in rows:
        try:
            vals.append(float(r[col]))
        except (KeyError, ValueError):
            pass
    return "%.1f" % statistics.median(vals) if vals else "-"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sla", type=float, default=100.0)
    p.add_argument("--window", default="61-240")
    p.add_argument("--columns", default=COLUMNS)
    p.add_argument("--servers", default="",
                   help="comma list of servers to show (default: all)")
    p.add_argument("dir")
    a = p.parse_args()
    lo, hi = (int(x) for x in a.window.split("-"))
    keep = set(a.servers.split(",")) if a.servers else None
    runs = {}
    with open(os.path.join(a.dir, "per_second.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if keep and row["server"] not in keep:
                continue
            if lo <= int(row["second"]) <= hi and row["p99_ms"]:
                runs.setdefault(row["run_id"], []).append(row)
    cols = a.columns.split(",")
    for run, rows in sorted(runs.items()):
        over = [r for r in rows if float(r["p99_ms"]) > a.sla]
        rest = [r for r in rows if float(r["p99_ms"]) <= a.sla]
        print("%s: %d s over the SLA, %d s not (seconds %s)" % (
            run, len(over), len(rest), a.window))
        print("column | median over | median not")
        for c in cols:
            print("%s | %s | %s" % (c, median(over, c), median(rest, c)))
        print()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per run of a bulk_load --rebuild result: inside the rebuild window, the
data device's write IOs, their mean size, the InnoDB fsyncs and the pages
flushed a second, and the rebuild's time; then per arm the means and the
ratios to the baseline arm.

usage: rebuild_io.py DIR [--baseline NAME]
"""
import argparse
import csv
import collections
import os
import sys


def means(rows, keys):
    out = {}
    for k in keys:
        v = [float(r[k]) for r in rows if r.get(k) not in ("", None)]
        out[k] = sum(v) / len(v) if v else float("nan")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="a bench/run result directory of scenario bulk_load with --rebuild")
    ap.add_argument("--baseline", default="off", help="the arm the ratios are to (default: off)")
    a = ap.parse_args()
    per = collections.defaultdict(list)
    server = {}
    with open(os.path.join(a.dir, "per_second.csv")) as f:
        for r in csv.DictReader(f):
            if r["load_phase"] == "rebuild":
                per[r["run_id"]].append(r)
                server[r["run_id"]] = r["server"]
    if not per:
        sys.exit("no rebuild seconds in %s" % a.dir)
    with open(os.path.join(a.dir, "runs.csv")) as f:
        rebuild_s = {r["run_id"]: float(r["rebuild_s"]) for r in csv.DictReader(f) if r.get("rebuild_s")}
    keys = ["dev_w_iops", "dev_w_mbps", "dev_r_iops", "innodb_fsyncs_ps", "pages_flushed_ps",
            "lru_flush_pages_ps", "free_pages", "dirty_pct", "pace_budget"]
    print("| run | rebuild s | seconds sampled | write IOs/s | KB per write IO | fsyncs/s | pages flushed/s | LRU pages/s | read IOs/s | free pages | dirty % | seconds with a budget |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    arms = collections.defaultdict(list)
    for run in sorted(per):
        rows = per[run]
        m = means(rows, keys)
        kb = 1024.0 * m["dev_w_mbps"] / m["dev_w_iops"] if m["dev_w_iops"] else float("nan")
        budget_s = sum(1 for r in rows if float(r["pace_budget"] or 0) > 0)
        line = {"s": rebuild_s.get(run, float("nan")), "w": m["dev_w_iops"], "kb": kb, "fs": m["innodb_fsyncs_ps"],
                "pg": m["pages_flushed_ps"], "r": m["dev_r_iops"]}
        arms[server[run]].append(line)
        print("| %s | %.1f | %d | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %d |" % (
            run, line["s"], len(rows), m["dev_w_iops"], kb, m["innodb_fsyncs_ps"], m["pages_flushed_ps"],
            m["lru_flush_pages_ps"], m["dev_r_iops"], m["free_pages"], m["dirty_pct"], budget_s))
    print()
    base = arms.get(a.baseline)
    print("| arm | runs | rebuild s | write IOs/s | KB per write IO | fsyncs/s | pages flushed/s | read IOs/s |" +
          (" rebuild s ratio | fsyncs ratio |" if base else ""))
    print("|---|---|---|---|---|---|---|---|" + ("---|---|" if base else ""))

    def avg(lines, k):
        return sum(x[k] for x in lines) / len(lines)
    for arm, lines in arms.items():
        row = "| %s | %d | %.1f | %.0f | %.1f | %.0f | %.0f | %.0f |" % (
            arm, len(lines), avg(lines, "s"), avg(lines, "w"), avg(lines, "kb"), avg(lines, "fs"),
            avg(lines, "pg"), avg(lines, "r"))
        if base:
            row += " %.3fx | %.2fx |" % (avg(lines, "s") / avg(base, "s"), avg(lines, "fs") / avg(base, "fs"))
        print(row)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per run of a bulk_load result: the means of the per-second counters inside
the loader's load and rebuild windows, the seconds in which device pacing set
a budget during the load (and the pressures then), and the OLTP side of the
whole load + rebuild window: transactions served, the client queue when the
rebuild ended and the second its backlog cleared (queue below 10)."""

import argparse
import csv
import statistics
from collections import defaultdict

COLS = ["tps", "queue_len", "pages_flushed_ps", "lru_flush_pages_ps", "dev_w_iops", "dev_w_mbps",
        "dev_r_iops", "dev_cap_pct", "dev_w_await_ms", "pace_budget", "pace_lru_depth", "free_pages",
        "dirty_pct", "ckpt_age_pct", "mysqld_cpu_pct"]


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, TypeError, ValueError):
        return None


def mean(rs, k):
    v = [x for x in (num(r, k) for r in rs) if x is not None]
    return statistics.fmean(v) if v else float("nan")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("dir", help="a bench/run result directory of scenario bulk_load")
    a = p.parse_args()
    runs = defaultdict(list)
    with open(a.dir + "/per_second.csv") as f:
        for r in csv.DictReader(f):
            runs[r["run_id"]].append(r)
    print("## Means inside each window\n")
    print("| run | window | seconds | " + " | ".join(COLS) + " |")
    print("|---|---|---|" + "---|" * len(COLS))
    for run in sorted(runs):
        for phase in ("load", "rebuild"):
            rs = [r for r in runs[run] if r["load_phase"] == phase]
            print("| %s | %s | %d | %s |" % (run, phase, len(rs), " | ".join("%.1f" % mean(rs, c) for c in COLS)))
    print("\n## Budget seconds during the load (pacing ON runs)\n")
    print("| run | load seconds | seconds with a budget | pressure ckpt % | pressure dirty % | dirty % | ckpt age % |")
    print("|---|---|---|---|---|---|---|")
    for run in sorted(runs):
        rs = [r for r in runs[run] if r["load_phase"] == "load"]
        b = [r for r in rs if (num(r, "pace_budget") or 0) > 0]
        if not any(num(r, "pace_lru_depth") for r in rs):
            continue
        print("| %s | %d | %d | %.1f | %.1f | %.1f | %.1f |" % (run, len(rs), len(b), mean(b, "pace_p_ckpt"),
                                                              mean(b, "pace_p_dirty"), mean(b, "dirty_pct"),
                                                              mean(b, "ckpt_age_pct")))
    print("\n## OLTP across load + rebuild\n")
    print("| run | window s | transactions served | per second | client queue at the rebuild's end "
          "| rebuild ended at s | backlog cleared at s |")
    print("|---|---|---|---|---|---|---|")
    for run in sorted(runs):
        win = [r for r in runs[run] if r["load_phase"] in ("load", "rebuild")]
        if not win:
            continue
        served = sum(num(r, "tps") or 0 for r in win)
        end = int(win[-1]["second"])
        clear = next((int(r["second"]) for r in runs[run]
                      if int(r["second"]) > end and (num(r, "queue_len") or 0) < 10), None)
        print("| %s | %d | %.0f | %.1f | %s | %d | %s |" % (run, len(win), served, served / len(win),
                                                          win[-1]["queue_len"], end, clear))


if __name__ == "__main__":
    main()

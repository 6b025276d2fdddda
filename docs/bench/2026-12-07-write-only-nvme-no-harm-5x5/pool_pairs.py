#!/usr/bin/env python3
"""Pool the rounds of several two-arm bench/run results (same cell, same
server code): per round the candidate's ratio to the baseline for each
runs.csv column asked, then the ratio of the arms' means over all runs.

usage: pool_pairs.py [--arms BASE,CAND] [--columns C1,C2,...] DIR [DIR...]
"""
import argparse
import csv
import os
import statistics


def rounds(path, base, cand):
    """{(dir, repeat): {arm: row}} of one result dir's runs.csv."""
    out = {}
    with open(os.path.join(path, "runs.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["server"] in (base, cand) and row["status"] == "ok":
                out.setdefault((path, row["repeat"]), {})[row["server"]] = row
    return {k: v for k, v in out.items() if len(v) == 2}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--arms", default="off,on")
    p.add_argument("--columns",
                   default="mean_tps,p99_median_ms,worst_tps,cv,shutdown_s,"
                           "shutdown_dirty_pages")
    p.add_argument("dirs", nargs="+")
    a = p.parse_args()
    base, cand = a.arms.split(",")
    cols = a.columns.split(",")
    pooled = {}
    for d in a.dirs:
        pooled.update(rounds(d, base, cand))
    print("round".ljust(40) + "".join(c[:14].rjust(15) for c in cols))
    for (d, rep), arms in sorted(pooled.items()):
        cells = []
        for c in cols:
            b, x = float(arms[base][c]), float(arms[cand][c])
            cells.append(f"{x / b:.3f}x" if b else "n/a")
        print(f"r{rep} {os.path.basename(d.rstrip('/'))}"[:40].ljust(40)
              + "".join(s.rjust(15) for s in cells))
    print(f"means over {len(pooled)} rounds ({cand} / {base}):")
    for c in cols:
        b = statistics.mean(float(v[base][c]) for v in pooled.values())
        x = statistics.mean(float(v[cand][c]) for v in pooled.values())
        print(f"  {c}: {x:,.3f} / {b:,.3f} = {x / b:.3f}x" if b else f"  {c}: n/a")


if __name__ == "__main__":
    main()

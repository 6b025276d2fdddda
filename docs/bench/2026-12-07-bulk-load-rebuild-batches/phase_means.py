#!/usr/bin/env python3
"""Per run of a bulk_load result: the mean of each named per-second column
inside one loader phase (load or rebuild), a column per run.

usage: phase_means.py DIR PHASE COLUMN [COLUMN ...]
"""
import argparse
import collections
import csv
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", help="a bench/run result directory of scenario bulk_load")
    ap.add_argument("phase", help="the load_phase value: load or rebuild")
    ap.add_argument("columns", nargs="+", help="per_second.csv columns")
    a = ap.parse_args()
    runs = collections.defaultdict(list)
    with open(os.path.join(a.dir, "per_second.csv")) as f:
        for r in csv.DictReader(f):
            if r["load_phase"] == a.phase:
                runs[r["run_id"]].append(r)
    ids = sorted(runs)
    print("| column | " + " | ".join(ids) + " |")
    print("|---|" + "---|" * len(ids))
    for c in a.columns:
        cells = []
        for i in ids:
            v = [float(r[c]) for r in runs[i] if r.get(c) not in ("", None)]
            cells.append("%.1f" % (sum(v) / len(v)) if v else "-")
        print("| %s | %s |" % (c, " | ".join(cells)))


if __name__ == "__main__":
    main()

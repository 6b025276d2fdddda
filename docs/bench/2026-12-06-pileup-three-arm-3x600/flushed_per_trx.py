#!/usr/bin/env python3
"""Pages flushed per transaction, per run and per arm, over windows of seconds.

Each run's figure is its pages flushed over the window divided by its
transactions over the window (sums of per-second pages_flushed_ps and tps);
an arm's is the mean of its runs'. Ratios are to the arm named by --base.

Usage: flushed_per_trx.py [--base ARM] DIR A-B [A-B ...]
"""
import argparse
import collections
import csv
import os
import statistics as st
import sys


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="bench/run result directory with per_second.csv")
    p.add_argument("windows", nargs="+", metavar="A-B")
    p.add_argument("--base", default="vanilla", help="arm the ratios are taken against (default vanilla)")
    a = p.parse_args(argv)
    with open(os.path.join(a.dir, "per_second.csv")) as f:
        rows = list(csv.DictReader(f))
    for w in a.windows:
        lo, hi = (int(x) for x in w.split("-"))
        runs = collections.defaultdict(lambda: [0.0, 0.0])
        for r in rows:
            if lo <= int(r["second"]) <= hi:
                acc = runs[(r["server"], r["run_id"])]
                acc[0] += float(r["pages_flushed_ps"] or 0)
                acc[1] += float(r["tps"] or 0)
        arms = collections.defaultdict(list)
        for (arm, run), (pages, trx) in sorted(runs.items()):
            arms[arm].append(pages / trx)
        base = st.mean(arms[a.base]) if arms.get(a.base) else None
        print("## seconds %s" % w)
        for arm, v in arms.items():
            ratio = " %.3fx" % (st.mean(v) / base) if base else ""
            print("%-12s %.3f (runs %s)%s" % (arm, st.mean(v), " ".join("%.3f" % x for x in v), ratio))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

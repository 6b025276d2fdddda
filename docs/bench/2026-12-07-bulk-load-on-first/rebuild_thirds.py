#!/usr/bin/env python3
"""Per run of bulk_load --rebuild result dirs: the rebuild's seconds, the
dirty % at its first second, and the dirty % and pages flushed a second in
each third of the rebuild; then each arm's means.

usage: rebuild_thirds.py DIR [DIR...]   (result dirs with runs/NN-ARM-tT-rR/)
"""
import csv
import glob
import os
import sys


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def thirds(rows):
    n = len(rows)
    return [rows[:n // 3], rows[n // 3:2 * n // 3], rows[2 * n // 3:]]


def col(rows, name):
    return mean([float(r[name] or 0) for r in rows])


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    per_arm = {}
    print("| dir | run | rebuild s | dirty % at start | dirty % by third | pages flushed a second by third |")
    print("|---|---|---|---|---|---|")
    for d in argv:
        for p in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
            rows = [r for r in csv.DictReader(open(p))
                    if r.get("load_phase", "").startswith("rebuild")]
            if len(rows) < 3:
                continue
            name = os.path.basename(os.path.dirname(p))
            t = thirds(rows)
            dirty = [col(x, "dirty_pct") for x in t]
            flushed = [col(x, "pages_flushed_ps") for x in t]
            per_arm.setdefault(name.split("-")[1], []).append((len(rows), dirty, flushed))
            print(f"| {os.path.basename(os.path.normpath(d))} | {name} | {len(rows)} | "
                  f"{float(rows[0]['dirty_pct']):.0f} | {' / '.join(f'{v:.0f}' for v in dirty)} | "
                  f"{' / '.join(f'{v:.0f}' for v in flushed)} |")
    print("\n| arm | runs | rebuild s | dirty % by third | pages flushed a second by third |")
    print("|---|---|---|---|---|")
    for arm, v in sorted(per_arm.items()):
        print(f"| {arm} | {len(v)} | {mean([x[0] for x in v]):.1f} | "
              f"{' / '.join(f'{mean([x[1][k] for x in v]):.0f}' for k in range(3))} | "
              f"{' / '.join(f'{mean([x[2][k] for x in v]):.0f}' for k in range(3))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

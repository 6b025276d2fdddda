#!/usr/bin/env python3
"""Seconds of slow data-device writes and the low-throughput seconds they hold.

For each run under DIR/runs/, counts over two windows the seconds whose
data-device write latency (dev_w_await_ms) exceeds --slow-ms, the seconds
below 70 % of the window's mean TPS, and how many of those low seconds had a
write latency above --low-ms; then the correlation of TPS with write latency
over seconds 11 onwards.

Usage: await_episodes.py [--slow-ms 0.5] [--low-ms 0.45]
                         [--windows 11-60,61-300] DIR
"""
import argparse
import csv
import glob
import os
import statistics
import sys


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--slow-ms", type=float, default=0.5)
    p.add_argument("--low-ms", type=float, default=0.45)
    p.add_argument("--windows", default="11-60,61-300")
    p.add_argument("dir", help="evidence directory with runs/*/per_second.csv")
    args = p.parse_args(argv)
    windows = [tuple(int(x) for x in w.split("-"))
               for w in args.windows.split(",")]
    print("run | " + " | ".join(
        "%d-%d: slow s, low s, low and slow" % w for w in windows)
        + " | corr(TPS, await)")
    for path in sorted(glob.glob(os.path.join(args.dir, "runs/*/per_second.csv"))):
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if int(r["second"]) >= 11]
        cells = []
        for first, last in windows:
            win = [r for r in rows if first <= int(r["second"]) <= last]
            mean = statistics.mean(float(r["tps"]) for r in win)
            await_ms = [float(r["dev_w_await_ms"] or 0) for r in win]
            low = [i for i, r in enumerate(win) if float(r["tps"]) < 0.7 * mean]
            cells.append("%d, %d, %d" % (
                sum(a > args.slow_ms for a in await_ms), len(low),
                sum(await_ms[i] > args.low_ms for i in low)))
        corr = statistics.correlation(
            [float(r["tps"]) for r in rows],
            [float(r["dev_w_await_ms"] or 0) for r in rows])
        print("%s | %s | %.2f" % (path.split("/")[-2], " | ".join(cells), corr))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""Split each arm's per-second TPS variation into a trend, a slow part and
second-to-second jitter, and say what the paced runs' jitter follows.

For each run over a window of seconds: the coefficient of variation (CV) of
TPS; the CV left after a straight-line trend is taken out ("detrended"); the
trend's rise over the window as a share of the mean; the CV of 10-second
block means (slow waves). With --follow COLUMN[,COLUMN...]: the correlation
of the detrended TPS with each column's detrended value at lags -2..+2 s
(lag -1: the column one second before the TPS), and the column's own
detrended CV, per run of --follow-arm.

Usage: cv_split.py [--window A-B] [--follow COLS] [--follow-arm ARM] DIR...
  DIR: a bench/run result directory holding per_second.csv.
"""
import argparse
import collections
import csv
import os
import statistics as st
import sys


def load(path):
    runs = collections.defaultdict(dict)
    with open(path) as f:
        for r in csv.DictReader(f):
            runs[(r["server"], r["run_id"])][int(r["second"])] = r
    return runs


def detrend(xs, ys):
    slope, icept = st.linear_regression(xs, ys)
    return [y - (slope * x + icept) for x, y in zip(xs, ys)], slope


def split(secs, a, b):
    xs = [i for i in range(a, b + 1) if i in secs]
    ys = [float(secs[i]["tps"]) for i in xs]
    m = st.mean(ys)
    res, slope = detrend(xs, ys)
    blocks = [st.mean(ys[i:i + 10]) for i in range(0, len(ys) - 9, 10)]
    return {"mean": m, "cv": st.pstdev(ys) / m, "detrended": st.pstdev(res) / m,
            "trend": slope * (xs[-1] - xs[0]) / m, "blocks": st.pstdev(blocks) / m}


def follow(secs, a, b, col, lag):
    xs = [i for i in range(a + 2, b - 1) if i in secs and i + lag in secs]
    t, _ = detrend(xs, [float(secs[i]["tps"]) for i in xs])
    try:
        v, _ = detrend(xs, [float(secs[i + lag][col]) for i in xs])
    except (KeyError, ValueError):
        return None
    if st.pstdev(v) == 0:
        return None
    return st.correlation(t, v)


def own_cv(secs, a, b, col):
    """The column's own second-to-second variation: its detrended CV."""
    xs = [i for i in range(a, b + 1) if i in secs]
    try:
        v = [float(secs[i][col]) for i in xs]
    except (KeyError, ValueError):
        return "n/a"
    m = st.mean(v)
    return "n/a" if m == 0 else "%.3f" % (st.pstdev(detrend(xs, v)[0]) / m)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", metavar="DIR")
    p.add_argument("--window", default="61-240", help="seconds A-B (default 61-240)")
    p.add_argument("--follow", default="", help="comma list of per-second columns")
    p.add_argument("--follow-arm", default="on", help="arm whose runs --follow reads (default on)")
    a = p.parse_args(argv)
    lo, hi = (int(x) for x in a.window.split("-"))
    for d in a.dirs:
        runs = load(os.path.join(d, "per_second.csv"))
        print("== %s, seconds %d-%d" % (os.path.basename(os.path.normpath(d)), lo, hi))
        arms = collections.defaultdict(list)
        for (arm, run), secs in sorted(runs.items()):
            arms[arm].append(split(secs, lo, hi))
        print("%-14s %4s %8s %6s %10s %9s %10s" % ("arm", "runs", "TPS", "CV", "detrended", "trend", "10-s CV"))
        for arm, v in arms.items():
            print("%-14s %4d %8.0f %6.3f %10.3f %+9.3f %10.3f" % (
                arm, len(v), st.mean(x["mean"] for x in v), st.mean(x["cv"] for x in v),
                st.mean(x["detrended"] for x in v), st.mean(x["trend"] for x in v),
                st.mean(x["blocks"] for x in v)))
        for col in [c for c in a.follow.split(",") if c]:
            for (arm, run), secs in sorted(runs.items()):
                if arm != a.follow_arm:
                    continue
                cs = [follow(secs, lo, hi, col, lag) for lag in (-2, -1, 0, 1, 2)]
                print("  %s %-18s lag -2..+2: %s   its own detrended CV %s" % (run, col, " ".join(
                    "  n/a" if c is None else "%+.2f" % c for c in cs), own_cv(secs, lo, hi, col)))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
"""The table rebuild's time against the dirty pages it starts with, over
bulk_load --rebuild result dirs: per run the dirty pages at the rebuild's
first second and the rebuild's seconds (sampled, load_phase == rebuild);
a least-squares line over the runs of the arms given with --fit, and each
arm's mean residual from it (seconds the arm's rebuilds took beyond what
their starting dirty pages predict); then per round the load and rebuild
times from runs.csv and their sum, as ratios of ARM to the first arm.

usage: rebuild_start_dirty.py [--fit off,on] [--arms off,on,cand] DIR...
"""
import argparse
import csv
import glob
import os
import statistics


def runs(d, arms):
    for r in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
        arm = os.path.basename(os.path.dirname(r)).split("-")[1]
        if arm not in arms:
            continue
        with open(r, newline="") as f:
            rows = list(csv.DictReader(f))
        idx = [i for i, x in enumerate(rows) if x.get("load_phase") == "rebuild"]
        if idx:
            yield arm, float(rows[idx[0]]["dirty_pages"]), len(idx)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fit", default="off,on")
    p.add_argument("--arms", default="off,on,cand")
    p.add_argument("dirs", nargs="+")
    a = p.parse_args()
    arms = a.arms.split(",")
    fit = a.fit.split(",")
    pts = [pt for d in a.dirs for pt in runs(d, arms)]
    xs = [x for arm, x, _ in pts if arm in fit]
    ys = [y for arm, _, y in pts if arm in fit]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    b = sxy / sxx
    c = my - b * mx
    print("fit over %s (%d runs): rebuild s = %.1f + %.3f s per 1,000 dirty pages at its start, r = %.2f"
          % ("+".join(fit), len(xs), c, 1000 * b, sxy / (sxx * syy) ** 0.5))
    print("| arm | runs | dirty pages at the rebuild's start | rebuild s | residual s |")
    print("|---|---|---|---|---|")
    for arm in arms:
        mine = [(x, y) for r, x, y in pts if r == arm]
        if mine:
            print("| %s | %d | %.0f | %.1f | %+.2f |" % (
                arm, len(mine), statistics.fmean(x for x, _ in mine), statistics.fmean(y for _, y in mine),
                statistics.fmean(y - (c + b * x) for x, y in mine)))
    print()
    print("| dir | round | arm | load s | rebuild s | load + rebuild s | ratio to %s |" % arms[0])
    print("|---|---|---|---|---|---|---|")
    sums = {}
    for d in a.dirs:
        with open(os.path.join(d, "runs.csv"), newline="") as f:
            rows = [r for r in csv.DictReader(f) if r["status"] == "ok" and r["server"] in arms]
        by = {}
        for r in rows:
            by.setdefault(r["repeat"], {})[r["server"]] = r
        for rep, got in sorted(by.items()):
            if arms[0] not in got:
                continue
            base = float(got[arms[0]]["load_s"]) + float(got[arms[0]]["rebuild_s"])
            for arm in arms:
                if arm not in got:
                    continue
                ld, rb = float(got[arm]["load_s"]), float(got[arm]["rebuild_s"])
                sums.setdefault(arm, []).append((ld, rb))
                print("| %s | %s | %s | %.1f | %.1f | %.1f | %.3fx |" % (
                    os.path.basename(d.rstrip("/")), rep, arm, ld, rb, ld + rb, (ld + rb) / base))
    print()
    b0 = sums.get(arms[0])
    for arm, v in sums.items():
        print("%s: %d runs, load %.1f s, rebuild %.1f s, load + rebuild %.1f s (%.3fx, %.3fx, %.3fx of %s)" % (
            arm, len(v), statistics.fmean(x for x, _ in v), statistics.fmean(y for _, y in v),
            statistics.fmean(x + y for x, y in v),
            statistics.fmean(x for x, _ in v) / statistics.fmean(x for x, _ in b0),
            statistics.fmean(y for _, y in v) / statistics.fmean(y for _, y in b0),
            statistics.fmean(x + y for x, y in v) / statistics.fmean(x + y for x, y in b0), arms[0]))


if __name__ == "__main__":
    main()

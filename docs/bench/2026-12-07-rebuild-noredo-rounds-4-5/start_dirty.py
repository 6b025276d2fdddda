#!/usr/bin/env python3
"""A table rebuild's time, or the OLTP inside it, against the dirty pages the rebuild starts with.

Over bulk_load --rebuild result dirs: per run the dirty pages at the
rebuild's first second and the measure (--measure rebuild_s: the
rebuild's seconds sampled, load_phase == rebuild; oltp_tps: the OLTP's
mean TPS over those seconds); a least-squares line over the runs of the
arms given with --fit, and each arm's mean residual from it (what the arm
took or served beyond what its starting dirty pages predict).

A DIR=TAG argument renames that dir's arms other than `off` to TAG, for a
dir whose pacing-ON arm ran other code than the cell's shipped ON.
"""
import argparse
import csv
import glob
import os
import statistics
import sys


def points(spec, measure):
    """(arm, dirty pages at the rebuild's start, the measure) per run."""
    d, _, tag = spec.partition("=")
    out = []
    for path in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
        arm = os.path.basename(os.path.dirname(path)).split("-")[1]
        if tag and arm != "off":
            arm = tag
        with open(path, newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("load_phase") == "rebuild"]
        if rows:
            value = (len(rows) if measure == "rebuild_s"
                     else statistics.fmean(float(r["tps"] or 0) for r in rows))
            out.append((arm, float(rows[0]["dirty_pages"]), value))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fit", default="off,on", help="arms the line is fitted over (default off,on)")
    p.add_argument("--measure", choices=("rebuild_s", "oltp_tps"), default="oltp_tps")
    p.add_argument("dirs", nargs="+", metavar="DIR[=TAG]")
    a = p.parse_args()
    pts = [pt for spec in a.dirs for pt in points(spec, a.measure)]
    name = {"rebuild_s": "rebuild s", "oltp_tps": "OLTP TPS inside the rebuild"}[a.measure]
    fit = [pt for pt in pts if pt[0] in a.fit.split(",")]
    xs, ys = [pt[1] for pt in fit], [pt[2] for pt in fit]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    icpt = my - slope * mx
    print("fit over %s (%d runs): %s = %.1f %+.3f per 1,000 dirty pages"
          " at its start, r = %.2f" % ("+".join(a.fit.split(",")), len(fit), name, icpt, slope * 1000,
                                       statistics.correlation(xs, ys)))
    print("| arm | runs | dirty pages at the rebuild's start | %s | residual |" % name)
    print("|---|---|---|---|---|")
    for arm in sorted({pt[0] for pt in pts}):
        q = [pt for pt in pts if pt[0] == arm]
        print("| %s | %d | %.0f | %.1f | %+.2f |" % (
            arm, len(q), statistics.fmean(pt[1] for pt in q), statistics.fmean(pt[2] for pt in q),
            statistics.fmean(pt[2] - (icpt + slope * pt[1]) for pt in q)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

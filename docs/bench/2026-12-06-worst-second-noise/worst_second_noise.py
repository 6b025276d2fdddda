#!/usr/bin/env python3
"""How much of a worst-second ratio between two arms is run-to-run noise.

For each evidence directory given, reads runs.csv (columns server, status,
worst_tps, p1_tps, secs_below_70) and, for the two arms named, prints:
  - the ratio of the arms' mean worst second (B / A), as the no-harm bar reads it;
  - each arm's coefficient of variation of the worst second across its runs;
  - the standard error of the ratio that this scatter implies;
  - a permutation p-value: the share of all ways of relabelling the runs
    into groups of the same sizes whose ratio is at or below the observed one
    (under "pacing changes nothing" every labelling is equally likely).
Then the geometric mean of the ratios over all directories.

With --window FIRST-LAST the worst second is taken from each run's
runs/<run_id>/per_second.csv over those seconds instead of runs.csv.

Usage: worst_second_noise.py [--arms A,B] [--column worst_tps]
                             [--window FIRST-LAST] DIR [DIR ...]
"""
import argparse
import csv
import itertools
import math
import statistics
import sys


def window_worst(run_dir, first, last):
    with open(run_dir + "/per_second.csv", newline="") as f:
        tps = [float(r["tps"]) for r in csv.DictReader(f)
               if first <= int(r["second"]) <= last and r["tps"]]
    return min(tps)


def arm_values(directory, column, window):
    arms = {}
    with open(directory + "/runs.csv", newline="") as f:
        for row in csv.DictReader(f):
            if row.get("status") != "ok":
                continue
            if window:
                value = window_worst(directory + "/runs/" + row["run_id"],
                                     *window)
            elif row.get(column):
                value = float(row[column])
            else:
                continue
            arms.setdefault(row["server"], []).append(value)
    return arms


def permutation_p(a, b, observed):
    pooled = a + b
    n_b = len(b)
    at_or_below = total = 0
    for idx in itertools.combinations(range(len(pooled)), n_b):
        chosen = set(idx)
        grp_b = [pooled[i] for i in chosen]
        grp_a = [pooled[i] for i in range(len(pooled)) if i not in chosen]
        ratio = statistics.mean(grp_b) / statistics.mean(grp_a)
        total += 1
        if ratio <= observed + 1e-12:
            at_or_below += 1
    return at_or_below / total


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arms", default="off,on",
                   help="baseline and candidate arm names (default off,on)")
    p.add_argument("--column", default="worst_tps",
                   help="runs.csv column to compare (default worst_tps)")
    p.add_argument("--window", default="",
                   help="FIRST-LAST seconds: worst second from per_second.csv")
    p.add_argument("dirs", nargs="+", help="evidence directories with runs.csv")
    args = p.parse_args(argv)
    base, cand = args.arms.split(",")
    window = tuple(int(x) for x in args.window.split("-")) if args.window else ()
    logs = []
    print("cell | n | ratio | CV %s | CV %s | SE of ratio | permutation p"
          % (base, cand))
    for d in args.dirs:
        arms = arm_values(d.rstrip("/"), args.column, window)
        if base not in arms or cand not in arms:
            print("%s | arms %s not found (has %s)"
                  % (d, args.arms, ",".join(sorted(arms))))
            continue
        a, b = arms[base], arms[cand]
        ratio = statistics.mean(b) / statistics.mean(a)
        cv_a = statistics.stdev(a) / statistics.mean(a)
        cv_b = statistics.stdev(b) / statistics.mean(b)
        se = ratio * math.sqrt(cv_a ** 2 / len(a) + cv_b ** 2 / len(b))
        logs.append(math.log(ratio))
        print("%s | %d+%d | %.3f | %.3f | %.3f | %.3f | %.2f"
              % (d.rstrip("/").split("/")[-1], len(a), len(b), ratio, cv_a,
                 cv_b, se, permutation_p(a, b, ratio)))
    if logs:
        gm = math.exp(statistics.mean(logs))
        sd = statistics.stdev(logs) if len(logs) > 1 else float("nan")
        print("geometric mean over %d cells: %.3f (sd of log ratio %.3f)"
              % (len(logs), gm, sd))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

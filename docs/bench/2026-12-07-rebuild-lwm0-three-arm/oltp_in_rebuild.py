#!/usr/bin/env python3
"""Per run of bulk_load --rebuild result dirs: the rebuild's seconds and,
inside it, the OLTP's TPS, the redo fsyncs a second and the data device's
write MB/s and read IOs a second; then each arm's means over all the dirs.

usage: oltp_in_rebuild.py DIR[=TAG] [DIR[=TAG]...]
  DIR   a result dir with runs/NN-ARM-tT-rR/per_second.csv
  TAG   appended to the arm names of that dir (ARM-TAG), for runs whose
        arms ran with other settings than the cell's own
"""
import csv
import glob
import os
import sys

COLS = ("tps", "redo_fsyncs_ps", "dev_w_mbps", "dev_r_iops")


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    per_arm = {}
    print("| dir | run | rebuild s | OLTP TPS | redo fsyncs/s | write MB/s | read IOs/s |")
    print("|---|---|---|---|---|---|---|")
    for arg in argv:
        d, _, tag = arg.partition("=")
        for p in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
            rows = [r for r in csv.DictReader(open(p))
                    if r.get("load_phase", "").startswith("rebuild")]
            if not rows:
                continue
            name = os.path.basename(os.path.dirname(p))
            arm = name.split("-")[1] + (f"-{tag}" if tag else "")
            vals = [len(rows)] + [mean([float(r[c] or 0) for r in rows]) for c in COLS]
            per_arm.setdefault(arm, []).append(vals)
            print(f"| {os.path.basename(os.path.normpath(d))} | {name} | "
                  + " | ".join(f"{v:,.1f}" for v in vals) + " |")
    print("\n| arm | runs | rebuild s | OLTP TPS | redo fsyncs/s | write MB/s | read IOs/s |")
    print("|---|---|---|---|---|---|---|")
    for arm, v in sorted(per_arm.items()):
        print(f"| {arm} | {len(v)} | "
              + " | ".join(f"{mean([x[k] for x in v]):,.1f}" for k in range(len(COLS) + 1))
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

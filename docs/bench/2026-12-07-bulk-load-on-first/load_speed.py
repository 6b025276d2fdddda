#!/usr/bin/env python3
"""Per run of bulk_load result dirs: position in the run order, arm, the
load's seconds, the OLTP served inside it and the clients' queue summed over
the run (transaction-seconds of waiting); then least-squares lines of the
OLTP TPS in the load and of the queue on the load's seconds over all runs,
and each arm's mean residual from each.

usage: load_speed.py DIR [DIR...]   (result dirs with runs/NN-ARM-tT-rR/)
"""
import csv
import glob
import os
import sys


def phase_rows(path, phase):
    rows = list(csv.DictReader(open(path)))
    return [r for r in rows if r.get("load_phase", "").startswith(phase)]


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def runs(dirs):
    out = []
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
            name = os.path.basename(os.path.dirname(p))
            pos, arm = name.split("-")[0], name.split("-")[1]
            load = phase_rows(p, "load")
            reb = phase_rows(p, "rebuild")
            if not load:
                continue
            out.append({
                "dir": os.path.basename(os.path.normpath(d)), "run": name,
                "pos": int(pos), "arm": arm, "load_s": len(load),
                "load_tps": mean([float(r["tps"] or 0) for r in load]),
                "redo_mb": mean([float(r["redo_bytes_ps"] or 0) / 1e6 for r in load]),
                "rebuild_s": len(reb),
                "rebuild_tps": mean([float(r["tps"] or 0) for r in reb]),
                "served_ps": mean([float(r["tps"] or 0) for r in load + reb]),
                "queue_ks": sum(float(r["queue_len"] or 0)
                                for r in csv.DictReader(open(p))) / 1000,
            })
    return out


def fit(xs, ys):
    mx, my = mean(xs), mean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys)
    return a, b, 1 - ss_res / ss_tot


def residual(sel, key, a, b):
    """Mean of key's residuals from the line a + b x load seconds."""
    return mean([r[key] - a - b * r["load_s"] for r in sel])


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    rs = runs(argv)
    print("| dir | run | position | arm | load s | OLTP TPS in load | redo MB/s in load | rebuild s | OLTP TPS in rebuild |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rs:
        print(f"| {r['dir']} | {r['run']} | {r['pos']} | {r['arm']} | {r['load_s']} | "
              f"{r['load_tps']:.1f} | {r['redo_mb']:.1f} | {r['rebuild_s']} | {r['rebuild_tps']:.1f} |")
    arms = {arm: [r for r in rs if r["arm"] == arm] for arm in sorted({r["arm"] for r in rs})}
    a, b, r2 = fit([r["load_s"] for r in rs], [r["load_tps"] for r in rs])
    print(f"\nOLTP TPS in load = {a:.1f} + {b:.2f} x load seconds (R2 {r2:.2f}, {len(rs)} runs)\n")
    print("| arm | runs | load s | load s, not first | OLTP TPS in load | mean residual | rebuild s | OLTP served a second, load + rebuild |")
    print("|---|---|---|---|---|---|---|---|")
    for arm, sel in arms.items():
        later = [r["load_s"] for r in sel if r["pos"] != 1]
        print(f"| {arm} | {len(sel)} | {mean([r['load_s'] for r in sel]):.1f} | "
              f"{mean(later):.1f} ({len(later)}) | {mean([r['load_tps'] for r in sel]):.1f} | "
              f"{residual(sel, 'load_tps', a, b):+.1f} | "
              f"{mean([r['rebuild_s'] for r in sel if r['rebuild_s']]):.1f} | "
              f"{mean([r['served_ps'] for r in sel if r['rebuild_s']]):.1f} |")
    qa, qb, qr2 = fit([r["load_s"] for r in rs], [r["queue_ks"] for r in rs])
    print(f"\nclient queue, thousands of transaction-seconds = {qa:.0f} + {qb:.1f} x load seconds (R2 {qr2:.2f})\n")
    print("| arm | runs | queue, thousand transaction-seconds | mean residual |")
    print("|---|---|---|---|")
    for arm, sel in arms.items():
        print(f"| {arm} | {len(sel)} | {mean([r['queue_ks'] for r in sel]):.0f} | "
              f"{residual(sel, 'queue_ks', a=qa, b=qb):+.0f} |")
    first = [r for r in rs if r["pos"] == 1]
    print(f"\nfirst runs: {', '.join(r['arm'] + ' ' + str(r['load_s']) + ' s' for r in first)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

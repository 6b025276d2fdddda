#!/usr/bin/env python3
"""Flatness of each run's per-second TPS over a window: mean, CV, the CV
within 30-second blocks (second-to-second jitter without slow drift), the
worst and 1st-percentile second as shares of the mean, seconds below 70 %,
p99 median and max latency.

usage: flatness.py DIR [DIR ...] --window A-B
"""
import argparse
import csv
import glob
import os
import statistics as st


def flat(rows, a, b, block=30):
    r = [x for x in rows if a <= int(x["second"]) <= b and x["tps"] not in ("", None)]
    t = [float(x["tps"]) for x in r]
    m = st.mean(t)
    cvs = []
    for i in range(0, len(t) - block + 1, block):
        w = t[i:i + block]
        cvs.append(st.pstdev(w) / st.mean(w))
    s = sorted(t)
    p99 = sorted(float(x["p99_ms"]) for x in r if x["p99_ms"])
    mx = max(float(x["max_ms"]) for x in r if x["max_ms"])
    return dict(mean=m, cv=st.pstdev(t) / m, cv30=st.mean(cvs), worst=s[0] / m,
                p1=s[max(0, int(len(s) * 0.01) - 1)] / m, below70=sum(1 for v in t if v < 0.7 * m),
                p99med=p99[len(p99) // 2], maxms=mx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--window", default="11-720")
    o = ap.parse_args()
    a, b = (int(v) for v in o.window.split("-"))
    print("run | mean | CV | CV in 30-s blocks | worst/mean | 1st pct/mean | s<70% | p99 med ms | max ms")
    for d in o.dirs:
        for f in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
            rows = list(csv.DictReader(open(f)))
            x = flat(rows, a, b)
            print("%s | %.0f | %.3f | %.3f | %.2f | %.2f | %d | %.1f | %.0f" % (
                os.path.basename(os.path.dirname(f)), x["mean"], x["cv"], x["cv30"], x["worst"], x["p1"],
                x["below70"], x["p99med"], x["maxms"]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per run of bench/run result directories, over seconds 61-240: the TPS
CV, the part of it that is second-to-second noise (the standard deviation
of successive differences over sqrt 2, as a share of the mean: white noise
gives the CV itself, a slow wave next to nothing) and the rest, the wave
(sqrt(CV^2 - noise^2)).

usage: wave.py RESULT_DIR..."""
import csv
import glob
import math
import os
import statistics as st
import sys

if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
    print(__doc__)
    sys.exit(0 if len(sys.argv) > 1 else 2)
for d in sys.argv[1:]:
    for f in sorted(glob.glob(os.path.join(d, "runs", "*", "per_second.csv"))):
        t = [float(r["tps"]) for r in csv.DictReader(open(f)) if 61 <= int(float(r["second"])) <= 240]
        m = st.mean(t)
        cv = st.pstdev(t) / m
        noise = st.pstdev([b - a for a, b in zip(t, t[1:])]) / math.sqrt(2) / m
        wave = math.sqrt(max(cv * cv - noise * noise, 0))
        print("%-18s CV %.3f noise %.3f wave %.3f" % (os.path.basename(os.path.dirname(f)), cv, noise, wave))

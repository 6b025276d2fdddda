#!/usr/bin/env python3
"""How much of the paced runs' second-to-second TPS variation a smoother
flushing budget, or perfectly even flushing, could take away.

For each run of --arm over a window: TPS is detrended (a straight line
taken out), and so are the flushing budget one second before
(`pace_budget`, the budget in force during the second) and the pages
flushed in the same second (`pages_flushed_ps`). A least-squares fit of
the detrended TPS on each of them, and on both, gives the share of its
variance they account for; the detrended CV that is left once that share
is taken out is the most a controller change acting through them could
reach. The other arms' detrended CV (--against) gives the ratio the bar
reads. Every run's lag-1 autocorrelation of its detrended TPS tells a
second-to-second alternation (negative: a stall and its catch-up) from
white noise (about 0); 1/sqrt(mean TPS) is the CV a count of independent
arrivals a second would have.

Usage: budget_share.py [--window A-B] [--arm ARM] [--against ARM] DIR...
  DIR: a bench/run result directory holding per_second.csv.
"""
import argparse
import os
import statistics as st
import sys

# The per-run loading and the straight-line detrending are cv_split.py's
# (the evidence this analysis follows), read from its directory.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "2026-12-06-write-only-cv-split"))
from cv_split import detrend as _detrend, load  # noqa: E402


def detrend(xs, ys):
    return _detrend(xs, ys)[0]


def r2_two(y, a, b):
    """R^2 of the least-squares fit of y on a and b (all centred)."""
    saa = sum(v * v for v in a)
    sbb = sum(v * v for v in b)
    sab = sum(u * v for u, v in zip(a, b))
    say = sum(u * v for u, v in zip(a, y))
    sby = sum(u * v for u, v in zip(b, y))
    det = saa * sbb - sab * sab
    if det == 0:
        return 0.0
    ka = (say * sbb - sby * sab) / det
    kb = (sby * saa - say * sab) / det
    fit = [ka * u + kb * v for u, v in zip(a, b)]
    return sum(f * f for f in fit) / sum(v * v for v in y)


def one_run(secs, lo, hi):
    xs = [i for i in range(lo, hi + 1) if i in secs and i - 1 in secs]
    tps = [float(secs[i]["tps"]) for i in xs]
    mean = st.mean(tps)
    t = detrend(xs, tps)
    out = {"mean": mean, "cv": st.pstdev(t) / mean,
           "ac1": st.correlation(t[:-1], t[1:])}
    try:
        budget = [float(secs[i - 1]["pace_budget"]) for i in xs]
        f = detrend(xs, [float(secs[i]["pages_flushed_ps"]) for i in xs])
    except (KeyError, ValueError):
        return out
    if not st.mean(budget) > 0:
        return out  # no budget: an unpaced arm
    b = detrend(xs, budget)
    out["r2_budget"] = st.correlation(t, b) ** 2 if st.pstdev(b) else 0.0
    out["r2_flushed"] = st.correlation(t, f) ** 2 if st.pstdev(f) else 0.0
    out["r2_both"] = r2_two(t, b, f)
    out["budget_cv"] = st.pstdev(b) / st.mean(budget)
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--window", default="61-240")
    ap.add_argument("--arm", default="on", help="the paced arm (default on)")
    ap.add_argument("--against", default="vanilla",
                    help="the arm the CV ratio is taken against")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args(argv)
    lo, hi = (int(v) for v in a.window.split("-"))
    for d in a.dirs:
        runs = load(os.path.join(d, "per_second.csv"))
        base = [one_run(s, lo, hi)["cv"] for (srv, _), s in sorted(runs.items())
                if srv == a.against]
        ref = st.mean(base) if base else None
        print(f"# {os.path.basename(os.path.normpath(d))}, seconds {a.window}"
              + (f"; {a.against} detrended CV {ref:.3f} (mean of {len(base)})"
                 if ref else ""))
        print("run | detrended CV | budget CV | R2 budget(-1) | R2 flushed(0)"
              " | R2 both | CV without budget | without both"
              + (" | ratio without budget | ratio without both" if ref else ""))
        for (srv, rid), secs in sorted(runs.items()):
            if srv != a.arm:
                continue
            o = one_run(secs, lo, hi)
            if "r2_budget" not in o:
                continue
            nb = o["cv"] * (1 - o["r2_budget"]) ** 0.5
            nf = o["cv"] * (1 - o["r2_both"]) ** 0.5
            line = (f"{rid} | {o['cv']:.3f} | {o['budget_cv']:.3f} | "
                    f"{o['r2_budget']:.2f} | {o['r2_flushed']:.2f} | "
                    f"{o['r2_both']:.2f} | {nb:.3f} | {nf:.3f}")
            if ref:
                line += f" | {nb / ref:.2f}x | {nf / ref:.2f}x"
            print(line)
        print()
        print("run | arm | mean TPS | detrended CV | lag-1 autocorrelation"
              " | 1/sqrt(TPS)")
        for (srv, rid), secs in sorted(runs.items()):
            o = one_run(secs, lo, hi)
            print(f"{rid} | {srv} | {o['mean']:.0f} | {o['cv']:.3f} | "
                  f"{o['ac1']:+.2f} | {o['mean'] ** -0.5:.3f}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

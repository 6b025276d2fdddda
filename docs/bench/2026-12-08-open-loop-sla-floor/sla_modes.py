#!/usr/bin/env python3
"""Split each run's seconds over the SLA by window and by per-second p99
band, to tell seconds over the SLA that come with flushing pressure from
those a server has before any checkpoint pressure.

For each run of one or more bench/run result dirs: seconds with p99 above
the SLA in a pressure-free window (default 11-40: every arm is below the
async mark there) and in steady state (default 61-240), the same counts
above a second threshold, and how the steady-state seconds fall into p99
bands. Then, per server, the sums over all runs, the ratio to the
baseline server's sums, and the points of steady-state share over the SLA
that the server adds to its own pressure-free share, with their ratio to
the baseline's.

usage: sla_modes.py [--sla MS] [--high MS] [--free A-B] [--steady A-B]
                    [--baseline SERVER] DIR [DIR...]
"""
import argparse
import csv
import os

BANDS = [(0, 60), (60, 90), (90, 100), (100, 115), (115, 150), (150, None)]


def window(text):
    a, b = text.split("-")
    return int(a), int(b)


def runs(dirs):
    """{run key: (server, {second: p99 ms}, first second at or past the
    async mark or None)} over the result dirs."""
    out = {}
    for d in dirs:
        with open(os.path.join(d, "per_second.csv"), newline="") as f:
            for row in csv.DictReader(f):
                if not row["p99_ms"]:
                    continue
                key = (os.path.basename(os.path.normpath(d)), row["run_id"])
                sec = int(row["second"])
                run = out.setdefault(key, [row["server"], {}, None])
                run[1][sec] = float(row["p99_ms"])
                past = row.get("ckpt_async_pct") or "0"
                if run[2] is None and float(past) >= 100.0:
                    run[2] = sec
    return out


def count(p99, win, limit):
    a, b = win
    return sum(1 for s, v in p99.items() if a <= s <= b and v > limit)


def bands(p99, win):
    a, b = win
    vals = [v for s, v in p99.items() if a <= s <= b]
    return [sum(1 for v in vals if v > lo and (hi is None or v <= hi))
            for lo, hi in BANDS]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sla", type=float, default=100.0)
    p.add_argument("--high", type=float, default=150.0)
    p.add_argument("--free", type=window, default=(11, 40))
    p.add_argument("--steady", type=window, default=(61, 240))
    p.add_argument("--baseline", default="vanilla")
    p.add_argument("dirs", nargs="+")
    a = p.parse_args()
    band_names = ["%s-%s" % (lo, hi if hi else "") for lo, hi in BANDS]
    head = ["run", "server", "async from s", "free>sla", "steady>sla",
            "steady>high"]
    print(" | ".join(head + ["steady p99 " + n for n in band_names]))
    sums = {}
    for key, (server, p99, async_s) in sorted(runs(a.dirs).items()):
        row = [count(p99, a.free, a.sla), count(p99, a.steady, a.sla),
               count(p99, a.steady, a.high)]
        bs = bands(p99, a.steady)
        acc = sums.setdefault(server, [0, 0, 0, 0])
        for i, v in enumerate(row):
            acc[i] += v
        acc[3] += 1
        print(" | ".join(["/".join(key), server, str(async_s or "never")] +
                         [str(v) for v in row + bs]))
    print()
    fl, st = a.free[1] - a.free[0] + 1, a.steady[1] - a.steady[0] + 1
    base = sums.get(a.baseline)
    def added(f, s, n):
        """Points of steady-state share over the SLA above the server's own
        share in the pressure-free window."""
        return 100.0 * s / (n * st) - 100.0 * f / (n * fl)

    print("server | runs | free>sla | share | steady>sla | share | ratio"
          " | steady>high | ratio | added points | added ratio")
    for server, (f, s, h, n) in sorted(sums.items()):
        rs = "%.3f" % (s / base[1]) if base and base[1] else "-"
        rh = "%.3f" % (h / base[2]) if base and base[2] else "-"
        add = added(f, s, n)
        base_add = added(base[0], base[1], base[3]) if base else 0.0
        ra = "%.3f" % (add / base_add) if base_add > 0 else "-"
        print("%s | %d | %d | %.0f %% | %d | %.0f %% | %s | %d | %s | %+.0f"
              " | %s" % (server, n, f, 100.0 * f / (n * fl), s,
                         100.0 * s / (n * st), rs, h, rh, add, ra))


if __name__ == "__main__":
    main()

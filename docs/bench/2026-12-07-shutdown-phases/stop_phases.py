#!/usr/bin/env python3
"""Per run of a bench/run result dir (mysqld.err at log_error_verbosity=3):
the seconds from 'Received SHUTDOWN' to each later message of the stop.

usage: stop_phases.py DIR
"""
import datetime
import glob
import os
import re
import sys

MARKS = [
    ("MY-013172", "received"),
    ("MY-012330", "fts thread exits"),
    ("MY-015019", "plugins shutdown"),
    ("MY-013072", "innodb shutdown"),
    ("MY-013084", "log threads closing"),
    ("MY-013854", "dblwr bytes"),
    ("MY-012980", "innodb done"),
    ("MY-010910", "complete"),
]


def stamp(line):
    return datetime.datetime.fromisoformat(line.split(" ", 1)[0].rstrip("Z"))


def main(argv):
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    print("| run | " + " | ".join(m[1] for m in MARKS[1:]) + " |")
    print("|---|" + "---|" * (len(MARKS) - 1))
    for p in sorted(glob.glob(os.path.join(argv[0], "runs", "*", "mysqld.err"))):
        lines = open(p, errors="replace").read().splitlines()
        marks = [i for i, l in enumerate(lines) if "MY-013172" in l]
        if not marks:
            continue
        start = marks[-1]
        t0 = stamp(lines[start])
        got = {}
        for l in lines[start:]:
            m = re.search(r"\[(MY-\d+)\]", l)
            if m and m.group(1) not in got:
                got[m.group(1)] = (stamp(l) - t0).total_seconds()
        print(f"| {os.path.basename(os.path.dirname(p))} | "
              + " | ".join(f"{got[c]:.2f}" if c in got else "-" for c, _ in MARKS[1:])
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

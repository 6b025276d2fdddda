#!/usr/bin/env python3
"""Diagnostic: aggregate gdb 'thread apply all bt' snapshots by thread name
and stack signature.  usage: agg.py [--depth N] [--name connection] FILES..."""
import re, sys
from collections import Counter
args = sys.argv[1:]
if not args or args[0] in ("-h", "--help"):
    print(__doc__); sys.exit(0)
depth, want = 4, None
while args and args[0].startswith("--"):
    if args[0] == "--depth": depth = int(args[1]); args = args[2:]
    elif args[0] == "--name": want = args[1]; args = args[2:]
SKIP = re.compile(r"^(__|futex|syscall|pthread_cond|___pthread|std::|os_event|os_thread_sleep|ut_delay|poll$|ppoll|recv$|read$|__libc|epoll|clock_nanosleep|nanosleep|pthread_|sleep|usleep|Event::wait|os_event::)")
sigs, n = Counter(), 0
for f in args:
    text = open(f).read()
    for block in re.split(r"\n(?=Thread \d+ )", text):
        m = re.match(r'Thread \d+ \(Thread 0x[0-9a-f]+ \(LWP \d+\) "([^"]*)"\)', block)
        if not m: continue
        name = re.sub(r"[-_]?\d+$", "", m.group(1))
        if want and name != want: continue
        funcs = re.findall(r"^#\d+\s+(?:0x[0-9a-f]+ in )?([^\s(]+)", block, re.M)
        funcs = [re.sub(r"<.*", "", x) for x in funcs]
        top = funcs[0] if funcs else "?"
        rest = [x for x in funcs if not SKIP.match(x)][:depth]
        sigs[(name, top + " | " + " < ".join(rest))] += 1
        n += 1
for (name, sig), c in sigs.most_common(40):
    print(f"{c:5d} {100.0*c/max(n,1):5.1f}%  {name:12s} {sig[:230]}")
print("threads sampled:", n)

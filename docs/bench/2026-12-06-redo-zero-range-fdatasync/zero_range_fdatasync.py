#!/usr/bin/env python3
"""fdatasync latency of 8 KiB writes into a file preallocated with
fallocate(FALLOC_FL_ZERO_RANGE), as InnoDB 9.x creates its redo files
(os_file_set_size_fast), against a file whose blocks were written once.

Writes go at increasing offsets, each followed by fdatasync, as the redo
log's leader does once a commit group; the two files take turns by round.
Prints mean, median and 99th percentile in microseconds per round.

Usage: zero_range_fdatasync.py [--size-mb 256] [--writes 3000] [--rounds 3] DIR
DIR must be on the file system under test (for example a fresh ext4 on a
loop device).
"""
import argparse
import ctypes
import os
import sys
import time

FALLOC_FL_ZERO_RANGE = 0x10


def create(path, size, zero_range):
    fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_TRUNC, 0o644)
    if zero_range:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        if libc.fallocate(fd, FALLOC_FL_ZERO_RANGE, ctypes.c_long(0), ctypes.c_long(size)) != 0:
            raise OSError(ctypes.get_errno(), "fallocate(FALLOC_FL_ZERO_RANGE)")
    else:
        block = b"\0" * (1 << 20)
        for _ in range(size >> 20):
            os.write(fd, block)
    os.fsync(fd)
    return fd


def timed_writes(fd, n, offset):
    buf = b"x" * 8192
    lat = []
    for i in range(n):
        os.pwrite(fd, buf, offset + i * 8192)
        t0 = time.perf_counter()
        os.fdatasync(fd)
        lat.append(time.perf_counter() - t0)
    lat.sort()
    return sum(lat) / n * 1e6, lat[n // 2] * 1e6, lat[int(n * 0.99)] * 1e6


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--size-mb", type=int, default=256)
    p.add_argument("--writes", type=int, default=3000, help="writes per round and file")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("dir")
    a = p.parse_args(argv)
    size = a.size_mb << 20
    if a.rounds * a.writes * 8192 > size:
        p.error("rounds x writes x 8 KiB must fit in --size-mb")
    fz = create(os.path.join(a.dir, "zero_range"), size, True)
    fw = create(os.path.join(a.dir, "written"), size, False)
    print("round | zero_range mean / median / p99 us | written once mean / median / p99 us")
    for r in range(a.rounds):
        off = r * a.writes * 8192
        z = timed_writes(fz, a.writes, off)
        w = timed_writes(fw, a.writes, off)
        print("%d | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f" % ((r,) + z + w), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

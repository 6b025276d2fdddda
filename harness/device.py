#!/usr/bin/env python3
"""Emulated devices: a loop device with its own ext4, a cgroup-v1 blkio group
whose throttles give it a device class, and /proc/diskstats for what it did.

Never rely on the host disk for a result: every measured datadir sits on a
loop device made here, capped to a class (the lab's classes are
bench/lab/scenarios.py's DEVICES; the caller passes the caps).

The functions that make things take a `record(key, value)` callback (a
harness.resources.Resources) and call it the moment a thing exists, so a killed
run can be undone.  The parsing and arithmetic at the end are pure.

Run as a script, gives bash callers the same sequence (see --help):
  python3 harness/device.py up --id ID --size-gb N [--write-iops N] ...
  python3 harness/device.py down --id ID
"""

import argparse
import os
import shutil
import sys
import time

if __name__ == "__main__" and __package__ is None:   # run as a script
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    __package__ = "harness"

from .proc import run_cmd  # noqa: E402

GiB = 1024 ** 3
CGROUP_ROOT = "/sys/fs/cgroup/blkio"
THROTTLE_FILES = {"write_iops": "write_iops_device", "read_iops": "read_iops_device",
                  "write_bps": "write_bps_device", "read_bps": "read_bps_device"}
# No lazy init: ext4 would otherwise write inode tables in the background
# during a measured run.  One inode per MB is plenty for a datadir (hundreds
# of files) and keeps those tables small.
MKFS_EXT4 = ["mkfs.ext4", "-q", "-F", "-m", "0", "-i", "1048576", "-L", "steadylab",
             "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard"]
# xfs (for the tests that compare file systems): no discard at mkfs, the
# smallest xfs mkfs.xfs accepts is 300 MiB.
MKFS_XFS = ["mkfs.xfs", "-q", "-f", "-K", "-L", "steadylab"]
# ext4 without extents, as ext3 lays files out: fallocate() is not supported,
# and posix_fallocate() on a file opened with O_DIRECT fails with EINVAL, so
# InnoDB writes zeros to extend a file (tests that need slow extensions).
MKFS_EXT4_NOEXTENT = MKFS_EXT4 + ["-O", "^extent,^64bit"]
MKFS = {"ext4": MKFS_EXT4, "ext4-noextent": MKFS_EXT4_NOEXTENT, "xfs": MKFS_XFS}


class DeviceError(Exception):
    """The host cannot give us the device; the message says why."""


def host_problems(need_throttle, tools=("losetup", "mkfs.ext4", "mount", "umount")):
    """Reasons this host cannot make our devices ([] if it can)."""
    problems = []
    if os.geteuid() != 0:
        problems.append("needs root (losetup, mkfs, mount, cgroups)")
    if not os.path.exists("/dev/loop-control"):
        problems.append("no loop device support (/dev/loop-control missing; modprobe loop)")
    for tool in tools:
        if not shutil.which(tool):
            problems.append("%s not found" % tool)
    if need_throttle and not has_blkio_throttle():
        problems.append("no cgroup-v1 blkio hierarchy with throttling at %s" % CGROUP_ROOT)
    return problems


def has_blkio_throttle():
    return os.path.exists(os.path.join(CGROUP_ROOT, "blkio.throttle.write_iops_device"))


# -- loop filesystem ---------------------------------------------------------

def make_loop_fs(image, size_bytes, mount, record, direct_io=True, fs="ext4"):
    """Sparse image -> loop device -> ext4 (or `fs`: xfs) -> mounted at `mount`.

    direct_io: the loop device writes its backing file around the host page
    cache, so an fsync on the loop filesystem is an fsync on the disk.
    Returns {"image", "loop", "majmin", "mount", "direct_io"}.
    """
    os.makedirs(os.path.dirname(image), exist_ok=True)
    record("image", image)
    with open(image, "wb") as f:              # sparse: blocks only as data lands
        f.truncate(size_bytes)
    p = None
    if direct_io:
        p = run_cmd(["losetup", "--find", "--show", "--direct-io=on", image], check=False)
        if p.returncode != 0:
            p, direct_io = None, False
    if p is None:
        p = run_cmd(["losetup", "--find", "--show", image], check=False)
        if p.returncode != 0:
            raise DeviceError("no free loop device: " + p.stdout.strip())
    loop = p.stdout.strip().splitlines()[-1]
    record("loop", loop)
    run_cmd(MKFS[fs] + [loop], timeout=600)
    os.makedirs(mount, exist_ok=True)
    record("mount", mount)
    run_cmd(["mount", "-o", "noatime", loop, mount])
    return {"image": image, "loop": loop, "majmin": dev_majmin(loop), "mount": mount,
            "direct_io": direct_io}


def dev_majmin(loop):
    with open("/sys/block/%s/dev" % os.path.basename(loop)) as f:
        return f.read().strip()


def backing_disk(path):
    """MAJ:MIN of the whole disk holding `path` (blkio rules refuse partitions)."""
    st = os.stat(path)
    majmin = "%d:%d" % (os.major(st.st_dev), os.minor(st.st_dev))
    sysdir = os.path.realpath("/sys/dev/block/" + majmin)
    if os.path.exists(os.path.join(sysdir, "partition")):
        with open(os.path.join(os.path.dirname(sysdir), "dev")) as f:
            majmin = f.read().strip()
    return majmin


def disk_name(majmin):
    """Kernel name ('vda', 'sdb') of block device MAJ:MIN, as /proc/diskstats
    lists it; None where it is not a block device (a tmpfs file's st_dev)."""
    sysdir = "/sys/dev/block/" + majmin
    if not os.path.exists(sysdir):
        return None
    return os.path.basename(os.path.realpath(sysdir))


def is_mounted(path):
    path = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        return any(line.split()[4] == path for line in f)


def loop_backing(loop):
    """The file behind a loop device, or None."""
    try:
        with open("/sys/block/%s/loop/backing_file" % os.path.basename(loop)) as f:
            return os.path.realpath(f.read().strip().replace(" (deleted)", ""))
    except OSError:
        return None


# -- cgroup-v1 blkio ---------------------------------------------------------

def make_cgroup(name, record):
    """A fresh blkio group, or None where the host has no throttling."""
    if not has_blkio_throttle():
        return None
    cg = os.path.join(CGROUP_ROOT, name)
    os.mkdir(cg)
    record("cgroup", cg)
    return cg


def set_caps(cgroup, majmin, caps, on=True):
    """Write (on) or clear the throttles {write_iops, read_iops, write_bps,
    read_bps} for device `majmin` in `cgroup`."""
    if not cgroup:
        return
    for key, value in caps.items():
        with open(os.path.join(cgroup, "blkio.throttle." + THROTTLE_FILES[key]), "w") as f:
            f.write("%s %d\n" % (majmin, value if on else 0))


def join_cgroup(cgroup, pid):
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write("%d\n" % pid)


def adopt_journal_thread(cgroup, loop):
    """Move the loop filesystem's ext4 journal thread into `cgroup`.

    In cgroup v1, IO is charged to the submitting thread's group.  Every fsync
    of a growing file (the binlog at sync_binlog=1) makes jbd2 write a journal
    commit from its own kernel thread: left in the root group, those writes
    bypass the cap (seen: 4100 write IOPS through a 3000 cap).  The thread is
    ours alone (one per mounted filesystem, named after our loop device).
    Returns (moved, message).
    """
    want = "jbd2/%s-" % os.path.basename(loop)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm.startswith(want):
            try:
                with open(os.path.join(cgroup, "tasks"), "w") as f:
                    f.write(pid + "\n")
                return True, "%s moved into the cgroup" % comm
            except OSError as e:
                return False, "could not move %s into the cgroup (%s): journal writes stay uncapped" % (comm, e)
    return False, "no %s* thread found: journal writes stay uncapped" % want


# -- teardown ----------------------------------------------------------------

def _retry(fn, tries, pause):
    for _ in range(tries):
        if fn():
            return True
        time.sleep(pause)
    return False


def _rmdir(path):
    try:
        os.rmdir(path)
        return True
    except OSError:
        return False


def teardown(image, loop, mount, cgroup, note=lambda msg: None, keep_image=False):
    """Unmount, detach (only if the loop still backs our image), remove the
    image (unless keep_image: a failed test's evidence) and the cgroup.
    Returns a list of errors."""
    errors = []
    if mount and is_mounted(mount):
        note("unmounting %s" % mount)
        if not _retry(lambda: run_cmd(["umount", mount], check=False).returncode == 0, 20, 0.5):
            errors.append("could not unmount %s" % mount)
    if mount and os.path.isdir(mount) and not is_mounted(mount):
        _rmdir(mount)
    if loop and image and loop_backing(loop) == os.path.realpath(image):
        note("detaching %s" % loop)
        if run_cmd(["losetup", "-d", loop], check=False).returncode != 0:
            errors.append("could not detach %s" % loop)
    if image and os.path.exists(image) and not keep_image and not (mount and is_mounted(mount)):
        note("removing %s" % image)
        os.unlink(image)
    if cgroup and os.path.isdir(cgroup):
        note("removing cgroup %s" % cgroup)
        if not _retry(lambda: _rmdir(cgroup), 20, 0.25):
            errors.append("could not remove cgroup %s" % cgroup)
    return errors


def remove_tree(path):
    shutil.rmtree(path, ignore_errors=True)


# -- /proc/diskstats (pure) --------------------------------------------------

def parse_diskstats_line(line):
    """One /proc/diskstats line -> (name, counters dict), or None.  The flush
    counters (kernel 5.5+: flush requests completed, ms spent flushing) read
    0 on an older kernel."""
    f = line.split()
    if len(f) < 14:
        return None
    return f[2], {
        "flushes": int(f[18]) if len(f) >= 20 else 0,
        "flush_ms": int(f[19]) if len(f) >= 20 else 0,
        "reads": int(f[3]),
        "sectors_read": int(f[5]),
        "read_ms": int(f[6]),
        "writes": int(f[7]),
        "write_ms": int(f[10]),
        "sectors_written": int(f[9]),
        "in_flight": int(f[11]),
        "io_ticks_ms": int(f[12]),
        "queue_ms": int(f[13]),
    }


def read_diskstats(name, text=None):
    """Counters of device `name` (e.g. 'loop3') from /proc/diskstats, or None."""
    if text is None:
        with open("/proc/diskstats") as f:
            text = f.read()
    for line in text.splitlines():
        p = parse_diskstats_line(line)
        if p and p[0] == name:
            return p[1]
    return None


def diskstats_delta(before, after, seconds):
    """Device rates between two /proc/diskstats samples of one device.

    Returns read IOPS, write IOPS, read and write MB/s, %util (share of wall
    time the device had IO in flight, capped at 100) and the average number
    of requests in flight (iostat's aqu-sz: weighted ms / wall ms), and the
    mean read and write latency in ms (iostat's r_await and w_await; 0
    without reads or writes); None if no time passed.
    """
    if seconds <= 0:
        return None
    d = {k: after[k] - before[k]
         for k in ("reads", "writes", "write_ms", "sectors_written", "io_ticks_ms", "queue_ms")}
    for k in ("sectors_read", "read_ms"):
        d[k] = after.get(k, 0) - before.get(k, 0)
    return {
        "dev_w_await_ms": d["write_ms"] / d["writes"] if d["writes"] > 0 else 0.0,
        "dev_r_await_ms": d["read_ms"] / d["reads"] if d["reads"] > 0 else 0.0,
        "dev_r_iops": d["reads"] / seconds,
        "dev_r_mbps": d["sectors_read"] * 512 / 1e6 / seconds,
        "dev_w_iops": d["writes"] / seconds,
        "dev_w_mbps": d["sectors_written"] * 512 / 1e6 / seconds,
        "dev_util_pct": min(100.0, d["io_ticks_ms"] / (seconds * 1000.0) * 100.0),
        "dev_avg_queue": d["queue_ms"] / (seconds * 1000.0),
    }


def flush_delta(before, after, seconds):
    """Flush requests a second between two samples, and the mean ms each
    took (0 without flushes): on a device holding only logs, each one is an
    fsync of the redo or binary log reaching the device.  None if no time
    passed."""
    if seconds <= 0:
        return None
    n = after["flushes"] - before["flushes"]
    return {"flush_ps": n / seconds, "flush_ms": (after["flush_ms"] - before["flush_ms"]) / n if n > 0 else 0.0}


def cap_share(rates, caps):
    """How much of the device class's IOPS cap was used, in %: the larger of
    reads/read cap and writes/write cap.  None without an IOPS cap.

    Under a blkio throttle %util only counts time below the throttle, so this
    is the figure that says whether the emulated device had IOPS to spare.
    """
    shares = []
    if caps.get("write_iops"):
        shares.append(rates["dev_w_iops"] / caps["write_iops"])
    if caps.get("read_iops"):
        shares.append(rates["dev_r_iops"] / caps["read_iops"])
    return 100.0 * max(shares) if shares else None


# -- command line for bash callers -------------------------------------------

def _cli(argv):
    from . import paths
    from .resources import Resources
    ap = argparse.ArgumentParser(
        prog="harness/device.py", description=__doc__.split("\n\n")[0],
        epilog="up prints LOOP=, MAJMIN=, MOUNT=, CGROUP= as shell assignments; the state "
               "is recorded under %s/ID.json, owned by the calling shell (its parent pid), "
               "so `bench/run --cleanup` undoes it if that shell dies." % paths.state_dir())
    sub = ap.add_subparsers(dest="cmd", required=True)
    up = sub.add_parser("up", help="make image, loop device, ext4, mount, optional throttled cgroup")
    up.add_argument("--id", required=True, help="run id (names the state file, image and cgroup)")
    up.add_argument("--size-gb", type=float, required=True, help="sparse image size")
    up.add_argument("--mount", help="mount point (default under %s)" % paths.mount_dir())
    up.add_argument("--image", help="image file (default under %s)" % paths.image_dir())
    up.add_argument("--no-direct-io", action="store_true", help="loop device through the host page cache")
    up.add_argument("--fs", choices=sorted(MKFS), default="ext4", help="file system (default ext4)")
    up.add_argument("--write-iops", type=int, default=0, help="cap writes of the loop device (needs blkio)")
    up.add_argument("--owner-pid", type=int, default=os.getppid(), help="process that owns the device")
    down = sub.add_parser("down", help="undo what `up --id ID` made")
    down.add_argument("--id", required=True)
    down.add_argument("--keep-image", action="store_true",
                      help="leave the image file in place (e.g. a failed test's filesystem)")
    a = ap.parse_args(argv)
    if a.cmd == "down":
        import json
        path = os.path.join(paths.state_dir(), a.id + ".json")
        if not os.path.exists(path):
            return 0
        with open(path) as f:
            from .resources import teardown_state
            errors = teardown_state(json.load(f), quiet=True, keep_image=a.keep_image)
        if errors:
            print("device.py down: " + "; ".join(errors), file=sys.stderr)
            return 1
        os.unlink(path)
        return 0
    problems = host_problems(need_throttle=a.write_iops > 0,
                             tools=("losetup", MKFS[a.fs][0], "mount", "umount"))
    if problems:
        print("device.py: cannot make the device here: " + "; ".join(problems), file=sys.stderr)
        return 77
    res = Resources(a.id, owner_pid=a.owner_pid)
    image = a.image or os.path.join(paths.image_dir(), a.id + ".img")
    mount = a.mount or os.path.join(paths.mount_dir(), a.id)
    try:
        fs = make_loop_fs(image, int(a.size_gb * GiB), mount, res.record,
                          direct_io=not a.no_direct_io, fs=a.fs)
        cg = None
        if a.write_iops:
            cg = make_cgroup("steady-" + a.id, res.record)
            set_caps(cg, fs["majmin"], {"write_iops": a.write_iops})
    except (OSError, RuntimeError, DeviceError) as e:
        res.teardown(quiet=True)
        print("device.py: %s" % e, file=sys.stderr)
        return 1
    print("LOOP=%s\nMAJMIN=%s\nMOUNT=%s\nCGROUP=%s" % (fs["loop"], fs["majmin"], fs["mount"], cg or ""))
    return 0


if __name__ == "__main__":
    sys.exit(_cli(sys.argv[1:]))

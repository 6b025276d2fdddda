"""The redo files' blocks as a long-running server has them (bench/run
--redo-written SERVER).

InnoDB 9.7 creates its redo files with fallocate(FALLOC_FL_ZERO_RANGE)
(os_file_set_size_fast()); on ext4 their blocks stay unwritten extents until
written, and each first write's fdatasync() then commits the extent change
through the file system's journal
(docs/bench/2026-12-06-redo-zero-range-fdatasync). A server whose redo has
wrapped once writes over blocks written before; a fresh datadir with a large
redo capacity writes into unwritten blocks for its whole first pass. Writing
each file's bytes back over themselves after --initialize gives the run the
first state without changing a byte of the redo.

Values in, figures out: paths in, counts and seconds back."""

import glob
import os
import re
import subprocess
import time

CHUNK = 1 << 20

RUN_COLUMNS = ["redo_files_written", "redo_written_mib", "redo_unwritten_before", "redo_unwritten_after",
               "redo_write_s"]


def redo_paths(flavour, redo_dir):
    """The redo files a server keeps under `redo_dir` (its
    innodb_log_group_home_dir, or the datadir): MySQL's #innodb_redo/#ib_redo*
    (spare files, *_tmp, included), MariaDB's ib_logfile*."""
    parts = ("#innodb_redo", "#ib_redo*") if flavour == "mysql" else ("ib_logfile*",)
    return sorted(p for p in glob.glob(os.path.join(glob.escape(redo_dir), *parts)) if os.path.isfile(p))


_EXTENT = re.compile(r"^\s*\d+:\s")


def unwritten_extents(path, run=subprocess.run):
    """How many of the file's extents are unwritten (filefrag -v's
    "unwritten" flag), or None where filefrag cannot tell."""
    try:
        p = run(["filefrag", "-v", path], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode != 0:
        return None
    return sum(1 for line in p.stdout.splitlines() if _EXTENT.match(line) and "unwritten" in line)


def write_back(path, chunk=CHUNK):
    """Read the file and write each chunk back where it was, then
    fdatasync(): the content is unchanged, every block is written.
    Returns the bytes written."""
    done = 0
    fd = os.open(path, os.O_RDWR)
    try:
        while True:
            buf = os.pread(fd, chunk, done)
            if not buf:
                break
            n = os.pwrite(fd, buf, done)
            if n != len(buf):
                raise OSError("short write to %s at %d" % (path, done))
            done += n
        os.fdatasync(fd)
    finally:
        os.close(fd)
    return done


def write_through(paths, count=unwritten_extents, clock=time.monotonic):
    """Write every file in `paths` back over itself.  Returns the run's
    facts (RUN_COLUMNS); the unwritten-extent counts are None where
    filefrag cannot tell."""
    def total(ps):
        counts = [count(p) for p in ps]
        return None if any(c is None for c in counts) else sum(counts)

    before = total(paths)
    t0 = clock()
    written = sum(write_back(p) for p in paths)
    secs = clock() - t0
    return {"redo_files_written": len(paths), "redo_written_mib": round(written / (1 << 20), 1),
            "redo_unwritten_before": before, "redo_unwritten_after": total(paths),
            "redo_write_s": round(secs, 1)}


class NoRedoFiles(Exception):
    """--redo-written found no redo file to write."""


def write_server_redo(flavour, redo_dir):
    """--redo-written: every block of a freshly initialised server's redo
    files written.  Returns RUN_COLUMNS' facts; raises NoRedoFiles where
    there is none under `redo_dir`."""
    paths = redo_paths(flavour, redo_dir)
    if not paths:
        raise NoRedoFiles("--redo-written: no redo files under %s after initialising" % redo_dir)
    return write_through(paths)


def describe(facts):
    return "redo written through: %d files, %.0f MiB in %.1f s, unwritten extents %s -> %s" % (
        facts["redo_files_written"], facts["redo_written_mib"], facts["redo_write_s"],
        facts["redo_unwritten_before"], facts["redo_unwritten_after"])

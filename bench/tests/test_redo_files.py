"""lab.redo_files: finding a server's redo files, counting their unwritten
extents, and writing them through (bench/run --redo-written) on the host's
own file system, where a zero-range preallocation leaves unwritten extents as
InnoDB's redo files have them.

Run: python3 -m unittest discover -s bench/tests -v
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository on sys.path)
from lab import redo_files as R

MiB = 1 << 20


def zero_range_file(path, size):
    """A file made as InnoDB 9.7 makes a redo file: fallocate zero range
    over its size, then a header written at its start."""
    open(path, "wb").close()
    subprocess.run(["fallocate", "-z", "-o", "0", "-l", str(size), path], check=True)
    fd = os.open(path, os.O_WRONLY)
    try:
        os.pwrite(fd, b"redo header " * 40, 0)
        os.fsync(fd)
    finally:
        os.close(fd)


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class Tmp(unittest.TestCase):
    def setUp(self):
        # Under the home directory, not /tmp: /tmp may be a tmpfs, which keeps no extents.
        self.tmp = tempfile.mkdtemp(prefix="steady-test-redo-files-", dir=os.path.expanduser("~"))
        self.addCleanup(shutil.rmtree, self.tmp, True)


class Paths(Tmp):
    def test_mysql_redo_files_and_spares(self):
        redo = os.path.join(self.tmp, "#innodb_redo")
        os.mkdir(redo)
        for name in ("#ib_redo7", "#ib_redo8_tmp", "#ib_redo10"):
            open(os.path.join(redo, name), "w").close()
        os.mkdir(os.path.join(redo, "#ib_redo99"))          # not a file
        open(os.path.join(self.tmp, "ibdata1"), "w").close()
        self.assertEqual([os.path.basename(p) for p in R.redo_paths("mysql", self.tmp)],
                         ["#ib_redo10", "#ib_redo7", "#ib_redo8_tmp"])

    def test_mariadb_log_file(self):
        for name in ("ib_logfile0", "ibdata1", "aria_log.00000001"):
            open(os.path.join(self.tmp, name), "w").close()
        self.assertEqual([os.path.basename(p) for p in R.redo_paths("mariadb", self.tmp)], ["ib_logfile0"])

    def test_none_found(self):
        self.assertEqual(R.redo_paths("mysql", self.tmp), [])


FILEFRAG = """Filesystem type is: ef53
File size of f is 4194304 (1024 blocks of 4096 bytes)
 ext:     logical_offset:        physical_offset: length:   expected: flags:
   0:        0..       0:   48464896..  48464896:      1:
   1:        1..     511:   48464897..  48465407:    511:             unwritten
   2:      512..    1023:   48465408..  48465919:    512:             last,unwritten,eof
f: 3 extents found
"""


class Completed:
    def __init__(self, rc, out):
        self.returncode, self.stdout = rc, out


class Counting(Tmp):
    def test_counts_the_unwritten_extents(self):
        self.assertEqual(R.unwritten_extents("f", run=lambda *a, **k: Completed(0, FILEFRAG)), 2)

    def test_none_where_filefrag_cannot_tell(self):
        self.assertIsNone(R.unwritten_extents("f", run=lambda *a, **k: Completed(1, "")))

        def missing(*a, **k):
            raise FileNotFoundError("filefrag")
        self.assertIsNone(R.unwritten_extents("f", run=missing))

    def test_facts_without_counts(self):
        path = os.path.join(self.tmp, "ib_logfile0")
        with open(path, "wb") as f:
            f.write(b"x" * 10)
        facts = R.write_through([path], count=lambda p: None)
        self.assertEqual((facts["redo_files_written"], facts["redo_unwritten_before"],
                          facts["redo_unwritten_after"]), (1, None, None))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"x" * 10)


class WriteThrough(Tmp):
    def test_every_block_written_and_nothing_changed(self):
        paths = [os.path.join(self.tmp, n) for n in ("#ib_redo1", "#ib_redo2_tmp")]
        for p in paths:
            zero_range_file(p, 3 * MiB + 4096)
        before = [R.unwritten_extents(p) for p in paths]
        if None in before or 0 in before:
            self.skipTest("this file system keeps no unwritten extents after fallocate -z (%s)" % before)
        sums = [digest(p) for p in paths]
        facts = R.write_through(paths)
        self.assertEqual([digest(p) for p in paths], sums)
        self.assertEqual([os.path.getsize(p) for p in paths], [3 * MiB + 4096] * 2)
        self.assertEqual(facts["redo_files_written"], 2)
        self.assertEqual(facts["redo_written_mib"], round(2 * (3 * MiB + 4096) / MiB, 1))
        self.assertEqual(facts["redo_unwritten_before"], sum(before))
        self.assertEqual(facts["redo_unwritten_after"], 0)
        self.assertEqual([R.unwritten_extents(p) for p in paths], [0, 0])


if __name__ == "__main__":
    unittest.main()

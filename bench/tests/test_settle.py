"""lab.settle: the flush and checkpoint wait between prepare and the run,
against a fake Sql.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import io
import time
import unittest
from unittest import mock

import fakes  # noqa: F401  (puts bench/ and the repository on sys.path)
from fakes import FakeSql
from lab import settle as ST

MiB = 1024 ** 2


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


ORIG = {"innodb_max_dirty_pages_pct_lwm": "10", "innodb_max_dirty_pages_pct": "90"}
FLUSH_ALL = ["SET GLOBAL innodb_max_dirty_pages_pct_lwm=0", "SET GLOBAL innodb_max_dirty_pages_pct=0"]
RESTORE = ["SET GLOBAL innodb_max_dirty_pages_pct=90", "SET GLOBAL innodb_max_dirty_pages_pct_lwm=10"]


class Settle(unittest.TestCase):
    def test_flushes_until_clean_then_restores(self):
        sql = FakeSql(ORIG, dirty=["5000", "100", "0"])
        slept = []
        with quiet(), mock.patch.object(ST, "time", mock.Mock(monotonic=time.monotonic, sleep=slept.append)):
            secs, dirty = ST.settle(sql, 30, "r")
        self.assertEqual(dirty, "100")                      # <= 100 is clean enough
        self.assertEqual(slept, [1])                        # it waited once for the flush
        self.assertEqual(sql.dirty, ["0"])                  # and stopped polling when clean
        self.assertEqual(sql.sets(), FLUSH_ALL + RESTORE)

    def test_gives_up_at_timeout_and_restores(self):
        sql = FakeSql(ORIG, dirty=["5000"] * 10)
        with quiet():
            secs, dirty = ST.settle(sql, 0, "r")
        self.assertEqual((secs, dirty), (0.0, None))
        self.assertEqual(sql.sets(), FLUSH_ALL + RESTORE)

    def test_restores_after_an_error(self):
        sql = FakeSql(ORIG, dirty=["5000"], fail_after=4)
        with quiet(), self.assertRaisesRegex(RuntimeError, "connection lost"):
            ST.settle(sql, 30, "r")
        self.assertEqual(sql.sets(), FLUSH_ALL + RESTORE)

    def test_unknown_variable_not_restored(self):
        sql = FakeSql({"innodb_max_dirty_pages_pct": "75"}, dirty=["0"])
        with quiet():
            ST.settle(sql, 30, "r")
        self.assertEqual(sql.sets(), FLUSH_ALL + ["SET GLOBAL innodb_max_dirty_pages_pct=75"])


MiB = 2 ** 20


def lsns(ages_mb):
    """MySQL's redo LSN status for these checkpoint ages (one per read)."""
    return {"Innodb_redo_log_current_lsn": [str(10 ** 9 + int(a * MiB)) for a in ages_mb],
            "Innodb_redo_log_checkpoint_lsn": [str(10 ** 9)] * len(ages_mb)}


class SettleCheckpoint(unittest.TestCase):
    """Prepare can end with few dirty pages and an old checkpoint (a server
    that flushed hard during it); settling waits for the checkpoint too."""

    def settle(self, sql, redo_bytes):
        slept = []
        with quiet(), mock.patch.object(ST, "time", mock.Mock(monotonic=time.monotonic, sleep=slept.append)):
            ST.settle(sql, 30, "r", redo_bytes)
        return slept

    def test_waits_until_the_age_is_small(self):
        sql = FakeSql(ORIG, dirty=["61"], status=lsns([60, 30, 4, 1]))
        self.assertEqual(self.settle(sql, 100 * MiB), [1, 1])   # 60 and 30 MB: wait; 4 MB <= 5 %
        self.assertEqual(sql.status["Innodb_redo_log_current_lsn"], [str(10 ** 9 + MiB)])
        # the flush-all settings stay until the checkpoint has followed
        self.assertEqual(sql.sets(), FLUSH_ALL + RESTORE)
        self.assertEqual(sql.statements[-2:], RESTORE)

    def test_mariadb_checkpoint_age(self):
        sql = FakeSql(ORIG, dirty=["0"], status={"Innodb_checkpoint_age": [str(50 * MiB), str(MiB)]})
        self.assertEqual(self.settle(sql, 100 * MiB), [1])

    def test_gives_up_when_the_age_stops_falling(self):
        sql = FakeSql(ORIG, dirty=["0"], status=lsns([40, 30] + [30] * 20))
        slept = self.settle(sql, 100 * MiB)
        self.assertEqual(len(slept), 1 + ST.SETTLE_AGE_STALL)
        self.assertEqual(sql.sets(), FLUSH_ALL + RESTORE)

    def test_no_age_wait_without_the_redo_capacity_or_while_dirty(self):
        sql = FakeSql(ORIG, dirty=["0"], status=lsns([60]))
        self.assertEqual(self.settle(sql, None), [])
        sql = FakeSql(ORIG, dirty=["5000"] * 40, status=lsns([60]))
        with quiet(), mock.patch.object(ST, "time", mock.Mock(monotonic=time.monotonic, sleep=lambda s: None)):
            ST.settle(sql, 0, "r", 100 * MiB)
        self.assertEqual(len(sql.status["Innodb_redo_log_current_lsn"]), 1)   # never read


if __name__ == "__main__":
    unittest.main()

"""lab.phases under --config stock: the my.cnf options a run writes when
each server keeps its own sizing and flushing defaults.

Run: python3 -m unittest discover -s bench/tests -v
"""

import unittest

import fakes  # noqa: F401  (puts bench/ and the repository on sys.path)
from lab import phases as PH
from lab.scenarios import build_device, build_scenario
from test_phases import WHERE, Tmp, fake_binaries, make_spec


class StockServerOptions(Tmp):
    """--config stock writes what a run needs to exist, be durable and be
    comparable, and none of the lab's sizing or flushing."""

    LAB_ONLY = ("innodb_buffer_pool_size", "innodb_io_capacity", "innodb_io_capacity_max", "innodb_flush_method",
                "innodb_redo_log_capacity", "innodb_log_file_size")

    def options(self, flavour="mysql", scenario="read_only", config="stock", where=WHERE, extra=()):
        sc = build_scenario(scenario, config=config)
        dev = build_device("ssd", scenario_io_capacity=sc.get("io_capacity"), config=config)
        return PH.server_options(fake_binaries(self.tmp, flavour), sc, dev, where, list(extra), config)

    def test_stock_leaves_sizing_and_flushing_to_the_server(self):
        o = self.options()
        d = dict(o)
        self.assertEqual(len(d), len(o))
        for k in self.LAB_ONLY:
            self.assertNotIn(k, d)
        for k, v in (("log-bin", "binlog"), ("sync_binlog", "1"), ("innodb_flush_log_at_trx_commit", "1"),
                     ("server-id", "1"), ("max_connections", "1000"), ("skip-networking", None),
                     ("skip-name-resolve", None), ("user", "root"), ("loose-mysqlx", "OFF"),
                     ("datadir", "/l/data"), ("tmpdir", "/l/tmp"), ("socket", "/t/s.sock"), ("pid-file", "/t/p"),
                     ("log-error", "/r/mysqld.err")):
            self.assertEqual(d[k], v, k)
        self.assertIn("plugin-dir", d)                      # location options stay
        # nothing but the run's own needs
        self.assertEqual(sorted(d), sorted(["user", "basedir", "datadir", "tmpdir", "socket", "pid-file",
                                            "log-error", "skip-networking", "skip-name-resolve", "max_connections",
                                            "server-id", "log-bin", "sync_binlog",
                                            "innodb_flush_log_at_trx_commit", "lc-messages-dir", "plugin-dir",
                                            "loose-mysqlx"]))

    def test_lab_keeps_them(self):
        d = dict(self.options(config="lab"))
        for k in self.LAB_ONLY[:5]:
            self.assertIn(k, d)
        self.assertEqual((d["innodb_buffer_pool_size"], d["sync_binlog"]), (str(1024 ** 3), "1"))
        self.assertEqual(dict(self.options(config="lab", scenario="pileup"))["innodb_io_capacity"], "200")

    def test_user_sets_still_apply(self):
        d = dict(self.options(extra=[("innodb_buffer_pool_size", "1G"), ("innodb_buffer_pool_instances", "8"),
                                     ("sync_binlog", "0")]))
        self.assertEqual((d["innodb_buffer_pool_size"], d["innodb_buffer_pool_instances"], d["sync_binlog"]),
                         ("1G", "8", "0"))

    def test_mariadb_stays_comparable(self):
        d = dict(self.options(flavour="mariadb"))
        self.assertEqual(d["binlog_format"], "ROW")          # MySQL's default, MariaDB's is MIXED
        for k in self.LAB_ONLY:
            self.assertNotIn(k, d)

    def test_logs_on_their_own_device(self):
        d = dict(self.options(where=dict(WHERE, logdir="/g/log")))
        self.assertEqual((d["innodb_log_group_home_dir"], d["log-bin"]), ("/g/log", "/g/log/binlog"))

    def test_spec_carries_the_config(self):
        self.assertEqual(make_spec(self.tmp, fake_binaries(self.tmp)).config, "lab")
        self.assertEqual(make_spec(self.tmp, fake_binaries(self.tmp), config="stock").config, "stock")


if __name__ == "__main__":
    unittest.main()

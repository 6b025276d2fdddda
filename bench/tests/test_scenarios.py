"""lab.scenarios: a scenario plus --quick plus the user's overrides gives
the run's settings; every bad input is refused with a message that says
what is wrong; the tables themselves are never changed.

Run: python3 -m unittest discover -s bench/tests -v
"""

import copy
import unittest

import fakes  # noqa: F401  (puts bench/ and the repository root on sys.path)
from lab import bulk_load as B
from lab import scenarios as SC
from lab.scenarios import ScenarioError, build_device, build_scenario

MiB = 1024 ** 2
GiB = 1024 ** 3
NO_OVERRIDES = dict.fromkeys(SC.OVERRIDES + SC.LOAD_OPTIONS)


class Scenario(unittest.TestCase):
    def test_run_level_keys_left_out(self):
        sc = build_scenario("bulk_load")
        for k in SC.RUN_LEVEL_KEYS:
            self.assertNotIn(k, sc)
        self.assertEqual(sc["workload"], "oltp_update_non_index")

    def test_quick_overrides(self):
        full, quick = build_scenario("stall"), build_scenario("stall", quick=True)
        self.assertEqual((full["duration"], full["tables"], full["buffer_pool"]), (600, 8, GiB))
        self.assertEqual((quick["duration"], quick["tables"], quick["table_size"], quick["buffer_pool"],
                          quick["redo"], quick["image_gb"]), (120, 4, 500000, 256 * MiB, 256 * MiB, 8))
        self.assertEqual(quick["workload"], full["workload"])       # not in quick: kept

    def test_user_overrides_beat_quick_none_keeps(self):
        o = dict(NO_OVERRIDES, duration=30, buffer_pool=64 * MiB, workload="oltp_insert")
        sc = build_scenario("stall", quick=True, overrides=o)
        self.assertEqual((sc["duration"], sc["buffer_pool"], sc["workload"]), (30, 64 * MiB, "oltp_insert"))
        self.assertEqual(sc["tables"], 4)                            # None: the quick value stays

    def test_threads(self):
        self.assertEqual(build_scenario("insert")["threads"], [32])
        self.assertEqual(build_scenario("insert", threads="1, 8,32,")["threads"], [1, 8, 32])
        self.assertEqual(SC.parse_threads("4096"), [4096])

    def test_every_scenario_builds(self):
        for name in SC.SCENARIOS:
            for quick in (False, True):
                for config in SC.CONFIGS:
                    sc = build_scenario(name, quick=quick, config=config)
                    self.assertIn(sc["workload"], SC.WORKLOADS, name)
                    self.assertGreaterEqual(sc["duration"], 5, name)
                    self.assertIn(SC.SCENARIOS[name].get("device", "ssd"), SC.DEVICES, name)
                    # sized one way or the other, never both
                    if sc["workload"] in SC.WAREHOUSE_WORKLOADS:
                        self.assertGreaterEqual(sc["warehouses"], 1, name)
                        self.assertNotIn("tables", sc)
                    else:
                        self.assertGreaterEqual(sc["tables"], 1, name)
                        self.assertNotIn("warehouses", sc)

    def test_no_harm_scenarios_mirror_their_neighbours(self):
        # point_select on read_only's data, update_index on write_only's
        for name, like in (("point_select", "read_only"), ("update_index", "write_only")):
            for quick in (False, True):
                sc, other = build_scenario(name, quick=quick), build_scenario(like, quick=quick)
                keys = ("tables", "table_size", "threads", "duration", "warmup", "buffer_pool", "redo", "image_gb")
                self.assertEqual({k: sc[k] for k in keys}, {k: other[k] for k in keys}, name)
        self.assertEqual(build_scenario("point_select")["workload"], "oltp_point_select")
        self.assertEqual(build_scenario("update_index")["workload"], "oltp_update_index")

    def test_tpcc(self):
        sc = build_scenario("tpcc")
        self.assertEqual((sc["workload"], sc["warehouses"], sc["threads"], sc["duration"], sc["buffer_pool"]),
                         ("tpcc_like", 10, [16], 300, 512 * MiB))
        self.assertEqual(SC.SCENARIOS["tpcc"]["device"], "ssd")
        self.assertNotIn("tables", sc)
        self.assertNotIn("table_size", sc)
        quick = build_scenario("tpcc", quick=True)
        self.assertEqual((quick["warehouses"], quick["duration"], quick["buffer_pool"]), (2, 60, 128 * MiB))
        self.assertEqual(build_scenario("tpcc", overrides={"warehouses": 4})["warehouses"], 4)

    def test_does_not_mutate_the_tables(self):
        before = copy.deepcopy(SC.SCENARIOS)
        sc = build_scenario("bulk_load", quick=True, overrides=dict(NO_OVERRIDES, load_rows=1000, duration=100),
                            threads="2,4")
        sc["run_args"].append("--rate=1")
        sc["threads"].append(99)
        sc2 = build_scenario("pileup", quick=True)
        sc2["workload_args"].append("--x")
        sc2["io_capacity"] = (1, 2)
        build_scenario("smoke", quick=True)["threads"].append(5)
        self.assertEqual(SC.SCENARIOS, before)
        self.assertEqual(build_scenario("bulk_load")["run_args"], ["--rate=200"])
        self.assertEqual(build_scenario("smoke")["threads"], [2])


class ScenarioErrors(unittest.TestCase):
    def refused(self, text, *args, **kw):
        with self.assertRaises(ScenarioError) as cm:
            build_scenario(*args, **kw)
        self.assertIn(text, str(cm.exception))

    def test_unknown_scenario_lists_valid(self):
        self.refused("unknown scenario 'nope'; valid: bulk_load, checkpoint_wave, device_limit, free_page_wait, insert, multi_insert, open_loop, pileup, point_select, read_only, "
                     "read_write, smoke, stall, tpcc, update_index, update_non_index, write_only", "nope")

    def test_bad_threads(self):
        for t in ("0", "-1", "abc", ",", "8,x", "5000"):
            self.refused("bad --threads %r: give a comma list of positive integers" % t, "insert", threads=t)

    def test_unknown_workload(self):
        self.refused("unknown workload 'tpcc'; valid: multi_insert, oltp_insert", "insert",
                     overrides={"workload": "tpcc"})

    def test_short_duration(self):
        self.refused("--duration must be at least 5 s", "insert", overrides={"duration": 4})
        build_scenario("insert", overrides={"duration": 5})

    def test_warehouses_size_only_a_warehouse_workload(self):
        self.refused("--tables and --table-size size sysbench's sbtest tables; workload tpcc_like is sized by "
                     "--warehouses", "tpcc", overrides={"tables": 8})
        self.refused("--tables and --table-size size sysbench's sbtest tables", "tpcc",
                     overrides={"table_size": 1000})
        self.refused("--warehouses only applies to a warehouse workload (tpcc_like)", "read_only",
                     overrides={"warehouses": 3})
        self.refused("--warehouses must be at least 1", "tpcc", overrides={"warehouses": 0})

    def test_switching_workload_between_kinds(self):
        # an sbtest scenario run as tpcc_like needs warehouses; its tables go
        self.refused("workload tpcc_like is sized in warehouses: give --warehouses N (scenario read_only has none)",
                     "read_only", overrides={"workload": "tpcc_like"})
        sc = build_scenario("read_only", overrides={"workload": "tpcc_like", "warehouses": 2})
        self.assertEqual(sc["warehouses"], 2)
        self.assertNotIn("tables", sc)
        # and the other way: tpcc's warehouses go, tables are needed
        self.refused("workload oltp_insert needs --tables and --table-size (scenario tpcc sizes its data in "
                     "warehouses)", "tpcc", overrides={"workload": "oltp_insert", "tables": 8})
        sc = build_scenario("tpcc", overrides={"workload": "oltp_insert", "tables": 8, "table_size": 1000})
        self.assertEqual((sc["tables"], sc["table_size"]), (8, 1000))
        self.assertNotIn("warehouses", sc)
        self.refused("the loader copies sbtest1: scenario bulk_load needs an sbtest workload, not tpcc_like",
                     "bulk_load", overrides={"workload": "tpcc_like", "warehouses": 1})

    def test_load_options_need_a_loading_scenario(self):
        for key in SC.LOAD_OPTIONS:
            self.refused("--%s only applies to a loading scenario (bulk_load)" % key.replace("_", "-"),
                         "stall", overrides={key: 10})

    def test_load_sizes(self):
        self.refused("--load-rows and --load-chunks must be at least 1", "bulk_load", overrides={"load_rows": 0})
        self.refused("--load-rows and --load-chunks must be at least 1", "bulk_load", overrides={"load_chunks": 0})

    def test_load_at_window(self):
        # warmup 10, duration 240: 10 < load_at <= 235
        self.refused("--load-at 10 must be after the warm-up (10 s) and at least 5 s before the end of the "
                     "OLTP run (--duration 240)", "bulk_load", overrides={"load_at": 10})
        self.refused("--load-at 236", "bulk_load", overrides={"load_at": 236})
        self.assertEqual(build_scenario("bulk_load", overrides={"load_at": 235})["load_at"], 235)
        self.assertEqual(build_scenario("bulk_load", overrides={"load_at": 11})["load_at"], 11)

    def test_seed_needs_enough_rows(self):
        need = B.seed_rows(4000000, 4)
        self.refused("the loader's seed copies %d rows of sbtest1: --table-size must be at least that" % need,
                     "bulk_load", overrides={"table_size": need - 1})
        self.assertEqual(build_scenario("bulk_load", overrides={"table_size": need})["table_size"], need)


class StockConfig(unittest.TestCase):
    """--config stock: the servers' own sizes, the data scaled to the 128 MB default pool."""

    def test_lab_is_the_default_and_unchanged(self):
        self.assertEqual(build_scenario("read_only"), build_scenario("read_only", config="lab"))

    def test_data_keeps_its_ratio_to_the_pool(self):
        sc = build_scenario("read_only", config="stock")      # 8 x 1M rows in 1 GB: 8 x 125k in 128 MB
        self.assertEqual((sc["tables"], sc["table_size"], sc["buffer_pool"], sc["redo"]),
                         (8, 125000, "default", "default"))
        self.assertEqual(build_scenario("read_only", quick=True, config="stock")["table_size"], 125000)  # 256 MB
        self.assertEqual(build_scenario("checkpoint_wave", config="stock")["table_size"], 50000)       # 4 GB
        self.assertEqual(build_scenario("tpcc", config="stock")["warehouses"], 3)                      # 10 x 1/4
        self.assertEqual(build_scenario("multi_insert", quick=True, config="stock")["table_size"], 1000)  # floor

    def test_small_pool_keeps_its_data(self):
        for name in ("smoke", "tpcc"):
            lab, stock = build_scenario(name, quick=True), build_scenario(name, quick=True, config="stock")
            for k in ("tables", "table_size", "warehouses"):
                self.assertEqual(lab.get(k), stock.get(k), (name, k))

    def test_no_io_capacity_of_the_scenario(self):
        self.assertEqual(build_scenario("pileup")["io_capacity"], (200, 2000))
        self.assertNotIn("io_capacity", build_scenario("pileup", config="stock"))

    def test_user_sizes_beat_the_scaling(self):
        o = dict(NO_OVERRIDES, table_size=777000, warehouses=None)
        self.assertEqual(build_scenario("read_only", overrides=o, config="stock")["table_size"], 777000)
        self.assertEqual(build_scenario("tpcc", overrides={"warehouses": 7}, config="stock")["warehouses"], 7)

    def test_pool_and_redo_refused(self):
        for key, flag in (("buffer_pool", "--buffer-pool"), ("redo", "--redo")):
            with self.assertRaisesRegex(ScenarioError, "%s: --config stock leaves the" % flag):
                build_scenario("read_only", overrides={key: 64 * MiB}, config="stock")

    def test_unknown_config(self):
        with self.assertRaisesRegex(ScenarioError, "unknown config 'tuned'; valid: lab, stock"):
            build_scenario("smoke", config="tuned")
        with self.assertRaisesRegex(ScenarioError, "unknown config 'tuned'"):
            build_device("ssd", config="tuned")

    def test_device_keeps_its_caps_not_its_io_capacity(self):
        dev = build_device("cloud", write_iops=500, scenario_io_capacity=(200, 400), config="stock")
        self.assertEqual(dev["caps"]["write_iops"], 500)
        self.assertEqual((dev["io_capacity"], dev["io_capacity_max"]), (None, None))
        self.assertNotIn("set by the scenario", dev["about"])
        with self.assertRaisesRegex(ScenarioError, "--io-capacity: --config stock leaves innodb_io_capacity"):
            build_device("ssd", io_capacity=1000, config="stock")
        self.assertEqual(SC.DEVICES["cloud"]["io_capacity"], 3000)      # the table untouched

    def test_does_not_mutate_the_tables(self):
        before = copy.deepcopy(SC.SCENARIOS)
        for name in SC.SCENARIOS:
            build_scenario(name, config="stock")
            build_scenario(name, quick=True, config="stock")
        self.assertEqual(SC.SCENARIOS, before)


class Prealloc(unittest.TestCase):
    def test_default_from_rows(self):
        self.assertEqual(build_scenario("bulk_load")["prealloc"], B.prealloc_bytes(4000000))
        self.assertEqual(build_scenario("bulk_load", quick=True)["prealloc"], B.prealloc_bytes(500000))
        sc = build_scenario("bulk_load", overrides={"load_rows": 1000000})
        self.assertEqual(sc["prealloc"], B.prealloc_bytes(1000000))

    def test_explicit_kept(self):
        self.assertEqual(build_scenario("bulk_load", overrides={"prealloc": 3 * GiB})["prealloc"], 3 * GiB)


class Device(unittest.TestCase):
    def test_class_as_is(self):
        dev = build_device("cloud")
        self.assertEqual(dev, SC.DEVICES["cloud"])
        self.assertIsNot(dev["caps"], SC.DEVICES["cloud"]["caps"])

    def test_cap_override_and_removal(self):
        before = copy.deepcopy(SC.DEVICES)
        dev = build_device("cloud", write_iops=500, read_iops=0)
        self.assertEqual(dev["caps"], {"write_iops": 500, "write_bps": 125 * MiB, "read_bps": 125 * MiB})
        self.assertIs(bool(dev["about"].endswith("; write_iops cap overridden to 500; read_iops cap overridden to none")), True)
        dev = build_device("nvme", write_iops=700)
        self.assertEqual(dev["caps"], {"write_iops": 700})
        self.assertEqual(build_device("nvme", write_iops=0)["caps"], {})
        self.assertEqual(SC.DEVICES, before)

    def test_negative_cap(self):
        with self.assertRaisesRegex(ScenarioError, "--read-iops must be >= 0"):
            build_device("ssd", read_iops=-1)

    def test_unknown_device(self):
        with self.assertRaisesRegex(ScenarioError, "unknown device 'floppy'; valid: cloud, nvme, ssd"):
            build_device("floppy")

    def test_io_capacity_precedence(self):
        self.assertEqual(_cap(build_device("ssd")), (8000, 16000))
        self.assertEqual(_cap(build_device("ssd", io_capacity=1000)), (1000, 2000))
        dev = build_device("ssd", scenario_io_capacity=(200, 2000))
        self.assertEqual(_cap(dev), (200, 2000))
        self.assertIn("io_capacity 200/2000 set by the scenario", dev["about"])
        dev = build_device("ssd", io_capacity=1000, scenario_io_capacity=(200, 2000))
        self.assertEqual(_cap(dev), (1000, 2000))                   # the user's wins
        self.assertNotIn("set by the scenario", dev["about"])

    def test_pileup_carries_its_io_capacity(self):
        sc = build_scenario("pileup")
        self.assertEqual(_cap(build_device("ssd", scenario_io_capacity=sc.get("io_capacity"))), (200, 2000))


def _cap(dev):
    return dev["io_capacity"], dev["io_capacity_max"]


class Choose(unittest.TestCase):
    def test_choose(self):
        self.assertEqual(SC.choose("thing", "a", {"a": 1}), "a")
        with self.assertRaisesRegex(ScenarioError, "unknown thing 'c'; valid: a, b"):
            SC.choose("thing", "c", ["b", "a"])


if __name__ == "__main__":
    unittest.main()

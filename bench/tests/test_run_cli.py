"""bench/run's command line: the --dry-run plan and my.cnf for known
scenarios, and every refusal as exit 2 with its message, no traceback.

The exit codes are checked on the real program (subprocesses, started all
at once: a Python start costs a third of a second on a busy box); the rest
of the plan checks call bench/run's main() in this process.  Every call
carries --dry-run, so a check that went missing prints a plan instead of
starting a benchmark.  STEADY_CACHE points at a temporary cache with fake
steady and vanilla builds.

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

import fakes
from lab.scenarios import CONFIGS, DEVICES, SCENARIOS, WORKLOADS, ScenarioError

RUN = os.path.join(fakes.BENCH, "run")
CACHE = None
PROCS = {}
RESULTS = {}
CLEANUP_STATE = {}

# name -> argv; the programs run in parallel in setUpModule.
CLI_CASES = {
    "help": ["--help"],
    "smoke": ["--scenario", "smoke", "--repeat", "1", "--dry-run"],
    "bad_scenario": ["--scenario", "nope", "--dry-run"],
    "bad_threads": ["--scenario", "insert", "--threads", "0", "--dry-run"],
    "bad_threads_text": ["--scenario", "insert", "--threads", "8,many", "--dry-run"],
    "bad_set": ["--scenario", "smoke", "--set", "novalue", "--dry-run"],
    "bad_set_target": ["--scenario", "smoke", "--set", "ghost:sync_binlog=0", "--dry-run"],
    "bad_server": ["--scenario", "smoke", "--server", "bad", "--dry-run"],
    "bad_flavour": ["--scenario", "smoke", "--server", "x=oracle:/opt/x", "--servers", "x", "--dry-run"],
    "unknown_server": ["--scenario", "smoke", "--servers", "steady,nosuch", "--dry-run"],
    "bad_baseline": ["--scenario", "smoke", "--servers", "steady", "--baseline", "vanilla", "--dry-run"],
    "bad_size": ["--scenario", "smoke", "--buffer-pool", "lots", "--dry-run"],
    "unknown_option": ["--scenario", "smoke", "--frobnicate", "--dry-run"],
    "bad_config": ["--scenario", "smoke", "--config", "tuned", "--dry-run"],
    "stock_buffer_pool": ["--scenario", "read_only", "--config", "stock", "--buffer-pool", "1G", "--dry-run"],
    "cleanup": ["--cleanup"],
}


def setUpModule():
    global CACHE
    CACHE = tempfile.mkdtemp(prefix="steady-test-run-")
    unittest.addModuleCleanup(cleanup_module)      # runs even if this setup fails
    fakes.make_build_dir(os.path.join(CACHE, "build", "steady"))
    fakes.make_build_dir(os.path.join(CACHE, "vanilla", "build", "steady"))
    env = {k: v for k, v in os.environ.items() if k != "STEADY_BUILD"}
    env["STEADY_CACHE"] = CACHE
    # --cleanup: its own cache, with one leftover run whose owner is gone.
    cleanup_cache = os.path.join(CACHE, "cleanup-cache")
    state_dir = os.path.join(cleanup_cache, "bench", "state")
    os.makedirs(state_dir)
    scratch = os.path.join(CACHE, "leftover-scratch")
    os.mkdir(scratch)
    dead = subprocess.Popen(["true"])
    dead.wait()
    with open(os.path.join(state_dir, "old-run.json"), "w") as f:
        json.dump({"run_id": "old-run", "owner_pid": dead.pid, "owner_start": 1, "pids": [], "image": None,
                   "loop": None, "mount": None, "cgroup": None, "dirs": [scratch]}, f)
    CLEANUP_STATE.update(scratch=scratch, state=os.path.join(state_dir, "old-run.json"))
    for name, argv in CLI_CASES.items():
        e = dict(env, STEADY_CACHE=cleanup_cache) if name == "cleanup" else env
        PROCS[name] = subprocess.Popen([sys.executable, RUN] + argv, env=e, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
    for name, p in PROCS.items():
        out, err = p.communicate(timeout=120)
        RESULTS[name] = (p.returncode, out, err)


def cleanup_module():
    for p in PROCS.values():
        fakes.kill_quietly(p)
        for f in (p.stdout, p.stderr):
            f.close()
    shutil.rmtree(CACHE, True)


def load_run_module():
    loader = importlib.machinery.SourceFileLoader("bench_run_under_test", RUN)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class Exits(unittest.TestCase):
    def refused(self, name, message):
        rc, out, err = RESULTS[name]
        self.assertEqual(rc, 2, (out, err))
        self.assertIn(message, err)
        self.assertNotIn("Traceback", err)
        self.assertNotIn("--- my.cnf", out)          # refused before any plan

    def test_bad_scenario(self):
        self.refused("bad_scenario", "bench/run: unknown scenario 'nope'; valid: bulk_load, checkpoint_wave, device_limit, free_page_wait, insert, multi_insert, open_loop, "
                                     "pileup, point_select, read_only, read_write, smoke, stall, tpcc, update_index, "
                                     "update_non_index, write_only\n")

    def test_bad_threads(self):
        self.refused("bad_threads", "bench/run: bad --threads '0': give a comma list of positive integers")
        self.refused("bad_threads_text", "bench/run: bad --threads '8,many'")

    def test_bad_set(self):
        self.refused("bad_set", "bench/run: bad --set 'novalue': expected [SERVER:]OPTION=VALUE\n")
        self.refused("bad_set_target", "bench/run: --set ghost:...: ghost is not in --servers\n")

    def test_bad_server(self):
        self.refused("bad_server", "bench/run: bad --server 'bad': expected NAME=FLAVOUR:PATH")
        self.refused("bad_flavour", "bench/run: server x: unknown flavour 'oracle' (valid: mysql, mariadb)\n")
        self.refused("unknown_server", "bench/run: unknown server 'nosuch'; valid: mariadb, steady, vanilla, each "
                                       "also as NAME+prealloc")

    def test_bad_baseline(self):
        self.refused("bad_baseline", "bench/run: --baseline vanilla is not in --servers (steady)\n")

    def test_argparse_refusals(self):
        self.refused("bad_size", "argument --buffer-pool: not a size: 'lots' (e.g. 256M, 1G)")
        self.refused("unknown_option", "unrecognized arguments: --frobnicate")
        self.refused("bad_config", "argument --config: invalid choice: 'tuned' (choose from 'lab', 'stock')")

    def test_stock_refuses_the_lab_sizes(self):
        self.refused("stock_buffer_pool", "bench/run: --buffer-pool: --config stock leaves the buffer pool at the "
                                          "server's default")

    def test_help(self):
        rc, out, err = RESULTS["help"]
        self.assertEqual(rc, 0, err)
        self.assertIs(bool(out.startswith("usage: bench/run ")), True)
        for name in list(SCENARIOS) + list(DEVICES) + list(WORKLOADS) + list(CONFIGS):
            self.assertRegex(out, r"\n  %s +\S" % name)
        self.assertIn("\nserver configurations (--config):\n  lab    the lab's tuning", out)
        self.assertIn("--config {lab,stock}", out)
        self.assertIn("--warehouses WAREHOUSES", out)
        self.assertIn("steady   mysql at %s/build/steady" % CACHE, out)

    @unittest.skipUnless(os.geteuid() == 0, "--cleanup needs root")
    def test_cleanup(self):
        rc, out, err = RESULTS["cleanup"]
        self.assertEqual(rc, 0, err)
        self.assertIn("leftover of interrupted run old-run: cleaning up", out)
        self.assertIn("cleanup: 1 leftover run(s) found, 0 not fully cleaned", out)
        self.assertFalse(os.path.exists(CLEANUP_STATE["scratch"]))
        self.assertFalse(os.path.exists(CLEANUP_STATE["state"]))


SMOKE = """\
scenario smoke, device ssd: 8000 write / 16000 read IOPS, 600 MB/s write: the 2012 field case's flash card \
(8k+ write IOPS, 600 MB/s); caps {{"write_iops": 8000, "read_iops": 16000, "write_bps": 600000000}}
settings: {{"about": "tiny: 2 tables x 10k rows, multi_insert, 2 clients, 20 s; proves the harness, measures \
nothing", "workload": "multi_insert", "tables": 2, "table_size": 10000, "threads": [2], "duration": 20, \
"warmup": 2, "buffer_pool": "128M", "redo": "64M", "image_gb": 4, "workload_args": ["--inserts_per_trx=2"], \
"settle_timeout": 60}}
loop images under {cache}/bench/images; settle after prepare: drain; shutdown after the run: discard
config: lab: {lab}
sysbench prepare: sysbench {bench}/workloads/multi_insert.lua --db-driver=mysql '--mysql-socket=<tmp>/mysqld.sock' \
--mysql-user=root --mysql-db=sbtest --tables=2 --table-size=10000 --threads={prepare_threads} --inserts_per_trx=2 prepare
run 01: steady          mysql   threads=2 repeat=1 mysqld={cache}/build/steady/runtime_output_directory/mysqld
run 02: vanilla         mysql   threads=2 repeat=1 mysqld={cache}/vanilla/build/steady/runtime_output_directory/mysqld
{cnf_steady}{cnf_vanilla}"""

CNF = """
--- my.cnf for {name} ---
# written by bench/run
[mysqld]
user=root
basedir={build}
datadir=<loop>/data
tmpdir=<loop>/tmp
socket=<tmp>/mysqld.sock
pid-file=<tmp>/mysqld.pid
log-error=<results>/mysqld.err
skip-networking
skip-name-resolve
max_connections=1000
server-id=1
log-bin=binlog
sync_binlog=1
innodb_flush_log_at_trx_commit=1
innodb_buffer_pool_size=134217728
innodb_io_capacity=8000
innodb_io_capacity_max=16000
innodb_flush_method=O_DIRECT
lc-messages-dir={build}/share
plugin-dir={build}/plugin_output_directory
loose-mysqlx=OFF
innodb_redo_log_capacity=67108864
"""


class DryRunProgram(unittest.TestCase):
    def test_smoke_plan_as_before(self):
        rc, out, err = RESULTS["smoke"]
        self.assertEqual((rc, err), (0, ""))
        steady, vanilla = CACHE + "/build/steady", CACHE + "/vanilla/build/steady"
        self.maxDiff = None
        self.assertEqual(out, SMOKE.format(cache=CACHE, cnf_steady=CNF.format(name="steady", build=steady),
                                           cnf_vanilla=CNF.format(name="vanilla", build=vanilla),
                                           lab=CONFIGS["lab"], bench=fakes.BENCH,
                                           prepare_threads=min(2, os.cpu_count())))


class DryRun(unittest.TestCase):
    """bench/run's main() in this process."""

    @classmethod
    def setUpClass(cls):
        cls.cli = load_run_module()

    def main(self, *argv):
        out = io.StringIO()
        env = {"STEADY_CACHE": CACHE}
        with mock.patch.dict(os.environ, env), contextlib.redirect_stdout(out):
            os.environ.pop("STEADY_BUILD", None)
            rc = self.cli.main(list(argv) + ["--dry-run"])
        self.assertEqual(rc, 0)
        return out.getvalue()

    def cnf(self, out, server):
        """The my.cnf listed for `server`, as {option: value}."""
        text = out.split("--- my.cnf for %s ---\n" % server, 1)[1].split("\n\n", 1)[0]
        return dict(line.split("=", 1) if "=" in line else (line, None)
                    for line in text.splitlines() if not line.startswith(("#", "[")))

    def runs(self, out):
        return [line.split()[2:5] for line in out.splitlines() if line.startswith("run ")]

    def refused(self, exc, message, *argv):
        with mock.patch.dict(os.environ, {"STEADY_CACHE": CACHE}), contextlib.redirect_stdout(io.StringIO()):
            with self.assertRaises(exc) as cm:
                self.cli.main(list(argv) + ["--dry-run"])
        self.assertIn(message, str(cm.exception))

    def test_feature_three_arms(self):
        out = self.main("--scenario", "smoke", "--repeat", "2",
                        "--feature", "innodb_adaptive_flushing_device_pacing",
                        "--set", "steady:innodb_lru_scan_depth=2048")
        self.assertEqual([r[0] for r in self.runs(out)], ["vanilla", "steady-off", "steady-on"] * 2)
        off, on, van = self.cnf(out, "steady-off"), self.cnf(out, "steady-on"), self.cnf(out, "vanilla")
        self.assertEqual(off["innodb_adaptive_flushing_device_pacing"], "OFF")
        self.assertEqual(on["innodb_adaptive_flushing_device_pacing"], "ON")
        self.assertNotIn("innodb_adaptive_flushing_device_pacing", van)
        self.assertEqual(off["basedir"], on["basedir"])
        self.assertEqual(off["basedir"], CACHE + "/build/steady")
        # --set steady:... reaches both Steady arms, not vanilla
        self.assertEqual((off["innodb_lru_scan_depth"], on["innodb_lru_scan_depth"]), ("2048", "2048"))
        self.assertNotIn("innodb_lru_scan_depth", van)
        # other values, ON/OFF as given
        out = self.main("--scenario", "smoke", "--repeat", "1",
                        "--feature", "innodb_adaptive_flushing_device_capacity_max=3000/0")
        self.assertEqual(self.cnf(out, "steady-on")["innodb_adaptive_flushing_device_capacity_max"], "3000")
        self.assertEqual(self.cnf(out, "steady-off")["innodb_adaptive_flushing_device_capacity_max"], "0")

    def test_redo_written_reaches_its_server_only(self):
        out = self.main("--scenario", "smoke", "--repeat", "1", "--servers", "fresh,written",
                        "--server", "fresh=mysql:" + CACHE + "/build/steady",
                        "--server", "written=mysql:" + CACHE + "/build/steady", "--redo-written", "written")
        self.assertIn("written's redo files written through after initialising", out)
        self.assertNotIn("fresh's redo files", out)
        self.refused(self.cli.BenchError, "--redo-written mariadb: mariadb is not in --servers",
                     "--scenario", "smoke", "--redo-written", "mariadb")

    def test_rotate_moves_the_first_server_each_repeat(self):
        args = ("--scenario", "smoke", "--repeat", "3", "--feature", "innodb_adaptive_flushing_device_pacing")
        plain = [r[0] for r in self.runs(self.main(*args))]
        self.assertEqual(plain, ["vanilla", "steady-off", "steady-on"] * 3)
        rotated = [r[0] for r in self.runs(self.main(*args, "--rotate"))]
        self.assertEqual(rotated, ["vanilla", "steady-off", "steady-on", "steady-off", "steady-on", "vanilla",
                                   "steady-on", "vanilla", "steady-off"])

    def test_feature_refusals(self):
        self.refused(self.cli.BenchError, "leave --servers out", "--scenario", "smoke",
                     "--feature", "innodb_adaptive_flushing_device_pacing", "--servers", "steady")
        self.refused(self.cli.BenchError, "--feature sets it in each arm", "--scenario", "smoke",
                     "--feature", "innodb_adaptive_flushing_device_pacing",
                     "--set", "innodb_adaptive_flushing_device_pacing=ON")
        self.refused(self.cli.BenchError, "the values are ON_VALUE/OFF_VALUE", "--scenario", "smoke",
                     "--feature", "innodb_io_capacity=1")
        self.refused(self.cli.BenchError, "--baseline mariadb is not in --servers", "--scenario", "smoke",
                     "--feature", "innodb_adaptive_flushing_device_pacing", "--baseline", "vanilla,mariadb")

    def test_stall_quick(self):
        out = self.main("--scenario", "stall", "--quick")
        self.assertIs(bool(out.startswith("scenario stall-quick, device cloud: 3000 write / 3000 read IOPS")), True)
        settings = json.loads(out.splitlines()[1][len("settings: "):])
        self.assertEqual((settings["duration"], settings["buffer_pool"], settings["redo"], settings["tables"]),
                         (120, "256M", "256M", 4))
        self.assertEqual(self.runs(out), [["steady", "mysql", "threads=16"], ["vanilla", "mysql", "threads=16"]] * 2)
        self.assertEqual(self.cnf(out, "vanilla")["innodb_io_capacity"], "3000")
        self.assertEqual(self.cnf(out, "steady")["innodb_redo_log_capacity"], str(256 * 1024 ** 2))

    def test_open_loop_rate_settle_and_image_dir(self):
        out = self.main("--scenario", "open_loop", "--repeat", "1", "--rate", "1800", "--sla-ms", "50",
                        "--settle", "none", "--image-dir", "/dev/shm/x")
        settings = json.loads(out.splitlines()[1][len("settings: "):])
        self.assertEqual((settings["run_args"], settings["sla_ms"]), (["--rate=1800"], 50))
        self.assertEqual(out.splitlines()[2], "loop images under /dev/shm/x; settle after prepare: none; shutdown after the run: discard")
        c = self.cnf(out, "vanilla")
        self.assertEqual((c["innodb_io_capacity"], c["innodb_io_capacity_max"], c["innodb_redo_log_capacity"]),
                         ("200", "400", str(100 * 1024 ** 2)))
        out = self.main("--scenario", "checkpoint_wave", "--repeat", "1", "--no-settle")
        self.assertIn("settle after prepare: none", out.splitlines()[2])
        self.assertNotIn("run_args", json.loads(out.splitlines()[1][len("settings: "):]))
        self.assertIn("settle after prepare: drain", self.main("--scenario", "smoke", "--repeat", "1").splitlines()[2])

    def test_device_limit_puts_the_logs_on_their_own_device(self):
        out = self.main("--scenario", "device_limit", "--repeat", "1")
        self.assertIn("device cloud", out.splitlines()[0])
        self.assertIn("redo and binary logs on their own loop device, nvme", out)
        for server in ("steady", "vanilla"):
            c = self.cnf(out, server)
            self.assertEqual((c["innodb_log_group_home_dir"], c["log-bin"]),
                             ("<log loop>/log", "<log loop>/log/binlog"))
            self.assertEqual((c["innodb_io_capacity"], c["innodb_io_capacity_max"]), ("200", "400"))
        out = self.main("--scenario", "device_limit", "--repeat", "1", "--log-device", "same")
        self.assertNotIn("innodb_log_group_home_dir", self.cnf(out, "steady"))
        self.assertEqual(self.cnf(out, "steady")["log-bin"], "binlog")
        self.assertNotIn("innodb_log_group_home_dir", self.cnf(self.main("--scenario", "checkpoint_wave",
                                                                         "--repeat", "1"), "steady"))

    def test_threads_sweep_order(self):
        out = self.main("--scenario", "insert", "--threads", "1,8", "--repeat", "2")
        self.assertEqual([line.split()[1:6] for line in out.splitlines() if line.startswith("run ")], [
            ["01:", "steady", "mysql", "threads=1", "repeat=1"], ["02:", "vanilla", "mysql", "threads=1", "repeat=1"],
            ["03:", "steady", "mysql", "threads=1", "repeat=2"], ["04:", "vanilla", "mysql", "threads=1", "repeat=2"],
            ["05:", "steady", "mysql", "threads=8", "repeat=1"], ["06:", "vanilla", "mysql", "threads=8", "repeat=1"],
            ["07:", "steady", "mysql", "threads=8", "repeat=2"], ["08:", "vanilla", "mysql", "threads=8", "repeat=2"]])

    def test_io_capacity_scenario_then_user(self):
        out = self.main("--scenario", "pileup", "--repeat", "1")
        c = self.cnf(out, "steady")
        self.assertEqual((c["innodb_io_capacity"], c["innodb_io_capacity_max"]), ("200", "2000"))
        self.assertIn("io_capacity 200/2000 set by the scenario", out.splitlines()[0])
        c = self.cnf(self.main("--scenario", "pileup", "--repeat", "1", "--io-capacity", "5000"), "steady")
        self.assertEqual((c["innodb_io_capacity"], c["innodb_io_capacity_max"]), ("5000", "10000"))

    def test_sets_reach_their_servers(self):
        out = self.main("--scenario", "smoke", "--repeat", "1", "--set", "sync_binlog=0",
                        "--set", "vanilla:innodb_io_capacity=123", "--set", "innodb-doublewrite = OFF")
        s, v = self.cnf(out, "steady"), self.cnf(out, "vanilla")
        self.assertEqual((s["sync_binlog"], v["sync_binlog"]), ("0", "0"))
        self.assertEqual((s["innodb_io_capacity"], v["innodb_io_capacity"]), ("8000", "123"))
        self.assertEqual(s["innodb-doublewrite"], "OFF")
        text = out.split("--- my.cnf for vanilla ---")[1]
        self.assertEqual(text.count("sync_binlog="), 1)

    def test_set_on_base_reaches_prealloc_arm(self):
        out = self.main("--scenario", "bulk_load", "--quick", "--repeat", "1", "--set", "steady:innodb_io_capacity=77")
        self.assertEqual(self.cnf(out, "steady+prealloc")["innodb_io_capacity"], "77")
        self.assertEqual(self.cnf(out, "steady")["innodb_io_capacity"], "77")
        self.assertEqual(self.cnf(out, "vanilla")["innodb_io_capacity"], "3000")

    def test_bulk_load_loader_scripts(self):
        out = self.main("--scenario", "bulk_load", "--quick", "--repeat", "1")
        self.assertEqual(self.runs(out), [["steady+prealloc", "mysql", "threads=4"], ["steady", "mysql", "threads=4"],
                                          ["vanilla", "mysql", "threads=4"]])
        self.assertIn("loader: at second 20 of the OLTP run; seed table sbtest.load_seed = 500 rows of sbtest1 "
                      "(made after prepare)", out)
        pre = out.split("--- loader SQL for steady+prealloc ---\n")[1].split("\n---")[0]
        plain = out.split("--- loader SQL for steady, vanilla ---\n")[1].split("\n---")[0]
        self.assertIn("ALTER TABLESPACE `sbtest/load` SET EXTENT_SIZE = 201326592;", pre)
        self.assertNotIn("ALTER TABLESPACE", plain)
        self.assertEqual(plain.count("INSERT INTO sbtest.load"), 2)
        self.assertIn('"prealloc": "192M"', out)
        self.assertNotIn("FORCE", out)

    def test_bulk_load_rebuild(self):
        out = self.main("--scenario", "bulk_load", "--quick", "--repeat", "1", "--servers", "steady", "--rebuild")
        sql = out.split("--- loader SQL for steady ---\n")[1]
        self.assertLess(sql.index("'load_end'"), sql.index("ALTER TABLE sbtest.load FORCE;"))
        self.assertIn('"rebuild": true', out)

    def test_overrides_and_caps(self):
        out = self.main("--scenario", "stall", "--repeat", "1", "--duration", "30", "--buffer-pool", "1.5G",
                        "--redo", "512M", "--write-iops", "0", "--read-iops", "700", "--servers", "steady")
        first = out.splitlines()[0]
        self.assertIn('caps {"read_iops": 700, "write_bps": 131072000, "read_bps": 131072000}', first)
        self.assertIn("write_iops cap overridden to none; read_iops cap overridden to 700", first)
        settings = json.loads(out.splitlines()[1][len("settings: "):])
        self.assertEqual((settings["duration"], settings["buffer_pool"], settings["redo"]), (30, "1536M", "512M"))
        c = self.cnf(out, "steady")
        self.assertEqual((c["innodb_buffer_pool_size"], c["innodb_redo_log_capacity"]),
                         (str(1536 * 1024 ** 2), str(512 * 1024 ** 2)))

    def test_defined_server_and_missing_binary(self):
        mine = os.path.join(CACHE, "mine")
        fakes.write_script(os.path.join(mine, "bin", "mysqld"), fakes.FAKE_MYSQLD)
        out = self.main("--scenario", "smoke", "--repeat", "1", "--server", "mine=mysql:" + mine,
                        "--server", "gone=mysql:/nonexistent/x", "--servers", "mine,gone")
        self.assertIn("mysqld=%s/bin/mysqld" % mine, out)
        self.assertIn("threads=2 repeat=1 mysqld=(missing)", out)
        self.assertEqual(self.cnf(out, "mine")["basedir"], mine)

    def test_mariadb_cnf(self):
        out = self.main("--scenario", "smoke", "--repeat", "1", "--servers", "mariadb,steady")
        m = self.cnf(out, "mariadb")
        self.assertEqual((m["innodb_log_file_size"], m["binlog_format"]), (str(64 * 1024 ** 2), "ROW"))
        self.assertNotIn("innodb_redo_log_capacity", m)
        self.assertNotIn("innodb_log_file_size", self.cnf(out, "steady"))

    def test_more_refusals(self):
        self.refused(self.cli.BenchError, "steady+prealloc only makes sense with --scenario bulk_load",
                     "--scenario", "stall", "--servers", "steady+prealloc")
        self.refused(self.cli.BenchError, "--repeat must be at least 1", "--scenario", "smoke", "--repeat", "0")
        self.refused(self.cli.BenchError, "--servers names a server twice", "--servers", "steady,steady")
        self.refused(self.cli.BenchError, "--servers is empty", "--servers", " , ")
        self.refused(self.cli.BenchError, "NAME+prealloc is derived, not defined", "--server", "x+prealloc=mysql:/p")
        self.refused(ScenarioError, "unknown device 'floppy'", "--device", "floppy")
        self.refused(ScenarioError, "--load-at only applies to a loading scenario", "--scenario", "stall",
                     "--load-at", "20")

    def settings(self, out):
        return json.loads(out.splitlines()[1][len("settings: "):])

    def prepare_line(self, out):
        return next(line for line in out.splitlines() if line.startswith("sysbench prepare: "))

    def test_no_harm_scenarios(self):
        for name, workload in (("point_select", "oltp_point_select"), ("update_index", "oltp_update_index")):
            out = self.main("--scenario", name, "--repeat", "1")
            self.assertIs(bool(out.startswith("scenario %s, device ssd: " % name)), True)
            settings = self.settings(out)
            self.assertEqual((settings["workload"], settings["tables"], settings["table_size"], settings["threads"],
                              settings["duration"], settings["buffer_pool"]), (workload, 8, 1000000, [16], 300, "1G"))
            self.assertIn("/workloads/%s.lua " % workload, self.prepare_line(out))
            self.assertEqual(self.runs(out), [["steady", "mysql", "threads=16"], ["vanilla", "mysql", "threads=16"]])
            self.assertEqual(self.cnf(out, "steady")["innodb_buffer_pool_size"], str(1024 ** 3))

    def test_tpcc_plan(self):
        out = self.main("--scenario", "tpcc", "--repeat", "1")
        settings = self.settings(out)
        self.assertEqual((settings["workload"], settings["warehouses"], settings["buffer_pool"]),
                         ("tpcc_like", 10, "512M"))
        self.assertNotIn("tables", settings)
        prep = self.prepare_line(out)
        self.assertIn("/workloads/tpcc_like.lua ", prep)
        self.assertIn(" --warehouses=10 --threads=%d prepare" % min(10, os.cpu_count()), prep)
        self.assertNotIn("--table", prep)
        self.assertEqual(self.cnf(out, "vanilla")["innodb_buffer_pool_size"], str(512 * 1024 ** 2))
        out = self.main("--scenario", "tpcc", "--repeat", "1", "--warehouses", "4")
        self.assertIn(" --warehouses=4 ", self.prepare_line(out))
        self.refused(ScenarioError, "--tables and --table-size size sysbench's sbtest tables", "--scenario", "tpcc",
                     "--tables", "4")
        self.refused(ScenarioError, "--warehouses only applies to a warehouse workload", "--scenario", "read_only",
                     "--warehouses", "4")

    def test_stock_config(self):
        out = self.main("--scenario", "checkpoint_wave", "--repeat", "1", "--config", "stock",
                        "--set", "steady:innodb_buffer_pool_instances=8")
        self.assertEqual(out.splitlines()[3], "config: stock: " + CONFIGS["stock"])
        self.assertNotIn("set by the scenario", out.splitlines()[0])
        settings = self.settings(out)
        self.assertEqual((settings["table_size"], settings["buffer_pool"], settings["redo"]),
                         (50000, "default", "default"))
        self.assertNotIn("io_capacity", settings)
        for server in ("steady", "vanilla"):
            c = self.cnf(out, server)
            for k in ("innodb_buffer_pool_size", "innodb_io_capacity", "innodb_io_capacity_max",
                      "innodb_flush_method", "innodb_redo_log_capacity"):
                self.assertNotIn(k, c)
            self.assertEqual((c["sync_binlog"], c["innodb_flush_log_at_trx_commit"], c["log-bin"]),
                             ("1", "1", "binlog"))
        self.assertEqual(self.cnf(out, "steady")["innodb_buffer_pool_instances"], "8")
        self.assertNotIn("innodb_buffer_pool_instances", self.cnf(out, "vanilla"))
        # lab, the default, says so too
        self.assertEqual(self.main("--scenario", "smoke", "--repeat", "1").splitlines()[3],
                         "config: lab: " + CONFIGS["lab"])
        out = self.main("--scenario", "tpcc", "--repeat", "1", "--config", "stock")
        self.assertIn(" --warehouses=3 ", self.prepare_line(out))
        self.refused(ScenarioError, "--io-capacity: --config stock leaves innodb_io_capacity at the server's "
                     "default", "--scenario", "smoke", "--config", "stock", "--io-capacity", "1000")
        self.refused(ScenarioError, "--redo: --config stock leaves the redo size", "--scenario", "smoke",
                     "--config", "stock", "--redo", "default")

    def test_size_arg(self):
        self.assertEqual(self.cli.size_arg("256M"), 256 * 1024 ** 2)
        self.assertEqual(self.cli.size_arg("1g"), 1024 ** 3)
        self.assertEqual(self.cli.size_arg("4096"), 4096)
        self.assertEqual(self.cli.human_size(3 * 1024 ** 3), "3G")
        self.assertEqual(self.cli.human_size(1000), "1000")


if __name__ == "__main__":
    unittest.main()

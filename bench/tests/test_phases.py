"""lab.phases: the run's my.cnf options (--config stock: test_phases_stock.py),
the merge of sysbench's and the collector's rows, the durability check against a fake Sql, the
server start against the fake mysqld, and one whole execute() on a real
loop device with the fake mysqld, client and sysbench (where the host can
make devices).

Run: python3 -m unittest discover -s bench/tests -v
"""

import contextlib
import csv
import io
import json
import os
import shutil
import tempfile
import time
import unittest
from unittest import mock

import fakes
from fakes import FakeSql
from harness import device
from harness.resources import Resources, teardown_state
from harness.server import Binaries
from lab import engine_status as ES
from lab import phases as PH
from lab import summary as S
from lab.scenarios import DEVICES, build_scenario

MiB = 1024 ** 2

# sysbench: prepare and cleanup succeed at once; run prints the start line,
# then one SB line a second for --time seconds, like our workloads.
FAKE_SYSBENCH = r'''
import sys, time
args = sys.argv[1:]
with open(__file__ + ".calls", "a") as f:
    f.write(" ".join(args) + "\n")
if args[-1] == "run":
    secs = int(next(a for a in args if a.startswith("--time="))[7:])
    print("Initializing worker threads...")
    print("Threads started!", flush=True)
    import glob
    with open(__file__ + ".caps", "a") as f:    # the write caps in force during the run
        for path in glob.glob(CGROUP_GLOB):
            f.write(open(path).read())
    t0 = time.monotonic()
    for i in range(1, secs + 1):
        time.sleep(max(0, t0 + i - time.monotonic()))
        print("SB,%d,4,%d.00,2000.00,1.000,2.000,5.000,0.00,0.00" % (i, 100 + i), flush=True)
'''.replace("CGROUP_GLOB", repr(os.path.join(device.CGROUP_ROOT, "steady-bench-*",
                                              "blkio.throttle.write_iops_device")))


def quiet():
    return contextlib.redirect_stdout(io.StringIO())


def fake_binaries(root, flavour="mysql"):
    if flavour == "mysql":
        return Binaries("steady", "mysql", fakes.make_build_dir(os.path.join(root, "build")))
    prefix = os.path.join(root, "usr")
    fakes.write_script(os.path.join(prefix, "sbin", "mariadbd"), fakes.FAKE_MYSQLD)
    fakes.write_script(os.path.join(prefix, "bin", "mariadb"), fakes.FAKE_CLIENT)
    return Binaries("mariadb", "mariadb", prefix)


def make_spec(tmp, binaries, sc=None, dev=None, extra=(), **kw):
    args = dict(run_id="01-steady-t4-r1", rundir=os.path.join(tmp, "runs", "01"),
                arm=PH.Arm("steady", binaries), sc=sc or build_scenario("smoke"),
                dev=dev or DEVICES["ssd"], device_name="ssd", threads=4, repeat=1,
                scenario_label="smoke", extra_options=list(extra), sysbench_args=[])
    args.update(kw)
    return PH.RunSpec(**args)


WHERE = {"datadir": "/l/data", "tmpdir": "/l/tmp", "socket": "/t/s.sock", "pidfile": "/t/p",
         "errlog": "/r/mysqld.err"}


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="steady-test-phases-")
        self.addCleanup(shutil.rmtree, self.tmp, True)


class ErrorLogWindow(Tmp):
    def test_only_what_the_run_added(self):
        path = os.path.join(self.tmp, "mysqld.err")
        with open(path, "w") as f:
            f.write("prepare: Threads are unable to reserve space in redo log\n")
        at = PH.log_size(path) or 0     # as the run takes its window's start
        with open(path, "a") as f:
            f.write("run: Page cleaner took 1200ms\n")
        self.assertEqual(PH.read_from(path, at), "run: Page cleaner took 1200ms\n")
        self.assertEqual((PH.log_size(path + ".none") or 0, PH.read_from(path + ".none", 0)), (0, ""))


class ServerOptions(Tmp):
    def test_durable_sized_and_located(self):
        b = fake_binaries(self.tmp)
        sc = build_scenario("stall", quick=True)
        o = PH.server_options(b, sc, DEVICES["cloud"], WHERE, [])
        d = dict(o)
        self.assertEqual(len(d), len(o))                    # every option once
        for k, v in (("log-bin", "binlog"), ("sync_binlog", "1"), ("innodb_flush_log_at_trx_commit", "1"),
                     ("server-id", "1"), ("innodb_flush_method", "O_DIRECT"), ("skip-networking", None)):
            self.assertEqual(d[k], v, k)
        self.assertEqual(d["innodb_buffer_pool_size"], str(256 * MiB))
        self.assertEqual(d["innodb_redo_log_capacity"], str(256 * MiB))
        self.assertEqual((d["innodb_io_capacity"], d["innodb_io_capacity_max"]), ("3000", "6000"))
        self.assertEqual((d["datadir"], d["socket"], d["log-error"], d["pid-file"], d["tmpdir"]),
                         ("/l/data", "/t/s.sock", "/r/mysqld.err", "/t/p", "/l/tmp"))
        self.assertEqual(d["basedir"], b.basedir)
        self.assertEqual(d["plugin-dir"], b.plugin_dir)
        self.assertEqual([k for k, _ in o].count("basedir"), 1)
        self.assertNotIn("innodb_log_file_size", d)

    def test_user_sets_replace(self):
        b = fake_binaries(self.tmp)
        o = PH.server_options(b, build_scenario("smoke"), DEVICES["ssd"], WHERE,
                              [("sync-binlog", "0"), ("innodb-io-capacity", "123"), ("innodb_doublewrite", "OFF")])
        names = [k.replace("-", "_") for k, _ in o]
        self.assertEqual(names.count("sync_binlog"), 1)
        self.assertEqual(names.count("innodb_io_capacity"), 1)
        d = dict(o)
        self.assertEqual((d["sync-binlog"], d["innodb-io-capacity"], d["innodb_doublewrite"]), ("0", "123", "OFF"))
        self.assertNotIn("sync_binlog", d)
        self.assertEqual(d["innodb_io_capacity_max"], "16000")

    def test_logs_on_their_own_device(self):
        b = fake_binaries(self.tmp)
        o = PH.server_options(b, build_scenario("smoke"), DEVICES["ssd"], dict(WHERE, logdir="/g/log"),
                              [("log-bin", "/elsewhere/b")])
        d = dict(o)
        self.assertEqual(d["innodb_log_group_home_dir"], "/g/log")
        self.assertEqual([k for k, _ in o].count("log-bin"), 1)
        self.assertEqual(d["log-bin"], "/elsewhere/b")           # the user's --set still wins
        d = dict(PH.server_options(b, build_scenario("smoke"), DEVICES["ssd"], dict(WHERE, logdir="/g/log"), []))
        self.assertEqual(d["log-bin"], "/g/log/binlog")

    def test_mariadb(self):
        b = fake_binaries(self.tmp, "mariadb")
        d = dict(PH.server_options(b, build_scenario("smoke"), DEVICES["ssd"], WHERE, []))
        self.assertEqual(d["innodb_log_file_size"], str(64 * MiB))
        self.assertEqual(d["binlog_format"], "ROW")
        self.assertNotIn("innodb_redo_log_capacity", d)
        self.assertEqual(d["sync_binlog"], "1")

    def test_redo_default_sets_no_redo_size(self):
        sc = dict(build_scenario("smoke"), redo="default")
        for flavour in ("mysql", "mariadb"):
            d = dict(PH.server_options(fake_binaries(self.tmp, flavour), sc, DEVICES["ssd"], WHERE, []))
            self.assertNotIn("innodb_redo_log_capacity", d)
            self.assertNotIn("innodb_log_file_size", d)
            self.assertEqual(d["sync_binlog"], "1")
        self.assertEqual(d["binlog_format"], "ROW")


class MergeRows(Tmp):
    def test_one_row_per_sysbench_second(self):
        spec = make_spec(self.tmp, fake_binaries(self.tmp))
        sb = {2: {"tps": "20"}, 1: {"tps": "10", "p99_ms": "3"}}
        coll = {1: {"dirty_pct": "5.00", "tps": "999"}, 3: {"dirty_pct": "9"}}
        rows = PH.merge_rows(spec, sb, coll)
        self.assertEqual([r["second"] for r in rows], [1, 2])           # sysbench decides the seconds
        self.assertEqual([list(r) for r in rows], [S.PER_SECOND_COLUMNS] * 2)
        self.assertEqual((rows[0]["tps"], rows[0]["p99_ms"], rows[0]["dirty_pct"]), ("999", "3", "5.00"))
        self.assertEqual((rows[1]["tps"], rows[1]["dirty_pct"]), ("20", ""))
        self.assertEqual({k: rows[1][k] for k in ("run_id", "scenario", "workload", "server", "flavour",
                                                  "device", "threads", "repeat")},
                         {"run_id": "01-steady-t4-r1", "scenario": "smoke", "workload": "multi_insert",
                          "server": "steady", "flavour": "mysql", "device": "ssd", "threads": 4, "repeat": 1})

    def test_sysbench_command_from_the_spec(self):
        sc = build_scenario("bulk_load", quick=True)
        spec = make_spec(self.tmp, fake_binaries(self.tmp), sc=sc, sysbench_args=["--rate=50"])
        run = PH.sysbench(spec, "/s", "run", 4)
        self.assertEqual(run[-3:], ["--rate=200", "--rate=50", "run"])
        self.assertIn("--tables=%d" % sc["tables"], run)
        self.assertIn("--time=%d" % sc["duration"], run)
        self.assertNotIn("--rate=200", PH.sysbench(spec, "/s", "prepare", 2))

    def test_prepare_command(self):
        sc = build_scenario("read_only")
        cmd = PH.prepare_cmd(sc, ["--rand-type=uniform"], "/s")
        self.assertEqual(cmd[-1], "prepare")
        self.assertIn("--tables=8", cmd)
        self.assertIn("--table-size=1000000", cmd)
        self.assertIn("--threads=%d" % min(8, os.cpu_count()), cmd)
        self.assertEqual(cmd[-2], "--rand-type=uniform")

    def test_tpcc_is_sized_by_warehouses(self):
        sc = build_scenario("tpcc")
        spec = make_spec(self.tmp, fake_binaries(self.tmp), sc=sc)
        for cmd in (PH.prepare_cmd(sc, [], "/s"), PH.sysbench(spec, "/s", "run", 16)):
            self.assertIn("--warehouses=10", cmd)
            self.assertEqual([a for a in cmd if a.startswith(("--tables", "--table-size"))], [])
            self.assertRegex(cmd[1], r"/workloads/tpcc_like\.lua$")
        self.assertIn("--threads=%d" % min(10, os.cpu_count()), PH.prepare_cmd(sc, [], "/s"))


DURABLE = {"log_bin": "1", "sync_binlog": "1", "innodb_flush_log_at_trx_commit": "1",
           "innodb_buffer_pool_size": "134217728", "innodb_io_capacity": "8000", "innodb_io_capacity_max": "16000",
           "innodb_flush_method": "O_DIRECT", "version": "9.7.2-steady", "innodb_redo_log_capacity": "67108864"}


class CheckDurable(Tmp):
    def test_durable_server(self):
        redo, version = PH.check_durable(FakeSql(DURABLE), "mysql", self.tmp, False)
        self.assertEqual((redo, version), (64 * MiB, "9.7.2-steady"))
        with open(os.path.join(self.tmp, "variables.json")) as f:
            self.assertEqual(json.load(f), DURABLE)
        with open(os.path.join(self.tmp, "global_variables.tsv")) as f:
            self.assertIn("innodb_flush_method\tO_DIRECT\n", f.read())

    def test_mariadb_reads_its_redo_variable(self):
        v = dict(DURABLE, log_bin="ON", innodb_log_file_size="1048576")
        del v["innodb_redo_log_capacity"]
        self.assertEqual(PH.check_durable(FakeSql(v), "mariadb", self.tmp, False)[0], 1048576)

    def test_refuses_non_durable(self):
        for var, val in (("sync_binlog", "0"), ("innodb_flush_log_at_trx_commit", "2"), ("log_bin", "0"),
                         ("log_bin", None)):
            with self.assertRaises(PH.RunFailed) as cm:
                PH.check_durable(FakeSql(dict(DURABLE, **{var: val})), "mysql", self.tmp, False)
            self.assertIn("server is not running durable", str(cm.exception))
            self.assertIn("%s=%s" % (var, val), str(cm.exception))
            self.assertIn("--allow-non-durable to accept", str(cm.exception))
        # Written even when refused: the evidence of what the server ran with.
        self.assertIs(bool(os.path.exists(os.path.join(self.tmp, "variables.json"))), True)

    def test_allow_non_durable(self):
        self.assertEqual(PH.check_durable(FakeSql(dict(DURABLE, sync_binlog="0")), "mysql", self.tmp, True),
                         (64 * MiB, "9.7.2-steady"))


class StartServer(Tmp):
    def setUp(self):
        super().setUp()
        self.b = fake_binaries(self.tmp)
        self.res = Resources("start-test", state_dir=os.path.join(self.tmp, "state"))
        self.addCleanup(self.res.teardown, True)
        sockdir = os.path.join(self.tmp, "sock")
        os.mkdir(sockdir)
        self.fs = {"cgroup": None, "loop": "/dev/loop-fake", "mount": self.tmp,
                   "where": {"datadir": os.path.join(self.tmp, "data"), "tmpdir": os.path.join(self.tmp, "tmp"),
                             "socket": os.path.join(sockdir, "mysqld.sock"),
                             "pidfile": os.path.join(sockdir, "mysqld.pid"),
                             "errlog": os.path.join(self.tmp, "mysqld.err")}}

    def test_initialise_start_and_create_the_database(self):
        spec = make_spec(self.tmp, self.b, extra=[("fake_delay", "0.05")])
        os.makedirs(spec.rundir)
        with quiet():
            inst, init_s = PH.start_server(spec, self.fs, self.res)
        self.addCleanup(fakes.kill_quietly, inst.proc)
        self.assertIs(bool(inst.alive()), True)
        self.assertIsInstance(init_s, float)
        with open(os.path.join(spec.rundir, "my.cnf")) as f:
            cnf = f.read()
        self.assertIs(bool(cnf.startswith("# written by bench/run\n[mysqld]\n")), True)
        self.assertIn("datadir=%s\n" % self.fs["where"]["datadir"], cnf)
        self.assertIn("fake_delay=0.05\n", cnf)
        self.assertIs(bool(os.path.exists(os.path.join(self.fs["where"]["datadir"], "initialized"))), True)
        self.assertIs(bool(os.path.exists(os.path.join(spec.rundir, "initialize.log"))), True)
        self.assertEqual([p["what"] for p in self.res.state["pids"]], ["initialize", "mysqld"])
        self.assertEqual(self.res.state["pids"][1]["pid"], inst.pid)
        self.assertIn("CREATE DATABASE IF NOT EXISTS sbtest", fakes.client_queries(self.b.path))
        self.assertIs(bool(inst.stop(timeout=10)), True)

    def test_redo_written_between_initialise_and_start(self):
        seen = []

        def write_through(paths):   # called once the datadir exists and before mysqld starts
            seen.append((list(paths), [p["what"] for p in self.res.state["pids"]]))
            return dict(redo_files_written=len(paths), redo_written_mib=1.0, redo_unwritten_before=3,
                        redo_unwritten_after=0, redo_write_s=0.1)

        def redo_paths(flavour, redo_dir):
            self.assertEqual((flavour, redo_dir), ("mysql", self.fs["where"]["datadir"]))
            return [os.path.join(redo_dir, "#innodb_redo", "#ib_redo1")]
        facts, spec = {}, make_spec(self.tmp, self.b, redo_written=True)
        os.makedirs(spec.rundir)
        with quiet(), mock.patch.object(PH.R, "redo_paths", redo_paths), \
                mock.patch.object(PH.R, "write_through", write_through):
            inst, _ = PH.start_server(spec, self.fs, self.res, facts)
        self.addCleanup(fakes.kill_quietly, inst.proc)
        self.assertEqual(seen, [([os.path.join(self.fs["where"]["datadir"], "#innodb_redo", "#ib_redo1")],
                                 ["initialize"])])
        self.assertEqual((facts["redo_files_written"], facts["redo_unwritten_after"]), (1, 0))
        self.assertIs(bool(inst.stop(timeout=10)), True)

    def test_redo_written_refuses_a_datadir_without_redo(self):
        spec = make_spec(self.tmp, self.b, redo_written=True)
        os.makedirs(spec.rundir)
        with quiet(), self.assertRaises(PH.RunFailed) as cm:
            PH.start_server(spec, self.fs, self.res, {})
        self.assertIn("--redo-written: no redo files under", str(cm.exception))
        self.assertEqual([p["what"] for p in self.res.state["pids"]], ["initialize"])

    def test_start_failure_is_a_failed_run(self):
        spec = make_spec(self.tmp, self.b, extra=[("fake_mode", "exit_early")])
        os.makedirs(spec.rundir)
        with quiet(), self.assertRaises(PH.RunFailed) as cm:
            PH.start_server(spec, self.fs, self.res)
        self.assertIn("mysqld exited with status 3 while starting", str(cm.exception))


class EngineStatus(Tmp):
    """SHOW ENGINE INNODB STATUS kept at the measured run's end."""

    # The mysql client's batch output (-N -B) of the statement: Type, Name
    # and Status, the status's newlines and tabs escaped.
    BATCH = ("InnoDB\t\t\\n=====================================\\n"
             "FILE I/O\\n--------\\nDevice-paced flushing: budget 0 pages/s, 12 rounds left to upstream"
             " (pages made without redo),\\tend\\n\n")

    class Answers:
        def __init__(self, out):
            self.out, self.statements = out, []

        def query(self, sql, timeout=60, check=True):
            self.statements.append(sql)
            return self.out

    def test_status_text_unescaped(self):
        text = ES.engine_status_text(self.BATCH)
        self.assertEqual(text.splitlines()[2], "FILE I/O")
        self.assertIn(", 12 rounds left to upstream (pages made without redo),\tend\n", text)
        self.assertNotIn("InnoDB\t", text)

    def test_saved_in_the_run_directory(self):
        sql = self.Answers(self.BATCH)
        self.assertIs(ES.save_engine_status(sql, self.tmp), True)
        self.assertEqual(sql.statements, ["SHOW ENGINE INNODB STATUS"])
        with open(os.path.join(self.tmp, "innodb_status.txt")) as f:
            self.assertIn("12 rounds left to upstream", f.read())

    def test_no_answer_no_file(self):
        for out in (None, "", "InnoDB\n"):
            self.assertIs(ES.save_engine_status(self.Answers(out), self.tmp), False)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "innodb_status.txt")))


def host_can_make_devices():
    return os.geteuid() == 0 and not device.host_problems(need_throttle=True)


@unittest.skipUnless(host_can_make_devices(), "needs root, loop devices, mkfs.ext4 and cgroup-v1 blkio")
class Execute(Tmp):
    """One whole server run: real loop device and cgroup, fake mysqld,
    client and sysbench; then nothing of it is left."""

    def run_fake(self, **kw):
        """execute() with the fake mysqld and sysbench; returns (info, rows,
        spec, bindir) once everything is torn down."""
        cache = os.path.join(self.tmp, "cache")
        bindir = os.path.join(self.tmp, "bin")
        fakes.write_script(os.path.join(bindir, "sysbench"), FAKE_SYSBENCH)
        b = fake_binaries(self.tmp)
        fakes.set_answers(b.path, dict(DURABLE, innodb_max_dirty_pages_pct="90",
                                       innodb_max_dirty_pages_pct_lwm="10"), {})
        sc = dict(build_scenario("smoke"), duration=2, warmup=0, image_gb=1)
        dev = {"about": "test", "caps": {"write_iops": 5000}, "io_capacity": 100, "io_capacity_max": 200}
        spec = make_spec(self.tmp, b, sc=sc, dev=dev, extra=[("fake_delay", "0.05"), ("fake_warn_at_start", "1")],
                         index=99, **kw)
        with open(os.path.join(b.path, "runtime_output_directory", "answers", "errlog"), "w") as f:
            f.write(os.path.join(spec.rundir, "mysqld.err") + "\n")
        sockdir = "/tmp/steady-bench-%d-99" % os.getpid()
        self.addCleanup(shutil.rmtree, sockdir, True)
        env = {"STEADY_CACHE": cache, "PATH": bindir + os.pathsep + os.environ["PATH"]}
        self.addCleanup(self.force_cleanup, cache)
        with mock.patch.dict(os.environ, env), quiet():
            info, rows = PH.execute(spec)
        self.assert_nothing_left(cache)
        return info, rows, spec, bindir

    def test_one_run_start_to_teardown(self):
        info, rows, spec, bindir = self.run_fake()
        self.assertEqual(info["status"], "ok", info["error"])
        self.assertEqual(info["server_version"], "9.7.2-steady")
        self.assertIs(bool(info["journal_thread_capped"]), True)
        self.assertEqual(info["settle_dirty_pages"], "0")
        self.assertEqual([r["second"] for r in rows], [1, 2])
        self.assertEqual([r["tps"] for r in rows], ["101.00", "102.00"])
        self.assertEqual(info["summary"]["mean_tps"], 101.5)
        for r in rows:
            self.assertNotEqual(r["dev_util_pct"], "")          # from the real loop device
            self.assertNotEqual(r["dev_cap_pct"], "")
            self.assertGreater(float(r["pages_flushed_ps"]), 0)  # from the status client
            self.assertNotEqual(r["dirty_pages"], "")
            self.assertNotEqual(r["mysqld_cpu_pct"], "")
        with open(os.path.join(spec.rundir, "per_second.csv"), newline="") as f:
            self.assertEqual(len(list(csv.DictReader(f))), 2)
        for name in ("my.cnf", "variables.json", "prepare.log", "sysbench.log", "initialize.log", "mysqld.err"):
            self.assertIs(bool(os.path.exists(os.path.join(spec.rundir, name))), True, name)
        with open(os.path.join(spec.rundir, "innodb_status.txt")) as f:
            self.assertEqual(f.read().splitlines()[-1], "Device-paced flushing: off")
        with open(os.path.join(bindir, "sysbench.calls")) as f:
            calls = f.read().splitlines()
        self.assertEqual([c.split()[-1] for c in calls], ["prepare", "run"])
        with open(os.path.join(spec.rundir, "mysqld.err")) as f:
            err = f.read()
        self.assertIn("fake: shutdown complete", err)   # stopped, not killed
        # redo-full warnings: those of the measured run, not the one at startup
        self.assertIn("fake at start: Threads are unable to reserve space in redo log", err)
        in_run = err.count("Threads are unable to reserve space in redo log") - 1
        self.assertGreater(in_run, 0)
        self.assertEqual(info["summary"]["redo_full_warnings"], in_run)
        self.assertFalse(os.path.exists("/tmp/steady-bench-%d-99" % os.getpid()))
        with open(os.path.join(bindir, "sysbench.caps")) as f:
            self.assertEqual(f.read().split()[1:], ["5000"])     # one device capped: the data device
        with open(os.path.join(spec.rundir, "my.cnf")) as f:
            cnf = f.read()
        self.assertIn("log-bin=binlog\n", cnf)
        self.assertNotIn("innodb_log_group_home_dir", cnf)

    def test_clean_shutdown_is_timed(self):
        info, rows, spec, bindir = self.run_fake(shutdown="clean")
        self.assertEqual(info["status"], "ok", info["error"])
        self.assertGreaterEqual(info["shutdown_s"], 0)
        self.assertIsNotNone(info["shutdown_dirty_pages"])
        queries = fakes.client_queries(spec.arm.binaries.path)
        self.assertIn("SET GLOBAL innodb_fast_shutdown=1", queries)
        self.assertNotIn("SET GLOBAL innodb_fast_shutdown=2", queries)   # not the discarding stop
        with open(os.path.join(spec.rundir, "mysqld.err")) as f:
            self.assertIn("fake: shutdown complete", f.read())

    def test_slow_shutdown_is_timed(self):
        info, rows, spec, bindir = self.run_fake(shutdown="slow")
        self.assertEqual(info["status"], "ok", info["error"])
        self.assertEqual(info["shutdown_fast"], 0)
        queries = fakes.client_queries(spec.arm.binaries.path)
        self.assertIn("SET GLOBAL innodb_fast_shutdown=0", queries)
        self.assertNotIn("SET GLOBAL innodb_fast_shutdown=1", queries)

    def test_set_at_runs_during_the_measured_run(self):
        info, rows, spec, bindir = self.run_fake(set_at=((1, "innodb_adaptive_flushing_device_pacing", "ON"),))
        self.assertEqual(info["status"], "ok", info["error"])
        queries = fakes.client_queries(spec.arm.binaries.path)
        self.assertIn("SET GLOBAL innodb_adaptive_flushing_device_pacing = ON", queries)
        self.assertRegex(info["set_at"], r"^1\.\d:innodb_adaptive_flushing_device_pacing=ON$")

    def test_logs_on_their_own_device(self):
        log_dev = {"about": "test log", "caps": {"write_iops": 1234}}
        info, rows, spec, bindir = self.run_fake(log_dev=log_dev, log_device_name="logclass")
        self.assertEqual(info["status"], "ok", info["error"])
        self.assertRegex(info["log_device"], r"^logclass \(/dev/loop\d+\)$")
        # the collector samples the log device each second, beside the data device
        self.assertGreater(len(rows), 0)
        for r in rows:
            self.assertNotEqual(r["log_w_iops"], "", r)
            self.assertNotEqual(r["log_flush_ms"], "", r)
        with open(os.path.join(spec.rundir, "my.cnf")) as f:
            cnf = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
        logdir = cnf["innodb_log_group_home_dir"]
        self.assertEqual(cnf["log-bin"], os.path.join(logdir, "binlog"))
        self.assertNotEqual(os.path.dirname(logdir), os.path.dirname(cnf["datadir"]))   # another mount
        self.assertRegex(logdir, r"-log/log$")
        # both devices capped during the run, each to its class
        with open(os.path.join(bindir, "sysbench.caps")) as f:
            caps = sorted(f.read().split("\n")[:-1], key=lambda x: x.split()[1])
        self.assertEqual([c.split()[1] for c in caps], ["1234", "5000"])
        self.assertNotEqual(caps[0].split()[0], caps[1].split()[0])

    def force_cleanup(self, cache):
        """Only if the test failed half-way: undo what the run recorded."""
        state = os.path.join(cache, "bench", "state")
        for fn in os.listdir(state) if os.path.isdir(state) else []:
            with open(os.path.join(state, fn)) as f, quiet():
                teardown_state(json.load(f))

    def assert_nothing_left(self, cache):
        state, mnt, images = (os.path.join(cache, "bench", d) for d in ("state", "mnt", "images"))
        self.assertEqual(os.listdir(state), [])
        self.assertEqual(os.listdir(mnt), [])
        self.assertEqual(os.listdir(images), [])
        self.assertEqual([g for g in os.listdir(device.CGROUP_ROOT)
                          if g.startswith("steady-bench-01-steady-t4-r1-%d" % os.getpid())], [])
        with open("/proc/self/mountinfo") as f:
            self.assertNotIn(cache, f.read())

if __name__ == "__main__":
    unittest.main()

"""One server run of bench/run as phases: a fresh loop filesystem in a
throttled cgroup, a fresh datadir, mysqld, sysbench prepare, settle, the
measured run with the collector (and the bulk loader), teardown.

Each phase gets the values it needs and returns what it found; execute()
composes them for one RunSpec and returns (info, per-second rows).
"""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import threading
import time

from harness import device, paths
from harness.proc import log, niced, proc_cpu_ticks, spawn, tail
from harness.resources import Resources
from harness.server import Instance, ServerDown, SqlError, merge_options, render_cnf, side_by_side_options

from . import bulk_load as B, causes, client as C, redo_files as R, report, set_at as SA, summary as S
from .collect import Collector, RunClock, StatusPoller
from .loader import BulkLoader
from .settle import settle
from .engine_status import save_engine_status
from .shutdown import clean_shutdown, log_size, read_from

GiB = 1024 ** 3
LOG_IMAGE_GB = 8        # --log-device: redo plus 10 minutes of binary log at a few thousand trx/s
HUNG_GRACE_S = 300      # sysbench may run this long past --time before the run fails


class RunFailed(Exception):
    """One server run failed; recorded in the summary, the rest goes on."""


@dataclasses.dataclass
class Arm:
    """A --servers arm: binaries, preallocating loader, own options (--feature)."""
    name: str
    binaries: object
    prealloc: bool = False
    options: tuple = ()

    @property
    def base_name(self):
        return self.binaries.name


@dataclasses.dataclass
class RunSpec:
    """Everything one server run needs, decided before it starts."""
    run_id: str
    rundir: str
    arm: Arm
    sc: dict
    dev: dict
    device_name: str
    threads: int
    repeat: int
    scenario_label: str
    extra_options: list
    sysbench_args: list
    throttle_at: str = "loop"
    journal_uncapped: bool = False
    no_settle: bool = False
    allow_non_durable: bool = False
    nice: int = 0
    index: int = 1
    image_dir: str = ""     # "" : paths.image_dir()
    log_dev: dict = None    # --log-device: the redo and binary logs' own device class, or None
    log_device_name: str = ""
    config: str = "lab"     # --config: lab or stock (scenarios.CONFIGS)
    shutdown: str = "discard"   # --shutdown: discard (fast_shutdown=2), or clean / slow (timed)
    set_at: tuple = ()      # --set-at: [(second, option, value)] for this arm
    redo_written: bool = False  # --redo-written: redo files written through before the first start


def server_options(b, sc, dev, where, extra, config="lab"):
    """The run's my.cnf options: durable settings, then (config "lab") the
    scenario's sizes, the device's io_capacity and direct IO, then the
    user's --set options.  Config "stock" writes only what the run needs to
    exist, be durable and be comparable: sizing and flushing stay at each
    server's defaults."""
    o = [("user", "root"), ("basedir", b.basedir), ("datadir", where["datadir"]),
         ("tmpdir", where["tmpdir"]), ("socket", where["socket"]), ("pid-file", where["pidfile"]),
         ("log-error", where["errlog"]), ("skip-networking", None), ("skip-name-resolve", None),
         ("max_connections", "1000"),
         # Durable by default: every commit survives a power cut.
         ("server-id", "1"), ("log-bin", "binlog"), ("sync_binlog", "1"),
         ("innodb_flush_log_at_trx_commit", "1")]
    stock = config == "stock"
    if not stock:
        o += [("innodb_buffer_pool_size", str(sc["buffer_pool"])),
              ("innodb_io_capacity", str(dev["io_capacity"])),
              ("innodb_io_capacity_max", str(dev["io_capacity_max"])),
              ("innodb_flush_method", "O_DIRECT")]
    o += [kv for kv in b.location_options() if kv[0] != "basedir"]
    if where.get("logdir"):
        # --log-device: the commits' log writes go to their own device.
        o = merge_options(o, [("innodb_log_group_home_dir", where["logdir"]),
                              ("log-bin", os.path.join(where["logdir"], "binlog"))])
    o += side_by_side_options()
    if stock or sc["redo"] == "default":
        # --redo default: each server sizes its redo itself (Steady from the
        # pool, stock MySQL 100 MiB, MariaDB 10.11 its 96 MiB log file).
        if b.flavour != "mysql":
            o.append(("binlog_format", "ROW"))
    elif b.flavour == "mysql":
        o.append(("innodb_redo_log_capacity", str(sc["redo"])))
    else:
        # MariaDB 10.11: one redo file of this size; ROW is MySQL's default.
        o += [("innodb_log_file_size", str(sc["redo"])), ("binlog_format", "ROW")]
    return merge_options(o, extra)


def setup_device(spec, res):
    """Loop ext4 + cgroup for the run.  Returns the device facts and paths."""
    tag = "%s-%d" % (spec.run_id, os.getpid())
    images = spec.image_dir or paths.image_dir()
    os.makedirs(images, exist_ok=True)
    free = shutil.disk_usage(images).free
    if free < 4 * GiB:
        raise RunFailed("only %.1f GB free under %s for the loop image" % (free / GiB, images))
    fs = device.make_loop_fs(os.path.join(images, tag + ".img"), spec.sc["image_gb"] * GiB,
                             os.path.join(paths.mount_dir(), tag), res.record)
    if not fs["direct_io"]:
        log("losetup --direct-io=on refused; loop device uses the host page cache")
    fs["cap_majmin"] = fs["majmin"] if spec.throttle_at == "loop" else device.backing_disk(fs["image"])
    fs["host_disk"] = device.disk_name(device.backing_disk(fs["image"]))   # None on tmpfs
    fs["cgroup"] = device.make_cgroup("steady-bench-" + tag, res.record)
    fs["journal_thread_capped"] = None
    if fs["cgroup"] and not spec.journal_uncapped:
        moved, msg = device.adopt_journal_thread(fs["cgroup"], fs["loop"])
        fs["journal_thread_capped"] = moved or None
        if not moved:
            log("%s: %s" % (spec.run_id, msg))
    # Socket and pid file live outside the loop fs (and short: sun_path).
    sockdir = "/tmp/steady-bench-%d-%02d" % (os.getpid(), spec.index)
    device.remove_tree(sockdir)
    os.makedirs(sockdir)
    res.record("dirs", sockdir)
    fs["where"] = {"datadir": os.path.join(fs["mount"], "data"), "tmpdir": os.path.join(fs["mount"], "tmp"),
                   "socket": os.path.join(sockdir, "mysqld.sock"), "pidfile": os.path.join(sockdir, "mysqld.pid"),
                   "errlog": os.path.join(spec.rundir, "mysqld.err")}
    os.makedirs(fs["where"]["tmpdir"])
    return fs


def setup_log_device(spec, fs, res):
    """--log-device: a second loop ext4 for the redo log and the binary log,
    in the run's cgroup and capped (during the measured run) to its own
    class, as on a server whose logs sit on a volume of their own.  `res`
    is the log device's own record (one device per record)."""
    tag = "%s-%d-log" % (spec.run_id, os.getpid())
    log_fs = device.make_loop_fs(os.path.join(spec.image_dir or paths.image_dir(), tag + ".img"),
                                 LOG_IMAGE_GB * GiB, os.path.join(paths.mount_dir(), tag), res.record)
    if fs["cgroup"] and not spec.journal_uncapped:
        device.adopt_journal_thread(fs["cgroup"], log_fs["loop"])
    fs["log"] = log_fs
    fs["where"]["logdir"] = os.path.join(log_fs["mount"], "log")
    os.makedirs(fs["where"]["logdir"])
    return log_fs


def start_server(spec, fs, res, facts=None):
    """Write my.cnf, initialise, start.  Returns (Instance, seconds to initialise).
    With spec.redo_written the redo files are written back over themselves
    between initialising and starting, and what that did goes into `facts`."""
    where = fs["where"]
    cnf = os.path.join(spec.rundir, "my.cnf")
    with open(cnf, "w") as f:
        f.write(render_cnf(server_options(spec.arm.binaries, spec.sc, spec.dev, where, spec.extra_options,
                                          spec.config), "bench/run"))
    inst = Instance(spec.arm.binaries, ["--defaults-file=" + cnf], where["datadir"], where["socket"],
                    where["errlog"], os.path.join(spec.rundir, "mysqld.out"), cgroup=fs["cgroup"],
                    nice=spec.nice, record=res.record_pid,
                    init_log=os.path.join(spec.rundir, "initialize.log"))
    log("%s: initialising datadir on %s (%s)" % (spec.run_id, fs["loop"], fs["mount"]))
    try:
        init_s = inst.initialize()
        if spec.redo_written:
            try:
                written = R.write_server_redo(spec.arm.binaries.flavour, where.get("logdir") or where["datadir"])
            except R.NoRedoFiles as e:
                raise RunFailed(str(e))
            log("%s: %s" % (spec.run_id, R.describe(written)))
            (facts if facts is not None else {}).update(written)
        log("%s: starting %s" % (spec.run_id, spec.arm.binaries.mysqld))
        inst.start(timeout=600, poll=0.5)
    except ServerDown as e:
        raise RunFailed(str(e))
    inst.sql.query("CREATE DATABASE IF NOT EXISTS sbtest")
    return inst, round(init_s, 1)


DURABLE_VARS = ("log_bin", "sync_binlog", "innodb_flush_log_at_trx_commit", "innodb_buffer_pool_size",
                "innodb_io_capacity", "innodb_io_capacity_max", "innodb_flush_method", "version")


def check_durable(sql, flavour, rundir, allow_non_durable):
    """Read back the settings that matter; refuse a non-durable server.
    Returns (redo bytes, server version)."""
    got = {v: sql.value("SELECT @@global.%s" % v) for v in DURABLE_VARS}
    redo_var = "innodb_redo_log_capacity" if flavour == "mysql" else "innodb_log_file_size"
    got[redo_var] = sql.value("SELECT @@global.%s" % redo_var)
    with open(os.path.join(rundir, "variables.json"), "w") as f:
        json.dump(got, f, indent=1)
    # Every global variable as the server ran with it, so a run can be
    # compared setting by setting with another server's.
    every = sql.query("SHOW GLOBAL VARIABLES", check=False)
    if every is not None:
        with open(os.path.join(rundir, "global_variables.tsv"), "w") as f:
            f.write(every)
    durable = (got["log_bin"] in ("1", "ON") and got["sync_binlog"] == "1"
               and got["innodb_flush_log_at_trx_commit"] == "1")
    if not durable and not allow_non_durable:
        raise RunFailed("server is not running durable (log_bin=%s sync_binlog=%s "
                        "innodb_flush_log_at_trx_commit=%s); --allow-non-durable to accept"
                        % (got["log_bin"], got["sync_binlog"], got["innodb_flush_log_at_trx_commit"]))
    return int(got[redo_var] or 0), got["version"]


def sysbench_of(sc, sysbench_args, socket, command, threads):
    """The sysbench command line of `command` for settings `sc` and the
    user's --sysbench-arg options."""
    return C.sysbench_cmd(sc["workload"], socket, C.data_args(sc), threads, command,
                          duration=sc["duration"], workload_args=sc.get("workload_args", []),
                          run_args=sc.get("run_args", []), extra_args=sysbench_args)


def sysbench(spec, socket, command, threads):
    return sysbench_of(spec.sc, spec.sysbench_args, socket, command, threads)


def prepare_cmd(sc, sysbench_args, socket):
    """`sysbench prepare`: the data's options (--tables and --table-size, or
    --warehouses), one thread per table or warehouse up to the CPUs."""
    return sysbench_of(sc, sysbench_args, socket, "prepare", C.prepare_threads(C.data_units(sc)))


def prepare(spec, inst, res):
    """sysbench prepare (and the loader's seed table).  Returns seconds."""
    sc = spec.sc
    log("%s: sysbench prepare (%s)" % (spec.run_id, C.data_label(sc)))
    t0 = time.monotonic()
    plog = os.path.join(spec.rundir, "prepare.log")
    p = spawn(niced(prepare_cmd(sc, spec.sysbench_args, inst.socket), spec.nice), plog)
    res.record_pid(p.pid, "sysbench-prepare")
    if p.wait() != 0:
        raise RunFailed("sysbench prepare failed:\n" + tail(plog))
    if sc.get("load_rows"):
        # The bulk loader's source, made now so the measured run holds only the load.
        try:
            inst.sql.query(B.seed_sql(sc["load_rows"], sc["load_chunks"]), timeout=900)
        except SqlError as e:
            raise RunFailed("bulk loader's seed table %s: %s" % (B.SEED_TABLE, e))
    return round(time.monotonic() - t0, 1)


def _read_sysbench(sb, sblog, clock, inst, t_launch, errlog):
    """Follow sysbench's output until it exits.  Returns (rows by second,
    seconds to connect, crash message or None)."""
    sb_rows, connect_s, crashed = {}, None, None
    for line in sb.stdout:
        sblog.write(line)
        if C.is_started_line(line):
            clock.mark()
            connect_s = round(clock.t_start - t_launch, 2)
        else:
            rep = C.parse_report_line(line)
            if rep:
                sb_rows[rep[0]] = rep[1]
        if not inst.alive() and crashed is None:
            crashed = "server died during the run (exit %s):\n%s" % (inst.proc.returncode, tail(errlog))
            os.killpg(sb.pid, signal.SIGTERM)
    return sb_rows, connect_s, crashed


def set_run_caps(spec, fs, on):
    """The device class's caps on the data device, and the log class's on
    the log device (--log-device), on or off."""
    device.set_caps(fs["cgroup"], fs["cap_majmin"], spec.dev["caps"], on)
    if fs.get("log"):
        device.set_caps(fs["cgroup"], fs["log"]["majmin"], spec.log_dev["caps"], on)


def measure(spec, inst, fs, redo_bytes, res):
    """The measured run: caps on, sysbench + collector (+ loader), one row a
    second.  Returns (rows, facts for the run's info, error or None): the
    rows of a failed run are kept, like its cause."""
    sc, facts = spec.sc, {}
    set_run_caps(spec, fs, True)
    log("%s: run %s, %d threads, %d s, device %s" % (spec.run_id, sc["workload"], spec.threads,
                                                     sc["duration"], spec.device_name))
    sblog = open(os.path.join(spec.rundir, "sysbench.log"), "w")
    poll_err = open(os.path.join(spec.rundir, "collector.err"), "w")
    poller = StatusPoller(inst.sql.base(), spec.arm.binaries.flavour, poll_err)
    res.record_pid(poller.proc.pid, "status client")
    t_launch = time.monotonic()
    sb = spawn(niced(sysbench(spec, inst.socket, "run", spec.threads), spec.nice), text_pipe=True)
    res.record_pid(sb.pid, "sysbench")
    clock, stop = RunClock(), threading.Event()
    coll = Collector(poller, clock, stop, {"mysqld": inst.pid, "sysbench": sb.pid},
                     os.path.basename(fs["loop"]), spec.dev["caps"], spec.arm.binaries.flavour, redo_bytes,
                     host_dev=fs.get("host_disk"),
                     log_dev=os.path.basename(fs["log"]["loop"]) if fs.get("log") else None)
    ct = threading.Thread(target=coll.loop, daemon=True)
    ct.start()
    loader = None
    if sc.get("load_rows"):
        sql = B.loader_sql(sc["load_rows"], sc["load_chunks"], sc["prealloc"] if spec.arm.prealloc else None,
                           spec.arm.binaries.flavour, sc["rebuild"])
        loader = BulkLoader(inst.sql.base(), sql, spec.rundir, clock, stop, sc["load_at"], spec.run_id,
                            nice=spec.nice, record_pid=res.record_pid)
        loader.start()
    switcher = None
    if spec.set_at:
        switcher = SA.Switcher(spec.set_at, _sql_error_of(inst.sql), clock, stop,
                               log=lambda msg: log("%s: %s" % (spec.run_id, msg)))
        switcher.start()
    # A hung server would keep sysbench waiting forever: give it the run
    # time plus a grace period, then stop it and fail the run.
    hung = threading.Event()

    def watchdog():
        hung.set()
        try:
            os.killpg(sb.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    dog = threading.Timer(sc["duration"] + HUNG_GRACE_S, watchdog)
    dog.daemon = True
    dog.start()
    ended = False
    try:
        sb_rows, facts["connect_s"], crashed = _read_sysbench(sb, sblog, clock, inst, t_launch,
                                                               inst.errlog)
        rc = sb.wait()
        ended = True
    finally:
        dog.cancel()
        stop.set()
        clock.release()
        if loader:
            # A load still running goes on with the caps on, alone; on an
            # interrupt it is stopped at once.
            loader.finish(sc.get("load_timeout", 1800) if ended and not hung.is_set() else 0)
        ct.join(timeout=10)
        if switcher:
            switcher.join(timeout=70)
        client_ticks = proc_cpu_ticks(poller.proc.pid) or 0
        poller.close()
        sb.stdout.close()
        sblog.close()
        poll_err.close()
        if sb.poll() is None:
            os.killpg(sb.pid, signal.SIGKILL)
            sb.wait()
        set_run_caps(spec, fs, False)
    if not inst.alive() and crashed is None:
        crashed = "server died during the run (exit %s):\n%s" % (inst.proc.returncode, tail(inst.errlog))
    rows = merge_rows(spec, sb_rows, coll.rows)
    if loader and loader.ran:
        steps = B.phases(loader.result, clock.t_start_epoch)
        for r in rows:
            r["load_phase"] = B.phase_of_second(r["second"], steps)
        facts["load"] = B.summarize_load(rows, loader.result, clock.t_start_epoch, sc["warmup"],
                                         offered_tps=C.offered_rate(sc.get("run_args", []) + spec.sysbench_args))
    report.write_per_second(os.path.join(spec.rundir, "per_second.csv"), rows)
    facts["collector_cpu_pct"] = coll.own_cpu_pct(client_ticks)
    if switcher:
        facts["set_at"] = SA.column(switcher.done)
    error = crashed
    if error is None and hung.is_set():
        error = "sysbench still running %d s after the run's end: server hung?\n%s" % (
            HUNG_GRACE_S, tail(inst.errlog))
    if error is None and rc != 0:
        error = "sysbench exited %d:\n%s" % (rc, tail(os.path.join(spec.rundir, "sysbench.log")))
    if error is None and loader and loader.error:
        error = "bulk loader: " + loader.error
    return rows, facts, error


def _sql_error_of(sql):
    """A statement runner for the switcher: None, or the client's error."""
    def run(stmt):
        try:
            sql.query(stmt, timeout=60)
        except SqlError as e:
            return str(e)
        return None
    return run


def merge_rows(spec, sb_rows, coll_rows):
    """sysbench's and the collector's columns, one row per reported second."""
    rows = []
    for sec in sorted(sb_rows):
        r = {k: "" for k in S.PER_SECOND_COLUMNS}
        r.update({"run_id": spec.run_id, "scenario": spec.scenario_label, "workload": spec.sc["workload"],
                  "server": spec.arm.name, "flavour": spec.arm.binaries.flavour,
                  "device": spec.device_name, "threads": spec.threads,
                  "repeat": spec.repeat, "second": sec})
        r.update(sb_rows[sec])
        r.update(coll_rows.get(sec, {}))
        rows.append(r)
    return rows


def execute(spec):
    """One server run, start to teardown.  Returns (info, rows); a failure is
    recorded in info["error"], never raised."""
    os.makedirs(spec.rundir, exist_ok=True)
    info = {"run_id": spec.run_id, "server": spec.arm.name, "flavour": spec.arm.binaries.flavour,
            "threads": spec.threads, "repeat": spec.repeat, "status": "failed", "error": "",
            "throttle_at": spec.throttle_at, "config": spec.config}
    rows = []
    res = Resources(spec.run_id + "-%d" % os.getpid())
    log_res = Resources(spec.run_id + "-%d-log" % os.getpid()) if spec.log_dev else None
    inst = None
    t0 = time.monotonic()
    try:
        fs = setup_device(spec, res)
        if log_res:
            info["log_device"] = "%s (%s)" % (spec.log_device_name, setup_log_device(spec, fs, log_res)["loop"])
        info["journal_thread_capped"] = fs["journal_thread_capped"]
        inst, info["init_s"] = start_server(spec, fs, res, info)
        redo_bytes, info["server_version"] = check_durable(inst.sql, spec.arm.binaries.flavour, spec.rundir,
                                                           spec.allow_non_durable)
        for stmt in causes.enable_sql():
            inst.sql.query(stmt, check=False)
        info["prepare_s"] = prepare(spec, inst, res)
        if spec.no_settle:
            info["settle_s"], info["settle_dirty_pages"] = 0, "skipped"
            log("%s: not settling (--no-settle): the run starts with what prepare left dirty" % spec.run_id)
        else:
            info["settle_s"], info["settle_dirty_pages"] = settle(inst.sql, spec.sc.get("settle_timeout", 900),
                                                                  spec.run_id, redo_bytes)
        err_from = log_size(fs["where"]["errlog"]) or 0
        rows, facts, error = measure(spec, inst, fs, redo_bytes, res)
        info.update(facts)
        if error:
            raise RunFailed(error)
        save_engine_status(inst.sql, spec.rundir)
        info["summary"] = S.summarize_run(rows, spec.sc["warmup"], spec.sc.get("sla_ms"))
        info["summary"].update(causes.log_signatures(read_from(fs["where"]["errlog"], err_from)))
        sla = spec.sc.get("sla_ms")
        table, n = causes.dip_table(rows, spec.sc["warmup"], sla_ms=sla)
        info["dips"] = {"verdict": causes.verdict(rows, spec.sc["warmup"], sla_ms=sla), "table": table, "seconds": n,
                        "kind": causes.dip_kind(rows, spec.sc["warmup"], sla_ms=sla)}
        if spec.shutdown != "discard":
            facts, error = clean_shutdown(inst, spec.run_id, mode=spec.shutdown)
            info.update(facts)
            if error:
                raise RunFailed(error)
        info["status"] = "ok"
    except RunFailed as e:
        info["error"] = str(e)
        log("%s: FAILED: %s" % (spec.run_id, str(e).splitlines()[0]))
    except ValueError as e:
        info["error"] = "no usable data: %s" % e
        log("%s: FAILED: %s" % (spec.run_id, e))
    except (RuntimeError, OSError, subprocess.SubprocessError, device.DeviceError) as e:
        info["error"] = "harness error: %s" % e
        log("%s: FAILED (harness): %s" % (spec.run_id, e))
    finally:
        try:
            if inst is not None and not inst.stop(timeout=300, discard=True):
                log("%s: server did not stop in 5 min, killed it" % spec.run_id)
        finally:
            # The log device first: its journal thread leaves the cgroup on unmount.
            errors = (log_res.teardown() if log_res else []) + res.teardown()
            if errors:
                log("%s: cleanup incomplete, run bench/run --cleanup: %s" % (spec.run_id, "; ".join(errors)))
    info["wall_s"] = round(time.monotonic() - t0, 1)
    return info, rows

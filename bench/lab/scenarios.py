"""Scenarios, device classes and workloads: the lab's data, and the
validation that turns a scenario plus the user's overrides into the settings
of a run.  Pure: values in, values out (bench/tests/test_scenarios.py).

Why each number: bench/README.md ("Scenarios", "Device classes").
"""

import copy

from . import bulk_load as B

GiB = 1024 ** 3
MiB = 1024 ** 2


class ScenarioError(Exception):
    """Bad scenario, device or override; the message says which and why."""


# ---------------------------------------------------------------------------
# Device classes.  Caps are cgroup-v1 blkio throttles on the run's own loop
# device; io_capacity is what a careful DBA would set for that device (its
# rated write IOPS), the same for every server.  Why these numbers:
# bench/README.md, "Device classes".
DEVICES = {
    "nvme": {
        "about": "no cap: whatever the host disk under the loop file does",
        "caps": {},
        "io_capacity": 10000, "io_capacity_max": 20000,
    },
    "ssd": {
        "about": "8000 write / 16000 read IOPS, 600 MB/s write: the 2012 "
                 "field case's flash card (8k+ write IOPS, 600 MB/s)",
        "caps": {"write_iops": 8000, "read_iops": 16000,
                 "write_bps": 600 * 10 ** 6},
        "io_capacity": 8000, "io_capacity_max": 16000,
    },
    "cloud": {
        "about": "3000 write / 3000 read IOPS, 125 MiB/s each way: the "
                 "baseline of a general-purpose cloud block volume",
        "caps": {"write_iops": 3000, "read_iops": 3000,
                 "write_bps": 125 * MiB, "read_bps": 125 * MiB},
        "io_capacity": 3000, "io_capacity_max": 6000,
    },
}

WORKLOADS = {
    "oltp_insert": "sysbench oltp_insert: autocommit single-row INSERTs",
    "oltp_write_only": "sysbench oltp_write_only: 2 UPDATEs, DELETE+INSERT per trx",
    "oltp_update_non_index": "sysbench oltp_update_non_index: autocommit UPDATE of a non-indexed column",
    "oltp_read_write": "sysbench oltp_read_write: 14 reads + 4 writes per trx",
    "oltp_read_only": "sysbench oltp_read_only: 14 reads per trx, no writes",
    "oltp_point_select": "sysbench oltp_point_select: one primary-key SELECT per trx, autocommit",
    "oltp_update_index": "sysbench oltp_update_index: autocommit UPDATE of the indexed column k",
    "multi_insert": "ours: BEGIN, --inserts_per_trx single-row INSERTs into different tables, COMMIT",
    "tpcc_like": "ours: TPC-C's five transactions (New-Order 45 %, Payment 43 %, Order-Status, "
                 "Delivery, Stock-Level 4 % each) on --warehouses warehouses (~0.1 GB each)",
}

# Workloads whose data is sized in warehouses (--warehouses), not in
# sysbench's sbtest tables (--tables x --table-size).
WAREHOUSE_WORKLOADS = ("tpcc_like",)

# Server configurations (--config).  "lab" is the lab's my.cnf; "stock"
# leaves every sizing and flushing option at the server's default, as a
# server installed and started without tuning runs.  Why: bench/README.md,
# "Server configuration".
STOCK_POOL = 128 * MiB      # innodb_buffer_pool_size's default (MySQL and MariaDB)
CONFIGS = {
    "lab": "the lab's tuning: innodb_buffer_pool_size and the redo size from the scenario, "
           "innodb_io_capacity/_max from the device class (or the scenario), innodb_flush_method=O_DIRECT",
    "stock": "MySQL's default configuration: no buffer pool or redo size, innodb_io_capacity/_max or "
             "innodb_flush_method written, so each server runs with its own defaults (a 128 MB pool); "
             "the scenario's rows or warehouses scaled by 128 MB / its pool, keeping the data's ratio "
             "to the pool; --buffer-pool, --redo and --io-capacity refused, --set applies",
}

# ---------------------------------------------------------------------------
# Scenarios.  Sizes are chosen against a 2-core, 23 GB box; the rationale for
# each is in bench/README.md.  "quick" holds the overrides of --quick.
SCENARIOS = {
    "stall": {
        "about": "write set ~2x the buffer pool, 16 threads, 10 min: built to "
                 "make vanilla reach its dirty-page limit (not seen stalling on "
                 "this lab's machine so far: docs/bench/index.md)",
        "workload": "oltp_update_non_index", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 600, "warmup": 10, "device": "cloud",
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 120, "tables": 4, "table_size": 500000,
                  "buffer_pool": 256 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "pileup": {
        "about": "write set that fits the buffer pool (8 x 400k rows, ~0.75 GB, "
                 "1 GB pool), uniform updates, 256 MB redo, 16 threads, 10 min, "
                 "innodb_io_capacity 200/2000 (the 8.0-era defaults many my.cnf "
                 "files still carry): nothing is evicted, so only flushing keeps "
                 "dirty pages and checkpoint age below their limits",
        "workload": "oltp_update_non_index", "tables": 8, "table_size": 400000,
        "threads": [16], "duration": 600, "warmup": 10, "device": "ssd",
        "buffer_pool": 1 * GiB, "redo": 256 * MiB, "image_gb": 16,
        "io_capacity": (200, 2000),
        "workload_args": ["--rand-type=uniform"],
        "quick": {"duration": 120, "tables": 4, "table_size": 200000,
                  "buffer_pool": 512 * MiB, "redo": 128 * MiB, "image_gb": 8},
    },
    # -- The stall lab: situations where MySQL users see vanilla stall
    # (../shared/design/stalls.md; bench/README.md "The stall lab").
    "checkpoint_wave": {
        "about": "A, the checkpoint-age wave: a hot write set that fits the buffer "
                 "pool (8 x 1.6M rows, ~3 GB, 4 GB pool), uniform updates, 16 "
                 "threads, 10 min, the 9.x default redo capacity (100 MB, about "
                 "30x smaller than the hot set) and an HDD-era innodb_io_capacity "
                 "200 with _max at twice it (400): redo fills faster than the page "
                 "cleaner may flush, the checkpoint age crosses the async and then "
                 "the sync mark, and TPS falls in waves while sync-mode flushing "
                 "catches up and commits wait for redo space",
        "workload": "oltp_update_non_index", "tables": 8, "table_size": 1600000,
        "threads": [16], "duration": 600, "warmup": 10, "device": "ssd",
        "buffer_pool": 4 * GiB, "redo": 100 * MiB, "image_gb": 20,
        "io_capacity": (200, 400),
        "workload_args": ["--rand-type=uniform"],
        "quick": {"duration": 120, "tables": 4, "table_size": 800000,
                  "buffer_pool": 2 * GiB, "redo": 64 * MiB, "image_gb": 10},
    },
    "free_page_wait": {
        "about": "B, free-page waits: IO-bound writes (sysbench oltp_write_only: "
                 "updates of the k index and of c, delete + insert) on data ~8x the "
                 "buffer pool (8 x 1M rows, ~1.9 GB, 256 MB pool), 16 threads, 10 "
                 "min, cloud device, innodb_io_capacity 200/2000 (the 8.0 "
                 "defaults): flush-list flushing leaves the LRU tail dirty, every "
                 "statement reads a page into the pool, so user threads find no "
                 "free page in buf_LRU_get_free_block and flush one themselves",
        "workload": "oltp_write_only", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 600, "warmup": 10, "device": "cloud",
        "buffer_pool": 256 * MiB, "redo": 1 * GiB, "image_gb": 24,
        # At the device's rating (3000/6000) flush-list flushing keeps the LRU
        # tail clean and no thread waits (2026-11-23 calibration); at the 8.0
        # defaults the tail stays dirty (2026-11-24 calibration).
        "io_capacity": (200, 2000),
        # sysbench's default key distribution ("special") keeps a hot set
        # that fits even a small pool: uniform keys make every page cold.
        "workload_args": ["--rand-type=uniform"],
        "quick": {"duration": 120, "tables": 4, "table_size": 500000,
                  "buffer_pool": 128 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "update_non_index": {
        "about": "sysbench oltp_update_non_index, 8 x 1M rows, 1 GB pool, 16 "
                 "clients, 5 min: the stall scenario's data at the default device",
        "workload": "oltp_update_non_index", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "tables": 4, "table_size": 250000,
                  "buffer_pool": 256 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "multi_insert": {
        "about": "the 2012 field case: 4 single-row INSERTs into 4 of 8 tables "
                 "per trx, 32 clients, 5 min",
        "workload": "multi_insert", "tables": 8, "table_size": 100000,
        "threads": [32], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "workload_args": ["--inserts_per_trx=4"],
        "quick": {"duration": 60, "table_size": 10000, "image_gb": 8},
    },
    "insert": {
        "about": "autocommit inserts, 32 clients, 5 min",
        "workload": "oltp_insert", "tables": 8, "table_size": 100000,
        "threads": [32], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "table_size": 10000, "image_gb": 8},
    },
    "write_only": {
        "about": "sysbench oltp_write_only, 16 clients, 5 min",
        "workload": "oltp_write_only", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "tables": 4, "table_size": 250000,
                  "buffer_pool": 256 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "read_write": {
        "about": "sysbench oltp_read_write, 16 clients, 5 min",
        "workload": "oltp_read_write", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "tables": 4, "table_size": 250000,
                  "buffer_pool": 256 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "read_only": {
        "about": "sysbench oltp_read_only, 16 clients, 5 min: reads only, data "
                 "~2x the buffer pool, so the device is busy with reads",
        "workload": "oltp_read_only", "tables": 8, "table_size": 1000000,
        "threads": [16], "duration": 300, "warmup": 10,
        "buffer_pool": 1 * GiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "tables": 4, "table_size": 250000,
                  "buffer_pool": 256 * MiB, "redo": 256 * MiB, "image_gb": 8},
    },
    "tpcc": {
        "about": "tpcc_like (TPC-C's five-transaction mix), 10 warehouses "
                 "(~1 GB), 512 MB pool, 16 clients, 5 min: data ~2x the buffer "
                 "pool, as read_only, so stock and customer rows are read in "
                 "while New-Order and Payment write",
        "workload": "tpcc_like", "warehouses": 10,
        "threads": [16], "duration": 300, "warmup": 10, "device": "ssd",
        "buffer_pool": 512 * MiB, "redo": 1 * GiB, "image_gb": 24,
        "quick": {"duration": 60, "warehouses": 2, "buffer_pool": 128 * MiB,
                  "redo": 256 * MiB, "image_gb": 8},
    },
    "bulk_load": {
        "about": "a 4M-row INSERT ... SELECT into a fresh file-per-table table "
                 "beside 4 clients doing 200 updates/s; arms steady+prealloc "
                 "(ALTER TABLESPACE ... SET EXTENT_SIZE first), steady, vanilla",
        "workload": "oltp_update_non_index", "tables": 4, "table_size": 100000,
        "threads": [4], "duration": 240, "warmup": 10, "device": "cloud",
        "buffer_pool": 512 * MiB, "redo": 1 * GiB, "image_gb": 16,
        # Light OLTP is a fixed offered load: it does not grab the IOPS the
        # load would otherwise get, and a stall shows as a TPS dip.
        "rate": 200,
        "servers": "steady+prealloc,steady,vanilla",
        # the loader: at second load_at, load_rows rows in load_chunks
        # statements; prealloc None: B.prealloc_bytes(load_rows); rebuild:
        # ALTER TABLE ... FORCE of the loaded table after the load
        "load_at": 30, "load_rows": 4000000, "load_chunks": 4, "prealloc": None, "rebuild": False,
        "quick": {"duration": 90, "tables": 2, "table_size": 10000, "load_at": 20,
                  "load_rows": 500000, "load_chunks": 2, "buffer_pool": 128 * MiB,
                  "redo": 256 * MiB, "image_gb": 8},
    },
    "smoke": {
        "about": "tiny: 2 tables x 10k rows, multi_insert, 2 clients, 20 s; "
                 "proves the harness, measures nothing",
        "workload": "multi_insert", "tables": 2, "table_size": 10000,
        "threads": [2], "duration": 20, "warmup": 2,
        "buffer_pool": 128 * MiB, "redo": 64 * MiB, "image_gb": 4,
        "workload_args": ["--inserts_per_trx=2"],
        "settle_timeout": 60,
        "quick": {},
    },
}

# C is A's data and settings at a fixed arrival rate: the same stall, seen as
# an application sees it.
SCENARIOS["open_loop"] = dict(
    SCENARIOS["checkpoint_wave"],
    about="C, open-loop load: the checkpoint_wave data and settings with "
          "requests arriving at a fixed rate (sysbench --rate=2600, up to 64 "
          "client threads) as an application sends them: a stall becomes a "
          "queue and a latency spike, counted against a 100 ms p99 SLA",
    threads=[64], rate=2600, sla_ms=100)

# D is A's data and settings where the data device alone limits flushing:
# with the logs on a volume of their own the commits no longer queue behind
# page writes in the data device's throttle, so the redo outruns what that
# device can write and the checkpoint age sits past the async mark.
SCENARIOS["device_limit"] = dict(
    SCENARIOS["checkpoint_wave"],
    about="D, at the device's limit: the checkpoint_wave data and settings "
          "with the redo and binary logs on a device of their own (the nvme "
          "class, no cap) and the data on the cloud class (3000 write IOPS): "
          "the redo outruns what the data device can write, the checkpoint "
          "age stays past the async mark, and the summary's page writes past "
          "the mark compare with bench/raw-write's rate for the class",
    device="cloud", log_device="nvme")


# The no-harm matrix's neighbours of write_only and read_only: their data,
# pool and redo, another sysbench statement.
SCENARIOS["update_index"] = dict(
    SCENARIOS["write_only"],
    about="sysbench oltp_update_index, 16 clients, 5 min: every UPDATE "
          "moves an entry of the secondary index k; write_only's data, ~2x "
          "the buffer pool, so pages outside sysbench's hot set are read "
          "in and written back",
    workload="oltp_update_index")
SCENARIOS["point_select"] = dict(
    SCENARIOS["read_only"],
    about="sysbench oltp_point_select, 16 clients, 5 min: one primary-key "
          "lookup per trx on read_only's data, ~2x the buffer pool, so "
          "lookups outside sysbench's hot set wait for a page read",
    workload="oltp_point_select")


# Settings a scenario holds that apply to the run as a whole, not to `sc`.
RUN_LEVEL_KEYS = ("quick", "device", "servers", "log_device")
OVERRIDES = ("workload", "duration", "tables", "table_size", "warehouses", "warmup", "buffer_pool", "redo",
             "image_gb", "rate", "sla_ms")
LOAD_OPTIONS = ("load_at", "load_rows", "load_chunks", "prealloc", "rebuild")


def choose(kind, value, valid):
    """`value` if it is one of `valid`, else ScenarioError naming the valid ones."""
    if value not in valid:
        raise ScenarioError("unknown %s %r; valid: %s" % (kind, value, ", ".join(sorted(valid))))
    return value


def parse_threads(text):
    """'16' or '1,8,32,64' -> [ints]."""
    try:
        vals = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        vals = []
    if not vals or any(v <= 0 or v > 4096 for v in vals):
        raise ScenarioError("bad --threads %r: give a comma list of positive integers, e.g. 1,8,32,64" % text)
    return vals


def build_scenario(name, quick=False, overrides=None, threads=None, config="lab"):
    """The settings of one run of scenario `name`.

    overrides: {key: value or None} for OVERRIDES and LOAD_OPTIONS (None:
    keep the scenario's); threads: the --threads text or None; config: one
    of CONFIGS (stock: the data scaled to the default pool, see stock_sizes).
    """
    choose("scenario", name, SCENARIOS)
    choose("config", config, CONFIGS)
    overrides = overrides or {}
    sc = {k: copy.deepcopy(v) for k, v in SCENARIOS[name].items() if k not in RUN_LEVEL_KEYS}
    if quick:
        sc.update(SCENARIOS[name]["quick"])
    if config == "stock":
        for key in ("buffer_pool", "redo"):
            if overrides.get(key) is not None:
                raise ScenarioError("--%s: --config stock leaves the %s at the server's default; use "
                                    "--config lab, or --set to change the stock configuration on purpose"
                                    % (key.replace("_", "-"), "buffer pool" if key == "buffer_pool" else "redo size"))
        sc = stock_sizes(sc)
    for key in OVERRIDES + LOAD_OPTIONS:
        val = overrides.get(key)
        if val is not None:
            if key in LOAD_OPTIONS and key not in sc:
                raise ScenarioError("--%s only applies to a loading scenario (bulk_load)" % key.replace("_", "-"))
            sc[key] = val
    if threads:
        sc["threads"] = parse_threads(threads)
    choose("workload", sc["workload"], WORKLOADS)
    _check_data(sc, name, overrides)
    if sc["duration"] < 5:
        raise ScenarioError("--duration must be at least 5 s")
    if sc.get("rate") is not None and sc["rate"] < 0:
        raise ScenarioError("--rate must be >= 0 (0: closed loop, as fast as the server answers)")
    if sc.get("sla_ms") is not None and sc["sla_ms"] <= 0:
        raise ScenarioError("--sla-ms must be above 0")
    if sc.get("rate"):
        # sysbench --rate: events arrive at this rate whatever the server
        # does (an open-loop run); only `run` gets it.
        sc["run_args"] = [a for a in sc.get("run_args", []) if not a.startswith("--rate=")]
        sc["run_args"].append("--rate=%d" % sc["rate"])
    if "load_rows" in sc:
        _check_load(sc)
    return sc


def stock_sizes(sc):
    """`sc` for --config stock: no pool, redo or io_capacity of its own, and
    its data scaled by STOCK_POOL / its pool (rows per table to whole
    thousands, warehouses to whole ones, never below 1000 or 1), so the data
    keeps the ratio to the pool the scenario was built on.  A scenario whose
    pool is no larger than STOCK_POOL keeps its data."""
    sc = dict(sc)
    scale = min(1.0, STOCK_POOL / sc["buffer_pool"])
    if scale < 1 and sc.get("table_size") is not None:
        sc["table_size"] = max(1000, int(sc["table_size"] * scale / 1000 + 0.5) * 1000)
    if scale < 1 and sc.get("warehouses") is not None:
        sc["warehouses"] = max(1, int(sc["warehouses"] * scale + 0.5))
    sc["buffer_pool"], sc["redo"] = "default", "default"
    sc.pop("io_capacity", None)
    return sc


def _check_data(sc, name, overrides):
    """A warehouse workload has --warehouses and no sbtest sizes; any other
    has --tables and --table-size and no warehouses.  The scenario's sizes
    of the other kind are dropped (a --workload switch); the user's are refused."""
    wl = sc["workload"]
    given = [k for k in ("tables", "table_size", "warehouses") if overrides.get(k) is not None]
    if wl in WAREHOUSE_WORKLOADS:
        if "tables" in given or "table_size" in given:
            raise ScenarioError("--tables and --table-size size sysbench's sbtest tables; workload %s is "
                                "sized by --warehouses" % wl)
        sc.pop("tables", None)
        sc.pop("table_size", None)
        if sc.get("warehouses") is None:
            raise ScenarioError("workload %s is sized in warehouses: give --warehouses N (scenario %s "
                                "has none)" % (wl, name))
        if sc["warehouses"] < 1:
            raise ScenarioError("--warehouses must be at least 1")
        if "load_rows" in sc:
            raise ScenarioError("the loader copies sbtest1: scenario %s needs an sbtest workload, not %s"
                                % (name, wl))
    else:
        if "warehouses" in given:
            raise ScenarioError("--warehouses only applies to a warehouse workload (%s)"
                                % ", ".join(WAREHOUSE_WORKLOADS))
        sc.pop("warehouses", None)
        if sc.get("tables") is None or sc.get("table_size") is None:
            raise ScenarioError("workload %s needs --tables and --table-size (scenario %s sizes its data in "
                                "warehouses)" % (wl, name))


def _check_load(sc):
    if sc["load_rows"] < 1 or sc["load_chunks"] < 1:
        raise ScenarioError("--load-rows and --load-chunks must be at least 1")
    if not sc["warmup"] < sc["load_at"] <= sc["duration"] - 5:
        raise ScenarioError("--load-at %d must be after the warm-up (%d s) and at least 5 s before the "
                            "end of the OLTP run (--duration %d)" % (sc["load_at"], sc["warmup"], sc["duration"]))
    if not sc.get("prealloc"):
        sc["prealloc"] = B.prealloc_bytes(sc["load_rows"])
    need = B.seed_rows(sc["load_rows"], sc["load_chunks"])
    if sc["table_size"] < need:
        raise ScenarioError("the loader's seed copies %d rows of sbtest1: --table-size must be at least "
                            "that (or raise --load-chunks)" % need)


def build_device(name, write_iops=None, read_iops=None, io_capacity=None, scenario_io_capacity=None,
                 config="lab"):
    """The device class `name` with the user's cap and io_capacity overrides.

    A cap of 0 removes it; io_capacity sets io_capacity_max to twice it;
    scenario_io_capacity (io_capacity, io_capacity_max) applies when the user
    gave none (the scenario's point is a given flushing configuration).
    config "stock": the caps only; io_capacity and io_capacity_max are None
    (the server's defaults), and the user's io_capacity is refused.
    """
    dev = copy.deepcopy(DEVICES[choose("device", name, DEVICES)])
    choose("config", config, CONFIGS)
    if config == "stock":
        if io_capacity:
            raise ScenarioError("--io-capacity: --config stock leaves innodb_io_capacity at the server's "
                                "default; use --config lab, or --set to change the stock configuration on "
                                "purpose")
        io_capacity = scenario_io_capacity = None
    for key, val in (("write_iops", write_iops), ("read_iops", read_iops)):
        if val is None:
            continue
        if val < 0:
            raise ScenarioError("--%s must be >= 0" % key.replace("_", "-"))
        if val:
            dev["caps"][key] = val
        else:
            dev["caps"].pop(key, None)
        dev["about"] += "; %s cap overridden to %s" % (key, val or "none")
    if io_capacity:
        dev["io_capacity"], dev["io_capacity_max"] = io_capacity, 2 * io_capacity
    elif scenario_io_capacity:
        dev["io_capacity"], dev["io_capacity_max"] = scenario_io_capacity
        dev["about"] += "; io_capacity %d/%d set by the scenario" % tuple(scenario_io_capacity)
    if config == "stock":
        dev["io_capacity"] = dev["io_capacity_max"] = None
    return dev

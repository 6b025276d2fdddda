"""bench/run --dry-run: the plan of a run and each server's my.cnf, printed;
nothing runs.  `a` is bench/run's parsed arguments with the run's derived
values (device, plan, set_at_for, redo_written_for, config_line)."""

import json
import shlex

from harness.server import render_cnf

from . import bulk_load as B
from . import phases
from . import set_at as SA

MiB = 1024 ** 2
GiB = 1024 ** 3


def human_size(n):
    if not isinstance(n, int):
        return str(n)
    if n % GiB == 0:
        return "%dG" % (n // GiB)
    if n % MiB == 0:
        return "%dM" % (n // MiB)
    return str(n)


def dry_run(a, sc, arms, extra_for):
    print("scenario %s, device %s: %s; caps %s" % (a.scenario_label, a.device, a.dev["about"],
                                                  json.dumps(a.dev["caps"])))
    print("settings: " + json.dumps({k: (human_size(v) if k in ("buffer_pool", "redo", "prealloc")
                                         and v is not None else v) for k, v in sc.items()}))
    print("loop images under %s; settle after prepare: %s; shutdown after the run: %s"
          % (a.image_dir, "none" if a.no_settle else "drain", a.shutdown))
    print(a.config_line)
    print("sysbench prepare: " + shlex.join(phases.prepare_cmd(sc, a.sysbench_args, "<tmp>/mysqld.sock")))
    if a.log_dev:
        print("redo and binary logs on their own loop device, %s: %s; caps %s" % (
            a.log_device, a.log_dev["about"], json.dumps(a.log_dev["caps"])))
    for i, (t, r, s) in enumerate(a.plan, 1):
        print("run %02d: %-15s %-7s threads=%d repeat=%d mysqld=%s" % (
            i, s.name, s.binaries.flavour, t, r, s.binaries.mysqld or "(missing)"))
    for s in arms:
        for second, k, v in a.set_at_for(s):
            print("at second %g of %s's runs: %s" % (second, s.name, SA.statement(k, v)))
        if a.redo_written_for(s):
            print("%s's redo files written through after initialising, before the first start" % s.name)
    if "load_rows" in sc:
        print("\nloader: at second %d of the OLTP run; seed table %s = %d rows of sbtest1 (made after "
              "prepare)" % (sc["load_at"], B.SEED_TABLE, B.seed_rows(sc["load_rows"], sc["load_chunks"])))
        scripts = {}    # one listing per distinct script
        for s in arms:
            sql = B.loader_sql(sc["load_rows"], sc["load_chunks"], sc["prealloc"] if s.prealloc else None,
                               s.binaries.flavour, sc["rebuild"])
            scripts.setdefault(sql, []).append(s.name)
        for sql, who in scripts.items():
            print("\n--- loader SQL for %s ---" % ", ".join(who))
            print(sql, end="")
    fake = {"datadir": "<loop>/data", "tmpdir": "<loop>/tmp", "socket": "<tmp>/mysqld.sock",
            "pidfile": "<tmp>/mysqld.pid", "errlog": "<results>/mysqld.err"}
    if a.log_dev:
        fake["logdir"] = "<log loop>/log"
    for s in arms:
        print("\n--- my.cnf for %s ---" % s.name)
        print(render_cnf(phases.server_options(s.binaries, sc, a.dev, fake, extra_for(s), a.config), "bench/run"),
              end="")
    return 0

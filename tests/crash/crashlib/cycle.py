"""One kill/restart cycle, --prealloc's scratch table, the cycle's line."""

import os
import shutil
import subprocess
import time

from .common import DB, PREALLOC_GTID_TAG, HarnessError
from .server import ServerDown
from .verify import check_table_problems
from .workload import LIVE_WORKERS, Worker
from .xa import XA_PREPARE_LEAD

# --prealloc: each table is preallocated before the run, and every other cycle
# starts a preallocation of a scratch table to PREALLOC_TARGET PREALLOC_LEAD
# seconds before the kill, and kills mysqld as soon as the scratch file has
# grown: with fallocate() the whole statement can take less than a second,
# so a kill at a fixed time would land after it. The scratch
# table is file-per-table in cycles 2, 6, 10, ... and in the general
# tablespace SCRATCH_TS in cycles 4, 8, 12, ... (a general tablespace is
# preallocated by its own name and never shrinks). The scratch table (and
# SCRATCH_TS) is dropped after the check, so the datadir does not grow per
# cycle.
PREALLOC_TABLE_SIZE = "64M"
PREALLOC_TARGET = 8 << 30
PREALLOC_LEAD = 0.7
SCRATCH_ROWS = 2000
SCRATCH_TS = "scratch_ts"


def scratch_in_general_ts(cycle):
    """Cycles whose scratch table lives in SCRATCH_TS."""
    return cycle % 4 == 0


def group_commit_counters(server):
    """(Binlog_commits, Binlog_group_commits) since the last start, or None
    where the server has no such counters (vanilla)."""
    try:
        rows = dict(server.sql("SHOW GLOBAL STATUS WHERE Variable_name IN "
                               "('Binlog_commits', 'Binlog_group_commits')"))
    except HarnessError:
        return None
    if len(rows) != 2:
        return None
    return int(rows["Binlog_commits"]), int(rows["Binlog_group_commits"])


def preallocate_tables(server, tables):
    server.sql(" ".join(f"ALTER TABLESPACE `{DB}/t{k}` SET EXTENT_SIZE = {PREALLOC_TABLE_SIZE};"
                        for k in range(1, tables + 1)))


def create_scratch(server, general):
    tag = f"SET gtid_next = 'AUTOMATIC:{PREALLOC_GTID_TAG}'; "
    server.sql(tag + f"DROP TABLE IF EXISTS {DB}.scratch")
    if general and not server.sql(f"SELECT 1 FROM information_schema.INNODB_TABLESPACES "
                                  f"WHERE NAME = '{SCRATCH_TS}'"):
        server.sql(tag + f"CREATE TABLESPACE {SCRATCH_TS} ADD DATAFILE '{SCRATCH_TS}.ibd'")
    server.sql(tag +
               f"SET SESSION cte_max_recursion_depth = {SCRATCH_ROWS + 1}; "
               f"CREATE TABLE {DB}.scratch (id INT NOT NULL PRIMARY KEY, pad CHAR(200) NOT NULL) "
               f"ENGINE=InnoDB{' TABLESPACE ' + SCRATCH_TS if general else ''}; "
               f"INSERT INTO {DB}.scratch WITH RECURSIVE n(i) AS "
               f"(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {SCRATCH_ROWS}) "
               f"SELECT i, REPEAT('s', 200) FROM n;")


def prealloc_target(datadir):
    """PREALLOC_TARGET, or less where the datadir's file system has less
    than twice that free: SET EXTENT_SIZE refuses (error 9502, before
    writing a byte) a growth that would leave less than
    innodb_extent_size_min_free_pct (5%) of the file system free."""
    free = shutil.disk_usage(datadir).free
    return min(PREALLOC_TARGET, max(64 << 20, free // 2 // (1 << 20) * (1 << 20)))


def scratch_file(datadir, general):
    """The scratch table's data file."""
    if general:
        return os.path.join(datadir, f"{SCRATCH_TS}.ibd")
    return os.path.join(datadir, DB, "scratch.ibd")


def file_size(path):
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def wait_for_growth(path, size, alter, deadline):
    """Until the file at `path` is larger than `size`, the statement `alter`
    has ended, or `deadline` (time.monotonic()) has passed."""
    while time.monotonic() < deadline and alter.poll() is None:
        if file_size(path) > size:
            return
        time.sleep(0.001)


def start_scratch_prealloc(server, general):
    name = SCRATCH_TS if general else f"`{DB}/scratch`"
    return subprocess.Popen(
        server.client_cmd() + ["-e", f"SET gtid_next = 'AUTOMATIC:{PREALLOC_GTID_TAG}'; "
                                     f"ALTER TABLESPACE {name} "
                                     f"SET EXTENT_SIZE = {prealloc_target(server.datadir)}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def scratch_problems(server, general):
    """After recovery the scratch table has all its rows and checks clean."""
    problems = []
    rows = server.sql(f"SELECT COUNT(*) FROM {DB}.scratch")[0][0]
    if rows != str(SCRATCH_ROWS):
        problems.append(f"PREALLOC: scratch table has {rows} rows, expected {SCRATCH_ROWS}")
    bad = check_table_problems(server.sql(f"CHECK TABLE {DB}.scratch"))
    if bad:
        problems.append("PREALLOC: CHECK TABLE scratch: " + "; ".join(" ".join(x) for x in bad[:3]))
    server.sql(f"SET gtid_next = 'AUTOMATIC:{PREALLOC_GTID_TAG}'; DROP TABLE {DB}.scratch")
    if general:
        server.sql(f"SET gtid_next = 'AUTOMATIC:{PREALLOC_GTID_TAG}'; DROP TABLESPACE {SCRATCH_TS}")
    return problems


def run_cycle(server, ledger, verifier, cycle, args, rng, errdir, home=None, recoverer=None,
              xa=None):
    """One cycle: the load on the server under test (`home`, a Build), the
    kill, recovery by `recoverer` (another Build, --recover-with) or by
    `home` again, every check, and with a recoverer a clean shutdown and
    `home` started again on the datadir for the next cycle. `xa` (an Xa):
    long-XID XA transactions committed under the load, a set left prepared
    just before the kill, listed and resolved after recovery."""
    general = scratch_in_general_ts(cycle)
    if args.prealloc and cycle % 2 == 0:
        create_scratch(server, general)
    workers = [Worker(server, ledger, cycle, t, args.tables, errdir)
               for t in range(1, args.threads + 1)]
    LIVE_WORKERS[:] = workers
    t0 = time.monotonic()
    for w in workers:
        w.start()
    run_for = rng.uniform(args.min_seconds, args.max_seconds)
    deadline = t0 + run_for

    def sleep_until(t):
        time.sleep(max(0.0, t - time.monotonic()))

    if xa is not None:
        xa.warmup(cycle)
    alter = None
    if args.prealloc and cycle % 2 == 0:
        lead = min(PREALLOC_LEAD, run_for / 2)
        sleep_until(deadline - lead)
        scratch = scratch_file(server.datadir, general)
        scratch_size = file_size(scratch)
        alter = start_scratch_prealloc(server, general)
        wait_for_growth(scratch, scratch_size, alter, deadline)
        deadline = time.monotonic()
    xa_prepared = 0
    if xa is not None:
        sleep_until(deadline - XA_PREPARE_LEAD)
        xa_prepared = xa.prepare(cycle)
    sleep_until(deadline)
    prealloc_running = alter is not None and alter.poll() is None
    group_commit = group_commit_counters(server)   # the cycle's, counters start at 0
    server.kill()   # first, so the load is running at the moment of the kill
    killed_after = time.monotonic() - t0
    for w in workers:
        w.killed.set()
    for w in workers:
        w.reap(60)
    LIVE_WORKERS.clear()
    harness = [f"thread {w.thread_no}: {w.problem}" for w in workers if w.problem]
    harness += [f"thread {w.thread_no}: {w.stopped[1]} {server.killed_at - w.stopped[0]:.3f}s "
                f"before the kill (see {w.err_path})"
                for w in workers if w.stopped and w.stopped[0] < server.killed_at]
    if recoverer is not None:
        verifier.scan()   # the log so far is the server under test's
        server.use(recoverer)
    recovery = server.start()
    r = verifier.verify(cycle)
    r.update(seconds=killed_after, recovery=recovery, prealloc="",
             binlog_commits=group_commit[0] if group_commit else "",
             binlog_groups=group_commit[1] if group_commit else "",
             recovered_by=server.label if recoverer is not None else "", back="",
             xa_prepared="", xa_listed="", xa_committed="", xa_rolledback="")
    if alter is not None:
        _, alter_err = alter.communicate(timeout=60)
        r["prealloc"] = ("during" if prealloc_running else "after") + \
            (" general" if general else "")
        if not prealloc_running and alter.returncode != 0:
            r["problems"].append(f"PREALLOC: the preallocation failed before the kill: "
                                 f"{alter_err.strip()}")
        r["problems"] += scratch_problems(server, general)
    if xa is not None:
        x = xa.check(cycle)
        r["problems"] += x.pop("problems")
        r.update(x)
        if x["xa_prepared"] != xa_prepared:
            r["problems"].append(f"XA: {xa_prepared} XA transactions prepared this cycle but "
                                 f"the ledger has {x['xa_prepared']} prepared")
    if harness:
        r["problems"].append("HARNESS: " + "; ".join(harness))
    if recoverer is not None and not r["problems"]:
        # The server under test again, on the datadir the recovering build
        # has written and shut down: the next cycle's load runs on it.
        if not server.shutdown():
            r["problems"].append(f"SHUTDOWN: {recoverer.label} did not shut down cleanly "
                                 f"after the recovery")
            return r
        verifier.scan()
        server.use(home)
        r["home"] = home.label
        try:
            r["back"] = server.start()
        except ServerDown as e:
            r["problems"].append(f"START: {home.label} did not start on the datadir "
                                 f"{recoverer.label} shut down: {e}")
    return r


def cycle_line(cycle, cycles, r):
    gt = "n/a" if r["gtids"] is None else f"{r['gtids']}"
    status = "OK" if not r["problems"] else "FAIL"
    by = f" by {r['recovered_by']}" if r.get("recovered_by") else ""
    back = f", {r['home']} back in {r['back']:.1f}s" if r.get("back", "") != "" else ""
    return (f"cycle {cycle}/{cycles}: killed after {r['seconds']:.1f}s, recovered{by} in "
            f"{r['recovery']:.1f}s{back}; sent {r['sent']} acked {r['acked']} "
            f"unacked {r['unacked']} (present {r['unacked_present']}, "
            f"absent {r['unacked'] - r['unacked_present']}); total complete {r['rows']} "
            f"gtids {gt}; lost {r['lost']} partial {r['partial']} "
            f"check-errors {r['check_errors']} log-errors {r['log_errors']}"
            f"{'; binlog group commit %s trx in %s groups' % (r['binlog_commits'], r['binlog_groups']) if r['binlog_groups'] != '' else ''}"
            f"{prealloc_part(r['prealloc'])}"
            f"{xa_part(r)}"
            f"  {status}")


def prealloc_part(prealloc):
    """'during' / 'after', with ' general' for a general tablespace."""
    if not prealloc:
        return ""
    where = " of a general tablespace" if prealloc.endswith(" general") else ""
    if prealloc.startswith("during"):
        return f"; killed during a preallocation{where}"
    return f"; preallocation{where} ended before the kill"


def xa_part(r):
    if r.get("xa_prepared", "") == "":
        return ""
    return (f"; XA prepared {r['xa_prepared']} listed {r['xa_listed']} "
            f"committed {r['xa_committed']} rolled back {r['xa_rolledback']}")


CSV_FIELDS = ["cycle", "seconds", "recovery", "sent", "acked", "unacked", "unacked_present",
              "rows", "gtids", "lost", "partial", "phantom", "vanished", "resurrected",
              "bad_rows", "check_errors", "log_errors", "prealloc", "binlog_commits",
              "binlog_groups", "recovered_by", "back", "xa_prepared", "xa_listed",
              "xa_committed", "xa_rolledback"]

"""--self-test: faults the verifier must report, each undone afterwards."""

import os
import shutil
import tempfile

from .common import CYCLE_MUL, DB, GTID_TAG, THREAD_MUL, log, payload_of
from .verify import check_table_problems, gtid_count, parse_gtid_set, scan_log
from .workload import Ledger
from .xa import XA_TABLE, Xid, XaLedger, compare_listing, parse_recover, prepared_shapes, xid_key


def self_test(server, ledger, verifier, cycle, tables, rng, xa=None):
    """Inject faults the verifier must report; each is undone afterwards.
    Returns a list of failures of the verifier (empty = it caught them all)."""
    failures = []
    nolog = "SET sql_log_bin = 0; "   # injections must not add GTIDs of their own

    def expect(name, r, want):
        got = {k: r[k] for k in want}
        ok = got == want and bool(r["problems"])
        log(f"self-test: {name}: verifier reported {got}, problems: "
            f"{r['problems'][0] if r['problems'] else 'none'}  {'OK' if ok else 'NOT DETECTED'}")
        if not ok:
            failures.append(name)

    def truncate(path, size):
        with open(path, "r+") as f:
            f.truncate(size)

    ledger.sent_f.flush()
    ledger.acked_f.flush()
    sent_size, acked_size = os.path.getsize(ledger.sent_path), os.path.getsize(ledger.acked_path)
    acked = sorted(Ledger.read(ledger.acked_path))
    if not acked:
        return ["no acknowledged transaction to work with"]

    # 1. A fabricated "lost commit": the log says a commit was acknowledged
    #    that is in no table.
    fake = (cycle + 1) * CYCLE_MUL + 9999 * THREAD_MUL + 1
    with open(ledger.sent_path, "a") as f:
        f.write(f"{fake}\n")
    with open(ledger.acked_path, "a") as f:
        f.write(f"{fake}\n")
    r = verifier.verify(cycle, commit_state=False)
    expect("fabricated lost commit in acked.log", r, {"lost": 1, "partial": 0})
    truncate(ledger.sent_path, sent_size)
    truncate(ledger.acked_path, acked_size)

    # 2. One row of one acknowledged transaction deleted: a partial transaction.
    victim = rng.choice(acked)
    k = rng.randint(1, tables)
    row = server.sql(f"SELECT id, cycle, thread, payload, pad FROM {DB}.t{k} WHERE id = {victim}")[0]
    server.sql(f"{nolog}DELETE FROM {DB}.t{k} WHERE id = {victim}")
    r = verifier.verify(cycle, commit_state=False)
    expect(f"row of acked trx {victim} deleted from t{k}", r, {"partial": 1, "lost": 0})
    server.sql(f"{nolog}INSERT INTO {DB}.t{k} VALUES ({row[0]}, {row[1]}, {row[2]}, '{row[3]}', '{row[4]}')")

    # 3. A complete transaction written without binlog: InnoDB and the binlog
    #    disagree, which only the GTID check can see.
    if verifier.server_uuid is not None:
        ghost = (cycle + 1) * CYCLE_MUL + 9998 * THREAD_MUL + 1
        with open(ledger.sent_path, "a") as f:
            f.write(f"{ghost}\n")
        vals = " ".join(
            f"INSERT INTO {DB}.t{j} VALUES ({ghost}, {cycle + 1}, 9998, '{payload_of(ghost, f't{j}')}', "
            f"REPEAT('{payload_of(ghost, f't{j}')}', 3));" for j in range(1, tables + 1))
        server.sql(f"{nolog}START TRANSACTION; {vals} COMMIT;")
        r = verifier.verify(cycle, commit_state=False)
        expect("complete trx committed without binlog/GTID", r,
               {"lost": 0, "partial": 0, "gtids": r["rows"] - 1})
        server.sql(f"{nolog}START TRANSACTION; " + " ".join(
            f"DELETE FROM {DB}.t{j} WHERE id = {ghost};" for j in range(1, tables + 1)) + " COMMIT;")
        truncate(ledger.sent_path, sent_size)

    # 4. The parsers and comparisons on fabricated input (no server needed).
    failures += offline_checks(server.workdir)

    # XA: the verifier must see an XID that comes back wrong.
    if xa is not None:
        failures += xa_faults(server, xa, cycle + 1)

    # 5. Everything undone: the verifier must be clean again.
    r = verifier.verify(cycle, commit_state=False)
    ok = not r["problems"]
    log(f"self-test: after undoing the injections the verifier is clean: "
        f"{'OK' if ok else 'NO: ' + '; '.join(r['problems'])}")
    if not ok:
        failures.append("clean after undo")
    return failures


def offline_checks(workdir=None):
    """The error-log scanner, the CHECK TABLE, gtid_executed and XA RECOVER
    parsers and the XA listing comparison on fabricated input: no server.
    Returns the checks that missed."""
    failures = []
    own = workdir is None
    if own:
        workdir = tempfile.mkdtemp(prefix="steady-crash-selftest-")
    fake_log = os.path.join(workdir, "fake-error.log")
    with open(fake_log, "w") as f:
        f.write("2026-01-01T00:00:00.000000Z 0 [System] [MY-010116] [Server] starting\n"
                "2026-01-01T00:00:00.000000Z 0 [ERROR] [MY-011906] [InnoDB] Database page "
                "corruption on disk or a failed file read of page [page id: space=5, page number=7]\n")
    _, bad = scan_log(fake_log, 0, [])
    ok = len(bad) == 1
    log(f"self-test: fabricated corruption line in an error log: scanner flagged {len(bad)} "
        f"line(s)  {'OK' if ok else 'NOT DETECTED'}")
    if not ok:
        failures.append("error-log scanner")
    bad = check_table_problems([["steady_crash.t1", "check", "Warning", "InnoDB: Index 'PRIMARY' is marked as corrupted"],
                                ["steady_crash.t1", "check", "error", "Corrupt"],
                                ["steady_crash.t2", "check", "status", "OK"]])
    ok = len(bad) == 2
    log(f"self-test: fabricated CHECK TABLE output with a corrupt table: {len(bad)} bad row(s)  "
        f"{'OK' if ok else 'NOT DETECTED'}")
    if not ok:
        failures.append("CHECK TABLE parser")

    # The GTID parser on a tagged set with a hole (what a lost binlog event
    # in the middle would look like).
    u = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
    sets = parse_gtid_set(f"{u}:1-3:{GTID_TAG.upper()}:1-5:7,\n"
                          "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:other:1-2")
    ok = sets.get((u, GTID_TAG)) == [(1, 5), (7, 7)] and gtid_count(sets[(u, "")]) == 3 \
        and len(sets) == 3
    log(f"self-test: GTID parser on a tagged set with a hole: {sets.get((u, GTID_TAG))}  "
        f"{'OK' if ok else 'WRONG'}")
    if not ok:
        failures.append("GTID parser")
    os.remove(fake_log)

    # XA RECOVER's batch output escapes NUL, tab, newline and backslash; the
    # data column is gtrid then bqual, told apart only by the lengths.
    g, bq = bytes([0x00, 0x09, 0x0a, 0x5c, 0xff, 0x27]), bytes([0x80, 0x5c, 0x30])
    raw = b"2147483647\t6\t3\t\\0\\t\\n\\\\\xff'\x80\\\\0\n"
    conv = b"2147483647\t6\t3\t0x" + (g + bq).hex().encode() + b"\n"
    want = (2147483647, 6, 3, g + bq)
    ok = parse_recover(raw, False) == [want] and parse_recover(conv, True) == [want]
    log(f"self-test: XA RECOVER parser on binary data with escapes: "
        f"{parse_recover(raw, False)}  {'OK' if ok else 'WRONG'}")
    if not ok:
        failures.append("XA RECOVER parser")
    # An XID that comes back wrong: a data byte, the gtrid/bqual split (same
    # bytes), the formatID, a longer XID's stale tail read as data.
    x = xid_key(Xid(2147483647, b"g" * 64, b"b" * 64))
    y = xid_key(Xid(1, b"a", b"b"))
    z = xid_key(Xid(0, b"\x00", b""))
    wrong = {"a data byte changed": (x, (x[0], x[1], x[2], x[3][:-1] + b"c")),
             "gtrid/bqual split moved": (y, (y[0], 2, 0, y[3])),
             "formatID changed": (x, (2147483646,) + x[1:]),
             "a longer XID's tail read as data": (z, (z[0], z[1], 64, z[3] + b"b" * 64))}
    for name, (good, bad) in wrong.items():
        P = compare_listing([x, y, z], [bad if k == good else k for k in (x, y, z)])
        ok = len(P) == 2 and compare_listing([x, y, z], [z, x, y]) == []
        log(f"self-test: XA listing with {name}: {P[0] if P else 'no problem reported'}  "
            f"{'OK' if ok else 'NOT DETECTED'}")
        if not ok:
            failures.append(f"XA listing: {name}")
    if own:
        shutil.rmtree(workdir, ignore_errors=True)
    return failures


def xa_faults(server, xa, cycle):
    """On the running server: prepare the XA set, then require the XA
    verifier to fail when the ledger expects each XID a little different
    from what the server holds (as if XA RECOVER had returned it wrong),
    and when a committed XA row is missing; then resolve them for real,
    which must be clean."""
    failures = []
    shapes = prepared_shapes(xa.rng, xa.mixed_format_ids)
    xa.prepare(cycle, shapes)
    with open(xa.ledger.path) as f:
        lines = f.read().splitlines()
    fake = os.path.join(server.workdir, "xa-fault.log")

    def tampered(n, change):
        # The n-th XID prepared just now, written into a copy of the ledger
        # with `change` applied.
        idx = [i for i, l in enumerate(lines) if l.startswith("sent ")][-len(shapes) + n]
        w = lines[idx].split()
        w[3:6] = change(w[3:6])
        with open(fake, "w") as f:
            f.write("\n".join(lines[:idx] + [" ".join(w)] + lines[idx + 1:]) + "\n")

    def flip_last(h):
        return h[:-2] + "%02x" % (int(h[-2:], 16) ^ 0x01)

    cases = [("one data byte of the 64+64-byte XID changed", 0,
              lambda f: [f[0], f[1], flip_last(f[2])]),
             ("the formatID of the 1-byte gtrid changed", 1,
              lambda f: ["1" if f[0] != "1" else "2", f[1], f[2]]),
             ("the gtrid/bqual split of the 1+1-byte XID moved", 2,
              lambda f: [f[0], f[1] + f[2], "-"]),
             ("the empty bqual of the 64+0-byte XID given a 64-byte tail", 4,
              lambda f: [f[0], f[1], "ab" * 64])]
    for name, n, change in cases:
        tampered(n, change)
        r = xa.check(cycle, resolve=False, ledger_path=fake)
        ok = len(r["problems"]) == 4   # missing and extra, in both listings
        log(f"self-test: XA RECOVER against a ledger with {name}: "
            f"{r['problems'][0] if r['problems'] else 'no problem reported'}  "
            f"{'OK' if ok else 'NOT DETECTED'}")
        if not ok:
            failures.append(f"XA: {name}")
    os.remove(fake)
    r = xa.check(cycle)
    ok = not r["problems"] and r["xa_committed"] + r["xa_rolledback"] == len(shapes)
    log(f"self-test: the same XIDs checked and resolved for real: committed "
        f"{r['xa_committed']} rolled back {r['xa_rolledback']}, "
        f"{'clean  OK' if ok else 'NO: ' + '; '.join(r['problems'])}")
    if not ok:
        failures.append("XA: clean after the faults")
    # A committed XA transaction's row gone.
    led = XaLedger.read(xa.ledger.path)
    victim = max(i for i, v in led.items() if v[2] == "committed")
    row = server.sql(f"SELECT id, cycle, fmt, HEX(gtrid), HEX(bqual), payload FROM {XA_TABLE} "
                     f"WHERE id = {victim}")[0]
    server.sql(f"SET sql_log_bin = 0; DELETE FROM {XA_TABLE} WHERE id = {victim}")
    P = xa.rows_problems()
    ok = len(P) == 1 and "missing" in P[0]
    log(f"self-test: committed XA row {victim} deleted: {P[0] if P else 'no problem reported'}  "
        f"{'OK' if ok else 'NOT DETECTED'}")
    if not ok:
        failures.append("XA: committed row missing")
    server.sql(f"SET sql_log_bin = 0; INSERT INTO {XA_TABLE} VALUES ({row[0]}, {row[1]}, {row[2]}, "
               f"X'{row[3]}', X'{row[4]}', '{row[5]}')")
    P = xa.rows_problems()
    if P:
        log(f"self-test: XA rows after undoing the deletion: {'; '.join(P)}  NOT CLEAN")
        failures.append("XA: rows clean after undo")
    return failures

"""--self-test: faults the verifier must report, each undone afterwards."""

import os

from .common import CYCLE_MUL, DB, GTID_TAG, THREAD_MUL, log, payload_of
from .verify import check_table_problems, gtid_count, parse_gtid_set, scan_log
from .workload import Ledger


def self_test(server, ledger, verifier, cycle, tables, rng):
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

    # 4. Error-log scanner and CHECK TABLE parser on fabricated input.
    fake_log = os.path.join(server.workdir, "fake-error.log")
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

    # 5. Everything undone: the verifier must be clean again.
    r = verifier.verify(cycle, commit_state=False)
    ok = not r["problems"]
    log(f"self-test: after undoing the injections the verifier is clean: "
        f"{'OK' if ok else 'NO: ' + '; '.join(r['problems'])}")
    if not ok:
        failures.append("clean after undo")
    return failures

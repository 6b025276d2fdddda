"""What is checked after every restart: the tables against the ledger,
CHECK TABLE, @@gtid_executed, the error log."""

import re

from .common import CYCLE_MUL, DB, GTID_TAG, PREALLOC_GTID_TAG, THREAD_MUL, XA_GTID_TAG
from .workload import Ledger

# Error-log lines that fail the run whatever their level.
FATAL_LOG = re.compile(
    r"Assertion failure|Assertion .* failed|Database page corruption|corrupt"
    r"|checksum mismatch|is in the future|got signal|\[FATAL\]|Fatal error",
    re.IGNORECASE,
)
# Any other [ERROR] line fails too unless it matches one of these (extend with
# --allow-log). Kept empty on purpose: a kill -9 restart of MySQL 9.7 logs no
# [ERROR] line, so any we see is worth a look. Each build's normal messages
# ([System], [Warning], [Note]: its version line, a --loose- option it does
# not know, prepared XA transactions found in recovery) pass as they are;
# where one build has a normal [ERROR] line the other has not, it goes in
# BENIGN_ERRORS_BY_BUILD under the build's label, and the log is scanned at
# every switch of builds, so each part is judged by the build that wrote it.
BENIGN_ERRORS = []
BENIGN_ERRORS_BY_BUILD = {"steady": [], "vanilla": []}
ERROR_LINE = re.compile(r"\[ERROR\]")


def parse_gtid_set(text):
    """Parse a gtid_executed string into {(uuid, tag): [(start, end), ...]}.
    Format (MySQL 8.3+): uuid[:intervals][:tag:intervals]..., entries joined by
    ','; an interval is N or N-M; untagged GTIDs have tag ''."""
    result = {}
    text = re.sub(r"\s+", "", text)
    if not text:
        return result
    for entry in text.split(","):
        tokens = entry.split(":")
        uuid, tag = tokens[0].lower(), ""
        for tok in tokens[1:]:
            m = re.fullmatch(r"(\d+)(?:-(\d+))?", tok)
            if m:
                a = int(m.group(1))
                b = int(m.group(2) or a)
                result.setdefault((uuid, tag), []).append((a, b))
            else:
                tag = tok.lower()
    return result


def gtid_count(intervals):
    return sum(b - a + 1 for a, b in intervals)


def check_table_problems(rows):
    """CHECK TABLE rows are (Table, Op, Msg_type, Msg_text); clean means every
    row says 'status OK'. Returns the rows that are not."""
    return [r for r in rows if len(r) < 4 or (r[2].lower(), r[3]) != ("status", "OK")]


def scan_log(path, start, allow, build=None):
    """Return (new offset, lines that fail the run) for what was appended to
    the error log since offset `start` (written by `build`, a label)."""
    allow = BENIGN_ERRORS_BY_BUILD.get(build, []) + list(allow)
    bad = []
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read()
    for line in data.decode(errors="replace").splitlines():
        if FATAL_LOG.search(line):
            bad.append(line)
        elif ERROR_LINE.search(line) and not any(re.search(p, line) for p in BENIGN_ERRORS + allow):
            bad.append(line)
    return start + len(data), bad


class Verifier:
    def __init__(self, server, ledger, tables, allow_log):
        self.server, self.ledger, self.tables = server, ledger, tables
        self.allow_log = allow_log
        self.log_offset = 0
        self.log_bad = []            # (build, line) scanned but not yet reported
        self.seen_complete = set()   # complete at some verification: must stay so
        self.seen_absent = set()     # unacked, absent after recovery: must stay so
        self.other_gtids = None      # untagged GTID count after setup (DDL only)
        self.server_uuid = None

    def baseline(self):
        if self.server.b.flavour != "mysql":
            return
        self.server_uuid = self.server.sql("SELECT @@server_uuid")[0][0].lower()
        self.other_gtids = self._gtids()[1]

    def _gtids(self):
        text = self.server.sql("SELECT REPLACE(@@GLOBAL.gtid_executed, '\\n', '')")[0][0]
        sets = parse_gtid_set(text)
        ours = sets.get((self.server_uuid, GTID_TAG), [])
        own_tags = {(self.server_uuid, t) for t in (GTID_TAG, PREALLOC_GTID_TAG, XA_GTID_TAG)}
        others = sum(gtid_count(v) for k, v in sets.items() if k not in own_tags)
        return ours, others

    def scan(self):
        """Scan the error log up to now as written by the build running (or
        last run) on the datadir; verify() reports what was found. Called
        before another build starts on the datadir."""
        self.log_offset, bad = scan_log(self.server.errlog, self.log_offset, self.allow_log,
                                        self.server.label)
        self.log_bad += [(self.server.label, line) for line in bad]

    def verify(self, cycle, commit_state=True):
        """Check the datadir against the ledger files. Returns a dict of
        counts; r['problems'] lists every failure in words."""
        s = self.server
        sent = Ledger.read(self.ledger.sent_path)
        acked = Ledger.read(self.ledger.acked_path)
        ids = []
        for k in range(1, self.tables + 1):
            ids.append({int(r[0]) for r in s.sql(f"SELECT id FROM {DB}.t{k}")})
        present = set().union(*ids)
        complete = set.intersection(*ids)
        partial = present - complete
        lost = acked - present
        phantom = present - sent
        vanished = self.seen_complete - complete - lost
        resurrected = self.seen_absent & present
        bad_rows = 0
        for k in range(1, self.tables + 1):
            bad_rows += int(s.sql(
                f"SELECT COUNT(*) FROM {DB}.t{k} WHERE CAST(payload AS BINARY) <> CAST(SHA2(CONCAT(id, ':t{k}'), 256) AS BINARY) "
                f"OR pad <> REPEAT(payload, 3) OR cycle <> id DIV {CYCLE_MUL} "
                f"OR thread <> (id MOD {CYCLE_MUL}) DIV {THREAD_MUL}")[0][0])
        check_rows = s.sql("CHECK TABLE " + ", ".join(f"{DB}.t{k}" for k in range(1, self.tables + 1)))
        check_bad = check_table_problems(check_rows)

        r = {"rows": len(complete), "lost": len(lost), "partial": len(partial),
             "phantom": len(phantom), "vanished": len(vanished),
             "resurrected": len(resurrected), "bad_rows": bad_rows,
             "check_errors": len(check_bad), "problems": [],
             "acked_total": len(acked), "sent_total": len(sent)}
        # This cycle's figures: ids carry their cycle number.
        lo, hi = cycle * CYCLE_MUL, (cycle + 1) * CYCLE_MUL
        sent_c = {i for i in sent if lo <= i < hi}
        acked_c = {i for i in acked if lo <= i < hi}
        unacked_c = sent_c - acked_c
        r.update(sent=len(sent_c), acked=len(acked_c), unacked=len(unacked_c),
                 unacked_present=len(unacked_c & complete))

        P = r["problems"]

        def some(xs):
            xs = sorted(xs)
            return ", ".join(map(str, xs[:5])) + (" ..." if len(xs) > 5 else "")

        if lost:
            P.append(f"LOST: {len(lost)} acknowledged transaction(s) absent from every table: {some(lost)}")
        if partial:
            detail = []
            for i in sorted(partial)[:5]:
                missing = [f"t{k + 1}" for k in range(self.tables) if i not in ids[k]]
                tag = "acked" if i in acked else "unacked"
                detail.append(f"{i} ({tag}, missing from {','.join(missing)})")
            P.append(f"PARTIAL: {len(partial)} transaction(s) present in some tables only: "
                     + "; ".join(detail) + (" ..." if len(partial) > 5 else ""))
        if phantom:
            P.append(f"PHANTOM: {len(phantom)} row id(s) the clients never sent: {some(phantom)}")
        if vanished:
            P.append(f"VANISHED: {len(vanished)} transaction(s) complete after an earlier "
                     f"recovery are no longer complete: {some(vanished)}")
        if resurrected:
            P.append(f"RESURRECTED: {len(resurrected)} transaction(s) absent after an earlier "
                     f"recovery are present now: {some(resurrected)}")
        if bad_rows:
            P.append(f"BAD ROWS: {bad_rows} row(s) whose content does not match their id")
        if check_bad:
            P.append("CHECK TABLE: " + "; ".join(" ".join(x) for x in check_bad[:5]))

        # GTIDs. Every workload transaction commits under gtid_next =
        # AUTOMATIC:steadycrash, the harness commits nothing else with that tag,
        # and the verifier writes nothing. After recovery MySQL rebuilds
        # gtid_executed from the binlog, and InnoDB commits a prepared
        # transaction only if the binlog has it. So binlog and InnoDB agree
        # exactly when #GTIDs tagged steadycrash == #transactions complete in
        # the tables, and when the GTIDs of every other tag are unchanged since
        # setup. The tagged set must also be one interval 1-N: numbers are
        # handed out in binlog order and a crash only cuts the binlog's tail.
        if self.server_uuid is not None:
            ours, others = self._gtids()
            n = gtid_count(ours)
            r["gtids"] = n
            if n != len(complete):
                P.append(f"GTID: @@gtid_executed has {n} GTIDs {self.server_uuid}:{GTID_TAG} "
                         f"but {len(complete)} transactions are complete in the tables")
            if ours and (len(ours) != 1 or ours[0][0] != 1):
                P.append(f"GTID: {GTID_TAG} GTIDs are not one interval from 1: {ours[:5]}")
            if others != self.other_gtids:
                P.append(f"GTID: other GTIDs changed from {self.other_gtids} to {others}")
        else:
            r["gtids"] = None

        self.scan()
        bad_log, self.log_bad = self.log_bad, []
        r["log_errors"] = len(bad_log)
        if bad_log:
            P.append("ERROR LOG: " + " | ".join(f"({b}) {l.strip()}" for b, l in bad_log[:5]))

        if commit_state and not P:
            self.seen_complete |= complete
            self.seen_absent |= (sent - acked) - present
        return r

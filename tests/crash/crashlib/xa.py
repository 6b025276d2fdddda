"""--xa: XA transactions left prepared at the kill, listed and resolved
after recovery.

Every cycle, on the server under test and under the load:
  1. XA_WARMUP (--xa-warmup) XA transactions with 64-byte gtrids and
     64-byte bquals are prepared and committed, so many undo log headers
     (cached and reused by later transactions) have held a 128-byte XID;
  2. shortly before the kill, XA_SHAPES transactions are prepared and left
     prepared (detached: xa_detach_on_prepare), with XIDs of every length
     from a 1-byte gtrid with an empty bqual to 64 + 64 bytes with formatID
     2147483647, in binary bytes (NUL, tab, newline, backslash, quote, 0xff).
Each inserts one row into steady_crash.xa that carries its XID and a
payload. The XA ledger (xa.log) knows each one as sent, prepared
(XA PREPARE acknowledged), then committed or rolled back (acknowledged).

After recovery (by the recovering build, --recover-with), XA RECOVER and
XA RECOVER CONVERT XID must list exactly the prepared, unresolved XIDs:
formatID, gtrid_length, bqual_length and data byte for byte. Then half are
committed and half rolled back (which half alternates per cycle), and the
rows must agree: committed present with their XID and payload, rolled back
and never prepared absent, nothing the ledger does not know. The GTIDs
tagged steadyxa must number one per acknowledged XA PREPARE, COMMIT and
ROLLBACK (each is its own binary log transaction).

Patch 0013 logs only the used bytes of an XID in the undo log header; the
rest of the 128-byte field keeps what the page held, a longer XID's tail
where the header was reused. Readers use only gtrid_length + bqual_length
bytes; these checks are where a reader that does not (on either build)
would show.
"""

import os
import subprocess
from collections import namedtuple

from .common import CYCLE_MUL, DB, XA_GTID_TAG, HarnessError, payload_of
from .verify import check_table_problems, gtid_count, parse_gtid_set

XA_TABLE = f"{DB}.xa"
XA_WARMUP = 64          # long-XID XA transactions committed per cycle
XA_PREPARE_LEAD = 0.3   # seconds between the prepared set and the kill
MAX_FORMAT_ID = 2147483647

Xid = namedtuple("Xid", "fmt gtrid bqual")


def xid_key(x):
    """What XA RECOVER shows of an XID: (formatID, gtrid_length,
    bqual_length, data)."""
    return (x.fmt, len(x.gtrid), len(x.bqual), x.gtrid + x.bqual)


def xid_sql(x):
    """The XID as XA statements take it, in hex literals (X'' is empty)."""
    return f"X'{x.gtrid.hex()}', X'{x.bqual.hex()}', {x.fmt}"


def show_key(k, full=False):
    fmt, gl, bl, data = k
    shown = data.hex() if full or len(data) <= 32 else f"{data[:16].hex()}..{data[-8:].hex()}"
    return f"formatID {fmt} gtrid_length {gl} bqual_length {bl} data 0x{shown}"


# Bytes a binary XID must survive: NUL, tab, newline and backslash (escaped
# by the client's batch output), quotes, and bytes that are not UTF-8.
AWKWARD = bytes([0x00, 0x09, 0x0a, 0x5c, 0x27, 0x22, 0xff, 0x80, 0xc3])


def _bytes(rng, n, awkward=True):
    b = bytearray(rng.randrange(256) for _ in range(n))
    if awkward and n >= len(AWKWARD) + 2:
        at = rng.randrange(1, n - len(AWKWARD))
        b[at:at + len(AWKWARD)] = AWKWARD
    return bytes(b)


# --xa-mixed-format-ids: the formatIDs of the six prepared XIDs. Without it
# every XID has formatID 2147483647. Stock 9.7.2's binlog crash recovery
# keeps the binlog's XA transactions in a std::map<XID, state> ordered by
# xid_t::operator< (sql/xa.cc), which returns true for a smaller formatID
# but never false for a larger one, so with several formatIDs in one binlog
# the map is not ordered and a lookup can miss a prepared XID that InnoDB
# reports: recovery then rolls back an XA transaction whose XA PREPARE is in
# the binlog. That fails on stock and Steady alike, and is not what --xa is
# for; the option keeps the case at hand.
MIXED_FORMAT_IDS = [MAX_FORMAT_ID, 0, 1, 1, 7, MAX_FORMAT_ID - 1]


def prepared_shapes(rng, mixed_format_ids=False):
    """The XIDs left prepared at the kill: every length class once."""
    f = MIXED_FORMAT_IDS if mixed_format_ids else [MAX_FORMAT_ID] * 6
    return [
        Xid(f[0], _bytes(rng, 64), _bytes(rng, 64)),     # the whole 128 bytes
        Xid(f[1], b"\x00", b""),                         # 1-byte gtrid, empty bqual
        Xid(f[2], _bytes(rng, 1, False), _bytes(rng, 1, False)),   # 1 + 1
        Xid(f[3], b"steady-" + _bytes(rng, 13), b""),    # 20 bytes, the binlog's size
        Xid(f[4], _bytes(rng, 64), b""),                 # 64, empty bqual
        Xid(f[5], _bytes(rng, 3, False), _bytes(rng, 64)),   # 3 + 64
    ]


def warmup_xid(rng):
    return Xid(MAX_FORMAT_ID, _bytes(rng, 64), _bytes(rng, 64))


class XaLedger:
    """Append-only: `sent ID CYCLE FMT GTRID BQUAL` (hex, '-' for empty)
    before XA START, then `prepared ID`, `committed ID`, `rolledback ID` once
    the statement was acknowledged. The verifier reads the file."""

    def __init__(self, workdir):
        self.path = os.path.join(workdir, "xa.log")
        self.f = open(self.path, "a")

    def write(self, *fields):
        self.f.write(" ".join(str(x) for x in fields) + "\n")
        self.f.flush()

    def sent(self, xa_id, cycle, x):
        self.write("sent", xa_id, cycle, x.fmt, x.gtrid.hex() or "-", x.bqual.hex() or "-")

    def close(self):
        self.f.close()

    @staticmethod
    def read(path):
        """{id: [Xid, cycle, state]} with state sent, prepared, committed or
        rolledback (the last event)."""
        out = {}
        with open(path) as f:
            for line in f:
                w = line.split()
                if not w:
                    continue
                if w[0] == "sent":
                    g, b = (bytes.fromhex("" if h == "-" else h) for h in w[4:6])
                    out[int(w[1])] = [Xid(int(w[3]), g, b), int(w[2]), "sent"]
                else:
                    out[int(w[1])][2] = w[0]
        return out


def unescape_batch(field):
    """A field of the mysql client's --batch output (not --raw) as bytes: it
    writes NUL, tab, newline and backslash as \\0 \\t \\n \\\\."""
    out, i = bytearray(), 0
    esc = {ord("0"): 0, ord("t"): 9, ord("n"): 10, ord("\\"): 92}
    while i < len(field):
        c = field[i]
        if c == 92 and i + 1 < len(field) and field[i + 1] in esc:
            out.append(esc[field[i + 1]])
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


def parse_recover(stdout, convert):
    """XA RECOVER rows (bytes, batch output without column names) as
    [(formatID, gtrid_length, bqual_length, data bytes)]. CONVERT XID shows
    the data as 0x and hex digits."""
    rows = []
    for line in stdout.split(b"\n"):
        if not line:
            continue
        f = line.split(b"\t")
        if len(f) != 4:
            raise HarnessError(f"XA RECOVER: unexpected row {line!r}")
        data = unescape_batch(f[3])
        if convert:
            if not data.startswith(b"0x"):
                raise HarnessError(f"XA RECOVER CONVERT XID: data not in hex: {line!r}")
            data = bytes.fromhex(data[2:].decode())
        rows.append((int(f[0]), int(f[1]), int(f[2]), data))
    return rows


def compare_listing(expected, listed, what="XA RECOVER"):
    """Problems (in words) where `listed` (rows of XA RECOVER) is not exactly
    `expected` (a list of XID keys)."""
    P = []
    want = sorted(expected)
    got = sorted(listed)
    missing = [k for k in want if k not in got]
    extra = [k for k in got if k not in want]
    for k, v in ((k, got.count(k)) for k in set(got)):
        if v > 1:
            P.append(f"XA: {what} lists {v} times: {show_key(k)}")
    if missing:
        P.append(f"XA: {len(missing)} prepared XID(s) not in {what}: "
                 + "; ".join(show_key(k) for k in missing[:3]))
    if extra:
        P.append(f"XA: {len(extra)} XID(s) in {what} that were not left prepared: "
                 + "; ".join(show_key(k) for k in extra[:3]))
    return P


class Xa:
    """The XA part of a cycle, on the server running at the time."""

    def __init__(self, server, ledger, rng, warmup=XA_WARMUP, mixed_format_ids=False):
        self.server, self.ledger, self.rng, self.warmup_n = server, ledger, rng, warmup
        self.mixed_format_ids = mixed_format_ids

    @staticmethod
    def create_table(server):
        server.sql(f"CREATE TABLE {XA_TABLE} (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, "
                   f"cycle INT UNSIGNED NOT NULL, fmt BIGINT NOT NULL, "
                   f"gtrid VARBINARY(64) NOT NULL, bqual VARBINARY(64) NOT NULL, "
                   f"payload CHAR(64) NOT NULL) ENGINE=InnoDB DEFAULT CHARSET=ascii")

    def _next_id(self, cycle):
        ids = [i for i in XaLedger.read(self.ledger.path) if cycle * CYCLE_MUL <= i < (cycle + 1) * CYCLE_MUL]
        return max(ids, default=cycle * CYCLE_MUL) + 1

    def _run(self, xas, commit):
        """Start, insert, end and prepare each of `xas` ([(id, cycle, Xid)]),
        then XA COMMIT it too if `commit`, in one client session. Ledger
        events are written as each statement's ACK line is read."""
        head = (f"SET SESSION xa_detach_on_prepare = ON; "
                f"SET gtid_next = 'AUTOMATIC:{XA_GTID_TAG}';\n")
        lines = [head]
        for xa_id, cycle, x in xas:
            self.ledger.sent(xa_id, cycle, x)
            pl = payload_of(xa_id, "xa")
            lines.append(f"XA START {xid_sql(x)}; INSERT INTO {XA_TABLE} VALUES ({xa_id}, {cycle}, "
                         f"{x.fmt}, X'{x.gtrid.hex()}', X'{x.bqual.hex()}', '{pl}'); "
                         f"XA END {xid_sql(x)}; XA PREPARE {xid_sql(x)}; "
                         f"SELECT 'ACK', 'prepared', {xa_id};\n")
            if commit:
                lines.append(f"XA COMMIT {xid_sql(x)}; SELECT 'ACK', 'committed', {xa_id};\n")
        p = subprocess.run(self.server.client_cmd(), input="".join(lines), capture_output=True,
                           text=True)
        for line in p.stdout.splitlines():
            f = line.split()
            if len(f) == 3 and f[0] == "ACK":
                self.ledger.write(f[1], f[2])
        if p.returncode != 0:
            raise HarnessError(f"XA transactions failed on {self.server.label}: {p.stderr.strip()}")

    def warmup(self, cycle):
        """Long XIDs (64 + 64 bytes) into undo log headers: prepared and committed."""
        first = self._next_id(cycle)
        self._run([(first + n, cycle, warmup_xid(self.rng)) for n in range(self.warmup_n)], True)

    def prepare(self, cycle, shapes=None):
        """Prepare the XA_SHAPES XIDs and leave them prepared; returns how many."""
        first = self._next_id(cycle)
        shapes = shapes if shapes is not None else prepared_shapes(self.rng, self.mixed_format_ids)
        self._run([(first + n, cycle, x) for n, x in enumerate(shapes)], False)
        return len(shapes)

    def listing(self):
        """(XA RECOVER rows, XA RECOVER CONVERT XID rows)."""
        out = []
        for convert in (False, True):
            stmt = "XA RECOVER CONVERT XID" if convert else "XA RECOVER"
            p = subprocess.run(self.server.client_cmd() + ["--skip-binary-as-hex", "-e", stmt],
                               capture_output=True)
            if p.returncode != 0:
                raise HarnessError(f"{stmt} failed: {p.stderr.decode(errors='replace').strip()}")
            out.append(parse_recover(p.stdout, convert))
        return out

    def check(self, cycle, resolve=True, ledger_path=None):
        """After a recovery: the listing, then (if `resolve`) commit half and
        roll back half, then the rows and GTIDs. Returns a dict with
        problems; ledger_path (self-test) reads another ledger file."""
        led = XaLedger.read(ledger_path or self.ledger.path)
        pending = {i: v for i, v in led.items() if v[2] == "prepared"}
        expected = [xid_key(v[0]) for v in pending.values()]
        raw, conv = self.listing()
        P = compare_listing(expected, raw, "XA RECOVER")
        P += compare_listing(expected, conv, "XA RECOVER CONVERT XID")
        r = {"xa_prepared": len(pending), "xa_listed": len(raw), "xa_committed": 0,
             "xa_rolledback": 0, "problems": P}
        if not resolve:
            return r
        listed = set(raw)
        for n, (xa_id, (x, _, _)) in enumerate(sorted(pending.items())):
            if xid_key(x) not in listed:
                continue   # reported above; XA COMMIT would fail with XAER_NOTA
            how = "COMMIT" if (n + cycle) % 2 == 0 else "ROLLBACK"
            self.server.sql(f"SET gtid_next = 'AUTOMATIC:{XA_GTID_TAG}'; XA {how} {xid_sql(x)}")
            self.ledger.write("committed" if how == "COMMIT" else "rolledback", xa_id)
            r["xa_committed" if how == "COMMIT" else "xa_rolledback"] += 1
        left = self.listing()[0]
        if left:
            P.append(f"XA: {len(left)} XID(s) still prepared after XA COMMIT/ROLLBACK: "
                     + "; ".join(show_key(k) for k in left[:3]))
        P += self.rows_problems()
        return r

    def rows_problems(self, ledger_path=None):
        """The xa table against the ledger, its CHECK TABLE, its GTIDs."""
        s = self.server
        led = XaLedger.read(ledger_path or self.ledger.path)
        rows = {int(r[0]): r for r in s.sql(
            f"SELECT id, cycle, fmt, HEX(gtrid), HEX(bqual), payload FROM {XA_TABLE}")}
        P = []
        state = {i: v[2] for i, v in led.items()}
        missing = sorted(i for i, st in state.items() if st == "committed" and i not in rows)
        present = sorted(i for i, st in state.items() if st in ("rolledback", "prepared") and i in rows)
        phantom = sorted(i for i in rows if i not in state)
        bad = []
        for i, row in rows.items():
            if i in led:
                x, cycle, _ = led[i]
                if row[1:] != [str(cycle), str(x.fmt), x.gtrid.hex().upper(), x.bqual.hex().upper(),
                               payload_of(i, "xa")]:
                    bad.append(i)
        if missing:
            P.append(f"XA: {len(missing)} committed XA transaction(s) missing: {missing[:5]}")
        if present:
            P.append(f"XA: {len(present)} rolled back or uncommitted XA transaction(s) visible: "
                     f"{present[:5]}")
        if phantom:
            P.append(f"XA: {len(phantom)} xa row(s) the ledger does not know: {phantom[:5]}")
        if bad:
            P.append(f"XA: {len(bad)} xa row(s) whose XID or payload does not match: {bad[:5]}")
        check_bad = check_table_problems(s.sql(f"CHECK TABLE {XA_TABLE}"))
        if check_bad:
            P.append("XA: CHECK TABLE: " + "; ".join(" ".join(x) for x in check_bad[:3]))
        if s.b.flavour == "mysql":
            # One GTID per acknowledged XA PREPARE, COMMIT and ROLLBACK: each
            # is its own binlog transaction. A prepare sent but not
            # acknowledged (only if the harness failed) may or may not be.
            uuid = s.sql("SELECT @@server_uuid")[0][0].lower()
            text = s.sql("SELECT REPLACE(@@GLOBAL.gtid_executed, '\\n', '')")[0][0]
            n = gtid_count(parse_gtid_set(text).get((uuid, XA_GTID_TAG), []))
            want = sum({"sent": 0, "prepared": 1}.get(st, 2) for st in state.values())
            unsure = sum(1 for st in state.values() if st == "sent")
            if not want <= n <= want + unsure:
                P.append(f"XA: @@gtid_executed has {n} GTIDs tagged {XA_GTID_TAG}, the XA ledger "
                         f"{want} acknowledged XA PREPARE/COMMIT/ROLLBACK statements"
                         + (f" (+{unsure} unacknowledged)" if unsure else ""))
        return P

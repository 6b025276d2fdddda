"""The load: the ledger of what the clients sent and saw acknowledged, and
the client threads that write it."""

import os
import subprocess
import threading
import time

from .common import CYCLE_MUL, DB, GTID_TAG, THREAD_MUL, payload_of

LIVE_WORKERS = []   # reaped by main() if a cycle is interrupted


class Ledger:
    """Append-only record of what the clients sent and saw acknowledged. The
    verifier reads these files, not the workers' memory, so a fabricated log
    can be fed to it (see --self-test)."""

    def __init__(self, workdir):
        self.sent_path = os.path.join(workdir, "sent.log")
        self.acked_path = os.path.join(workdir, "acked.log")
        self.lock = threading.Lock()
        self.sent_f = open(self.sent_path, "a")
        self.acked_f = open(self.acked_path, "a")

    def sent(self, trx_id):
        with self.lock:
            self.sent_f.write(f"{trx_id}\n")
            self.sent_f.flush()

    def acked(self, trx_id):
        with self.lock:
            self.acked_f.write(f"{trx_id}\n")
            self.acked_f.flush()

    def close(self):
        self.sent_f.close()
        self.acked_f.close()

    @staticmethod
    def read(path):
        with open(path) as f:
            return {int(line) for line in f if line.strip()}


class Worker(threading.Thread):
    """One persistent `mysql` client reading SQL from our pipe. Each transaction
    is one line: the inserts, COMMIT, then SELECT 'ACK'. The client (batch mode,
    no --force, no reconnect) stops at the first error, so an ACK line proves the
    COMMIT returned success to the client. A COMMIT whose reply is lost in the
    kill prints no ACK and stays unacknowledged: present or absent, never half."""

    def __init__(self, server, ledger, cycle, thread_no, tables, errdir):
        super().__init__(daemon=True)
        self.server, self.ledger = server, ledger
        self.cycle, self.thread_no, self.tables = cycle, thread_no, tables
        self.err_path = os.path.join(errdir, f"client-c{cycle}-t{thread_no}.err")
        self.proc = None
        self.n_sent = self.n_acked = 0
        self.problem = None        # harness-level error
        self.stopped = None        # (monotonic time, why) the client went away
        self.killed = threading.Event()

    def tx_sql(self, trx_id):
        parts = ["START TRANSACTION;"]
        for k in range(1, self.tables + 1):
            pl = payload_of(trx_id, f"t{k}")
            parts.append(f"INSERT INTO {DB}.t{k} (id, cycle, thread, payload, pad) VALUES "
                         f"({trx_id}, {self.cycle}, {self.thread_no}, '{pl}', REPEAT('{pl}', 3));")
        parts.append(f"COMMIT; SELECT 'ACK', {trx_id}, CONNECTION_ID();\n")
        return " ".join(parts)

    def run(self):
        err = open(self.err_path, "w")
        try:
            self.proc = subprocess.Popen(self.server.client_cmd() + ["--unbuffered"],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, text=True, bufsize=1)
        finally:
            err.close()
        p = self.proc
        try:
            setup = "SELECT 'HELLO', CONNECTION_ID();\n"
            if self.server.b.flavour == "mysql":
                setup = f"SET gtid_next = 'AUTOMATIC:{GTID_TAG}'; " + setup
            p.stdin.write(setup)
            p.stdin.flush()
            hello = p.stdout.readline().split()
            if len(hello) != 2 or hello[0] != "HELLO":
                self._stopped("session setup failed")
                return
            conn_id = hello[1]
            seq = 0
            while not self.killed.is_set():
                seq += 1
                trx_id = self.cycle * CYCLE_MUL + self.thread_no * THREAD_MUL + seq
                self.ledger.sent(trx_id)   # recorded before it can reach the server
                self.n_sent += 1
                p.stdin.write(self.tx_sql(trx_id))
                p.stdin.flush()
                line = p.stdout.readline()
                if not line:
                    self._stopped("client exited")
                    return
                f = line.split()
                if len(f) != 3 or f[0] != "ACK" or f[1] != str(trx_id) or f[2] != conn_id:
                    self.problem = f"unexpected client output {line.strip()!r} for trx {trx_id}"
                    return
                self.ledger.acked(trx_id)
                self.n_acked += 1
        except (BrokenPipeError, OSError):
            self._stopped("pipe closed")
        finally:
            try:
                p.stdin.close()
            except OSError:
                pass

    def _stopped(self, why):
        # Expected once mysqld is killed; run_cycle() compares the time with
        # the moment the SIGKILL was sent and calls it a problem if earlier.
        self.stopped = (time.monotonic(), why)

    def reap(self, timeout):
        self.join(timeout)
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
        if self.proc:
            self.proc.wait()
            if self.proc.stdout:
                self.proc.stdout.close()
        self.join(5)


def create_schema(server, tables):
    stmts = [f"CREATE DATABASE {DB};"]
    for k in range(1, tables + 1):
        stmts.append(
            f"CREATE TABLE {DB}.t{k} (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, "
            f"cycle INT UNSIGNED NOT NULL, thread INT UNSIGNED NOT NULL, "
            f"payload CHAR(64) NOT NULL, pad VARCHAR(255) NOT NULL, "
            f"KEY cycle_thread (cycle, thread)) ENGINE=InnoDB DEFAULT CHARSET=ascii;")
    server.sql(" ".join(stmts))

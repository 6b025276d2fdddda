"""SHOW ENGINE INNODB STATUS at a measured run's end (bench/run's
runs/<run>/innodb_status.txt): counters the server keeps since it started
(device pacing's checkpoints requested, pages not kept, rounds left to
upstream) are read there after the run.  Values in, a file out; talks to
the server through a harness Sql."""

import os
import subprocess


def engine_status_text(out):
    """The status text of SHOW ENGINE INNODB STATUS from the client's batch
    output (Type, Name, Status; newlines and tabs escaped), or None."""
    if not out:
        return None
    fields = out.rstrip("\n").split("\t", 2)
    if len(fields) < 3:
        return None
    unescape = {"n": "\n", "t": "\t", "\\": "\\", "0": "\0"}
    text, i, raw = [], 0, fields[2]
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw) and raw[i + 1] in unescape:
            text.append(unescape[raw[i + 1]])
            i += 2
        else:
            text.append(raw[i])
            i += 1
    return "".join(text)


def save_engine_status(sql, rundir):
    """SHOW ENGINE INNODB STATUS at the measured run's end, as
    innodb_status.txt: counters kept since the server started (device
    pacing's checkpoints requested, pages not kept, rounds left to
    upstream) are read there. Returns whether it was saved; a server that
    does not answer leaves no file, and the run goes on."""
    try:
        text = engine_status_text(sql.query("SHOW ENGINE INNODB STATUS", check=False))
    except subprocess.TimeoutExpired:
        text = None
    if text is None:
        return False
    with open(os.path.join(rundir, "innodb_status.txt"), "w") as f:
        f.write(text)
    return True

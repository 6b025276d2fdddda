"""Processes: run a command, start one in its own session, know it by pid
and start time, read its CPU ticks, show the tail of its log."""

import datetime
import os
import shlex
import subprocess


def log(msg, tag="bench"):
    """One timestamped progress line on stdout."""
    stamp = datetime.datetime.now().strftime("%H:%M:%S")
    print("[%s %s] %s" % (tag, stamp, msg), flush=True)


def run_cmd(cmd, check=True, timeout=None, **kw):
    """subprocess.run with captured text output; raise with the output on error.
    A command that is not installed is an error too, or, with check=False,
    exit status 127 and a line saying so (as a shell would)."""
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=timeout, **kw)
    except FileNotFoundError:
        if check:
            raise RuntimeError("%s failed: %s is not installed" % (shlex.join(cmd), cmd[0]))
        return subprocess.CompletedProcess(cmd, 127, "%s: not installed" % cmd[0])
    if check and p.returncode != 0:
        raise RuntimeError("%s failed (exit %d): %s" % (
            shlex.join(cmd), p.returncode, p.stdout.strip()[-2000:]))
    return p


def parse_stat(text):
    """Fields of /proc/PID/stat after the command name (field 3 onward)."""
    return text.rsplit(")", 1)[1].split()


def _stat_fields(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return parse_stat(f.read())
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        return None


def proc_start_time(pid):
    """Start time (clock ticks since boot) of a pid, or None if it is gone.

    Recorded next to every pid we start, so a later cleanup never signals a
    different process that reused the number.
    """
    fields = _stat_fields(pid)
    return int(fields[19]) if fields else None


def pid_running(pid):
    """True while a process `pid` exists and has not exited (a zombie, dead
    but not yet reaped by its parent, counts as gone).  For processes that are
    not our children, e.g. a server known only by its pid file."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def proc_cpu_ticks(pid):
    """utime + stime of a pid in clock ticks, or None if it is gone."""
    fields = _stat_fields(pid)
    return int(fields[11]) + int(fields[12]) if fields else None


def parse_host_cpu(text):
    """Ticks of the aggregate "cpu" line of /proc/stat: busy (user, nice,
    system, irq, softirq; guest time is inside user), idle, iowait and steal,
    or None if the line is missing."""
    for line in text.splitlines():
        f = line.split()
        if f and f[0] == "cpu":
            v = [int(x) for x in f[1:9]] + [0] * (8 - len(f[1:9]))
            user, nice, system, idle, iowait, irq, softirq, steal = v
            return {"busy": user + nice + system + irq + softirq, "idle": idle,
                    "iowait": iowait, "steal": steal}
    return None


def host_cpu_ticks():
    """The host's CPU ticks by kind (parse_host_cpu), or None if unreadable."""
    try:
        with open("/proc/stat") as f:
            return parse_host_cpu(f.read())
    except OSError:
        return None


def tail(path, n=15):
    """Last n lines of a file ('' if unreadable)."""
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:])
    except OSError:
        return ""


def in_cgroup(cmd, cgroup):
    """`cmd` wrapped so that it joins `cgroup` (a cgroup-v1 dir) before exec,
    so every thread it starts is in the group.  No cgroup: `cmd` unchanged."""
    if not cgroup:
        return list(cmd)
    return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', cgroup + "/cgroup.procs"] + list(cmd)


def niced(cmd, nice):
    """`cmd` run at nice level `nice` (0: unchanged)."""
    return ["nice", "-n", str(nice)] + list(cmd) if nice else list(cmd)


def spawn(cmd, logfile=None, text_pipe=False, env=None):
    """Start `cmd` in its own session (a killpg reaches all it starts).

    logfile: stdout+stderr appended there; text_pipe: stdout is a line-buffered
    text pipe instead (stderr merged).  stdin is /dev/null.  env: variables
    set for `cmd` only, over this process's environment.
    """
    full_env = dict(os.environ, **env) if env else None
    if text_pipe:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, bufsize=1,
                                start_new_session=True, env=full_env)
    out = open(logfile, "ab") if logfile else subprocess.DEVNULL
    try:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=full_env)
    finally:
        if logfile:
            out.close()

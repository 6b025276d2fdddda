"""Fakes shared by the harness tests and the lab's (bench/tests imports them
through its own fakes.py); not a test module itself.

A fake server directory: runtime_output_directory/mysqld and
runtime_output_directory/mysql are small shell scripts (a shell starts in
milliseconds, Python in a third of a second on a busy box), so
harness.server and lab.phases run their real process code (spawn, wait on
the socket, signal, reap) without a MySQL server.

  fake mysqld  reads its options from --defaults-file (and --opt=value
               args); --initialize-insecure makes the datadir; otherwise,
               after `fake_delay` s, it writes its pid to socket + ".pid"
               and creates the file `socket`; on SIGTERM it removes both,
               logs "fake: shutdown complete" to log-error and exits 0.
               fake_mode: ok, exit_early, silent (never answers),
               ignore_term, init_fail, init_hang.  It notes $FAKE_LAB_ENV
               (in the error log, and in datadir/initialized).
  fake mysql   exits 1 with a connect error when the socket is missing;
               answers SELECT 1, SELECT @@global.X, SHOW GLOBAL STATUS LIKE,
               SET GLOBAL, CREATE DATABASE, SHUTDOWN (SIGTERM to the pid in
               socket + ".pid"); anything else is ERROR 1064.  Without -e
               it answers status rounds on stdin (lab.collect's protocol).
               Every call is appended to client.log (argv, tab-separated);
               a file "hang" beside it makes it sleep instead of answering;
               answers/errlog names a log that each status round appends a
               redo-full warning to (fake mysqld's fake_warn_at_start=1
               writes one at startup, outside the measured run);
               answers/vars/NAME and answers/status/NAME hold the values
               (set_answers).
"""

import os
import signal
import stat
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(HERE)
REPO = os.path.dirname(HARNESS)
if REPO not in sys.path:
    sys.path.insert(0, REPO)

FAKE_MYSQLD = r'''#!/bin/sh
mode=ok delay=0.1 sock= datadir= err= init= version= warn_at_start=
FAKE_LAB_ENV=${FAKE_LAB_ENV:-}
opt() {
  case $1 in
    socket=*) sock=${1#socket=} ;;
    datadir=*) datadir=${1#datadir=} ;;
    log-error=*|log_error=*) err=${1#*=} ;;
    fake_mode=*) mode=${1#fake_mode=} ;;
    fake_delay=*) delay=${1#fake_delay=} ;;
    fake_warn_at_start=*) warn_at_start=${1#fake_warn_at_start=} ;;
  esac
}
for a; do
  case $a in
    --defaults-file=*) while IFS= read -r line; do opt "$line"; done < "${a#--defaults-file=}" ;;
    --initialize-insecure) init=1 ;;
    --version) version=1 ;;
    --*=*) opt "${a#--}" ;;
  esac
done
note() { if [ -n "$err" ]; then echo "$1" >> "$err"; fi; }
if [ -n "$version" ]; then echo "mysqld  Ver 9.7.2-fake for Linux on x86_64 (fake)"; exit 0; fi
if [ -n "$init" ]; then
  case $mode in
    init_fail) echo "fake: initialisation went wrong"; note "[ERROR] fake: cannot initialise"; exit 1 ;;
    init_hang) exec sleep 60 ;;
  esac
  mkdir "$datadir" && echo "$*" > "$datadir/initialized" && echo "FAKE_LAB_ENV=$FAKE_LAB_ENV" >> "$datadir/initialized"
  exit
fi
if [ "$mode" = exit_early ]; then note "[ERROR] fake: cannot start, exiting"; exit 3; fi
finish() { rm -f "$sock" "$sock.pid"; note "fake: shutdown complete"; exit 0; }
if [ "$mode" = ignore_term ]; then trap '' TERM; else trap finish TERM; fi
note "fake: starting, FAKE_LAB_ENV=$FAKE_LAB_ENV"
if [ "$warn_at_start" = 1 ]; then note "fake at start: Threads are unable to reserve space in redo log"; fi
if [ "$mode" != silent ]; then
  sleep "$delay"
  echo $$ > "$sock.pid"
  : > "$sock"
  note "fake: ready for connections"
fi
while :; do sleep 0.05; done
'''

FAKE_CLIENT = r'''#!/bin/sh
here=$(dirname "$0")
{ for a; do printf '%s\t' "$a"; done; echo; } >> "$here/client.log"
sock= sql= have_e= prev=
for a; do
  case $a in --socket=*) sock=${a#--socket=} ;; esac
  if [ "$prev" = -e ]; then sql=$a have_e=1; fi
  prev=$a
done
if [ ! -e "$sock" ]; then
  echo "ERROR 2002 (HY000): Can't connect to local MySQL server through socket '$sock'" >&2
  exit 1
fi
if [ -e "$here/hang" ]; then exec sleep 30; fi
A=$here/answers
if [ -z "$have_e" ]; then
  # A session on stdin (the status poller): status rounds, counters that
  # grow by 10 a round, each round closed by its '__end__' row.
  rnd=0
  while IFS= read -r line; do
    case $line in
      "SHOW GLOBAL STATUS WHERE"*)
        rnd=$((rnd + 1))
        list=${line#*IN (}; list=${list%);}
        for n in $(echo "$list" | tr -d "'" | tr ',' ' '); do
          v=$((10 * rnd)); if [ -f "$A/status/$n" ]; then read -r v < "$A/status/$n"; fi
          printf '%s\t%s\n' "$n" "$v"
        done
        # answers/errlog: a server log that gets one redo-full warning a
        # round, as a stalled mysqld writes during the measured run
        if [ -f "$A/errlog" ]; then read -r e < "$A/errlog"
          echo "fake round $rnd: Threads are unable to reserve space in redo log" >> "$e"; fi ;;
      "SELECT '__end__'"*) n=${line#*, }; printf '__end__\t%s\n' "${n%;}" ;;
      "SELECT '"*) n=${line#SELECT \'}; printf '%s\t%s\n' "${n%%\'*}" $((10 * rnd)) ;;
    esac
  done
  exit 0
fi
sql=${sql%;}
case $sql in
  "SELECT 1") echo 1 ;;
  "SELECT @@global."*)
    n=${sql#SELECT @@global.}
    if [ ! -f "$A/vars/$n" ]; then echo "ERROR 1193 (HY000): Unknown system variable '$n'" >&2; exit 1; fi
    cat "$A/vars/$n" ;;
  "SHOW GLOBAL STATUS LIKE '"*)
    n=${sql#*LIKE \'}; n=${n%\'}
    v=0; if [ -f "$A/status/$n" ]; then read -r v < "$A/status/$n"; fi
    printf '%s\t%s\n' "$n" "$v" ;;
  "SHOW ENGINE INNODB STATUS")
    printf 'InnoDB\t\t\\n=====\\nFILE I/O\\nDevice-paced flushing: off\\n' ;;
  "SET GLOBAL "*|"CREATE DATABASE "*) ;;
  SHUTDOWN) kill -TERM "$(cat "$sock.pid")" ;;
  *) echo "ERROR 1064 (42000): You have an error in your SQL syntax near '$sql'" >&2; exit 1 ;;
esac
'''


def write_script(path, body):
    """An executable script at `path`: `body` as it is if it starts with
    #!, else a Python script run by this interpreter."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(body if body.startswith("#!") else "#!%s\n%s" % (sys.executable, body))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def make_build_dir(root):
    """A fake MySQL build directory under `root`; returns its path."""
    rod = os.path.join(root, "runtime_output_directory")
    write_script(os.path.join(rod, "mysqld"), FAKE_MYSQLD)
    write_script(os.path.join(rod, "mysql"), FAKE_CLIENT)
    os.makedirs(os.path.join(root, "plugin_output_directory"), exist_ok=True)
    os.makedirs(os.path.join(root, "share"), exist_ok=True)
    return root


def set_answers(build, variables=None, status=None, client_dir=None):
    """What the fake client answers to SELECT @@global.X / SHOW GLOBAL STATUS."""
    base = os.path.join(client_dir or os.path.join(build, "runtime_output_directory"), "answers")
    for kind, values in (("vars", variables or {}), ("status", status or {})):
        os.makedirs(os.path.join(base, kind), exist_ok=True)
        for name, value in values.items():
            with open(os.path.join(base, kind, name), "w") as f:
                f.write("%s\n" % value)


def client_calls(build):
    """The argv of every fake client call so far."""
    path = os.path.join(build, "runtime_output_directory", "client.log")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.rstrip("\n").split("\t")[:-1] for line in f]


def client_queries(build):
    """The -e statements the fake client was given."""
    return [a[a.index("-e") + 1] for a in client_calls(build) if "-e" in a]


def pid_exists(pid):
    """True while `pid` is a process that is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def reap_in_background(popen):
    """Reap `popen` the moment it dies (a thread waits on it), as init would
    for a process that is not ours: a SIGKILL then really makes it vanish."""
    t = threading.Thread(target=popen.wait, daemon=True)
    t.start()
    return t


def kill_quietly(popen):
    """Test cleanup: SIGKILL and reap, whatever state it is in."""
    if popen.poll() is None:
        try:
            os.kill(popen.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        popen.wait(timeout=10)
    except Exception:
        pass

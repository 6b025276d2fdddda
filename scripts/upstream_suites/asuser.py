"""Run mtr as an unprivileged user (--user USER) when the tool runs as root.

Run as root, mtr starts its own servers with --user=root, but about fifty
upstream tests start a mysqld or mysqld_safe of their own without --user,
which stops at the root check or, under mysqld_safe, runs as `mysql` and
hangs; a few more expect a read-only file to stay unwritable, which root
can write (docs/upstream-suites.md lists them).  Run as an ordinary user
those tests get a real verdict.

What such a run needs, as root, before mtr starts:
  - the user exists and can reach BUILD/mysql-test/mtr (every parent
    directory searchable: `chmod o+x /root` when the builds are under it);
  - the two build directories mtr writes into are writable by the user's
    group: runtime_output_directory (mysqld.my, the manifest) and
    plugin_output_directory (component_*.cnf);
  - a var directory the user owns: STEADY_CACHE/upstream-var/as-USER/<name>,
    whose parent mtr must be able to write (it removes and re-creates it).
plan_actions() lists those steps, apply() carries them out; the checks
that cannot be planned (the user's reach) run through runuser.
"""

import os
import pwd
import subprocess

from .mtrlog import UsageError

BUILD_DIRS_MTR_WRITES = ("runtime_output_directory", "plugin_output_directory")


def prefix(user):
    """The argv prefix that runs a command as user (util-linux runuser)."""
    return ["runuser", "-u", user, "--"] if user else []


def var_root(cache, user):
    """The directory, owned by user, that holds its mtr var dirs."""
    return os.path.join(cache, "upstream-var", "as-" + user)


def lookup(user, euid):
    """-> (uid, gid) of user.  Raises UsageError unless run as root and the
    user exists and is not root."""
    if euid != 0:
        raise UsageError("--user needs root (runuser); run without --user to run mtr as yourself")
    try:
        pw = pwd.getpwnam(user)
    except KeyError:
        raise UsageError("--user %s: no such user; create one, e.g. useradd -m %s" % (user, user))
    if pw.pw_uid == 0:
        raise UsageError("--user %s is root; give an ordinary user" % user)
    return pw.pw_uid, pw.pw_gid


def plan_actions(builds, var_parent):
    """-> [(kind, path)]: kind "group-writable" for the build directories
    mtr writes into, "owned-dir" for the var root."""
    acts = [("group-writable", os.path.join(b, d)) for b in builds for d in BUILD_DIRS_MTR_WRITES]
    return acts + [("owned-dir", var_parent)]


def apply(actions, uid, gid):
    """Carry out plan_actions() (as root); a missing build directory is left
    alone (mtr then says what it lacks)."""
    for kind, path in actions:
        if kind == "owned-dir":
            os.makedirs(path, exist_ok=True)
            os.chown(path, uid, gid)
        elif os.path.isdir(path):
            os.chown(path, -1, gid)
            os.chmod(path, os.stat(path).st_mode | 0o070)


def unreachable(user, builds, run=subprocess.run):
    """-> the builds whose mysql-test/mtr user cannot execute."""
    bad = []
    for b in builds:
        mtr = os.path.join(b, "mysql-test", "mtr")
        if run(prefix(user) + ["test", "-x", mtr], stdin=subprocess.DEVNULL,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            bad.append(b)
    return bad


def reach_message(user, build):
    return ("--user %s cannot reach %s/mysql-test/mtr: make every parent directory searchable "
            "for it (e.g. chmod o+x /root)" % (user, build))

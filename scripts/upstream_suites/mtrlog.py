"""Parse mysql-test-run output and the CSV of verdicts that
scripts/upstream-suites writes: pure functions, no processes.

A verdict is one of VERDICTS; results map "suite.test ['combination']" to
(verdict, reason). See scripts/upstream-suites --help.
"""

import csv
import io
import re
from collections import OrderedDict


SERVERS = ("steady", "vanilla")
VERDICTS = ("pass", "fail", "skipped", "disabled")
NOT_RUN = "not run"
# Pseudo-tests mtr reports at the end of a run: checks of the servers'
# shutdowns (and of valgrind/sanitizer reports), not tests of a suite.
INTERNAL_CHECKS = ("shutdown_report", "valgrind_report", "sanitize_report")
EXIT_OK, EXIT_STEADY_ONLY, EXIT_USAGE, EXIT_MISSING = 0, 1, 2, 77
REASON_MAX = 240

# One verdict line of mtr (lib/mtr_report.pm, mtr_report_test):
#   [ 41%] sys_vars.x_basic                    w2  [ pass ]      6
#   [  5%] binlog.foo 'mix'  [ skipped ]  Doesn't support --binlog-format = 'mixed'
# optionally behind a name and a --timestamp, with a worker tag only when
# the test ran on a worker, "retry-" / "noskip-" on reruns, "opt-pass" for
# an optional pass.
RESULT_RE = re.compile(
    r"(?:^|\s)(?:\[\s*\d+%\]\s+)?"
    r"(?P<test>" + "|".join(INTERNAL_CHECKS) + r"|[\w-]+\.[\w.+-]+)"
    r"(?P<combo>(?:\s+'[^']*')*)"
    r"\s+(?:w\d+\s+)?"
    r"\[ (?P<verdict>(?:noskip-)?(?:retry-)?(?:pass|fail)|opt-pass|skipped|disabled) \]"
    r"(?P<rest>.*)$")
# mtr_report_stats: "Completed: Failed 2/31 tests, 93.55% were successful."
# or "Completed: All 31 tests were successful."; other prefixes when mtr
# stopped early.
SUMMARY_RE = re.compile(
    r"^(?P<prefix>Completed|Too many failed|Got \^C signal|Timeout|In completed tests): "
    r"(?:Failed (?P<failed>\d+)/(?P<total>\d+) tests|All (?P<all>\d+) tests were successful)")
SPENT_RE = re.compile(r"^Spent [\d.]+ of (?P<wall>\d+) seconds executing testcases")
ERROR_RE = re.compile(r"\*\*\* ERROR: (?P<msg>.*)$")
# The line this tool appends to each log after mtr exits.
TRAILER_RE = re.compile(r"^upstream-suites: mtr exit status (?P<rc>-?\d+), wall time (?P<secs>[\d.]+) s$")
# Lines that end the diagnostics printed after a "[ fail ]".
DIAG_END_RE = re.compile(r"^-{20,}\s*$|^The servers were restarted |^upstream-suites: ")


class UsageError(Exception):
    """A problem with the command line; printed without a traceback, exit 2."""


class MtrRun:
    """What one mtr log (or CSV) says.

    results: test id -> (verdict, reason), the last verdict of each test;
    checks: internal check -> (verdict, reason); ever_failed: test ids and
    checks that failed at least once (mtr counts those as failed even when a
    retry passed); summary: mtr's "Completed: ..." line or None;
    mtr_failed / mtr_total: the numbers in it; complete: True when mtr got to
    "Completed"; error: mtr's first "*** ERROR:" message; wall_seconds and
    exit_status: from this tool's trailer (or mtr's "Spent ... of N
    seconds"), None when unknown.
    """

    def __init__(self):
        self.results = OrderedDict()
        self.checks = OrderedDict()
        self.ever_failed = set()
        self.summary = None
        self.mtr_failed = None
        self.mtr_total = None
        self.complete = False
        self.error = None
        self.wall_seconds = None
        self.exit_status = None
        self.source = None          # "log" or "csv"


# ---------------------------------------------------------------- parsing

def clean_line(line):
    """A raw log line -> its visible text: no line end, and only what follows
    the last carriage return (mtr overwrites progress text with \\r)."""
    return line.rstrip("\r\n").split("\r")[-1].rstrip()


def parse_result_line(line):
    """A verdict line -> (test id, raw verdict, text after the verdict), or
    None for any other line.  The test id keeps combinations in quotes,
    separated by single spaces: "binlog.foo 'mix'"."""
    m = RESULT_RE.search(clean_line(line))
    if not m:
        return None
    test = m.group("test") + "".join(" " + c for c in re.findall(r"'[^']*'", m.group("combo")))
    return test, m.group("verdict"), m.group("rest").strip()


def normalize_verdict(raw):
    """mtr's verdict word -> pass, fail, skipped or disabled."""
    word = raw
    for prefix in ("noskip-", "retry-"):
        if word.startswith(prefix):
            word = word[len(prefix):]
    if word == "opt-pass":
        return "pass"
    if word not in VERDICTS:
        raise ValueError("unknown mtr verdict %r" % raw)
    return word


def one_line(text, limit=REASON_MAX):
    """Collapse whitespace and cut to limit characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def is_noise(line):
    """Diagnostic lines that never explain a failure."""
    s = line.strip()
    return (not s or s.startswith("Test ended at") or s.startswith("CURRENT_TEST:")
            or s.startswith("safe_process[") or s.startswith("- the logfile can be found")
            or s.startswith("worker[") or s == "line" or s == "ok")


def fail_reason(rest, diag):
    """The text after "[ fail ]" and the diagnostic lines after it -> one line
    saying why: mtr's own comment (timeout, warnings in the error log), the
    first "mysqltest:" line (with the ERROR line after it), or the first
    error-log line, else the first telling line."""
    head = rest.strip()
    lines = [clean_line(x) for x in diag]
    detail = None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith("mysqltest:"):
            detail = s
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if nxt.startswith("ERROR "):
                detail += " " + nxt
            break
    if detail is None:
        for line in lines:
            if re.search(r"\[(ERROR|Warning)\]", line):
                detail = line.strip()
                break
    if detail is None and not head:
        detail = next((x.strip() for x in lines if not is_noise(x)), "")
    return one_line(" ".join(x for x in (head, detail) if x))


def record(run, test, raw, reason):
    """Store one verdict in run; the later of two verdicts of a test wins."""
    verdict = normalize_verdict(raw)
    if verdict == "fail":
        run.ever_failed.add(test)
    if raw.startswith("retry-") or raw.startswith("noskip-retry-"):
        if verdict == "pass":
            reason = one_line("passed on retry" + (": " + reason if reason else ""))
    elif raw.endswith("opt-pass"):
        reason = one_line("opt-pass" + (": " + reason if reason else ""))
    target = run.checks if test in INTERNAL_CHECKS else run.results
    target.pop(test, None)          # keep the order of the last verdicts
    target[test] = (verdict, reason)


def parse_log(lines):
    """mtr's output, as an iterable of lines -> MtrRun."""
    run = MtrRun()
    run.source = "log"
    pending = None                  # (test, raw verdict, rest, diag lines) of a fail
    for raw_line in lines:
        line = clean_line(raw_line)
        parsed = parse_result_line(line)
        if pending and (parsed or DIAG_END_RE.search(line) or SUMMARY_RE.search(line)):
            test, raw, rest, diag = pending
            record(run, test, raw, fail_reason(rest, diag))
            pending = None
        if parsed:
            test, raw, rest = parsed
            if normalize_verdict(raw) == "fail":
                pending = (test, raw, rest, [])
            elif normalize_verdict(raw) == "pass":
                record(run, test, raw, rest if raw.endswith("opt-pass") else "")
            else:
                record(run, test, raw, one_line(rest))
            continue
        if pending:
            if len(pending[3]) < 400:
                pending[3].append(line)
            continue
        m = SUMMARY_RE.search(line)
        if m:
            run.summary = line.strip()
            run.complete = m.group("prefix") == "Completed"
            if m.group("all") is not None:
                run.mtr_failed, run.mtr_total = 0, int(m.group("all"))
            else:
                run.mtr_failed, run.mtr_total = int(m.group("failed")), int(m.group("total"))
            continue
        m = SPENT_RE.search(line)
        if m and run.wall_seconds is None:
            run.wall_seconds = float(m.group("wall"))
            continue
        m = TRAILER_RE.search(line)
        if m:
            run.exit_status = int(m.group("rc"))
            run.wall_seconds = float(m.group("secs"))
            continue
        m = ERROR_RE.search(line)
        if m and run.error is None:
            run.error = one_line(m.group("msg"))
    if pending:
        test, raw, rest, diag = pending
        record(run, test, raw, fail_reason(rest, diag))
    return run


def parse_problems(run):
    """Doubts about a parsed log: mtr stopped early, or its own totals do
    not match the verdicts parsed (a sign the parser missed lines)."""
    if run.source != "log":
        return []
    out = []
    if not run.results:
        out.append("no test verdict in the log")
    if not run.complete:
        out.append("mtr did not complete (no \"Completed:\" summary)" +
                   (": " + run.error if run.error else ""))
    if run.mtr_total is not None:
        ran = [t for t, (v, _) in list(run.results.items()) + list(run.checks.items())
               if v in ("pass", "fail")]
        failed = len(run.ever_failed)
        if (run.mtr_failed, run.mtr_total) != (failed, len(ran)):
            out.append("mtr counted %d failed of %d, the parser %d of %d"
                       % (run.mtr_failed, run.mtr_total, failed, len(ran)))
    return out


# ---------------------------------------------------------------- CSV files

def csv_text(results):
    """{test: (verdict, reason)} -> CSV text, header test,verdict,reason,
    rows sorted by test id."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["test", "verdict", "reason"])
    for test in sorted(results):
        verdict, reason = results[test]
        w.writerow([test, verdict, reason])
    return buf.getvalue()


def parse_csv(text):
    """CSV text written by csv_text -> MtrRun (results only)."""
    run = MtrRun()
    run.source = "csv"
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    if header != ["test", "verdict", "reason"]:
        raise ValueError("not a results CSV: header %r, expected test,verdict,reason" % (header,))
    for n, row in enumerate(rows, 2):
        if not row:
            continue
        if len(row) != 3 or row[1] not in VERDICTS:
            raise ValueError("line %d: expected test,verdict,reason with verdict one of %s: %r"
                             % (n, ", ".join(VERDICTS), row))
        run.results[row[0]] = (row[1], row[2])
    return run


def load_run(path):
    """A .csv of this tool or an mtr log -> MtrRun."""
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    if path.endswith(".csv"):
        return parse_csv(text)
    return parse_log(text.splitlines())

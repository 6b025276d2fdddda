"""What a bench run writes: per_second.csv, runs.csv, summary.md,
environment.txt, and the plots (bench/plot).  Values in, files out."""

import csv
import datetime
import json
import os

from harness.proc import run_cmd

from . import bulk_load as B
from . import redo_files as R
from . import set_at as SA
from . import shutdown as SD
from . import summary as S

RUN_COLUMNS = ["run_id", "server", "flavour", "config", "threads", "repeat", "status", "server_version",
               "init_s", "prepare_s", "settle_s", "settle_dirty_pages", "connect_s", "wall_s",
               "collector_cpu_pct", "throttle_at", "journal_thread_capped", "log_device", "n_seconds"]


def write_per_second(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=S.PER_SECOND_COLUMNS)
        w.writeheader()
        w.writerows(rows)


def run_columns(infos):
    """runs.csv header: the run's facts, its summary, load figures if any, error."""
    cols = RUN_COLUMNS + [k for k, _, _ in S.RUN_METRICS + S.CAUSE_METRICS]
    if any(i.get("load") for i in infos):
        cols += B.RUN_COLUMNS
    if any(i.get("shutdown_s") is not None for i in infos):
        cols += SD.RUN_COLUMNS
    if any(i.get("set_at") for i in infos):
        cols += SA.RUN_COLUMNS
    if any(i.get("redo_files_written") for i in infos):
        cols += R.RUN_COLUMNS
    return cols + ["dip_verdict", "error"]


def write_runs(path, infos):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=run_columns(infos), extrasaction="ignore")
        w.writeheader()
        for info in infos:
            r = dict(info)
            r.update(info.get("summary") or {})
            r.update(info.get("load") or {})
            r["dip_verdict"] = (info.get("dips") or {}).get("verdict", "")
            w.writerow(r)


def config_line(config, about):
    """The line that says which server configuration (--config) a run used."""
    return "config: %s: %s" % (config, about)


def write_outputs(outdir, infos, all_rows, baseline, command, config=None):
    """All three result files; returns the summary Markdown.  config: the
    config_line() summary.md shows under the command, or None."""
    write_per_second(os.path.join(outdir, "per_second.csv"), all_rows)
    write_runs(os.path.join(outdir, "runs.csv"), infos)
    bases = S.baselines_of(baseline)
    first = bases[0] if bases else None
    md = S.summary_markdown(infos, bases) + B.markdown(infos, first) + SD.markdown(infos, first)
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write("# bench/run summary\n\nCommand:\n\n    %s\n\n" % command)
        if config:
            f.write(config + "\n\n")
        f.write(md)
    return md


def environment_lines(device_name, dev, throttle_at, journal_uncapped, no_settle, image_dir,
                      scenario_label, sc, servers, log_device=None, config=None):
    """environment.txt: where and with what the run ran.  servers: [(name,
    flavour, mysqld, version)]; log_device: (class name, class) of
    --log-device, or None (the logs on the data device); config: the
    config_line() of --config, or None."""
    out = ["date: %s" % datetime.datetime.now().isoformat(timespec="seconds"),
           "kernel: %s" % " ".join(os.uname()),
           "cpus: %d" % os.cpu_count()]
    with open("/proc/meminfo") as m:
        out.append("memory: %s" % m.readline().split(":", 1)[1].strip())
    out.append("sysbench: %s" % run_cmd(["sysbench", "--version"], check=False).stdout.strip())
    if config:
        out.append(config)
    out.append("device: %s: %s; caps %s on the %s; io_capacity %s; journal thread %s" % (
        device_name, dev["about"], json.dumps(dev["caps"]),
        "loop device" if throttle_at == "loop" else "host disk under the loop file",
        "%d/%d" % (dev["io_capacity"], dev["io_capacity_max"]) if dev.get("io_capacity")
        else "the server's default", "uncapped" if journal_uncapped else "in the cgroup"))
    out.append("redo and binary logs: %s" % (
        "on the data device" if log_device is None else "own loop device, %s: %s; caps %s" % (
            log_device[0], log_device[1]["about"], json.dumps(log_device[1]["caps"]))))
    out.append("settle after prepare: %s" % ("no (--no-settle)" if no_settle else "yes"))
    out.append("loop images under: %s" % image_dir)
    out.append("scenario: %s %s" % (scenario_label, json.dumps(sc)))
    out += ["server %s (%s): %s: %s" % s for s in servers]
    return "\n".join(out) + "\n"


def plot(plot_tool, outdir):
    """Run bench/plot on a result directory; returns what it printed."""
    return run_cmd([plot_tool, outdir], check=False).stdout.strip()

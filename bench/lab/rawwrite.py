"""Raw write test of an emulated device class: the fio command, its JSON
report, and the results table (pure).  bench/raw-write does the OS part.

The question it answers: how many 16 KiB page writes a second the capped
loop device delivers to a writer that does nothing else (O_DIRECT, random
offsets in a preallocated file, libaio at a given queue depth).  Issue 17
compares the page cleaner's write rate with it.
"""

import json

PAGE = 16 * 1024
COLUMNS = ["device", "write_iops_cap", "write_bps_cap", "bs", "depth", "seconds",
           "iops", "mb_s", "lat_p50_us", "lat_p99_us", "lat_max_us", "dev_w_iops"]


def fio_cmd(path, size_bytes, depth, seconds, bs=PAGE, ramp=2):
    """fio running `depth` random O_DIRECT writes of `bs` in flight against
    the existing file `path` (no layout: the caller writes it first)."""
    return ["fio", "--name=raw", "--filename=" + path, "--size=%d" % size_bytes,
            "--rw=randwrite", "--bs=%d" % bs, "--direct=1", "--ioengine=libaio",
            "--iodepth=%d" % depth, "--numjobs=1", "--time_based",
            "--runtime=%d" % seconds, "--ramp_time=%d" % ramp, "--randrepeat=0",
            "--norandommap", "--output-format=json"]


def parse_fio(text):
    """{iops, mb_s, lat_p50_us, lat_p99_us, lat_max_us} of the write side of
    fio's JSON report (one job, or the first job).  fio may print notes
    before the JSON; they are skipped."""
    start = text.find("{")
    if start < 0:
        raise ValueError("no JSON in fio's output")
    doc = json.loads(text[start:])
    jobs = doc.get("jobs") or []
    if not jobs:
        raise ValueError("fio reported no job")
    w = jobs[0]["write"]
    clat = w.get("clat_ns") or w.get("lat_ns") or {}
    pct = clat.get("percentile") or {}

    def p(key):
        v = pct.get(key)
        return round(v / 1000.0, 1) if v is not None else None

    return {"iops": round(w["iops"], 1), "mb_s": round(w["bw_bytes"] / 1e6, 1),
            "lat_p50_us": p("50.000000"), "lat_p99_us": p("99.000000"),
            "lat_max_us": round(clat["max"] / 1000.0, 1) if "max" in clat else None}


def row(device, caps, depth, seconds, fio, dev_w_iops, bs=PAGE):
    r = {"device": device, "write_iops_cap": caps.get("write_iops") or 0,
         "write_bps_cap": caps.get("write_bps") or 0, "bs": bs, "depth": depth,
         "seconds": seconds, "dev_w_iops": round(dev_w_iops, 1) if dev_w_iops is not None else ""}
    r.update(fio)
    return r


def best(rows):
    """The row with the most IOPS: what the device can deliver."""
    return max(rows, key=lambda r: r["iops"]) if rows else None


def markdown(rows, command=""):
    """summary.md: one line per depth and the device's best."""
    out = ["# Raw write test", ""]
    if command:
        out += ["```", command, "```", ""]
    out += ["| device | write IOPS cap | depth | IOPS | MB/s | p50 (us) | p99 (us) | max (us) | device writes/s (diskstats) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append("| %s | %s | %d | %.0f | %.1f | %s | %s | %s | %s |" % (
            r["device"], r["write_iops_cap"] or "none", r["depth"], r["iops"], r["mb_s"],
            r["lat_p50_us"], r["lat_p99_us"], r["lat_max_us"], r["dev_w_iops"]))
    b = best(rows)
    if b:
        out += ["", "Best: %.0f writes/s of %d KiB at depth %d on `%s`." % (
            b["iops"], b["bs"] // 1024, b["depth"], b["device"])]
    return "\n".join(out) + "\n"

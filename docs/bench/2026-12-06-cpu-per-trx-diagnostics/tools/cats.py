#!/usr/bin/env python3
"""Diagnostic: bucket a flat perf report (--sort dso,sym) into areas."""
import re, subprocess, sys
from collections import defaultdict

RULES = [
    ("kernel:fsync/io", r"\[k\].*(fsync|ext4|jbd2|blk_|bio_|nvme|submit_bio|iomap|filemap|aio|io_submit|io_getevents|dio)"),
    ("kernel:net", r"\[k\].*(tcp|sock|skb|unix_|inet|ip_|net_|__sys_(send|recv)|ep_poll|sk_)"),
    ("kernel:sched/futex", r"\[k\].*(futex|schedule|sched|wake|switch|enqueue|dequeue|pick_|update_curr|hrtimer|clock)"),
    ("kernel:other", r"\[k\]"),
    ("perf_schema", r"(pfs|PFS|perfschema|perf_schema|table_events|\bpfs_)"),
    ("binlog/gtid/commit", r"(MYSQL_BIN_LOG|Binlog|binlog|Gtid|gtid|Rpl_|rpl_|Commit_stage|ha_commit|ha_prepare|commit_order|tc_log|Log_event|_event::|ordered_commit|group_commit|TC_LOG|Trans_delegate|xid)"),
    ("innodb:redo/mtr", r"(log_|mtr_|mlog|Log_|redo|Mtr|mtr::)"),
    ("innodb:trx/undo/lock", r"(trx_|trx::|undo|lock_|Lock|purge|row_purge|read_view|ReadView|MVCC)"),
    ("innodb:btr/row/page/buf", r"(btr_|row_|page_|rec_|buf_|Buf|cmp_|dict_|fil_|fsp_|ibuf|ha_innobase|innobase|ut_|os_|sync_|rw_lock|Rw_lock|srv_|Fil_|Page|que_|dtuple|dfield|mach_|lob|Btree|btr::|row::|ddl::)"),
    ("mariadb-innodb", r"(ha_innobase|innodb|mtr_t|buf_pool|log_sys)"),
    ("net/protocol", r"(vio_|Vio|my_net|net_|Protocol|my_real_read|ssl|SSL|cli_|Net_)"),
    ("malloc/mem", r"(malloc|free|_int_|cfree|memcpy|memmove|memset|memcmp|MEM_ROOT|mem_root|alloc_root|my_malloc|my_free|jemalloc|tcmalloc|operator new|operator delete|_mm_|strlen|__str)"),
    ("sql:parse", r"(MYSQLparse|MYSQLlex|Lex_|lex_|Parse|parse|PT_|yy|Lex_input|THD::sql_parser|digest|Digest)"),
    ("sql:optimize/execute", r"(JOIN|Join|Item|optimize|Optimize|Query_block|SELECT_LEX|Sql_cmd|mysql_update|Update|TABLE|Table|handler::|Field|setup_|find_field|open_table|lock_table|mdl|MDL|Query_expression|Access|Iterator|AccessPath|st_select|sp_)"),
    ("sql:thd/session", r"(THD|thd|dispatch|do_command|Statement|Diagnostics|Sql_condition|Security_context|sys_var|Opt_trace|trans_|Transaction_ctx|Global_THD|plugin_|Srv_session|mysql_execute|execute_sqlcom)"),
    ("libc/other libs", r"\[\.\].*(__|pthread|libc|std::)"),
]

def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print("usage: cats.py perf.data [--top N]"); return
    data = sys.argv[1]
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    out = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                          "--sort", "dso,sym", "--percent-limit", "0"],
                         capture_output=True, text=True).stdout
    cats = defaultdict(float); tops = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+(\[[k.]\])\s+(.*)", line)
        if not m: continue
        pct, dso, kind, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        text = f"{kind} {dso} {sym}"
        for name, rx in RULES:
            if re.search(rx, text):
                cats[name] += pct; break
        else:
            cats["unclassified"] += pct
        tops.append((pct, dso, sym))
    for name, pct in sorted(cats.items(), key=lambda kv: -kv[1]):
        print(f"{pct:6.2f}  {name}")
    if top:
        print()
        for pct, dso, sym in tops[:top]:
            print(f"{pct:6.2f}  {dso[:20]:20s} {sym[:110]}")

main()

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/buf0flu_pace_rounds.h
 Device-paced flushing within the second: how the page cleaner
 coordinator spreads the controller's per-second budget (buf0flu_pace.h)
 over rounds, slices and LRU batches, and when it wakes up for them. The
 controller decides how much a second; this decides when in the second and
 in which buffer pool instance. The reasoning behind the constants is in
 docs/design/device-pacing-controller.md. */

#ifndef buf0flu_pace_rounds_h
#define buf0flu_pace_rounds_h

#include <cstddef>
#include <cstdint>

namespace buf_flush_pace {

/** LRU batches per second while a free list is below the LRU depth.
Each batch is a burst of page writes that the redo and binary log writes
of the commits queue behind; on a volume at its IOPS cap the burst sets
the commits' tail latency, so more, smaller batches. */
constexpr unsigned LRU_ROUNDS = 20;

/** Most pages one LRU batch flushes or evicts in an instance while pacing:
twice the depth a second, spread over LRU_ROUNDS batches. Upstream
refills the free list to innodb_lru_scan_depth in one batch at the start
of each second, and again whenever a thread waiting for a free page wakes
the page cleaner. With the depth raised under free-page pressure, that
batch puts thousands of page writes into the device queue at once, and
the page reads, redo and binary log writes behind them wait. Batches
every 1 / LRU_ROUNDS of a second each replace what was taken since the
last one;
the cap spreads a refill after a burst of reads, or after the depth
rose, over several of them. Twice the depth leaves room for reads that
take more than the depth a second.
@param[in]  depth  free pages the LRU batch keeps per instance
@return pages for one batch, at least 1 */
uint64_t lru_batch(uint64_t depth);

/** When the next LRU batch is due.
@param[in]  last_s  when the page cleaner's last round (with its LRU
                    batch) ended, seconds on a monotonic clock
@param[in]  below   a free list is below the LRU depth
@return last_s + 1 / LRU_ROUNDS while below, else a negative value: the
page cleaner's own second (and a thread waiting for a free page) decide */
double lru_due(double last_s, bool below);

/** Split a flush-list target over the buffer pool instances by page age,
as upstream's set_flush_target_by_lsn() does: in proportion to each
instance's dirty pages modified at or before the LSN the round aims for
(the oldest pages hold the checkpoint back; an instance without any has
nothing urgent). Every instance is asked for at least one page, so none
is left out for a round, and with no page counted anywhere the target is
split evenly.
@param[in]  total    pages to flush in all instances
@param[in]  weights  per instance, pages at or before the target LSN
@param[in]  n        instances (>= 1)
@param[out] out      per instance, pages to flush; they add up to
                     max(total, n) */
void split_by_age(uint64_t total, const uint64_t *weights, size_t n,
                  uint64_t *out);

/** Which buffer pool instances flush one slice of a second's target, and
how many pages each.

Splitting every slice over every instance makes slices x instances
flush-list batches a second (80 at 10 slices and 8 instances), each with
its own doublewrite write and sync, each a few pages. Instead the
second's shares (split_by_age() of the second's target) are laid end to
end in instance order, and each slice takes the next n_pages of that
line: a slice reaches only the instances whose shares it overlaps, the
second makes at most slices + instances - 1 batches, every instance still
flushes its share within the second, and a slice is as large as before,
so the burst that commit writes queue behind is the same.
@param[in]  offset   where the slice starts on the line: pages of the
                     second's target handed out before it
@param[in]  n_pages  pages in the slice
@param[in]  plan     per instance, its share of the second's target
@param[in]  n        instances (>= 1)
@param[out] out      per instance, pages to flush for the slice (0 for
                     the instances it does not reach); they add up to
                     n_pages, pages past the end of the line going to
                     the last instance */
void slice_of_plan(uint64_t offset, uint64_t n_pages, const uint64_t *plan,
                   size_t n, uint64_t *out);

/** Fewest pages in one slice of a second's flush target. */
constexpr uint64_t SLICE_MIN_PAGES = 64;
/** Most slices per second. Ten, not as many as LRU rounds: a slice's
writes are waited for before the next round, and with page writes slowed
by the device, slices left undone in a second let the age run past the
async mark (sync-mode flushing measured at twenty, none at ten). */
constexpr unsigned MAX_SLICES = 10;

/** What a round keeps of upstream's flush-list target.

Below innodb_adaptive_flushing_lwm (as a share of the redo capacity, the
mark get_pct_for_lsn() reads) upstream documents no adaptive flushing, but
its target still carries two terms that do not look at the age: the pages
within three seconds of redo of the oldest modification, and the echo of
what it flushed before (page_avg_rate). On a device at its write cap they
hold a pool with the checkpoint 2-4 % old at ~1,300 flush-list pages a
second, re-written hot pages that take device writes from the LRU
batches and the reads. There, the round keeps only upstream's dirty-page term
(innodb_io_capacity x its pct_for_dirty); the budget still lifts it
wherever the age, the dirty-page share or the free lists press. At or
past the mark, in a sync flush round, or with the mark at 0
(innodb_adaptive_flushing_lwm=0), upstream's whole target is kept.
@param[in]  upstream     upstream's target for the round
@param[in]  dirty_pages  upstream's dirty-page term, pages a second
@param[in]  age          checkpoint age, LSN
@param[in]  lwm_age      innodb_adaptive_flushing_lwm's mark, LSN (0: none)
@param[in]  sync_flush   the round is a sync flush round
@return the part of upstream's target the round keeps */
uint64_t kept_upstream(uint64_t upstream, uint64_t dirty_pages, uint64_t age,
                       uint64_t lwm_age, bool sync_flush);

/** Redo per page made dirty below which the pages are taken to be made
without redo: the sorted index builds of ALTER TABLE, CREATE INDEX and
OPTIMIZE TABLE write their pages with no redo record, once each. The
lab's table rebuild beside 200 OLTP transactions a second made 80-90
bytes; the lightest OLTP mix measured (the TPC-C-like one) 680-730,
oltp_write_only 2,400-3,800 (docs/bench/2026-12-07-rebuild-noredo). */
constexpr double NO_REDO_BYTES_PER_PAGE = 256;

/** LRU batch page writes a second below which the LRU list's tail is
clean: the free pages come from evictions, not from page writes. */
constexpr uint64_t LRU_CLEAN_WRITES = 64;

/** Whether a round outside sync flush is upstream's own: its whole target
(no young-age rule, kept_upstream()), sent at once as upstream sends it
(no slices).

The young-age rule rests on a young dirty page being modified again, so
that an early write of it is wasted. A page that a sorted index build
made is written once and never modified again, and holding it back only
leaves the build's own flush at its end more to write: the lab's table
rebuild took 1.035x its time with pacing OFF with the rule (12 rounds).
Sliced, upstream's target keeps the device queue busy all second and the
commits beside the build wait behind it (OLTP inside the rebuild 0.79x
and 0.77x OFF's, two runs each); sent at once, as upstream sends it, the
queue empties between bursts. So where the controller asks for nothing
(no budget), no thread waits for a free page, the LRU tail is clean, and
the pages made dirty carry less redo than NO_REDO_BYTES_PER_PAGE, the
round is upstream's.
@param[in]  budget            pages per second (Decision::budget)
@param[in]  redo_per_dirtied  Decision::redo_per_dirtied
@param[in]  lru_writes        LRU batch page writes a second, last interval
@param[in]  free_waits        free-page waits in the last interval
@return true if the round is upstream's */
bool upstreams_round(uint64_t budget, double redo_per_dirtied,
                     uint64_t lru_writes, uint64_t free_waits);

/** Flush target of one page cleaner round, from upstream's target and the
budget (pages per second).

Outside sync flush the round starts the coordinator's second, and the
second's budget is its target (the Slicer spreads it over the second). In
sync flush the coordinator runs rounds back to back, and the log
checkpointer that asked for the sync flush waits for the end of the round
(buf_flush_tick_event, up to a second) before it writes the checkpoint
that lets commits waiting for redo space go on. A sync round that carries
the second's budget runs for over a second at a saturated data device,
the checkpointer's wait times out and all commits stand still for up to
a second. A sync round carries one slice's
share of the budget (budget / MAX_SLICES, rounded up): rounds back to back
still flush at what the device completes, and each ends within about a
tenth of a second at the budget's rate.
@param[in]  upstream    upstream's target for the round, as kept by
                        kept_upstream()
@param[in]  budget      pages per second (Decision::budget), 0: none
@param[in]  sync_flush  the round is a sync flush round
@return the round's target, never below upstream */
uint64_t round_target(uint64_t upstream, uint64_t budget, bool sync_flush);

/** Whether a sync flush round flushes its whole target (round_target())
from the oldest pages on, past upstream's LSN limit for the round.

Upstream's sync round stops at the sync mark plus three seconds of its
average redo rate (buf_flush_lsn_scan_factor x lsn_avg_rate). That average
is refreshed every innodb_flushing_avg_loops rounds over at least a
second; sync rounds follow each other without a pause, so thirty of them
take a fraction of a second, the LSN they saw advance is divided by a
whole second, and within seconds the average is near 0 (stall lab A under
oltp_insert: 15 MB/s before, 0-1,700 bytes/s in sync mode). The rounds
then flush only the pages older than the sync mark: the age stays at the
mark, 12-20 s in the lab, until a refresh over a whole second lets one
round reach below it, and the budget set to take the age down to its
target is not flushed. Past the limit, a round carries a slice of the
budget (round_target()); the rounds do so only while the sync rounds of
the window are behind the budget's pace, one slice ahead at most, so
that back to back they flush the budget a second, not what the device
completes.
@param[in]  budget   pages per second (Decision::budget), 0: none
@param[in]  since_s  seconds since the window's first sync round (a
                     window lasts a second)
@param[in]  flushed  flush-list pages the window's sync rounds flushed
@return true if the round flushes past upstream's limit */
bool sync_past_limit(uint64_t budget, double since_s, uint64_t flushed);

/** The window of sync flush rounds that sync_past_limit() reads, kept by
the page cleaner coordinator over its rounds.

A window opens at the first sync round after a round outside sync flush
(or after close()), and lasts a second: the first sync round a second or
more after it opens the next. The pages counted are the flush-list pages
the window's sync rounds flushed. */
class Sync_window {
 public:
  /** A sync flush round starts.
  @param[in]  budget  pages per second (Decision::budget), 0: none
  @param[in]  now_s   seconds on the caller's clock
  @return true if the round flushes past upstream's limit */
  bool round(uint64_t budget, double now_s);

  /** The running sync round flushed n flush-list pages. */
  void flushed(uint64_t n) { m_flushed += n; }

  /** A round outside sync flush, or pacing stopped: the next sync round
  opens a window. */
  void close() { m_start = -1; }

  /** @return true if the last round() opened a window */
  bool opened() const { return m_opened; }

 private:
  /** When the window's first round started; negative: no window. */
  double m_start{-1};
  /** Flush-list pages the window's rounds flushed. */
  uint64_t m_flushed{0};
  /** The last round() opened the window. */
  bool m_opened{false};
};

/** Pages of the second's budget that the page cleaner flushes in slices
after a sync flush round, besides the round.

Upstream's coordinator runs a sync round whenever the checkpoint age is
past the sync mark at the start of an iteration, and sleeps out its second
once a round has taken the age back under the round's limit. While the
age crosses the mark again within each second (stall lab A under
oltp_insert: one round of 800 pages a second, for 8-20 s), every iteration
is a sync round and the second's budget is never flushed: only a round's
target, max(upstream's, a slice), is. The first sync round of a window
therefore hands the rest of the budget to the Slicer (Slicer::after()),
unless slices of the second are still pending; sync rounds that follow
within the second are gated by sync_past_limit() as before.
@param[in]  budget    pages per second (Decision::budget), 0: none
@param[in]  round     the sync round's target (round_target())
@param[in]  opened    the round opened a window (Sync_window::opened())
@param[in]  pending   slices of an earlier target are still due
@return pages for the slices after the round, 0: none */
uint64_t sync_second_rest(uint64_t budget, uint64_t round, bool opened,
                          bool pending);

/** Spreads one second's device-paced flush target over the second.

Upstream's page cleaner submits its whole target at the start of each
second, then sleeps. Below innodb_io_capacity_max that is a short burst;
at the rates device pacing asks for (thousands of pages) it fills the
device queue, or the IOPS throttle of a cloud volume or a blkio cgroup,
for a good part of the second, and every redo and binary log write
submitted meanwhile waits behind it: commits pay for the flushing in
latency. The Slicer cuts the target into up to MAX_SLICES slices of at
least SLICE_MIN_PAGES pages, slice i due at i / count of the second, so
that the same pages go out at the rate the second allows. Times are
seconds on any monotonic clock. */
class Slicer {
 public:
  /** A new second's target.
  @param[in]  n_pages  pages to flush in the second
  @param[in]  now_s    the second's start
  @return pages for the first slice, now (n_pages if it is not cut) */
  uint64_t first(uint64_t n_pages, double now_s);

  /** A second's target of which a round took the first pages now
  (sync_second_rest()): the rest cut as first() cuts a target, every slice
  due after now_s, the last one before the second ends.
  @param[in]  n_pages  pages to flush in the second, the round's included
  @param[in]  taken    pages the round took, fewer than n_pages
  @param[in]  now_s    when the round started */
  void after(uint64_t n_pages, uint64_t taken, double now_s);

  /** @return pages of the next slice if it is due at now_s, else 0 */
  uint64_t next(double now_s);

  /** @return when the next slice is due, or a negative value if none is
  left */
  double due() const;

  /** @return slices the last target was cut into (1: not cut) */
  unsigned count() const { return m_count; }

  /** @return pages of the target handed out before the slice last
  returned by first() or next() */
  uint64_t offset() const { return m_offset; }

 private:
  double m_start{0};
  uint64_t m_per_slice{0};
  /** Pages of the first slice (it takes the remainder); after(): the
  pages the round took. */
  uint64_t m_first{0};
  /** after(): the remainder of the division, in the first slice due. */
  uint64_t m_extra{0};
  uint64_t m_offset{0};
  unsigned m_count{1};
  /** Index of the next slice (m_count: none left). */
  unsigned m_next{1};
};

/** When the page cleaner coordinator should wake up before the end of its
second: for the next slice of the second's flush target, or, while a free
list is below the LRU depth, for the next LRU batch (lru_due()). A time
in the past wakes it at once; the coordinator runs rounds only while the
server is active, and a wake-up that ran no round leaves the same time
due, so: such a wake-up is not repeated before 1 / LRU_ROUNDS of a
second, no
LRU wake-up is handed out once the coordinator has run no round for a
second, and slices left from an earlier second (the server went idle,
or a round ran past the second) are dropped. Times are seconds on any
monotonic clock. */
class Wakeup {
 public:
  /** A page cleaner round, with its LRU batch, ended.
  @param[in]  now_s  when */
  void round(double now_s) { m_last_round = now_s; }

  /** @param[in]      now_s           now
  @param[in]      second_start_s  start of the coordinator's current second
  @param[in]      below           a free list is below the LRU depth
  @param[in,out]  slicer          the second's slices
  @return when to wake up, or a negative value: at the end of the second */
  double next(double now_s, double second_start_s, bool below, Slicer *slicer);

 private:
  /** When the last round ended. */
  double m_last_round{0};
  /** When a wake-up due at once was last handed out. */
  double m_last_wake{0};
};

}  // namespace buf_flush_pace

#endif /* buf0flu_pace_rounds_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/buf0flu_pace.h
 Device-paced flushing: the controller, as pure logic (no clock, no server
 state), driven once per page cleaner iteration with what the engine and
 the device showed over the last interval. The reasoning behind each rule
 and the measurements behind the constants are in
 docs/design/device-pacing-controller.md.

 Upstream sizes the page cleaner's work from the redo rate and the
 dirty-page percentage and clips it at innodb_io_capacity_max. Set far
 below what the device can write, that clip lets the checkpoint age run
 into the async and sync marks (TPS waves) while the device idles. This
 controller replaces the clip by what the device showed it can carry:

 - Capability: flush-list pages per second the page cleaner can add while
   the device keeps up. It starts at innodb_io_capacity_max and grows by a
   bounded step while flushing is using it, the write queue is not growing
   and latency is within innodb_adaptive_flushing_device_latency_pct of
   the baseline (the latency seen while the page cleaner flushes no more
   than upstream would); slowly near the level where it was last cut, not
   at all for a while after a cut. While the page cleaner flushes more
   than upstream asked for and than the checkpoint age required past
   overrun_mark() (upstream would flush that much too, in sync mode), it
   is cut when for two intervals the interval's latency is over the limit
   while the write queue grows, or both it and the smoothed latency are
   over three times the limit, at most once every three intervals, to 85%
   of what was carried; not when the page cleaner carried well past the
   estimate (the estimate said as much). Between the limit and three
   times it, with the queue not growing, it holds: a shared device's
   latency is noisy, and a busier device is slower without being
   saturated. An interval in which upstream's sync-mode flushing ran
   says nothing about the latency or the queue
   (Observation::sync_flushed): no cut, no baseline, no hold or queue
   clamp of the age follower.
 - Write queue: writes submitted and not completed, counted, bounded by
   the writes in flight that the completions' rate and latency imply
   (Little's law), and unknown until a completion is reported, so that
   writes whose completion is never reported (simulated AIO) do not read
   as a queue.
 - Checkpoint age: a flush-list rate that holds the age half-way between
   the async and the sync mark (age_target()), so that pages take as many
   changes as they can before they are written (the fewest page writes
   per commit) and the sync mark is never reached; at least two
   seconds of redo below the sync mark where the redo log is small, but
   not below the async mark. Each interval it
   measures how far the checkpoint advanced per flush-list page over the
   last seven intervals (redo generated minus the change of the age, over
   the pages flushed; LRU pages are chosen by recency, not age, and do not
   count), weighs it equally with the flush list's mean age span per
   page (lsn_per_page(): the tail's advance alone echoes the flushing of
   one age before where the load dirties the pages it just wrote again),
   and sets the rate that advances it by the redo generated plus
   the gap to the target over four seconds (twelve from below, so that
   the rate has ramped up when the age gets there), by a bounded step
   a second, however long the interval (x0.8 .. x1.14 of what was
   flushed; x1.5, from the last interval's redo rate, once the age is
   past overrun_mark()). Below the target by more
   than that, no rate: upstream decides. It asks for no more than the
   device completed while the write queue grows, and for less while a
   queue stands (writes submitted and not completed over a tenth of a
   second's). While page writes are slower than the latency limit and the
   age is short of overrun_mark(), it asks for no more than holds the age
   where it is: the catch-up towards the target waits, so that it does
   not add to a device whose reads are already slow; past overrun_mark()
   the whole rate is required, so this never leads into sync-mode
   flushing.
 - Pressure, 0..1, each rising at once and falling slowly (the
   dirty-page pressure at once when its limits change): dirty pages
   over the last 4 points below innodb_max_dirty_pages_pct (not below
   innodb_max_dirty_pages_pct_lwm), from the dirty-page share smoothed
   over about five seconds (one second's share swings by 30 points in an
   IO-bound pool as LRU batches evict); free pages below the LRU target
   (1 as soon as a thread waited for a free page).
 - Dirty pages: within the band, the flush-list rate that holds the
   share at the band start (hold_rate(): the measured net rate at which
   pages become dirty, plus a fifth of the gap a second); at
   innodb_max_dirty_pages_pct itself, or in a drain (the limit at or
   below the lwm), full pressure: the capability.
 - Budget: the largest of the age-following rate, the dirty-page hold
   rate and the limit's pressure x capability pages per second, moved
   towards that target by a bounded step. Free-page pressure does not
   raise it: flushing a page from the flush list does not free it, and a
   page flushed young costs a write; the LRU depth answers that pressure.
   The hold rate and the pressure part are held to the capability; the
   age-following rate only to what the device completes: it is flushing
   upstream does anyway, later and in sync mode, and a latency rise with
   every write still completed must not defer it there. No rate and no
   pressure, no budget: the page cleaner then does exactly what upstream
   asks. The caller never flushes less than upstream asked for.
 - LRU depth: the free pages the LRU batch keeps per instance, raised from
   innodb_lru_scan_depth under free-page pressure by up to 4x, and to no
   more than an eighth of the instance's pages: 10% a second while
   threads wait for free pages and falling 2% a second once the free lists
   are at half their target (a larger step is a burst of LRU writes that
   reads queue behind), so user threads do not have to flush single pages
   themselves: the pages at the LRU tail are the ones to be evicted next,
   and a dirty one written there has taken all the changes it will take
   in the pool.
 - LRU rounds: while a free list is below that depth the page cleaner
   runs an LRU batch every twentieth of a second, each of at most a tenth
   of the depth, instead of refilling the whole depth in one batch at the
   start of the second (see lru_batch()). */

#ifndef buf0flu_pace_h
#define buf0flu_pace_h

#include <cstddef>
#include <cstdint>

#include "buf0flu_pace_rounds.h"

namespace buf_flush_pace {

/** Where the flush rate holds the checkpoint age: this share of the way
from the async mark (upstream's aggressive flushing) to the sync mark
(its sync-mode flushing, where commits wait), so that a page takes as
many changes as it can before it is written, with room left below the
sync mark for the controller's transients. A target below the async mark
costs page writes: upstream's own sync-mode flushing holds the age near
the sync mark, and there each page takes more changes before its write.
Upstream's sync mark is only ~8% of the async mark above it
(adaptive_flush_max_age and _min_age are 15/16 and 7/8 of the redo
capacity, both less the free-check margin). */
constexpr double AGE_PAST_ASYNC = 0.5;

/** Least room the age target leaves below the sync mark, in seconds of
redo generation, but never below the async mark. Half the way between
the marks is 3% of the redo capacity: with innodb_redo_log_capacity at its
100 MB default that is about a second of a durable OLTP load's redo (stall
lab A: 2.75 MB at 2.2 MB/s), less than one update interval of the
controller (1-1.5 s). A deficit of one interval (a burst that slows the
page writes, an update that comes late) then takes the age into sync-mode
flushing, whose back-to-back rounds hold it there at the sync mark. Two
seconds are more than one interval of the controller with its lateness;
each second more costs page writes on a device near its limit (three
seconds fail AgeFollowerBacksOffOnALatencyCurve's latency bound). Not
below the async mark: there upstream's own flushing turns aggressive,
and a younger target costs page writes (a page flushed younger has taken
fewer changes). */
constexpr double AGE_ROOM_S = 2.0;

/** Age target, share of the async mark, when the sync mark is not above
it (unknown). */
constexpr double AGE_TARGET_NO_SYNC = 0.95;

/** The checkpoint age the flush rate holds.
@param[in]  async_mark  as in Observation (0: unknown)
@param[in]  sync_mark   as in Observation
@param[in]  redo_rate   redo generated per second, LSN (0: unknown, no
                        room rule)
@return async_mark + AGE_PAST_ASYNC x (sync_mark - async_mark), or
AGE_TARGET_NO_SYNC x async_mark if the sync mark is not above the async
mark; at most sync_mark - AGE_ROOM_S x redo_rate, but not below the async
mark; 0 if the async mark is unknown */
double age_target(uint64_t async_mark, uint64_t sync_mark,
                  double redo_rate = 0);

/** Settings, read at every iteration (all of them are dynamic). */
struct Config {
  /** innodb_io_capacity: the lowest capability and the first budget
  step. */
  uint64_t io_capacity{200};
  /** innodb_io_capacity_max: the first capability estimate. */
  uint64_t io_capacity_max{2000};
  /** innodb_adaptive_flushing_device_capacity_max: ceiling of the
  capability estimate and of the budget, 0 = none. */
  uint64_t capability_ceiling{0};
  /** innodb_adaptive_flushing_device_latency_pct: latency, as a percentage
  of the idle baseline, above which the capability is cut and the age
  follower stops catching up. */
  uint64_t latency_pct{200};
  /** innodb_lru_scan_depth. */
  uint64_t lru_scan_depth{1024};
  /** innodb_max_dirty_pages_pct_lwm */
  double dirty_lwm_pct{10};
  /** innodb_max_dirty_pages_pct */
  double dirty_max_pct{90};
};

/** What one interval showed. */
struct Observation {
  /** Length of the interval, seconds (> 0). */
  double interval_s{1};
  /** Data page writes completed in the interval (all of them: page cleaner,
  LRU, single-page flushes). */
  uint64_t writes{0};
  /** Mean latency of those writes, submission to completion, microseconds. */
  double write_latency_us{0};
  /** Data page writes submitted in the interval: more than completed means
  the write queue grew (the device did not keep up). */
  uint64_t submitted{0};
  /** Pages upstream's own flushing asked for in the interval (sync flush
  rounds included): flushing up to this much is not pacing's doing. */
  uint64_t upstream{0};
  /** Pages flushed by upstream's sync-mode rounds in the interval. Such a
  round writes its whole target (up to twice innodb_io_capacity_max) at
  once, and the rounds follow each other without a pause: the interval's
  latency is that burst's, not the device's under pacing. */
  uint64_t sync_flushed{0};
  /** Current LSN (0: unknown). */
  uint64_t lsn{0};
  /** Current LSN minus the oldest modification in the buffer pool. */
  uint64_t lsn_age{0};
  /** Age at which upstream starts aggressive (async) flushing. */
  uint64_t async_mark{0};
  /** Age at which upstream flushes synchronously. */
  uint64_t sync_mark{0};
  /** Dirty pages, percentage of the buffer pool. */
  double dirty_pct{0};
  /** Dirty pages (the flush lists' length) and the buffer pool's pages
  (LRU and free lists), sums over the instances; 0 pool pages: unknown,
  no dirty-page hold rate (see Controller::hold_dirty()). */
  uint64_t dirty_pages{0};
  uint64_t pool_pages{0};
  /** Pages the page cleaner flushed from the flush lists in the interval
  (upstream's target and the budget; not the LRU batches, whose pages are
  chosen by recency, not by age, and are not the budget's). The age
  follower and the capability count these pages only. */
  uint64_t list_flushed{0};
  /** Free list length, sum over the buffer pool instances. */
  uint64_t free_pages{0};
  /** Buffer pool instances (>= 1). */
  uint64_t instances{1};
  /** Pages of the smallest buffer pool instance (0: unknown, the LRU
  depth is then bounded by innodb_lru_scan_depth only). */
  uint64_t instance_pages{0};
  /** Times a thread waited for a free page in the interval. */
  uint64_t free_waits{0};
  /** The page cleaner coordinator ran a round with no server activity in
  the interval: what the controller remembers of the load is from before
  an idle period. */
  bool after_idle{false};
};

/** What sets the ceiling of the budget (Decision::ceiling). */
enum class Ceiling : uint8_t {
  /** The capability estimate: the pages the device carries at low
  latency. */
  CAPABILITY,
  /** The age-following rate, above the capability: the flushing the
  checkpoint age needs, held to what the device completes. */
  CHECKPOINT_AGE,
  /** innodb_adaptive_flushing_device_capacity_max. */
  USER
};

/** @return what a ceiling source is called in SHOW ENGINE INNODB STATUS */
const char *ceiling_name(Ceiling by);

/** What the controller decided, and why. */
struct Decision {
  /** Pages per second the page cleaner may flush; 0 = no pressure, leave
  upstream's target alone. */
  uint64_t budget{0};
  /** Learned write capability, pages per second. */
  uint64_t capability{0};
  /** Pages per second the budget cannot exceed in this interval: the
  larger of the capability (never below innodb_io_capacity) and the
  age-following rate, or innodb_adaptive_flushing_device_capacity_max
  (never below innodb_io_capacity) where that is lower. */
  uint64_t ceiling{0};
  /** Which of those it is. */
  Ceiling ceiling_by{Ceiling::CAPABILITY};
  /** Idle latency baseline, microseconds (0 until measured). */
  double baseline_us{0};
  /** Last interval's mean write latency, microseconds. */
  double latency_us{0};
  /** Pressure components, and the largest of p_ckpt and the smoothed
  dirty and free pressures, 0..1. p_ckpt: the
  age-following rate as a share of the capability, or how far the age is
  past overrun_mark() towards the sync mark if larger (reported only). */
  double p_ckpt{0};
  double p_dirty{0};
  double p_free{0};
  double pressure{0};
  /** Free pages the LRU batch keeps per instance. */
  uint64_t lru_depth{0};
  /** The checkpoint age the age-following rate holds (age_target() at
  the redo rate smoothed over about half a minute), LSN; 0 while
  unknown. */
  uint64_t age_target{0};
  /** True while latency is above the limit and the capability is being
  cut. */
  bool backing_off{false};
  /** Data page writes submitted and not completed, estimated (0 while no
  completion has been reported). */
  uint64_t write_queue{0};
  /** Bytes of redo generated per page made dirty, both smoothed over
  about two seconds; negative while unknown, or while fewer than 64
  pages a second become dirty. */
  double redo_per_dirtied{-1};
};

/** Checkpoint-age pressure, how far the age is into upstream's aggressive
flushing: 0 up to the async mark,
1 at the sync mark and beyond, linear between (1 from the async mark if the
sync mark is not above it). 0 if the async mark is unknown (0). */
double ckpt_pressure(uint64_t lsn_age, uint64_t async_mark, uint64_t sync_mark);

/** Age from which the age-following flushing is required (p_ckpt rises
from 0): half-way from the age target to the sync mark (the async mark if
the sync mark is not above it). Up to there the age is where pacing put
it, and the device's response to that flushing teaches the capability
estimate; past it the age overran its target and upstream would flush as
much (in sync mode) whatever the device says.
@param[in]  redo_rate  as in age_target() */
uint64_t overrun_mark(uint64_t async_mark, uint64_t sync_mark,
                      double redo_rate = 0);

/** Least advance a requested checkpoint must make, share of the async
mark: a checkpoint writes the redo header and first syncs the data files,
and is not worth that for less. */
constexpr double CKPT_MIN_ADVANCE = 0.02;

/** Seconds of redo generation a checkpoint is asked for ahead of the
checkpoint limit: the controller decides every 1-2 s, and the log
checkpointer writes the checkpoint after it syncs the data files. Three
seconds cover an update two seconds after the last and a checkpoint
written a second after it is asked for; with two, stall lab A had
redo-space waits after four seconds without a checkpoint. */
constexpr double CKPT_LEAD_S = 3.0;

/** Seconds of redo ahead of the checkpoint limit a checkpoint is asked for
between the controller's updates, after each page cleaner round (about ten
a second while pacing slices the second). Where the redo fills the room
between the age target and the limit in less than an update interval
(stall lab A under oltp_write_only: 8 MB/s, 1.4 s of redo) a checkpoint at
each update leaves the checkpoint age at the limit whenever two updates
come 1.5 s apart (redo-space waits in a third of the seconds); checked
after each round it is asked for one second of redo ahead, time for the
log checkpointer to sync the data files and write it. Not earlier: at such
rates a checkpoint asked for from the target on would come several times
a second, each syncing the data files. */
constexpr double CKPT_ROUND_LEAD_S = 1.0;

/** Whether to ask the log checkpointer for a checkpoint now. Under load
upstream's checkpointer writes one only every seven
innodb_log_checkpoint_every periods (SRV_MASTER_CHECKPOINT_INTERVAL in
log_checkpointer()), or when a user thread runs short of redo space: the
checkpoint then trails the oldest modification by up to seven seconds of
redo. With the age of the oldest modification held at its target, the
checkpoint age itself would run past it and into the free-check limit
(redo-space waits).

Each checkpoint syncs every data file written since the last one and
writes the redo header, so one is asked for only when it is needed: once
the checkpoint age is within CKPT_LEAD_S seconds of redo of the checkpoint
limit (upstream's free-check limit, or its aggressive-checkpoint age if
lower), never below the age target (age_target()), and only if the
checkpoint can advance by CKPT_MIN_ADVANCE of the async mark. Holding the
age target leaves the room between it and the free-check limit (3/32 of
the redo capacity at upstream's ratios) for the checkpoint to trail in,
so where the redo fills that room in a few seconds a checkpoint comes
every few seconds rather than every second; with no limit known (0) one
is asked for from the age target on.
@param[in]  ckpt_age    current LSN - last checkpoint LSN
@param[in]  lsn_age     current LSN - oldest modification (0: no dirty page)
@param[in]  redo_rate   redo generated per second, LSN
@param[in]  ckpt_limit  checkpoint age at which the checkpoint is late, LSN
                        (0: unknown)
@param[in]  async_mark  as in Observation (0: unknown, never asks)
@param[in]  sync_mark   as in Observation
@param[in]  lead_s      seconds of redo ahead of the limit it is asked for
                        from (CKPT_LEAD_S at the controller's updates,
                        CKPT_ROUND_LEAD_S between them)
@return true to request a checkpoint */
bool checkpoint_wanted(uint64_t ckpt_age, uint64_t lsn_age, double redo_rate,
                       uint64_t ckpt_limit, uint64_t async_mark,
                       uint64_t sync_mark, double lead_s = CKPT_LEAD_S);

/** Flush rate that brings the checkpoint age to a target.

The step down is bounded from what was flushed, the step up from at least
`step_from` (innodb_io_capacity past half the target), so that a rate
can start from nothing. Young, the step starts from what was flushed
only: bounded from a large innodb_io_capacity (8,000), any advance wanted
at all would ask for thousands of pages a second where upstream flushes
hundreds.
@param[in] flushed       pages flushed per second in the last interval
@param[in] generated     redo generated per second in it (LSN units)
@param[in] lsn_per_page  checkpoint advance per page flushed (smoothed)
@param[in] age           checkpoint age now
@param[in] target        checkpoint age wanted
@param[in] horizon_s     seconds over which to close the gap
@param[in] step_from     least flush rate the step up starts from
@param[in] rate_up       largest rise a second, share of max(flushed,
                         step_from)
@param[in] interval_s    seconds since the last update: the bounds are per
                         second, so that the ramp keeps its pace when
                         updates come two seconds apart
@return pages per second that advance the checkpoint by the redo generated
plus the gap over the horizon, bounded to [0.8^s x flushed,
(1 + rate_up)^s x max(flushed, step_from)], s the interval (1 to 10
seconds); 0 when the age is so far below the target that no advance is
wanted */
double ckpt_rate(double flushed, double generated, double lsn_per_page,
                 double age, double target, double horizon_s, double step_from,
                 double rate_up, double interval_s = 1);

/** The checkpoint advance, LSN, one more flush-list page written gives.
@param[in]  tail        the advance per page the last intervals'
                        flushing showed (0: none seen)
@param[in]  lsn_age     current LSN minus the oldest modification
@param[in]  list_pages  pages in the flush lists
@return the weighted geometric mean (LIST_WEIGHT) of `tail` and the
list's mean span per page, lsn_age / list_pages, the latter held within
LIST_SPAN of `tail`; `tail` if either is unknown */
double lsn_per_page(double tail, double lsn_age, uint64_t list_pages);

/** Dirty-page pressure: 0 at or below the larger of lwm and max - 4
points, 1 at or above max, linear between (NaN gives 0). Below that band
a dirty page costs nothing the checkpoint age and the free lists do not
already say, and upstream's own flushing for the dirty-page percentage
goes on (its lwm keeps its meaning there). */
double dirty_pressure(double dirty_pct, double lwm_pct, double max_pct);

/** Share of the gap between the dirty pages and the start of the
dirty-page band that the hold rate closes a second. */
constexpr double DIRTY_HOLD_GAIN = 0.2;

/** Flush-list rate that holds the dirty-page share at the start of the
band (the larger of lwm and max - 4 points), short of
innodb_max_dirty_pages_pct.

Read as pressure x capability, the dirty-page pressure makes a relaxation
oscillation of an IO-bound pool: the smoothed share crosses the band, the
budget rises, the pool is flushed far below the band while the budget
decays, and the share climbs back; each burst takes the device from the
reads. The share changes by what becomes dirty less what is written, so
the rate that holds it is measured, not guessed: the net rate at which pages
became dirty (less what the LRU batches and single-page flushes
cleaned) plus what the flush list wrote (`dirtied`); the gap above the
band start is closed at DIRTY_HOLD_GAIN a second. Below the band start
the measured rate is taken in part, from none 4 points below it to all
of it at the start, so the rate fades out instead of stopping.
@param[in]  dirtied     pages made dirty a second, net of the LRU's and
                        single-page flushes' cleaning, plus the flush
                        list's pages (smoothed; 0 or less: none)
@param[in]  dirty_pct   dirty-page share, smoothed, percent
@param[in]  from_pct    start of the band, percent
@param[in]  pool_pages  buffer pool pages
@return pages per second; 0 with no net dirtying, at or below 4 points
under the band start, or the pool unknown */
double hold_rate(double dirtied, double dirty_pct, double from_pct,
                 uint64_t pool_pages);

/** Free-page pressure: 1 if a thread waited for a free page; otherwise how
far the free list is below half the target (0 at or above half). */
double free_pressure(uint64_t free_pages, uint64_t target, uint64_t waits);

/** The controller. One instance, driven by the page cleaner coordinator. */
class Controller {
 public:
  /** Take one interval's observation and decide the next budget.
  @param[in]  cfg  current settings
  @param[in]  obs  what the interval showed
  @return the decision (also kept, see last()) */
  const Decision &update(const Config &cfg, const Observation &obs);

  /** @return the last decision */
  const Decision &last() const { return m_last; }

  /** Forget everything learned (the feature was switched off: the next
  update starts from innodb_io_capacity_max again). */
  void reset();

 private:
  /** Estimate the write queue: writes submitted and not completed,
  counted, and bounded by the writes in flight that the completions'
  rate and latency imply (Little's law), so that a write whose completion
  is never reported (simulated AIO, innodb_use_native_aio=OFF) does not
  stay in it for ever; unknown (0) until a completion is reported.
  @param[in]  obs       what the interval showed
  @param[in]  measured  the interval's latency is measured */
  void update_queue(const Observation &obs, bool measured);

  /** Learn the capability from the interval's writes and latency. */
  void learn(const Config &cfg, const Observation &obs);

  /** Update the flush rate that holds the checkpoint age at its target. */
  void follow_age(const Config &cfg, const Observation &obs);

  /** The flush-list rate that holds the dirty-page share at the start of
  the dirty-page band (see hold_rate()), from the net rate at which pages
  became dirty, measured, and the smoothed share.
  @return pages per second, 0: none */
  double hold_dirty(const Config &cfg, const Observation &obs);

  /** Forget the load (age window, pressures, budget, write queue, LRU
  depth) and keep what was learned about the device: the interval spans
  an idle round of the coordinator (Observation::after_idle) or an idle
  gap, see IDLE_GAP_S. */
  void forget_load();

  Decision m_last;
  /** Capability estimate, pages/s (0: not started). */
  double m_capability{0};
  /** Latency baseline, us (0: not measured). */
  double m_baseline_us{0};
  /** Smoothed write latency, us (0: not measured). */
  double m_latency_us{0};
  /** Dirty-page share, smoothed, percent (negative: not measured). */
  double m_dirty_pct{-1};
  /** Smoothed pressure of the dirty-page limit itself (drives the
  budget at innodb_max_dirty_pages_pct and in a drain). */
  double m_pressure{0};
  /** Dirty pages at the last update (negative: none). */
  double m_dirty_pages{-1};
  /** Net rate at which pages became dirty, less what the LRU batches and
  single-page flushes cleaned, plus the flush list's pages, smoothed,
  pages/s (valid once two updates knew the pool). */
  double m_dirtied{0};
  bool m_dirtied_valid{false};
  /** The LSN at the last update the pool was known (0: none); the redo
  generated a second and the net rate at which pages became dirty, both
  smoothed over about two seconds (Decision::redo_per_dirtied). Not
  m_redo_rate: that one is kept only while the flush list has pages and
  is smoothed over about half a minute, while a sorted index build starts
  and ends within seconds; the redo and the pages dirtied are taken over
  the same intervals so that their ratio is a per-page figure. */
  uint64_t m_dirtied_lsn{0};
  double m_redo_short{0};
  double m_dirtied_short{0};
  /** innodb_max_dirty_pages_pct_lwm and innodb_max_dirty_pages_pct the
  last pressure was read against (negative: none yet). */
  double m_dirty_lwm_pct{-1};
  double m_dirty_max_pct{-1};
  /** Smoothed free-page pressure (reported). */
  double m_free_pressure{0};
  /** Free pages the LRU batch keeps per instance (0: not started). */
  double m_lru_depth{0};
  /** Budget, pages/s. */
  double m_budget{0};
  /** Consecutive intervals with latency above the limit. */
  unsigned m_over{0};
  /** Intervals since the last cut (saturates). */
  unsigned m_since_cut{100};
  /** Capability at which latency last broke the limit (0: never). */
  double m_last_cut{0};
  /** Age-following flush rate, pages/s (0: none). */
  double m_ckpt_rate{0};
  /** The age-following rate the last budget carried past overrun_mark(),
  beyond the capability if need be, pages/s (0: none). */
  double m_required{0};
  /** The write queue grew in the last interval. */
  bool m_behind{false};
  /** The last interval's page write latency was over the limit
  (innodb_adaptive_flushing_device_latency_pct of the baseline). */
  bool m_latency_over{false};
  /** Writes submitted and not completed, summed over the intervals. */
  double m_queue{0};
  /** That queue stands (is more than a tenth of a second's writes). */
  bool m_queued{false};
  /** A write completion has been reported since the start. */
  bool m_completions_seen{false};
  /** One interval, as the age-following rate remembers it. */
  struct Sample {
    uint64_t lsn;
    double age;
    double flushed;
    double interval_s;
  };
  /** The last intervals (the advance per page is measured over them). */
  static constexpr unsigned WINDOW = 8;
  Sample m_window[WINDOW]{};
  /** Index of the newest sample, and how many are valid. */
  unsigned m_newest{0};
  unsigned m_samples{0};
  /** Checkpoint age, smoothed (0: not measured). */
  double m_age{0};
  /** Redo generated per second, smoothed over about half a minute (0: not
  measured), for the age target's room below the sync mark
  (age_target()). */
  double m_redo_rate{0};
};

}  // namespace buf_flush_pace

#endif /* buf0flu_pace_h */

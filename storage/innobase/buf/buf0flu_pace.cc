/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file buf/buf0flu_pace.cc
 Device-paced flushing controller, see include/buf0flu_pace.h; the
 reasoning behind the rules and constants is in
 docs/design/device-pacing-controller.md. */

#include "buf0flu_pace.h"

#include <algorithm>
#include <cmath>

namespace buf_flush_pace {

namespace {

/** Fewer writes than this in an interval say nothing about latency. */
constexpr uint64_t MIN_WRITES = 16;
/** Weight of a light-load interval (the page cleaner flushing no more
than upstream asked for, or than innodb_io_capacity_max) in the latency
baseline. */
constexpr double BASELINE_WEIGHT = 0.1;
/** The write queue grows: completed writes below this share of the
submitted ones, by more than BEHIND_SLACK (a batch in flight at the
interval's edge is not a queue). */
constexpr double BEHIND_SHARE = 0.95;
constexpr double BEHIND_SLACK = 128;
/** A queue stands when the writes submitted and not completed exceed this
share of a second's completed writes (and BEHIND_SLACK). */
constexpr double QUEUE_SHARE = 0.1;
/** The queue counted from submissions and completions is bounded by this
multiple of the writes in flight by Little's law (the mean latency of one
interval lags a growing queue). */
constexpr double QUEUE_LITTLE_SLACK = 2.0;
/** Over this multiple of the limit latency counts whatever the queue. */
constexpr double SEVERE = 3.0;
/** Weight of the last second in the smoothed latency. */
constexpr double LATENCY_WEIGHT = 0.3;
/** The capability grows by this factor per interval while probing... */
constexpr double GROWTH = 1.25;
/** ...but never beyond this multiple of what the device carried. */
constexpr double GROWTH_OVER_CARRIED = 2.0;
/** Cut to this share of what was carried when latency stays high. */
constexpr double CUT = 0.85;
/** A flush batch ends at a page boundary, so flushing held to a rate
carries up to a few percent more: flushing over this multiple of a rate
is past it. It must be past upstream's target, and past what the
checkpoint age required, to count against the capability; past the
capability, an overload does not cut the estimate. */
constexpr double BATCH_SLACK = 1.1;
/** Intervals over the latency limit before a cut (hysteresis). */
constexpr unsigned CUT_AFTER = 2;
/** Intervals after a cut before the next one: the queue built before the
cut drains first. */
constexpr unsigned CUT_SPACING = 3;
/** Intervals after a cut during which the capability does not grow: at
a throttle every probe past it costs a few seconds of queue. */
constexpr unsigned CUT_HOLD = 20;
/** Near the level of the last cut the capability grows by this factor
only. */
constexpr double CAUTIOUS_GROWTH = 1.02;
/** Within 3% of that level (either side), by this factor... */
constexpr double PLATEAU_GROWTH = 1.002;
/** ...until half as much again above it, where that level is forgotten. */
constexpr double PAST_CUT = 1.5;
/** Pressure from which the controller probes for more capability. */
constexpr double PROBE_PRESSURE = 0.5;
/** Pressure falls by this share of the gap per interval (rises at once). */
constexpr double RELEASE = 0.3;
/** Largest budget increase per interval, share of the budget. */
constexpr double STEP_UP = 0.5;
/** Largest budget decrease per interval, share of the budget. */
constexpr double STEP_DOWN = 0.3;
/** Below this pressure there is no budget. */
constexpr double MIN_PRESSURE = 0.01;
/** Dirty-page pressure starts this many percentage points below
innodb_max_dirty_pages_pct (not below innodb_max_dirty_pages_pct_lwm).
Upstream's own flushing holds an IO-bound pool just under the limit
(its free-page waits are answered by the LRU depth). A wider band holds
the pool lower with more flush-list pages a second than upstream's, and
on a volume at its write cap each of them is taken from the commits. */
constexpr double DIRTY_BAND_PCT = 4;
/** Weight of the last second in the dirty-page share the dirty-page
pressure is read from. In an IO-bound pool one second's share swings
between about 50% and 90% as LRU batches evict, and the pressure rises
at once: read from one second's share, it would spike to 1 and lift the
flush-list budget every few seconds. */
constexpr double DIRTY_WEIGHT = 0.2;
/** Fewer pages a second made dirty say nothing of the redo each takes
(Decision::redo_per_dirtied). */
constexpr double DIRTIED_MIN = 64;
/** Weight of the last second in the redo and the pages made dirty that
Decision::redo_per_dirtied divides: about two seconds. When a bulk load's
28 MB of redo a second gives way to a sorted index build's few hundred KB,
the ratio falls under NO_REDO_BYTES_PER_PAGE within about six seconds;
at DIRTY_WEIGHT it took twenty (PagesMadeWithoutRedoAreUpstreamsRounds). */
constexpr double REDO_PAGE_WEIGHT = 0.5;
/** The LRU depth rises to (1 + this) x innodb_lru_scan_depth... */
constexpr double LRU_BOOST = 3.0;
/** ...by this factor a second while threads wait for free pages or the
free lists run below a quarter of their target, and falls back towards
innodb_lru_scan_depth by this one while they are at half of it or more.
Each step up is one LRU batch that much larger than the free pages taken:
set to 4x at the first wait, the depth makes LRU batches of thousands of
pages on a volume at its IOPS cap, and the reads queue behind them. */
constexpr double LRU_STEP_UP = 1.1;
constexpr double LRU_STEP_DOWN = 0.98;
/** The raised LRU depth keeps at most this share of an instance free:
upstream's default depth on its default pool (1,024 of 8,192 pages). */
constexpr double LRU_DEPTH_MAX_SHARE = 1.0 / 8;
/** Free-page pressure from which the depth steps up without a wait. */
constexpr double LRU_LOW = 0.5;
/** An interval longer than this spans an idle gap even if no idle round
of the coordinator was reported (Observation::after_idle): the
coordinator updates the controller only from its active rounds, every
1-1.5 s under load, so nothing it remembers of the load before the gap is
current, and kept across the gap it would act at the start of the next
load on the pressure, budget and age window of the last one. Long rounds
(sync-mode flushing of a large batch) take a few seconds, well short of
this. */
constexpr double IDLE_GAP_S = 10;
/** Seconds over which the age is brought back to that target from
above... */
constexpr double AGE_HORIZON_S = 4;
/** ...and over which it is let rise to it from below: the rate starts
to ramp (by at most RATE_UP a second) this many seconds of redo before
the target, so that it has reached the rate that holds the age when the
age gets there, instead of starting at upstream's and overshooting. */
constexpr double AGE_APPROACH_S = 12;
/** Weight of the last interval in the redo rate the age target's room
below the sync mark is read from (age_target()): about half a minute. A
burst of load for a few seconds moves the target little, so the follower
does not chase a lower target while the device is busiest
(AgeFollowerBacksOffOnALatencyCurve). */
constexpr double ROOM_WEIGHT = 1.0 / 30;
/** Weight of the last interval in the age the rate is set from. */
constexpr double AGE_WEIGHT = 0.5;
/** Largest change of the age-following rate a second, share of what was
flushed, compounded over the interval: the coordinator's updates come
every 1-2 s, and a step per update would halve the ramp when they come
two seconds apart, letting the age run past its target into a catch-up
(ApproachKeepsItsPaceWithUpdatesTwoSecondsApart). On the approach after
a cold start the pages dirtied first, at the highest rate, are the
oldest, so the rate that holds a young age is far above the settled one:
a faster rise overshoots the settled rate and takes throughput from the
transactions for a few seconds (ApproachAfterAColdStartTakesNoDip); a
slower one lets the age run past its target. */
constexpr double RATE_UP = 0.14;
constexpr double RATE_DOWN = 0.2;
/** Largest rise of the rate a second once the age is past
overrun_mark(): under two seconds of redo from the sync mark at a doubled
load, where upstream flushes as fast as the device takes anyway; at
RATE_UP a load step holds the age at the sync mark twice as long
(FollowsALoadStep). */
constexpr double RATE_UP_OVERRUN = 0.5;
/** Weight of the flush list's mean LSN span per page in the advance a
page write gives the checkpoint (lsn_per_page()); the rest is the
advance the last intervals' flushing showed at the list's tail. A load
that changes the same pages over and over (oltp_insert's secondary
index, whose leaves are all dirty) puts every page written back into the
list within seconds, so the pages at the tail are those written one age
before: the tail's advance a page echoes the flushing of one age ago,
and a rate set from it alone swings with that echo, into sync-mode
rounds at the top of each swing (InsertMixEchoDoesNotSwing). Over the
whole list the span per page is what holds the age in a steady state
(Little's law: the pages in the list are those dirtied over one age),
but it does not see a tail that is denser or sparser than the list for
other reasons (a cold start's first pages, LRU evictions from the list);
at 0.75 a sudden age step with no more dirty pages
(SmallRedoLeavesRoomForAStall) already reaches the sync mark. */
constexpr double LIST_WEIGHT = 0.5;
/** The list's span per page is read within this factor of the tail's: a
page held dirty for long (a latch, a page pinned by a long operation)
makes the age long for a list of few pages, and the rate must not drop
by more than half for it. */
constexpr double LIST_SPAN = 4;

double clamp01(double v) {
  if (!(v > 0)) return 0; /* also NaN */
  return v > 1 ? 1 : v;
}

double smooth_down(double prev, double now) {
  return now >= prev ? now : prev + (now - prev) * RELEASE;
}

/** @return the start of the dirty-page band: the larger of lwm and
max - DIRTY_BAND_PCT, percent */
double band_start(double lwm_pct, double max_pct) {
  return std::max(lwm_pct, max_pct - DIRTY_BAND_PCT);
}

}  // namespace

double ckpt_pressure(uint64_t lsn_age, uint64_t async_mark,
                     uint64_t sync_mark) {
  if (async_mark == 0) return 0;
  if (sync_mark <= async_mark) return lsn_age >= async_mark ? 1 : 0;
  return clamp01((static_cast<double>(lsn_age) - async_mark) /
                 (sync_mark - async_mark));
}

double age_target(uint64_t async_mark, uint64_t sync_mark,
                  double redo_rate) {
  if (async_mark == 0) return 0;
  const double mark = static_cast<double>(async_mark);
  if (sync_mark <= async_mark) return AGE_TARGET_NO_SYNC * mark;
  const double half_way =
      mark + AGE_PAST_ASYNC * static_cast<double>(sync_mark - async_mark);
  if (!(redo_rate > 0)) return half_way;
  const double roomy = static_cast<double>(sync_mark) - AGE_ROOM_S * redo_rate;
  return std::max(mark, std::min(half_way, roomy));
}

uint64_t overrun_mark(uint64_t async_mark, uint64_t sync_mark,
                      double redo_rate) {
  if (sync_mark <= async_mark) return async_mark;
  return static_cast<uint64_t>(
      (age_target(async_mark, sync_mark, redo_rate) +
       static_cast<double>(sync_mark)) /
      2);
}

bool checkpoint_wanted(uint64_t ckpt_age, uint64_t lsn_age, double redo_rate,
                       uint64_t ckpt_limit, uint64_t async_mark,
                       uint64_t sync_mark, double lead_s) {
  if (async_mark == 0) return false;
  const double mark = static_cast<double>(async_mark);
  const double target =
      age_target(async_mark, sync_mark, std::max(0.0, redo_rate));
  const double ask_at =
      ckpt_limit == 0
          ? target
          : std::max(target, static_cast<double>(ckpt_limit) -
                                 lead_s * std::max(0.0, redo_rate));
  if (static_cast<double>(ckpt_age) < ask_at) return false;
  /* With no dirty page the checkpoint can advance to the current LSN. */
  const double advance = static_cast<double>(ckpt_age) -
                         static_cast<double>(std::min(lsn_age, ckpt_age));
  return advance >= CKPT_MIN_ADVANCE * mark;
}

double ckpt_rate(double flushed, double generated, double lsn_per_page,
                 double age, double target, double horizon_s, double step_from,
                 double rate_up, double interval_s) {
  /* Checkpoint advance (LSN per second) wanted: all the redo generated,
  plus or minus the gap to the target spread over the horizon. */
  const double want = generated + (age - target) / horizon_s;
  if (!(want > 0)) return 0;
  /* The bounds are per second: the coordinator's updates come every
  1-2 s, and bounded per update a 2-s interval would halve the ramp. */
  const double seconds = std::clamp(interval_s, 1.0, IDLE_GAP_S);
  const double lo = flushed * std::pow(1 - RATE_DOWN, seconds);
  const double hi =
      std::max(flushed, step_from) * std::pow(1 + rate_up, seconds);
  if (!(lsn_per_page > 0)) return hi; /* flushing advanced nothing */
  return std::clamp(want / lsn_per_page, lo, hi);
}

double lsn_per_page(double tail, double lsn_age, uint64_t list_pages) {
  if (!(tail > 0) || !(lsn_age > 0) || list_pages == 0) return tail;
  const double list = std::clamp(lsn_age / static_cast<double>(list_pages),
                                 tail / LIST_SPAN, tail * LIST_SPAN);
  return std::exp(LIST_WEIGHT * std::log(list) +
                  (1 - LIST_WEIGHT) * std::log(tail));
}

double dirty_pressure(double dirty_pct, double lwm_pct, double max_pct) {
  /* Only the approach to the limit counts: below it a dirty page costs
  nothing that the checkpoint age and the free lists do not already say,
  and a page flushed early takes fewer changes per write. */
  const double from = band_start(lwm_pct, max_pct);
  if (!(dirty_pct > from)) return 0;
  if (max_pct <= from) return dirty_pct >= max_pct ? 1 : 0;
  return clamp01((dirty_pct - from) / (max_pct - from));
}

double hold_rate(double dirtied, double dirty_pct, double from_pct,
                 uint64_t pool_pages) {
  if (pool_pages == 0 || !(dirtied > 0) || !(dirty_pct > 0)) return 0;
  const double gap = dirty_pct - from_pct;
  if (!(gap > -DIRTY_BAND_PCT)) return 0;
  const double taken = clamp01((gap + DIRTY_BAND_PCT) / DIRTY_BAND_PCT);
  const double closing = DIRTY_HOLD_GAIN * std::max(gap, 0.0) / 100.0 *
                         static_cast<double>(pool_pages);
  return dirtied * taken + closing;
}

double free_pressure(uint64_t free_pages, uint64_t target, uint64_t waits) {
  if (waits > 0) return 1;
  /* The LRU batch refills the free lists up to the target once a second,
  so a full pool runs between 0 and the target: only the lower half
  counts. */
  const double half = target / 2.0;
  if (target == 0 || free_pages >= half) return 0;
  return clamp01(1.0 - static_cast<double>(free_pages) / half);
}

void Controller::reset() { *this = Controller(); }

void Controller::forget_load() {
  Controller fresh;
  fresh.m_capability = m_capability;
  fresh.m_baseline_us = m_baseline_us;
  fresh.m_latency_us = m_latency_us;
  fresh.m_since_cut = m_since_cut;
  fresh.m_last_cut = m_last_cut;
  fresh.m_completions_seen = m_completions_seen;
  fresh.m_dirty_lwm_pct = m_dirty_lwm_pct;
  fresh.m_dirty_max_pct = m_dirty_max_pct;
  *this = fresh;
}

void Controller::update_queue(const Observation &obs, bool measured) {
  if (obs.writes > 0) m_completions_seen = true;
  if (!m_completions_seen) {
    /* No completion reported since the start (simulated AIO reports
    none): the queue is unknown, not the sum of every write submitted. */
    m_queue = 0;
  } else {
    const double grown = static_cast<double>(obs.submitted) -
                         static_cast<double>(obs.writes);
    m_queue = std::max(0.0, m_queue + grown);
    if (measured) {
      /* Little's law: writes in flight = completion rate x latency
      (latency from submission). A write whose completion is not reported
      would stay in the counted queue for ever; it is in neither this
      bound nor, after its interval, the interval's own growth. */
      const double interval = obs.interval_s > 0 ? obs.interval_s : 1.0;
      const double in_flight =
          obs.writes / interval * obs.write_latency_us / 1e6;
      m_queue = std::min(m_queue,
                         std::max(QUEUE_LITTLE_SLACK * in_flight, grown));
    }
  }
  m_queued = m_queue > std::max(BEHIND_SLACK, QUEUE_SHARE * obs.writes);
  m_last.write_queue = static_cast<uint64_t>(m_queue);
}

void Controller::learn(const Config &cfg, const Observation &obs) {
  const double floor =
      static_cast<double>(std::max<uint64_t>(cfg.io_capacity, 1));
  if (m_capability == 0) {
    m_capability =
        std::max<double>(floor, static_cast<double>(cfg.io_capacity_max));
  }
  const double interval = obs.interval_s > 0 ? obs.interval_s : 1.0;
  /* What the page cleaner flushed from the flush lists: the capability
  bounds the flush-list budget, and is what it may add to the device on top
  of everybody else's writes (the LRU batches' among them). */
  const double carried = obs.list_flushed / interval;
  const bool measured = obs.writes >= MIN_WRITES && obs.write_latency_us > 0;
  update_queue(obs, measured);
  m_last.latency_us = measured ? obs.write_latency_us : 0;
  m_last.backing_off = false;
  m_latency_over = false;
  if (obs.sync_flushed > 0) {
    /* Upstream's sync-mode rounds write their whole target at once and
    follow each other without a pause: the interval's latency and its
    writes in flight are that burst's queue, several times what the same
    device shows under pacing's slices (stall lab A: 7-13 ms against 1-2
    ms). Read as the device's, they cut the capability and held the age
    follower at what was flushed, and the age stayed at the sync mark
    (SyncRoundSaysNothingAboutTheDevice). */
    m_queued = false;
    m_behind = false;
    return;
  }
  if (!measured) return;

  /* Decisions use a smoothed latency: one second's mean swings by several
  times on a device shared with redo and binlog syncs. */
  m_latency_us = m_latency_us == 0
                     ? obs.write_latency_us
                     : m_latency_us + (obs.write_latency_us - m_latency_us) *
                                          LATENCY_WEIGHT;
  const double lat = m_latency_us;
  const double light = std::max(static_cast<double>(cfg.io_capacity_max),
                                obs.upstream / interval);
  if (m_baseline_us == 0) {
    m_baseline_us = obs.write_latency_us;
  } else if (carried <= light) {
    /* The latency the device has with no more flushing than upstream's:
    what foreground reads and commits would see without pacing. */
    m_baseline_us += (obs.write_latency_us - m_baseline_us) * BASELINE_WEIGHT;
  }

  const double limit =
      m_baseline_us * std::max<uint64_t>(cfg.latency_pct, 100) / 100.0;
  const bool behind =
      static_cast<double>(obs.writes) <
      BEHIND_SHARE * static_cast<double>(obs.submitted) - BEHIND_SLACK;

  if (m_since_cut < CUT_HOLD) m_since_cut++;
  /* A growing queue is direct evidence: it acts on this second's
  latency; latency alone acts only when it stays high. Either way this
  interval's own latency must be over the limit: once a queue has
  drained, the smoothed latency still remembers it for a while, and
  cutting on that memory alone cut again and again. Only what pacing
  added counts: upstream's own flushing (a sync flush round) and the
  flushing the checkpoint age required past overrun_mark() (upstream
  would have done it too, in sync mode) may overload the device without
  saying anything against the capability. Nor does an overload from
  flushing well past the capability (the age-following rate is not held
  to it, see update()): the estimate said as much. */
  m_behind = behind;
  m_latency_over = obs.write_latency_us > limit;
  if (carried > BATCH_SLACK * std::max(light, m_required) &&
      obs.write_latency_us > limit &&
      (behind || std::min(lat, obs.write_latency_us) > SEVERE * limit)) {
    m_last.backing_off = true;
    if (++m_over >= CUT_AFTER && m_since_cut >= CUT_SPACING &&
        carried <= BATCH_SLACK * m_capability) {
      m_capability = std::max(floor, carried * CUT);
      m_last_cut = m_capability / CUT;
      m_over = 0;
      m_since_cut = 0;
    }
    return;
  }
  m_over = 0;

  const bool cleaner_busy =
      m_budget > 0 &&
      static_cast<double>(obs.list_flushed) / interval >= 0.8 * m_budget;
  const bool pressed = m_pressure >= PROBE_PRESSURE ||
                       m_ckpt_rate >= PROBE_PRESSURE * m_capability;
  if (lat <= limit && !behind && pressed && cleaner_busy &&
      m_since_cut >= CUT_HOLD) {
    double factor = GROWTH;
    if (m_capability > PAST_CUT * m_last_cut) m_last_cut = 0; /* well past it */
    if (m_last_cut > 0 && m_capability * GROWTH > 0.9 * m_last_cut) {
      /* Slowest within 3% of it either side; past it the device has
      shown it carries more, so back to the cautious pace. */
      const bool near = m_capability >= 0.97 * m_last_cut &&
                        m_capability <= 1.03 * m_last_cut;
      factor = near ? PLATEAU_GROWTH : CAUTIOUS_GROWTH;
    }
    const double grown = m_capability * factor;
    const double bound = std::max(m_capability, carried * GROWTH_OVER_CARRIED);
    m_capability = std::min(grown, bound);
  }
}

void Controller::follow_age(const Config &cfg, const Observation &obs) {
  const double interval = obs.interval_s > 0 ? obs.interval_s : 1.0;
  const bool known = obs.async_mark > 0 && obs.lsn > 0 && obs.lsn_age > 0;
  const bool continues = m_samples > 0 && obs.lsn >= m_window[m_newest].lsn;
  if (!known || !continues) {
    /* No dirty page, or the LSN went backwards: start a new window. */
    m_samples = 0;
    m_ckpt_rate = 0;
    m_age = 0;
    m_redo_rate = 0;
  }
  if (!known) return;
  const double age = static_cast<double>(obs.lsn_age);
  m_age = m_age == 0 ? age : m_age + (age - m_age) * AGE_WEIGHT;
  m_newest = (m_newest + 1) % WINDOW;
  m_window[m_newest] = {obs.lsn, age, static_cast<double>(obs.list_flushed),
                        interval};
  if (m_samples < WINDOW) m_samples++;
  if (m_samples < 2) return;

  /* Over the window (up to WINDOW - 1 intervals): redo generated, pages
  flushed and how far the checkpoint advanced (redo generated minus the
  change of the age). One interval's age change is noisy (the oldest
  modification is read without the flush order latch, flush batches end
  at page boundaries); over several it is not. */
  const Sample &oldest = m_window[(m_newest + WINDOW - m_samples + 1) % WINDOW];
  double pages = 0, seconds = 0;
  for (unsigned i = 0; i + 1 < m_samples; ++i) {
    const Sample &s = m_window[(m_newest + WINDOW - i) % WINDOW];
    pages += s.flushed;
    seconds += s.interval_s;
  }
  const double generated = (obs.lsn - oldest.lsn) / seconds;
  m_redo_rate = m_redo_rate == 0
                    ? generated
                    : m_redo_rate + (generated - m_redo_rate) * ROOM_WEIGHT;
  /* The rate is a flush-list rate, so it is set from flush-list pages
  only: the LRU batches' pages advance the checkpoint little (they are
  the pool's least recently used, not its oldest modifications). */
  const double list_rate = obs.list_flushed / interval;
  const double advanced = generated - (age - oldest.age) / seconds;
  const double flushed_now =
      std::max(static_cast<double>(cfg.io_capacity), list_rate);
  const double tail_per_page =
      pages > 0 ? advanced / (pages / seconds) : 0; /* 0: advanced nothing */
  const double per_page = lsn_per_page(tail_per_page, age, obs.dirty_pages);
  const double target =
      age_target(obs.async_mark, obs.sync_mark, m_redo_rate);
  const bool below = m_age < target;
  /* Below half the target the approach reads the lower of the window's
  redo rate and the last interval's (exact: LSNs are not noisy): after a
  load drop (a bulk load ending) the window holds the old rate for seven
  intervals, and at a young age that asks for pages the age does not
  need (LoadDropAtAYoungAgeStopsTheRate). Nearer the target one
  interval's rate swings with the throughput and would make the rate
  chatter as the age crosses it, so the window's is read. */
  const Sample &prev = m_window[(m_newest + WINDOW - 1) % WINDOW];
  const double generated_now = (obs.lsn - prev.lsn) / interval;
  const bool young = m_age < 0.5 * target;
  const double horizon = below ? AGE_APPROACH_S : AGE_HORIZON_S;
  /* Past overrun_mark() the rate reads the higher of the window's and the
  last interval's redo rate, and rises faster (RATE_UP_OVERRUN): a load
  step is seen at once. */
  const bool overrun =
      obs.sync_mark > obs.async_mark &&
      m_age > static_cast<double>(
                  overrun_mark(obs.async_mark, obs.sync_mark, m_redo_rate));
  const double redo_rate =
      young ? std::min(generated, generated_now)
            : (overrun ? std::max(generated, generated_now) : generated);
  /* Young, the rate steps up from what was flushed only: upstream's own
  flushing has the time to bring the age nearer, and a step from a large
  innodb_io_capacity is a burst of thousands of pages for an advance the
  age does not need (YoungAgeAtALargeIoCapacityAsksForNoBurst). */
  const double step_from = young ? 0.0 : static_cast<double>(cfg.io_capacity);
  m_ckpt_rate =
      ckpt_rate(list_rate, redo_rate, per_page, m_age, target,
                horizon, step_from, overrun ? RATE_UP_OVERRUN : RATE_UP,
                interval);
  /* No rise while the checkpoint already advances as fast as wanted:
  the last interval's advance (redo generated minus the change of the
  age) met the redo rate plus the approach to the target. The window's
  advance trails it by a few intervals, and on the approach each of them
  would raise the rate past what holds the age. A batch shows in the age
  only partly by the end of its interval (the age is read as the batch
  ends, and the oldest page of the flush list is often among the last
  written), so on a rising rate the last interval's advance is that of a
  smaller rate: it is scaled by the rise of the flushing over the
  interval before (ApproachAtTheLabsSettledRateTakesNoDip). */
  const double wanted = redo_rate + (m_age - target) / horizon;
  const double advanced_now = generated_now - (age - prev.age) / interval;
  const double flushed_before =
      prev.interval_s > 0 ? prev.flushed / prev.interval_s : 0;
  const double rise =
      flushed_before > 0
          ? std::max(1.0, list_rate / flushed_before)
          : 1.0;
  if (advanced_now * rise >= wanted) {
    m_ckpt_rate = std::min(m_ckpt_rate, flushed_now);
  }
  /* A queue stands at the device: asking for more than it completed
  would only lengthen it; ask for less until it drains. The write queue
  grew in the last interval: no more than it completed. */
  /* Page writes slower than the latency limit: the age follower asks for
  no more than holds the age where it is (the redo generated, at the
  advance a page gave over the window; down from what was flushed by at
  most RATE_DOWN an interval), so that no catch-up towards the
  target adds to a device whose reads are already slow; the age may stay
  above the target. Not past overrun_mark(): from there the whole rate is
  required, or the age runs on into sync-mode flushing. */
  if (m_latency_over && !overrun && per_page > 0) {
    const double holding = std::max(generated, generated_now) / per_page;
    m_ckpt_rate = std::min(
        m_ckpt_rate, std::max(holding, list_rate * (1 - RATE_DOWN)));
  }
  if (m_queued) {
    m_ckpt_rate = std::min(m_ckpt_rate, flushed_now * (1 - RATE_DOWN));
  } else if (m_behind) {
    m_ckpt_rate = std::min(m_ckpt_rate, flushed_now);
  }
}

double Controller::hold_dirty(const Config &cfg, const Observation &obs) {
  const double interval = obs.interval_s > 0 ? obs.interval_s : 1.0;
  const auto dirty = static_cast<double>(obs.dirty_pages);
  if (obs.pool_pages == 0) {
    m_dirty_pages = -1;
    m_dirtied_valid = false;
    m_dirtied_lsn = 0;
    m_last.redo_per_dirtied = -1;
    return 0;
  }
  if (m_dirty_pages >= 0) {
    /* What became dirty, less what the LRU batches and the single-page
    flushes cleaned: the change of the dirty pages plus what the flush
    list wrote. Negative while the share falls of itself. */
    const double net =
        (dirty - m_dirty_pages + static_cast<double>(obs.list_flushed)) /
        interval;
    const double redo =
        m_dirtied_lsn != 0 && obs.lsn >= m_dirtied_lsn
            ? static_cast<double>(obs.lsn - m_dirtied_lsn) / interval
            : 0;
    m_redo_short = m_dirtied_valid
                       ? m_redo_short + (redo - m_redo_short) * REDO_PAGE_WEIGHT
                       : redo;
    m_dirtied_short =
        m_dirtied_valid
            ? m_dirtied_short + (net - m_dirtied_short) * REDO_PAGE_WEIGHT
            : net;
    m_dirtied =
        m_dirtied_valid ? m_dirtied + (net - m_dirtied) * DIRTY_WEIGHT : net;
    m_dirtied_valid = true;
  }
  m_dirty_pages = dirty;
  m_dirtied_lsn = obs.lsn;
  m_last.redo_per_dirtied = m_dirtied_valid && m_dirtied_short >= DIRTIED_MIN
                                ? m_redo_short / m_dirtied_short
                                : -1;
  const double from = band_start(cfg.dirty_lwm_pct, cfg.dirty_max_pct);
  /* A drain (the limit at or below the lwm) has no band to hold. */
  if (!m_dirtied_valid || cfg.dirty_max_pct <= from) return 0;
  return hold_rate(std::max(m_dirtied, 0.0), m_dirty_pct, from, obs.pool_pages);
}

const char *ceiling_name(Ceiling by) {
  switch (by) {
    case Ceiling::CAPABILITY:
      return "device capability";
    case Ceiling::CHECKPOINT_AGE:
      return "checkpoint age";
    case Ceiling::USER:
      return "innodb_adaptive_flushing_device_capacity_max";
  }
  return "";
}

const Decision &Controller::update(const Config &cfg, const Observation &obs) {
  if (obs.after_idle || obs.interval_s > IDLE_GAP_S) forget_load();
  learn(cfg, obs);
  follow_age(cfg, obs);
  /* innodb_adaptive_flushing_device_capacity_max: no estimate and no
  budget above it (0: none). */
  const double user_ceiling =
      cfg.capability_ceiling > 0 ? static_cast<double>(std::max(
                                       cfg.capability_ceiling, cfg.io_capacity))
                                 : 0;
  if (user_ceiling > 0) m_capability = std::min(m_capability, user_ceiling);

  const uint64_t instances = std::max<uint64_t>(obs.instances, 1);
  const double io_cap = static_cast<double>(cfg.io_capacity);
  const double scale = std::max(m_capability, io_cap);
  /* How far the age overran its target towards the sync mark, from half
  the room the target leaves below it (the age settles a little above the
  target, see follow_age()): it lifts the capability from the
  age-following rate and is reported; the rate itself speaks for the
  checkpoint age. */
  const double p_overrun = ckpt_pressure(
      obs.lsn_age, overrun_mark(obs.async_mark, obs.sync_mark, m_redo_rate),
      obs.sync_mark);
  m_last.age_target = static_cast<uint64_t>(
      age_target(obs.async_mark, obs.sync_mark, m_redo_rate));
  m_last.p_ckpt = std::max(p_overrun, clamp01(m_ckpt_rate / scale));
  const double dirty = obs.dirty_pct > 0 ? obs.dirty_pct : 0; /* NaN: 0 */
  m_dirty_pct = m_dirty_pct < 0
                    ? dirty
                    : m_dirty_pct + (dirty - m_dirty_pct) * DIRTY_WEIGHT;
  m_last.p_dirty =
      dirty_pressure(m_dirty_pct, cfg.dirty_lwm_pct, cfg.dirty_max_pct);
  m_last.p_free = free_pressure(obs.free_pages, cfg.lru_scan_depth * instances,
                                obs.free_waits);
  /* Free-page pressure deepens the LRU batch (lru_depth below), which is
  what puts pages on the free lists; it does not raise the flush-list
  budget. A page flushed from the flush list stays in the pool until the
  LRU tail reaches it, so flush-list pages do not free it; flushed young,
  each one costs a write (FreePagePressureDeepensTheLruOnly). */
  /* The pressure falls slowly because the dirty-page share it is read
  from is noisy; a new limit is not noise. Smoothed across one, a drain
  with innodb_max_dirty_pages_pct=0 (pressure 1) would keep the budget
  near the capability for seconds after the limit is set back
  (RestoredDirtyLimitReleasesThePressureAtOnce). */
  const bool new_limits = cfg.dirty_max_pct != m_dirty_max_pct ||
                          cfg.dirty_lwm_pct != m_dirty_lwm_pct;
  m_dirty_max_pct = cfg.dirty_max_pct;
  m_dirty_lwm_pct = cfg.dirty_lwm_pct;
  /* Within the band the hold rate answers the dirty pages (hold_rate());
  the pressure x capability is kept for the limit itself, and for the
  whole band when the rate cannot be measured (pool size unknown). */
  const double hold = hold_dirty(cfg, obs);
  const double p_limit =
      obs.pool_pages == 0 || m_last.p_dirty >= 1 ? m_last.p_dirty : 0;
  m_pressure = new_limits ? p_limit : smooth_down(m_pressure, p_limit);
  m_free_pressure = smooth_down(m_free_pressure, m_last.p_free);

  /* Proportional to the pressure: under little pressure upstream's own
  target (which the caller never goes below) decides, so a server with a
  large innodb_io_capacity does not flush at that rate for a trace of
  pressure. The age-following and hold rates are already in pages per
  second. */
  double target = std::min(hold, scale);
  if (m_pressure >= MIN_PRESSURE) target = std::max(target, m_pressure * scale);
  /* The age-following rate is not held to the capability, only to what
  the device completes (see follow_age()): it is flushing upstream does
  anyway, later and in sync mode, as fast as the device takes and with
  commits stalled. Held to a capability cut by a latency rise alone, with
  every write still completed, it would let the age run past the async
  mark into sync-mode flushing (LatencyRiseWithoutQueueKeepsTheAge); a
  latency rise only stops its catch-up (see follow_age()). The capability
  bounds the pressure budget; a
  ceiling set by the user bounds both. Past overrun_mark() that flushing
  is required and says nothing against the capability (see learn()). */
  double ceiling = std::max(scale, m_ckpt_rate);
  m_last.ceiling_by =
      m_ckpt_rate > scale ? Ceiling::CHECKPOINT_AGE : Ceiling::CAPABILITY;
  m_required = p_overrun > 0 ? m_ckpt_rate : 0;
  if (user_ceiling > 0 && user_ceiling <= ceiling) {
    ceiling = user_ceiling;
    m_last.ceiling_by = Ceiling::USER;
  }
  target = std::max(target, std::min(m_ckpt_rate, ceiling));
  if (target == 0) {
    m_budget = 0;
  } else if (target > m_budget) {
    /* The page cleaner never flushes less than upstream asks for, so a
    budget below that changes nothing: the step starts from upstream's
    request: from zero, the ramp would spend its first intervals under
    upstream's target before it acted, and reach the rate that holds the
    age only past the target. */
    const double interval = obs.interval_s > 0 ? obs.interval_s : 1.0;
    const double from =
        std::max(m_budget, std::min(target, obs.upstream / interval));
    const double step = std::max(io_cap, from * STEP_UP);
    m_budget = std::min(target, from + step);
  } else {
    m_budget = std::max(target, m_budget * (1 - STEP_DOWN));
  }
  /* Never above what the device carries at low latency, or what the
  checkpoint age needs and the device completes. */
  ceiling = std::max(ceiling, io_cap);
  m_budget = std::min(m_budget, ceiling);
  m_last.ceiling = static_cast<uint64_t>(ceiling);

  m_last.budget = static_cast<uint64_t>(m_budget);
  m_last.capability = static_cast<uint64_t>(m_capability);
  m_last.baseline_us = m_baseline_us;
  m_last.pressure = std::max({m_pressure, m_free_pressure, m_last.p_ckpt});
  const double depth_lo = static_cast<double>(cfg.lru_scan_depth);
  if (m_lru_depth == 0) m_lru_depth = depth_lo;
  if (obs.free_waits > 0 || m_last.p_free >= LRU_LOW) {
    m_lru_depth *= LRU_STEP_UP;
  } else if (m_last.p_free == 0) {
    m_lru_depth *= LRU_STEP_DOWN;
  }
  double depth_hi = depth_lo * (1 + LRU_BOOST);
  if (obs.instance_pages > 0) {
    /* Each free page is a page less of cache: never more than
    LRU_DEPTH_MAX_SHARE of the instance, nor below innodb_lru_scan_depth. */
    depth_hi = std::min(
        depth_hi,
        std::max(depth_lo, LRU_DEPTH_MAX_SHARE *
                               static_cast<double>(obs.instance_pages)));
  }
  m_lru_depth = std::clamp(m_lru_depth, depth_lo, depth_hi);
  m_last.lru_depth = static_cast<uint64_t>(std::llround(m_lru_depth));
  return m_last;
}

}  // namespace buf_flush_pace

/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

#ifndef BINLOG_GROUP_COMMIT_ADAPTIVE_INCLUDED
#define BINLOG_GROUP_COMMIT_ADAPTIVE_INCLUDED

/**
  @file sql/binlog_group_commit_adaptive.h

  Adaptive sync-stage wait (binlog_group_commit_sync_adaptive=ON).

  A fixed binlog_group_commit_sync_delay is a guess: too short and groups
  stay small, too long and every commit pays it, even a lone one. The
  adaptive wait asks two questions the server can answer itself:

  - Is anybody on the way? Sessions that entered the binlog flush stage and
    whose flush group has not yet reached the sync-stage queue would join
    this group if it waited, and otherwise ride the next fsync.
  - Is waiting cheaper than the fsync it saves? Each joiner saves about one
    binlog fsync (measured, moving average); each member already in the
    group pays the wait. The leader waits while
    (waited + tick) * group_size <= fsync_time * on_the_way,
    never longer than half an fsync time, never longer than
    binlog_group_commit_sync_adaptive_max_delay (an absolute bound a DBA
    can state: a device whose fsync slows to a second must not make each
    group wait half a second), and not at all when nobody is on the way.

  The fsync time it believes is a 1/8 moving average in which no single
  sample counts for more than twice the average: one slow fsync (a device
  hiccup, a journal commit) moves it by at most 1/8, so the groups that
  follow do not wait longer because of it; a device that really slowed down
  is followed within a few dozen fsyncs (+12.5% per fsync at most).

  Precedence, in this order (binlog_group_commit_sync_wait()):
  - a group that will not fsync (sync_binlog=0) never waits adaptively:
    there is no fsync to share;
  - a non-zero binlog_group_commit_sync_delay keeps MySQL's fixed delay, and
    setting either variable while the other is in effect warns;
  - binlog_group_commit_sync_no_delay_count ends an adaptive wait once that
    many sessions are in the group (MySQL applies it only with a delay).

  Each group whose leader slept is counted once by why its wait stopped
  (Binlog_group_commit_adaptive_stop_joined/_budget/_count/_cap), not in
  MySQL's Binlog_group_commit_trigger_* counters, which keep their meaning
  for the fixed delay; a leader that did not sleep counts as
  Binlog_group_commit_trigger_no_wait.

  Counters are relaxed atomics; the wait itself runs in the sync-stage
  leader only. The decision and the loop take their clock and sleep from the
  caller, so they are unit tested without a server.
*/

#include <atomic>
#include <cstdint>

#include "sql/binlog_group_commit_counters.h"

/** binlog_group_commit_sync_adaptive (sys_vars.cc). */
extern bool opt_binlog_group_commit_sync_adaptive;

/** binlog_group_commit_sync_adaptive_max_delay (sys_vars.cc): the longest
adaptive wait, microseconds; 0: the leader never sleeps. */
extern unsigned long opt_binlog_group_commit_sync_adaptive_max_delay;

/** Default of binlog_group_commit_sync_adaptive_max_delay, microseconds:
half the binary log fsync of a device that takes 4 ms, so the wait keeps
its measured gains on SATA SSD and network block storage (fsyncs of
0.3-4 ms) and adds at most 2 ms to a commit however slow the device
gets. */
constexpr unsigned long BINLOG_ADAPTIVE_MAX_DELAY_DEFAULT = 2000;

/** What the adaptive wait sees at one tick. */
struct Binlog_adaptive_wait_input {
  /** Sessions in the sync-stage group so far (>= 1: the leader's own). */
  uint64_t group_size;
  /** Sessions that entered the flush stage and are not in a sync queue. */
  uint64_t on_the_way;
  /** Microseconds waited so far. */
  uint64_t waited_usec;
  /** Next sleep, microseconds. */
  uint64_t tick_usec;
  /** Moving average of the binlog fsync time; 0 = no fsync seen yet. */
  uint64_t fsync_usec;
  /** binlog_group_commit_sync_no_delay_count; 0 = none. */
  uint64_t no_delay_count;
  /** binlog_group_commit_sync_adaptive_max_delay: no wait ends later. */
  uint64_t max_wait_usec;
};

/** Longest wait as a fraction of the fsync time: 1/MAX_WAIT_FSYNC_DIVISOR. */
constexpr uint64_t BINLOG_ADAPTIVE_MAX_WAIT_FSYNC_DIVISOR = 2;

/** The decision at one tick. */
enum class Binlog_adaptive_wait_step {
  /** Sleep one more tick. */
  WAIT,
  /** The group reached binlog_group_commit_sync_no_delay_count. */
  STOP_COUNT,
  /** Nobody on the way (after a sleep: everyone on the way joined), or no
  fsync time known yet. */
  STOP_NOBODY_ON_THE_WAY,
  /** Another tick would cost the group more than the joiners save, or take
  the wait past half an fsync time. */
  STOP_BUDGET,
  /** Another tick would take the wait past
  binlog_group_commit_sync_adaptive_max_delay. */
  STOP_CAP
};

/** Number of Binlog_adaptive_wait_step values that end a wait. */
constexpr int BINLOG_ADAPTIVE_STOP_REASONS = 4;

/**
  Decide whether the sync-stage leader sleeps one more tick.
  @param in  what the leader sees now
  @return WAIT or why to stop
*/
Binlog_adaptive_wait_step binlog_adaptive_wait_step(
    const Binlog_adaptive_wait_input &in);

/**
  Fold one measured fsync into the moving average: weight 1/8, and a sample
  counts for at most twice the current average, so one outlier moves it by
  at most 1/8 while a device that slowed down is followed.
  @param average_usec  current average, 0 if none yet
  @param sample_usec   the fsync just measured
  @return the new average (never 0 once a sample was seen)
*/
uint64_t binlog_fsync_average(uint64_t average_usec, uint64_t sample_usec);

/** Sleep and clock of the wait loop; the server passes my_sleep and a
monotonic clock, unit tests pass fakes. */
struct Binlog_wait_clock {
  void (*sleep_usec)(int64_t usec);
  uint64_t (*now_usec)();
};

/** std::this_thread::sleep_for and std::chrono::steady_clock. */
extern const Binlog_wait_clock binlog_steady_clock;

/** State of the adaptive wait. One instance per server. */
class Binlog_group_commit_adaptive {
 public:
  /** A session is about to enter the binlog flush stage. */
  void on_enter_flush_stage() {
    m_on_the_way.fetch_add(1, std::memory_order_relaxed);
  }

  /** A flush leader moves its group of n sessions on: to the sync-stage
  queue, or (binary log closed) straight to the commit stage.
  @param n  sessions in its flush queue, itself included
  @return a mark for wait_for_joiners(): sessions handed on so far */
  uint64_t on_leave_flush_stage(uint64_t n) {
    m_on_the_way.fetch_sub(static_cast<int64_t>(n), std::memory_order_relaxed);
    return m_enqueued_for_sync.fetch_add(n, std::memory_order_relaxed) + n;
  }

  /** The sync-stage leader measured a binlog fsync.
  @param usec  its duration */
  void on_fsync(uint64_t usec) {
    m_fsync_usec.store(
        binlog_fsync_average(m_fsync_usec.load(std::memory_order_relaxed),
                             usec),
        std::memory_order_relaxed);
  }

  /**
    The sync-stage leader waits for sessions on the way to join its group.
    @param own_group       sessions in the leader's own flush group
    @param mark            what on_leave_flush_stage() returned to the leader:
                           everything handed on after it joined this group
    @param no_delay_count  binlog_group_commit_sync_no_delay_count
    @param max_wait_usec   binlog_group_commit_sync_adaptive_max_delay
    @param clock           sleep and clock to use
    @return ADAPTIVE when the leader slept at least once (why it stopped is
            counted in stops()), NO_WAIT when it did not sleep
  */
  Binlog_group_close_trigger wait_for_joiners(uint64_t own_group,
                                              uint64_t mark,
                                              uint64_t no_delay_count,
                                              uint64_t max_wait_usec,
                                              const Binlog_wait_clock &clock);

  /** @return groups whose leader slept and then stopped for this reason
  (Binlog_group_commit_adaptive_stop_joined/_budget/_count/_cap)
  @param why  STOP_NOBODY_ON_THE_WAY, STOP_BUDGET, STOP_COUNT or STOP_CAP */
  uint64_t stops(Binlog_adaptive_wait_step why) const {
    return m_stops[stop_index(why)].load(std::memory_order_relaxed);
  }
  /** Counter slot of a reason that ends a wait.
  @param why  a Binlog_adaptive_wait_step other than WAIT
  @return 0 to BINLOG_ADAPTIVE_STOP_REASONS - 1 */
  static int stop_index(Binlog_adaptive_wait_step why) {
    switch (why) {
      case Binlog_adaptive_wait_step::STOP_NOBODY_ON_THE_WAY:
        return 0;
      case Binlog_adaptive_wait_step::STOP_BUDGET:
        return 1;
      case Binlog_adaptive_wait_step::STOP_COUNT:
        return 2;
      case Binlog_adaptive_wait_step::STOP_CAP:
      case Binlog_adaptive_wait_step::WAIT:
        break;
    }
    return 3;
  }

  /** Upper bounds (microseconds) of the wait-time histogram buckets
  Binlog_group_commit_adaptive_wait_le_100us/_le_1ms/_le_10ms; the last
  bucket, _gt_10ms, has none. */
  static constexpr uint64_t WAIT_BUCKET_LIMITS[] = {100, 1000, 10000};
  static constexpr int WAIT_BUCKETS = 4;

  /** @return Binlog_group_commit_adaptive_stop_joined: waits that ended
  with nobody left on the way */
  uint64_t stops_joined() const {
    return stops(Binlog_adaptive_wait_step::STOP_NOBODY_ON_THE_WAY);
  }
  /** @return Binlog_group_commit_adaptive_stop_budget */
  uint64_t stops_budget() const {
    return stops(Binlog_adaptive_wait_step::STOP_BUDGET);
  }
  /** @return Binlog_group_commit_adaptive_stop_count */
  uint64_t stops_count() const {
    return stops(Binlog_adaptive_wait_step::STOP_COUNT);
  }
  /** @return Binlog_group_commit_adaptive_stop_cap */
  uint64_t stops_cap() const {
    return stops(Binlog_adaptive_wait_step::STOP_CAP);
  }

  /** @return groups whose leader slept at least once */
  uint64_t waits() const { return m_waits.load(std::memory_order_relaxed); }
  /** @return microseconds slept in total by adaptive waits */
  uint64_t wait_usec() const {
    return m_wait_usec.load(std::memory_order_relaxed);
  }
  /** @return the binlog fsync moving average, microseconds */
  uint64_t fsync_usec() const {
    return m_fsync_usec.load(std::memory_order_relaxed);
  }
  /** @return how long the latest group's leader slept, microseconds */
  uint64_t last_wait_usec() const {
    return m_last_wait_usec.load(std::memory_order_relaxed);
  }
  /** @return waits that ended in histogram bucket i
  (0: <= 100 us, 1: <= 1 ms, 2: <= 10 ms, 3: longer)
  @param i  bucket index, 0 to WAIT_BUCKETS - 1 */
  uint64_t waits_in_bucket(int i) const {
    return m_wait_buckets[i].load(std::memory_order_relaxed);
  }
  /** Histogram bucket of a wait.
  @param usec  the wait, microseconds
  @return its bucket index */
  static int wait_bucket(uint64_t usec) {
    int i = 0;
    while (i < WAIT_BUCKETS - 1 && usec > WAIT_BUCKET_LIMITS[i]) i++;
    return i;
  }

 private:
  /** Entered the flush stage, not yet handed to the sync stage. */
  std::atomic<int64_t> m_on_the_way{0};
  /** Ever handed to the sync stage; differences size the group. */
  std::atomic<uint64_t> m_enqueued_for_sync{0};
  std::atomic<uint64_t> m_fsync_usec{0};
  std::atomic<uint64_t> m_waits{0};
  /** Waits ended, by reason (stop_index()). */
  std::atomic<uint64_t> m_stops[BINLOG_ADAPTIVE_STOP_REASONS]{};
  std::atomic<uint64_t> m_wait_usec{0};
  std::atomic<uint64_t> m_last_wait_usec{0};
  std::atomic<uint64_t> m_wait_buckets[WAIT_BUCKETS]{};
};

/** The server's adaptive wait state. */
extern Binlog_group_commit_adaptive binlog_group_commit_adaptive;

#endif /* BINLOG_GROUP_COMMIT_ADAPTIVE_INCLUDED */

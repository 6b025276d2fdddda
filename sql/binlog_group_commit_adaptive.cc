/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

/**
  @file sql/binlog_group_commit_adaptive.cc

  Adaptive sync-stage wait, see sql/binlog_group_commit_adaptive.h.
  Standard library only, so unittest/steady builds it without the server.
*/

#include "sql/binlog_group_commit_adaptive.h"
#include "sql/binlog_group_commit.h"

#include <algorithm>
#include <chrono>
#include <thread>

bool opt_binlog_group_commit_sync_adaptive = false;
unsigned long opt_binlog_group_commit_sync_adaptive_max_delay =
    BINLOG_ADAPTIVE_MAX_DELAY_DEFAULT;

Binlog_group_commit_adaptive binlog_group_commit_adaptive;

namespace {

/** Shortest sleep worth asking for: below this the kernel's timer slack
(50 us by default) decides the real length anyway. */
constexpr uint64_t MIN_TICK_USEC = 20;
/** Longest single sleep: joiners are re-counted at least this often. */
constexpr uint64_t MAX_TICK_USEC = 250;

void sleep_usec_steady(int64_t usec) {
  std::this_thread::sleep_for(std::chrono::microseconds(usec));
}

uint64_t now_usec_steady() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

const Binlog_wait_clock binlog_steady_clock = {sleep_usec_steady,
                                               now_usec_steady};

Binlog_flush_handover &binlog_flush_handover() {
  thread_local Binlog_flush_handover handover;
  return handover;
}

Binlog_adaptive_wait_step binlog_adaptive_wait_step(
    const Binlog_adaptive_wait_input &in) {
  if (in.no_delay_count > 0 && in.group_size >= in.no_delay_count) {
    return Binlog_adaptive_wait_step::STOP_COUNT;
  }
  if (in.on_the_way == 0 || in.fsync_usec == 0) {
    return Binlog_adaptive_wait_step::STOP_NOBODY_ON_THE_WAY;
  }
  const uint64_t after = in.waited_usec + in.tick_usec;
  /* The DBA's bound holds whatever the device does. */
  if (after > in.max_wait_usec) {
    return Binlog_adaptive_wait_step::STOP_CAP;
  }
  /* A joiner that misses this group rides the next fsync, about one fsync
  later; a wait near that long only moves the latency around. */
  if (after * BINLOG_ADAPTIVE_MAX_WAIT_FSYNC_DIVISOR > in.fsync_usec) {
    return Binlog_adaptive_wait_step::STOP_BUDGET;
  }
  /* What the members already in the group pay, against what the joiners
  save: each joiner rides this fsync instead of waiting for the next. */
  if (after * std::max<uint64_t>(in.group_size, 1) >
      in.fsync_usec * in.on_the_way) {
    return Binlog_adaptive_wait_step::STOP_BUDGET;
  }
  return Binlog_adaptive_wait_step::WAIT;
}

uint64_t binlog_fsync_average(uint64_t average_usec, uint64_t sample_usec) {
  if (average_usec == 0) return std::max<uint64_t>(sample_usec, 1);
  /* No sample counts for more than twice the average: a single 500 ms
  stall of a 4 ms device moves the average by 0.5 ms, not 62 ms. */
  const uint64_t sample = std::min(sample_usec, 2 * average_usec);
  const int64_t delta =
      static_cast<int64_t>(sample) - static_cast<int64_t>(average_usec);
  const int64_t next = static_cast<int64_t>(average_usec) + delta / 8;
  return static_cast<uint64_t>(std::max<int64_t>(next, 1));
}

Binlog_group_close_trigger Binlog_group_commit_adaptive::wait_for_joiners(
    uint64_t own_group, uint64_t mark, uint64_t no_delay_count,
    uint64_t max_wait_usec, const Binlog_wait_clock &clock) {
  Binlog_adaptive_wait_input in{};
  in.fsync_usec = m_fsync_usec.load(std::memory_order_relaxed);
  in.no_delay_count = no_delay_count;
  in.max_wait_usec = max_wait_usec;
  in.tick_usec =
      std::clamp<uint64_t>(in.fsync_usec / 8, MIN_TICK_USEC, MAX_TICK_USEC);

  const uint64_t start = clock.now_usec();
  bool slept = false;
  Binlog_adaptive_wait_step step;
  for (;;) {
    in.group_size =
        own_group +
        (m_enqueued_for_sync.load(std::memory_order_relaxed) - mark);
    const int64_t on_the_way = m_on_the_way.load(std::memory_order_relaxed);
    in.on_the_way = on_the_way > 0 ? static_cast<uint64_t>(on_the_way) : 0;
    step = binlog_adaptive_wait_step(in);
    if (step != Binlog_adaptive_wait_step::WAIT) break;
    clock.sleep_usec(static_cast<int64_t>(in.tick_usec));
    slept = true;
    const uint64_t now = clock.now_usec();
    in.waited_usec = now > start ? now - start : 0;
  }
  m_last_wait_usec.store(slept ? in.waited_usec : 0,
                         std::memory_order_relaxed);
  if (!slept) {
    /* Nothing was waited for: the group is whoever had queued, as with
    delay 0. */
    return Binlog_group_close_trigger::NO_WAIT;
  }
  m_waits.fetch_add(1, std::memory_order_relaxed);
  m_wait_usec.fetch_add(in.waited_usec, std::memory_order_relaxed);
  m_wait_buckets[wait_bucket(in.waited_usec)].fetch_add(
      1, std::memory_order_relaxed);
  m_stops[stop_index(step)].fetch_add(1, std::memory_order_relaxed);
  return Binlog_group_close_trigger::ADAPTIVE;
}

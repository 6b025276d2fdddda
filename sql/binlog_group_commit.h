/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

#ifndef BINLOG_GROUP_COMMIT_INCLUDED
#define BINLOG_GROUP_COMMIT_INCLUDED

/**
  @file sql/binlog_group_commit.h

  The calls MYSQL_BIN_LOG::ordered_commit() makes into Steady's group commit
  code, one line each: the hooks stay thin, the logic lives in
  binlog_group_commit_counters.{h,cc} (what is counted) and
  binlog_group_commit_adaptive.{h,cc} (the adaptive wait).

  Templates over the session type, so that unit tests drive them with a
  plain struct that has a next_to_commit pointer, without a server.
*/

#include <cstdint>

#include "sql/binlog_group_commit_adaptive.h"
#include "sql/binlog_group_commit_counters.h"

/** A session is about to enter the binlog flush stage. */
inline void binlog_group_commit_enter_flush() {
  binlog_group_commit_adaptive.on_enter_flush_stage();
}

/** What the flush leader handed on last, kept for its own sync-stage wait:
the same thread goes on to lead the sync stage, if it does. */
struct Binlog_flush_handover {
  /** Sessions in the leader's flush queue, itself included. */
  uint64_t own_group{0};
  /** Sessions handed to the sync stage so far, this group included. */
  uint64_t mark{0};
};

/** @return the calling thread's latest hand-over */
Binlog_flush_handover &binlog_flush_handover();

/**
  The flush leader hands its queue on: to the sync stage, or to the commit
  stage when the binary log is closed.
  @param queue  the flush queue's head; sessions chained by next_to_commit
*/
template <class Session>
void binlog_group_commit_leave_flush(const Session *queue) {
  uint64_t n = 0;
  for (const Session *s = queue; s != nullptr; s = s->next_to_commit) n++;
  Binlog_flush_handover &h = binlog_flush_handover();
  h.own_group = n;
  h.mark = binlog_group_commit_adaptive.on_leave_flush_stage(n);
}

/** Settings the sync-stage wait depends on, read by the caller
(binlog_group_commit_sync_adaptive is the module's own). */
struct Binlog_sync_wait_settings {
  /** binlog_group_commit_sync_delay, microseconds */
  long delay_usec;
  /** binlog_group_commit_sync_no_delay_count */
  uint64_t no_delay_count;
  /** sync_binlog > 0: the group's leader will fsync the binary log */
  bool will_fsync;
};

/**
  @return true if the adaptive wait, not MySQL's fixed delay, applies
  @param s  the settings in effect
*/
inline bool binlog_sync_wait_is_adaptive(const Binlog_sync_wait_settings &s) {
  return opt_binlog_group_commit_sync_adaptive && s.delay_usec == 0 &&
         s.will_fsync;
}

/**
  The sync-stage leader lets its group fill before the fsync: the adaptive
  wait when it applies, otherwise MySQL's fixed delay.
  @param s           the settings in effect
  @param fixed_wait  MySQL's wait (Commit_stage_manager::
                     wait_count_or_timeout()); returns true if it ended on
                     binlog_group_commit_sync_no_delay_count
  @param clock       sleep and clock of the adaptive wait
  @return why the group stopped taking members
*/
template <class Fixed_wait>
Binlog_group_close_trigger binlog_group_commit_sync_wait(
    const Binlog_sync_wait_settings &s, Fixed_wait fixed_wait,
    const Binlog_wait_clock &clock = binlog_steady_clock) {
  if (binlog_sync_wait_is_adaptive(s)) {
    const Binlog_flush_handover &h = binlog_flush_handover();
    return binlog_group_commit_adaptive.wait_for_joiners(
        h.own_group, h.mark, s.no_delay_count,
        opt_binlog_group_commit_sync_adaptive_max_delay, clock);
  }
  return binlog_group_close_trigger(true, s.delay_usec, fixed_wait());
}

/** @return the clock binlog fsyncs are timed with, microseconds */
inline uint64_t binlog_group_commit_clock_usec() {
  return binlog_steady_clock.now_usec();
}

/**
  A sync-stage leader fsynced the binary log.
  @param start_usec  binlog_group_commit_clock_usec() before the fsync
*/
inline void binlog_group_commit_on_sync(uint64_t start_usec) {
  binlog_group_commit_stats.on_sync();
  const uint64_t now = binlog_group_commit_clock_usec();
  binlog_group_commit_adaptive.on_fsync(now > start_usec ? now - start_usec
                                                         : 0);
}

/**
  The warning a DBA gets when both waits are set: a non-zero
  binlog_group_commit_sync_delay takes precedence.
  @param adaptive    binlog_group_commit_sync_adaptive
  @param delay_usec  binlog_group_commit_sync_delay
  @return true if the adaptive wait is set but ignored
*/
inline bool binlog_sync_wait_conflict(bool adaptive, long delay_usec) {
  return adaptive && delay_usec > 0;
}

#endif /* BINLOG_GROUP_COMMIT_INCLUDED */

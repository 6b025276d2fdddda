/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

#ifndef BINLOG_GROUP_COMMIT_COUNTERS_INCLUDED
#define BINLOG_GROUP_COMMIT_COUNTERS_INCLUDED

/**
  @file sql/binlog_group_commit_counters.h

  Counters that make binary log group commit visible: how many transactions
  were written to the binary log, in how many groups, with how many fsyncs,
  and why each group stopped taking members. Exported as the Binlog_commits,
  Binlog_group_commit* status variables (binlog_group_commit_status_vars.cc).

  Each counter is updated once per stage leader, under the stage lock it
  already holds (LOCK_log for the flush stage, LOCK_sync for the sync
  stage), with relaxed atomics so that SHOW STATUS can read them without a
  lock. This header has no server dependencies so the logic is
  unit tested on its own.
*/

#include <atomic>
#include <cstdint>

/** Why a commit group stopped taking members, decided in the sync stage. */
enum class Binlog_group_close_trigger {
  /** binlog_group_commit_sync_no_delay_count sessions had queued. */
  COUNT,
  /** binlog_group_commit_sync_delay expired first. */
  TIMEOUT,
  /** The leader did not wait: the group is whoever queued while the
  previous group held the stage locks (delay 0 and no adaptive sleep, or a
  group that does not fsync). Exported as Binlog_group_commit_trigger_no_wait:
  not MariaDB's Binlog_group_commit_trigger_lock_wait, which counts groups
  closed early because a later commit waited on a lock held by a member. */
  NO_WAIT,
  /** The leader slept in the adaptive wait (binlog_group_commit_sync_adaptive)
  and then stopped; why is counted by the adaptive wait's own stop counters,
  so MySQL's trigger counters keep their meaning for the fixed delay. */
  ADAPTIVE
};

/**
  Classify how the sync stage of a group ended.

  @param delay_applied   true if the leader called the sync delay wait
                         (the group fsyncs and its flush stage succeeded)
  @param delay_usec      binlog_group_commit_sync_delay in effect
  @param count_reached   true if the wait ended with at least
                         binlog_group_commit_sync_no_delay_count (> 0)
                         sessions queued
  @return the trigger to count
*/
Binlog_group_close_trigger binlog_group_close_trigger(bool delay_applied,
                                                      long delay_usec,
                                                      bool count_reached);

/** The group commit counters. One instance per server. */
class Binlog_group_commit_stats {
 public:
  /** A flush-stage leader wrote transactions to the binary log.
  @param n_commits  transactions in its queue that wrote binlog events */
  void on_flush_stage(uint64_t n_commits) {
    if (n_commits == 0) return;
    m_commits.fetch_add(n_commits, std::memory_order_relaxed);
  }

  /** A sync-stage leader took its group: every transaction queued for the
  sync stage, possibly the work of several flush-stage leaders, which MySQL
  merges while the previous group holds LOCK_sync. One group is what one
  binlog fsync covers with sync_binlog=1.
  @param why  why the group stopped taking members */
  void on_group(Binlog_group_close_trigger why) {
    m_groups.fetch_add(1, std::memory_order_relaxed);
    trigger_counter(why).fetch_add(1, std::memory_order_relaxed);
  }

  /** The binary log file was fsynced by a group leader. */
  void on_sync() { m_syncs.fetch_add(1, std::memory_order_relaxed); }

  /** @return Binlog_commits */
  uint64_t commits() const { return m_commits.load(std::memory_order_relaxed); }
  /** @return Binlog_group_commits */
  uint64_t groups() const { return m_groups.load(std::memory_order_relaxed); }
  /** @return Binlog_group_commit_syncs */
  uint64_t syncs() const { return m_syncs.load(std::memory_order_relaxed); }
  /** @return Binlog_group_commit_trigger_count/_timeout/_no_wait, or for
  ADAPTIVE the groups the adaptive wait closed after a sleep
  @param why  which trigger */
  uint64_t triggered(Binlog_group_close_trigger why) const {
    return const_cast<Binlog_group_commit_stats *>(this)
        ->trigger_counter(why)
        .load(std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t> &trigger_counter(Binlog_group_close_trigger why) {
    switch (why) {
      case Binlog_group_close_trigger::COUNT:
        return m_trigger_count;
      case Binlog_group_close_trigger::TIMEOUT:
        return m_trigger_timeout;
      case Binlog_group_close_trigger::ADAPTIVE:
        return m_trigger_adaptive;
      case Binlog_group_close_trigger::NO_WAIT:
        break;
    }
    return m_trigger_no_wait;
  }

  std::atomic<uint64_t> m_commits{0};
  std::atomic<uint64_t> m_groups{0};
  std::atomic<uint64_t> m_syncs{0};
  std::atomic<uint64_t> m_trigger_count{0};
  std::atomic<uint64_t> m_trigger_timeout{0};
  std::atomic<uint64_t> m_trigger_no_wait{0};
  /** Groups closed by the adaptive wait after a sleep (equal to
  Binlog_group_commit_adaptive_waits). */
  std::atomic<uint64_t> m_trigger_adaptive{0};
};

/** The server's group commit counters. */
extern Binlog_group_commit_stats binlog_group_commit_stats;

#endif /* BINLOG_GROUP_COMMIT_COUNTERS_INCLUDED */

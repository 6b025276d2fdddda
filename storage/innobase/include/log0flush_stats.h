/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/log0flush_stats.h
 Counters of redo log flush batches: each batch is one flush (fsync) of the
 redo log up to the written LSN, which makes every commit record below that
 LSN durable. Exported as Innodb_redo_log_flush_batches and
 Innodb_redo_log_flush_bytes. Unlike Innodb_os_log_fsyncs, they do not count
 fsyncs of redo file management (headers, creation, resizing), so
 commits / batches is the redo side of group commit.

 Updated by the single thread that holds the log flusher mutex, read by SHOW
 STATUS without a lock: relaxed atomics. No server dependencies. */

#ifndef log0flush_stats_h
#define log0flush_stats_h

#include <atomic>
#include <cstdint>

/** Redo log flush batch counters. */
class Log_flush_stats {
 public:
  /** A flush batch made the redo log durable from one LSN to another.
  @param[in]  from_lsn  flushed-to-disk LSN before the batch
  @param[in]  to_lsn    flushed-to-disk LSN after the batch */
  void on_flush(uint64_t from_lsn, uint64_t to_lsn) {
    if (to_lsn <= from_lsn) return; /* nothing became durable */
    m_batches.fetch_add(1, std::memory_order_relaxed);
    m_bytes.fetch_add(to_lsn - from_lsn, std::memory_order_relaxed);
  }

  /** @return number of flush batches (Innodb_redo_log_flush_batches) */
  uint64_t batches() const { return m_batches.load(std::memory_order_relaxed); }

  /** @return LSN bytes made durable by them (Innodb_redo_log_flush_bytes) */
  uint64_t bytes() const { return m_bytes.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> m_batches{0};
  std::atomic<uint64_t> m_bytes{0};
};

/** The server's redo flush counters. */
extern Log_flush_stats log_flush_stats;

#endif /* log0flush_stats_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file os/os0write_stats.cc
 Completed data page writes and their latency, see include/os0write_stats.h. */

#include "os0write_stats.h"

#include <atomic>

namespace os_write_stats {

namespace {
std::atomic<bool> enabled{false};
std::atomic<uint64_t> n_submitted{0};
std::atomic<uint64_t> n_writes{0};
std::atomic<uint64_t> sum_latency_us{0};
}  // namespace

void set_enabled(bool on) noexcept {
  enabled.store(on, std::memory_order_relaxed);
}

void submitted() noexcept {
  if (!enabled.load(std::memory_order_relaxed)) return;
  n_submitted.fetch_add(1, std::memory_order_relaxed);
}

void completed(std::chrono::steady_clock::time_point submitted) noexcept {
  if (!enabled.load(std::memory_order_relaxed)) return;
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - submitted)
                      .count();
  sum_latency_us.fetch_add(us > 0 ? static_cast<uint64_t>(us) : 0,
                           std::memory_order_relaxed);
  n_writes.fetch_add(1, std::memory_order_relaxed);
}

Totals read() noexcept {
  Totals t;
  /* Latency first: a write counted in between makes the mean a little
  low for one interval, never divides by a count without its sum. */
  t.latency_us = sum_latency_us.load(std::memory_order_relaxed);
  t.writes = n_writes.load(std::memory_order_relaxed);
  t.submitted = n_submitted.load(std::memory_order_relaxed);
  return t;
}

double mean_latency_us(const Totals &from, const Totals &to) noexcept {
  if (to.writes <= from.writes || to.latency_us < from.latency_us) return 0;
  return static_cast<double>(to.latency_us - from.latency_us) /
         static_cast<double>(to.writes - from.writes);
}

}  // namespace os_write_stats

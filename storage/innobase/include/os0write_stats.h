/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/os0write_stats.h
 Data page writes handed to the asynchronous IO layer, those completed,
 and their latency from slot reservation (just before submission) to
 completion, as InnoDB itself sees it. Submitted minus completed is the
 growth of the write queue. Unlike the block device's own counters this sees a
 throttle above the device (cgroup blkio, a cloud volume's limit) and
 parallel devices under one file system. Device-paced flushing reads the
 totals once a second and takes differences. */

#ifndef os0write_stats_h
#define os0write_stats_h

#include <chrono>
#include <cstdint>

namespace os_write_stats {

/** Totals since startup. */
struct Totals {
  /** Data page writes submitted (AIO slot reserved). */
  uint64_t submitted{0};
  /** Data page writes completed. */
  uint64_t writes{0};
  /** Sum of their latencies, microseconds. */
  uint64_t latency_us{0};
};

/** Start or stop counting (device-paced flushing on or off): while off,
completed() returns at once, without reading the clock.
@param[in]  on  true to count */
void set_enabled(bool on) noexcept;

/** Count one data page write handed to the AIO layer, if enabled. */
void submitted() noexcept;

/** Count one completed data page write (AIO handler threads), if enabled.
@param[in]  submitted  when its slot was reserved */
void completed(std::chrono::steady_clock::time_point submitted) noexcept;

/** @return the totals since startup */
Totals read() noexcept;

/** The difference of two readings as a mean latency.
@param[in]  from  earlier reading
@param[in]  to    later reading
@return mean latency in microseconds of the writes in between, 0 if none */
double mean_latency_us(const Totals &from, const Totals &to) noexcept;

}  // namespace os_write_stats

#endif /* os0write_stats_h */

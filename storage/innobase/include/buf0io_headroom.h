/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/buf0io_headroom.h
 The policy of IO-utilisation-aware flushing, as a pure function: how many
 pages the page cleaner should flush on top of what adaptive flushing asked
 for, given how busy the data device was over the last second.

 Upstream sizes flushing from the redo rate and the dirty-page percentage
 only; on a device with idle IOPS dirty pages then pile up until the dirty
 limit or the checkpoint age forces sync flushing and TPS collapses. Using
 the idle IOPS early keeps those limits out of reach. */

#ifndef buf0io_headroom_h
#define buf0io_headroom_h

#include <cstdint>

namespace buf_io_headroom {

/** What the page cleaner knows at one adaptive flushing iteration. */
struct Input {
  /** innodb_adaptive_flushing_io_util_lwm, 0..100; 0 turns it off. */
  unsigned long util_lwm_pct{0};
  /** innodb_adaptive_flushing_io_headroom_pct, 1..100: the share of the
  spare IO capacity used when the device is idle. */
  unsigned long headroom_pct{0};
  /** true if the last device sample is valid and fresh. */
  bool sample_valid{false};
  /** device utilisation over the last sample, 0..100 (reads included). */
  double util_pct{0};
  /** true in sync flush mode: flushing is already as urgent as it gets. */
  bool sync_flush{false};
  /** pages adaptive flushing asked for in this iteration. */
  uint64_t planned_pages{0};
  /** innodb_io_capacity_max: the ceiling of the total. */
  uint64_t io_capacity_max{0};
  /** dirty pages (flush list length). */
  uint64_t dirty_pages{0};
  /** dirty pages as a percentage of the buffer pool. */
  double dirty_pct{0};
  /** innodb_max_dirty_pages_pct_lwm */
  double dirty_lwm_pct{10};
  /** innodb_max_dirty_pages_pct */
  double dirty_max_pct{90};
};

/** How far the dirty-page ratio is on its way from
innodb_max_dirty_pages_pct_lwm (0) to innodb_max_dirty_pages_pct (1).
Continuous at the lwm, so the extra it scales starts small and the page
cleaner finds a steady point instead of switching on and off every second.
@param[in]  in  the iteration's inputs
@return 0..1 */
double dirty_pressure(const Input &in);

/** Extra pages to flush because the device has headroom.
The extra grows linearly with the headroom below the low-water mark and
with the dirty-page pressure (dirty_pressure()):
  extra = (lwm - util) / lwm * headroom_pct% * pressure *
          (io_capacity_max - planned),
never making the total exceed io_capacity_max or the dirty pages.
Without dirty-page pressure (dirty pages below
innodb_max_dirty_pages_pct_lwm) nothing is added: flushing a few hot pages
ahead only writes them again and again, and those writes compete with
commits for the device (measured: bench/README.md, "stall").
@param[in]  in  the iteration's inputs
@return extra pages; 0 when off, the sample is invalid, in sync flush, with
no dirty pages or no dirty-page pressure, or with the device at or above the
low-water mark */
uint64_t extra_pages(const Input &in);

}  // namespace buf_io_headroom

#endif /* buf0io_headroom_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/buf0flu_io.h
 Device-paced flushing, the server side: the page cleaner coordinator
 feeds the controller (buf0flu_pace.h) once a second with the data page
 write latency measured at completion (os0write_stats.h), the checkpoint
 age against the async mark, the dirty-page share, the free lists and the
 free-page waits, and flushes up to the budget it returns instead of
 stopping at innodb_io_capacity_max. The LRU batch keeps the free-page
 target it returns. The block devices under the data and redo files are
 sampled for SHOW ENGINE INNODB STATUS and INNODB_METRICS. */

#ifndef buf0flu_io_h
#define buf0flu_io_h

#include <chrono>
#include <cstdio>

#include "log0types.h"
#include "univ.i"

/** innodb_adaptive_flushing_device_pacing: ON paces the page cleaner by the
device. Dynamic, default OFF. */
extern bool srv_adaptive_flushing_device_pacing;

/** innodb_adaptive_flushing_device_latency_pct: data page write latency, as
a percentage of its idle baseline, above which the capability estimate is
cut. Dynamic. */
extern ulong srv_adaptive_flushing_device_latency_pct;

/** innodb_adaptive_flushing_device_capacity_max: ceiling of the capability
estimate in pages per second, 0 = none. Dynamic. */
extern ulong srv_adaptive_flushing_device_capacity_max;

/** innodb_adaptive_flushing_io_device: "auto" or "MAJOR:MINOR". Read-only. */
extern char *srv_adaptive_flushing_io_device;

/** Check the innodb_adaptive_flushing_io_device value at startup.
@param[in]  value  the option value (nullptr means "auto")
@return true if it is "auto" or MAJOR:MINOR */
bool buf_flush_io_device_option_valid(const char *value);

/** The page cleaner's flush target for this iteration: what upstream asked
for (below the adaptive-flushing low-water mark only its dirty-page term,
see buf_flush_pace::kept_upstream()), raised to the device-paced budget
while there is pressure (in a sync flush round to a slice's share of it,
see buf_flush_pace::round_target()). Updates the controller at most once a
second. Page cleaner coordinator only.
@param[in]  n_pages      upstream's target
@param[in]  dirty_pages  upstream's dirty-page term (innodb_io_capacity x
                         its percentage for the dirty pages)
@param[in]  sync_flush   the iteration is a sync flush round
@return the target; below n_pages only below the low-water mark */
ulint buf_flush_pace_target(ulint n_pages, ulint dirty_pages, bool sync_flush);

/** The LSN limit of a sync flush round: upstream's, or none (LSN_MAX) when
the round carries device pacing's budget past it, from the oldest page on
(buf_flush_pace::sync_past_limit(): upstream's limit stays at the sync
mark while its average redo rate is near 0 in sync mode, and the age with
it). Call after buf_flush_pace_target() for the round. Page cleaner
coordinator only.
@param[in]  lsn_limit  upstream's limit for the sync flush round
@return the limit the round flushes to */
lsn_t buf_flush_pace_sync_limit(lsn_t lsn_limit);

/** Spread the second's device-paced flush target over the second
(buf0flu_pace.h, Slicer), outside sync flush. Page cleaner coordinator
only.
@param[in]  n_pages  the second's target, raised by buf_flush_pace_target()
@return pages to flush now, the first slice (n_pages when not cut) */
ulint buf_flush_pace_slice_first(ulint n_pages);

/** @return pages of the next slice of the second's target if it is due
now, else 0. Page cleaner coordinator only. */
ulint buf_flush_pace_slice_next();

/** When the page cleaner coordinator should wake up next.
@param[in]  next_loop_time  the start of its next second
@return when the next slice, or while a free list is below the LRU depth
the next LRU batch, is due; next_loop_time if none is before it */
std::chrono::steady_clock::time_point buf_flush_pace_slice_due(
    std::chrono::steady_clock::time_point next_loop_time);

/** The page cleaner coordinator ran a round with no server activity (its
idle branch): the next controller update forgets the load before it
(buf_flush_pace::Controller, Observation::after_idle). Page cleaner
coordinator only. */
void buf_flush_pace_idle();

/** What the page cleaner flushed in its last pass. Page cleaner
coordinator only.
@param[in]  n_list  pages flushed from the flush lists
@param[in]  n_lru   pages flushed or evicted by the LRU batches */
void buf_flush_pace_flushed(ulint n_list, ulint n_lru);

/** @return free pages the LRU batch keeps per buffer pool instance:
innodb_lru_scan_depth, raised under free-page pressure while pacing */
ulint buf_flush_pace_lru_depth();

/** @return most pages one LRU batch flushes or evicts in an instance:
innodb_lru_scan_depth, or while pacing a share of the LRU depth
(buf_flush_pace::lru_batch()), the batches then running up to
LRU_ROUNDS times a second while a free list is below the depth */
ulint buf_flush_pace_lru_batch();

/** Note how many of a buffer pool instance's dirty pages were modified at
or before the LSN the page cleaner's round aims for, as
set_flush_target_by_lsn() counts them for upstream's own split. Page
cleaner coordinator only.
@param[in]  instance  buffer pool instance
@param[in]  pages     its pages at or before the target LSN */
void buf_flush_pace_note_age(ulint instance, ulint pages);

/** Split a device-paced flush-list target over the buffer pool instances
by page age (buf_flush_pace::split_by_age), with the counts of the last
round that counted them (buf_flush_pace_note_age()). Page cleaner
coordinator only.
@param[in]  n_pages   pages to flush in all instances
@param[out] requests  srv_buf_pool_instances per-instance requests */
void buf_flush_pace_split(ulint n_pages, ulint *requests);

/** Print the device-paced flushing state for SHOW ENGINE INNODB STATUS.
@param[in,out]  file  output */
void buf_flush_io_print(FILE *file);

#endif /* buf0flu_io_h */

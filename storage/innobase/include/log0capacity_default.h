/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/log0capacity_default.h
 The redo log capacity a server uses when innodb_redo_log_capacity is not
 set (and innodb_dedicated_server is OFF).

 Stock MySQL uses 100 MiB whatever the buffer pool. With durable write-heavy
 load that window, not the device, bounds throughput: the checkpoint age
 reaches its limit and the page cleaner must write each dirty page once per
 100 MiB of redo, so a page updated many times is written many times. One
 buffer pool of redo lets a page collect the updates of a whole pool's worth
 of modifications between two writes, while crash recovery still applies at
 most one pool of redo.

 The rule:
 - one buffer pool of redo, at least the stock 100 MiB and at most 16 GiB
   (innodb_dedicated_server's largest choice, which bounds recovery time);
 - at most a quarter of the room on the redo directory's file system (its
   free space plus what the redo files already take, so that a restart does
   not shrink what the last start chose), so that redo never takes the
   space the data, the binary log and temporary files need; never below the
   stock 100 MiB, which stock takes wherever it starts;
 - a whole number of MiB, as innodb_redo_log_capacity requires.
 The capacity is applied as stock applies a configured one: the redo files
 are resized at startup, and SET GLOBAL innodb_redo_log_capacity = DEFAULT
 returns to it.

 Pure logic: plain values in, bytes out. */

#ifndef log0capacity_default_h
#define log0capacity_default_h

#include <algorithm>
#include <cstdint>

namespace redo_capacity_default {

constexpr uint64_t MiB = uint64_t{1} << 20;
constexpr uint64_t GiB = uint64_t{1} << 30;

/** Stock MySQL 9.7's compiled default of innodb_redo_log_capacity. */
constexpr uint64_t STOCK = 100 * MiB;

/** The largest capacity the rule chooses. */
constexpr uint64_t MAX = 16 * GiB;

/** Redo takes at most 1/ROOM_SHARE of the room on its file system. */
constexpr uint64_t ROOM_SHARE = 4;

/** The capacity to use when innodb_redo_log_capacity is not set.
@param[in]  buffer_pool_bytes  innodb_buffer_pool_size
@param[in]  room_bytes         free bytes on the redo directory's file system
                               plus the bytes its redo files take
@return capacity in bytes: a multiple of MiB in [STOCK, MAX] */
constexpr uint64_t choose(uint64_t buffer_pool_bytes, uint64_t room_bytes) {
  uint64_t want = std::clamp(buffer_pool_bytes, STOCK, MAX);
  want = std::min(want, room_bytes / ROOM_SHARE);
  want = std::max(want, STOCK);
  return want / MiB * MiB;
}

}  // namespace redo_capacity_default

#endif /* log0capacity_default_h */

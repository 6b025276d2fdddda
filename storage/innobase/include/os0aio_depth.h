/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/os0aio_depth.h
 Sizing of the asynchronous I/O arrays: how many slots each AIO segment (one
 per InnoDB I/O thread) gets, given innodb_aio_pending_ios_per_thread and the
 kernel's Linux native AIO event budget (fs.aio-max-nr - fs.aio-nr).

 The planning is pure arithmetic so that it can be unit tested without a
 server; reading the budget from /proc is a separate, thin function. */

#ifndef os0aio_depth_h
#define os0aio_depth_h

#include <cstddef>
#include <cstdint>

/** Value of innodb_aio_pending_ios_per_thread: AIO slots per segment, which
is also the io_setup() nr_events of that segment's context. */
extern unsigned long srv_aio_pending_ios_per_thread;

namespace os_aio_depth {

/** Default slots per segment: what MySQL 9.7 hard-codes on Linux. */
constexpr unsigned long DEFAULT = 256;
/** Smallest accepted slots per segment. */
constexpr unsigned long MIN = 32;
/** Largest accepted slots per segment. */
constexpr unsigned long MAX = 4096;

/** The kernel's native AIO event budget, from /proc/sys/fs/aio-*. */
struct Kernel_budget {
  /** false if /proc could not be read: then nothing is known. */
  bool known{false};
  /** fs.aio-max-nr: events the whole host may have set up. */
  uint64_t max_nr{0};
  /** fs.aio-nr: events set up right now by all processes. */
  uint64_t nr{0};

  /** @return events still free, 0 if none or unknown. */
  uint64_t available() const { return known && nr < max_nr ? max_nr - nr : 0; }
};

/** How the AIO arrays will be set up. */
enum class Mode {
  /** Native AIO with the configured slots per segment. */
  NATIVE,
  /** Native AIO with fewer slots per segment, because the kernel's event
  budget does not hold the configured value. */
  NATIVE_REDUCED,
  /** Simulated AIO: the budget does not hold even MIN slots per segment. */
  SIMULATED
};

/** Result of plan(). */
struct Plan {
  /** Chosen mode. */
  Mode mode{Mode::NATIVE};
  /** Slots per segment to use (the configured value unless reduced). */
  size_t slots_per_segment{DEFAULT};
  /** io_setup() events the configured value needs: segments x value. */
  uint64_t events_needed{0};
};

/** Decide the slots per segment before any io_setup() call.
@param[in]  n_segments  number of AIO segments (I/O threads) to set up
@param[in]  configured  innodb_aio_pending_ios_per_thread
@param[in]  budget      the kernel's event budget; if unknown, the
                        configured value is used and io_setup() decides
@return the plan. When the configured value does not fit, the depth is
reduced so that the segments use at most three quarters of the free events
(the rest stays for other processes on the host), and native AIO is kept
while at least MIN slots per segment fit that way, because native AIO at a
lower depth still beats simulated AIO. */
Plan plan(size_t n_segments, size_t configured, const Kernel_budget &budget);

/** Parse the text of a /proc/sys counter file ("65536\n").
@param[in]  text   file contents (need not be NUL-terminated)
@param[in]  len    number of bytes in text
@param[out] value  parsed number
@return true if text is one unsigned decimal number, optionally followed by
whitespace */
bool parse_proc_counter(const char *text, size_t len, uint64_t *value);

/** Read fs.aio-max-nr and fs.aio-nr from /proc/sys/fs (Linux only).
@return the budget; known == false where /proc is not readable */
Kernel_budget read_kernel_budget();

}  // namespace os_aio_depth

#endif /* os0aio_depth_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/os0diskstats.h
 Block device statistics for IO-utilisation-aware flushing: which devices
 hold the data files, and how busy they are.

 Three layers:
 - pure parsing and arithmetic (stat lines, /proc/diskstats, deltas to a
   sample), no OS access;
 - device resolution against a sysfs root (partition to disk, device mapper
   and md to their leaf devices), so tests can use a fake sysfs tree;
 - Disk_util_sampler, which reads the counters with open/read/close at most
   once per call, no stdio, no allocation after init.
 See Documentation/block/stat.rst in the kernel for the counters. */

#ifndef os0diskstats_h
#define os0diskstats_h

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace os_diskstats {

/** A block device number. */
struct Dev {
  unsigned major{0};
  unsigned minor{0};
  bool operator==(const Dev &o) const {
    return major == o.major && minor == o.minor;
  }
};

/** The counters of one device we use (a subset of the stat fields). */
struct Counters {
  uint64_t reads{0};         /**< field 1: reads completed */
  uint64_t writes{0};        /**< field 5: writes completed */
  uint64_t io_ticks_ms{0};   /**< field 10: ms the device had I/O in flight */
  uint64_t queue_time_ms{0}; /**< field 11: weighted ms doing I/O */
};

/** Parse the text of /sys/dev/block/M:m/stat: 11, 15 or 17 numbers,
depending on the kernel; only the first 11 are used.
@param[in]  text  file contents (need not be NUL-terminated)
@param[in]  len   bytes in text
@param[out] out   parsed counters
@return true if text holds at least 11 unsigned numbers */
bool parse_stat(const char *text, size_t len, Counters *out);

/** Find a device in the text of /proc/diskstats (14, 18 or 20 fields per
line: major minor name, then the stat fields) and parse its counters.
Malformed lines are skipped.
@param[in]  text  file contents
@param[in]  len   bytes in text
@param[in]  dev   device to look for
@param[out] out   its counters
@return true if the device's line was found and parsed */
bool parse_diskstats(const char *text, size_t len, Dev dev, Counters *out);

/** Parse a device override, "MAJOR:MINOR".
@param[in]  text  the value
@param[out] out   the device
@return true if text is two unsigned numbers separated by one ':' */
bool parse_dev(const char *text, Dev *out);

/** One utilisation sample of a device over an interval. */
struct Sample {
  /** false for the first sample, a zero or negative interval, or counters
  that went backwards (wrap, device reset): never report those as spikes. */
  bool valid{false};
  double util_pct{0};    /**< % of the interval with I/O in flight, <= 100 */
  double avg_queue{0};   /**< average number of requests in flight */
  double read_iops{0};   /**< reads completed per second */
  double write_iops{0};  /**< writes completed per second */
};

/** Turn two readings of a device's counters into a sample.
@param[in]  prev        earlier reading
@param[in]  cur         later reading
@param[in]  elapsed_ms  wall time between the readings
@return the sample; valid == false as described in Sample::valid */
Sample compute_sample(const Counters &prev, const Counters &cur,
                      double elapsed_ms);

/** Combine the samples of several leaf devices into one: the busiest
device decides (max utilisation and queue), IOPS add up. Invalid if any
input is invalid or there is none.
@param[in]  samples  per-device samples
@return the combined sample */
Sample combine(const std::vector<Sample> &samples);

/** Find the leaf block devices that hold a device: a partition resolves to
its disk; a device-mapper or md device to the devices in its slaves/
directory, recursively (at most max_depth levels), deduplicated; anything
else (disk, loop, nvme namespace) is its own leaf.
@param[in]  sysfs_root  "/sys" normally; a fake tree in tests
@param[in]  dev         device to resolve
@param[in]  max_depth   recursion limit for stacked devices
@return the leaf devices; empty if dev is not a block device in sysfs */
std::vector<Dev> resolve_leaves(const std::string &sysfs_root, Dev dev,
                                int max_depth = 8);

/** Samples the devices under the data files. Used by the page cleaner
coordinator thread only, so it takes no lock. */
class Disk_util_sampler {
 public:
  /** Choose the devices. Call once, before sample().
  @param[in]  sysfs_root  "/sys" normally
  @param[in]  devs        devices holding the data files (st_dev of each
                          directory), or the override; duplicates allowed
  @return number of leaf devices found; 0 means nothing to sample */
  size_t init(const std::string &sysfs_root, const std::vector<Dev> &devs);

  /** Read the counters of every leaf device and compute a sample since the
  previous call. The first call after init() returns an invalid sample.
  @param[in]  now_ms  a monotonic clock in milliseconds
  @return the combined sample */
  Sample sample(uint64_t now_ms);

  /** @return the leaf devices, e.g. "8:0,259:1" */
  std::string describe() const;

  /** @return true if init() found something to sample */
  bool active() const { return !m_leaves.empty(); }

 private:
  /** Read one leaf's counters from its stat file, or /proc/diskstats.
  @param[in]  i    leaf index
  @param[out] out  counters
  @return true on success */
  bool read(size_t i, Counters *out);

  std::string m_sysfs_root;
  std::vector<Dev> m_leaves;
  std::vector<std::string> m_stat_paths;
  std::vector<Counters> m_prev;
  std::vector<Counters> m_cur;
  std::vector<Sample> m_samples;
  std::vector<char> m_diskstats_buf;
  bool m_have_prev{false};
  uint64_t m_prev_ms{0};
};

}  // namespace os_diskstats

#endif /* os0diskstats_h */

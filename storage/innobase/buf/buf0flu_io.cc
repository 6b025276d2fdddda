/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file buf/buf0flu_io.cc
 IO-utilisation-aware adaptive flushing: the server side (sysvars, device
 resolution at first use, sampling, metrics, status). The parsing and the
 policy are in os0diskstats.cc and buf0io_headroom.cc. */

#include "buf0flu_io.h"

#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "buf0buf.h"
#include "buf0io_headroom.h"
#include "fil0fil.h"
#include "fsp0sysspace.h"
#include "os0diskstats.h"
#include "srv0mon.h"
#include "srv0srv.h"
#include "ut0log.h"

ulong srv_adaptive_flushing_io_util_lwm = 0;
ulong srv_adaptive_flushing_io_headroom_pct = 50;
char *srv_adaptive_flushing_io_device = nullptr;

namespace {

/** Samples older than this are not used for a decision. */
constexpr uint64_t SAMPLE_MAX_AGE_MS = 3000;
/** At most one device sample per this many ms. */
constexpr uint64_t SAMPLE_INTERVAL_MS = 1000;

/** State of the page cleaner coordinator (its only writer). */
struct Io_flush_state {
  bool initialised{false};
  os_diskstats::Disk_util_sampler sampler;
  os_diskstats::Sample last;
  uint64_t last_sample_ms{0};
  uint64_t last_valid_ms{0};
};
Io_flush_state io_state;

/** What SHOW ENGINE INNODB STATUS prints, published by the coordinator. */
struct Io_flush_status {
  std::atomic<bool> active{false};
  std::atomic<uint64_t> util_x100{0};
  std::atomic<uint64_t> queue_x100{0};
  std::atomic<uint64_t> write_iops{0};
  std::atomic<uint64_t> read_iops{0};
  std::atomic<uint64_t> last_extra{0};
  std::atomic<bool> last_valid{false};
};
Io_flush_status io_status;
/** Leaf devices, set once by the coordinator before active becomes true. */
char io_devices[256];

uint64_t now_ms() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

bool is_auto(const char *value) {
  return value == nullptr || *value == '\0' ||
         strcasecmp(value, "auto") == 0;
}

/** Add the block device holding a path, if it is on one. */
void add_device_of(const std::string &path, std::vector<os_diskstats::Dev> *devs,
                   std::string *why_not) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  if (major(st.st_dev) == 0) {
    *why_not = "'" + path + "' is not on a block device (device " +
               std::to_string(major(st.st_dev)) + ":" +
               std::to_string(minor(st.st_dev)) +
               ": tmpfs, overlayfs, NFS or similar)";
    return;
  }
  devs->push_back({major(st.st_dev), minor(st.st_dev)});
}

/** Resolve the devices once, at the first adaptive iteration. */
void initialise() {
  io_state.initialised = true;
  std::vector<os_diskstats::Dev> devs;
  std::string why_not = "no block device found under the data files";
  const std::string datadir = MySQL_datadir_path.path();

  if (!is_auto(srv_adaptive_flushing_io_device)) {
    os_diskstats::Dev d;
    if (os_diskstats::parse_dev(srv_adaptive_flushing_io_device, &d)) {
      devs.push_back(d);
    }
    why_not = std::string("innodb_adaptive_flushing_io_device=") +
              srv_adaptive_flushing_io_device +
              " is not a block device in /sys/dev/block";
  } else {
    add_device_of(datadir, &devs, &why_not);
    const auto *sys = srv_sys_space.first_datafile();
    if (sys != nullptr && sys->filepath() != nullptr) {
      add_device_of(sys->filepath(), &devs, &why_not);
    }
  }

  if (io_state.sampler.init("/sys", devs) == 0) {
    ib::info(ER_IB_IO_UTIL_NO_DEVICE, why_not.c_str());
    return;
  }
  snprintf(io_devices, sizeof(io_devices), "%s",
           io_state.sampler.describe().c_str());
  ib::info(ER_IB_IO_UTIL_DEVICE, io_devices, datadir.c_str(),
           srv_adaptive_flushing_io_util_lwm);
  io_status.active.store(true);
}

}  // namespace

bool buf_flush_io_device_option_valid(const char *value) {
  os_diskstats::Dev d;
  return is_auto(value) || os_diskstats::parse_dev(value, &d);
}

ulint buf_flush_io_headroom_pages(ulint planned_pages, ulint dirty_pages,
                                  bool sync_flush) {
  /* Off (the default): no device resolution, no sysfs reads in the page
  cleaner loop. The device is resolved when the feature is first turned on. */
  if (srv_adaptive_flushing_io_util_lwm == 0) {
    io_state.last.valid = false; /* a later sample starts a new interval */
    MONITOR_SET(MONITOR_FLUSH_N_TO_FLUSH_BY_IO_HEADROOM, 0);
    io_status.last_extra.store(0);
    return 0;
  }
  if (!io_state.initialised) initialise();
  if (!io_state.sampler.active()) return 0;

  const uint64_t now = now_ms();
  if (io_state.last_sample_ms == 0 ||
      now - io_state.last_sample_ms >= SAMPLE_INTERVAL_MS) {
    io_state.last = io_state.sampler.sample(now);
    io_state.last_sample_ms = now;
    if (io_state.last.valid) {
      io_state.last_valid_ms = now;
      MONITOR_SET(MONITOR_FLUSH_IO_UTIL_PCT,
                  static_cast<int64_t>(io_state.last.util_pct));
      MONITOR_SET(MONITOR_FLUSH_IO_AVG_QUEUE,
                  static_cast<int64_t>(io_state.last.avg_queue * 100));
      io_status.util_x100.store(
          static_cast<uint64_t>(io_state.last.util_pct * 100));
      io_status.queue_x100.store(
          static_cast<uint64_t>(io_state.last.avg_queue * 100));
      io_status.write_iops.store(static_cast<uint64_t>(io_state.last.write_iops));
      io_status.read_iops.store(static_cast<uint64_t>(io_state.last.read_iops));
    }
    io_status.last_valid.store(io_state.last.valid);
  }

  buf_io_headroom::Input in;
  in.util_lwm_pct = srv_adaptive_flushing_io_util_lwm;
  in.headroom_pct = srv_adaptive_flushing_io_headroom_pct;
  in.sample_valid = io_state.last.valid &&
                    now - io_state.last_valid_ms <= SAMPLE_MAX_AGE_MS;
  in.util_pct = io_state.last.util_pct;
  in.sync_flush = sync_flush;
  in.planned_pages = planned_pages;
  in.io_capacity_max = srv_max_io_capacity;
  in.dirty_pages = dirty_pages;
  /* The same ratio upstream compares with innodb_max_dirty_pages_pct(_lwm),
  a sum over the buffer pool instances: only worth computing when the
  device sample leaves room for an extra (otherwise the policy returns 0
  before it looks at the ratio). */
  const bool may_add = in.sample_valid && dirty_pages > 0 &&
                       in.util_pct < static_cast<double>(in.util_lwm_pct);
  in.dirty_pct = may_add ? buf_get_modified_ratio_pct() : 0.0;
  in.dirty_lwm_pct = srv_max_dirty_pages_pct_lwm;
  in.dirty_max_pct = srv_max_buf_pool_modified_pct;
  const auto extra = static_cast<ulint>(buf_io_headroom::extra_pages(in));

  MONITOR_SET(MONITOR_FLUSH_N_TO_FLUSH_BY_IO_HEADROOM, extra);
  MONITOR_INC_VALUE(MONITOR_FLUSH_IO_HEADROOM_PAGES, extra);
  io_status.last_extra.store(extra);
  return extra;
}

void buf_flush_io_print(FILE *file) {
  if (srv_adaptive_flushing_io_util_lwm == 0) {
    fputs("IO-aware flushing: off (innodb_adaptive_flushing_io_util_lwm=0)\n",
          file);
    return;
  }
  if (!io_status.active.load()) {
    fputs("IO-aware flushing: no device to sample\n", file);
    return;
  }
  if (!io_status.last_valid.load()) {
    fprintf(file, "IO-aware flushing: device %s, no valid sample yet\n",
            io_devices);
    return;
  }
  fprintf(file,
          "IO-aware flushing: device %s, util %.2f%%, avg queue %.2f, "
          "%lu reads/s, %lu writes/s; lwm %lu%%, extra pages last "
          "iteration %lu\n",
          io_devices, io_status.util_x100.load() / 100.0,
          io_status.queue_x100.load() / 100.0,
          static_cast<ulong>(io_status.read_iops.load()),
          static_cast<ulong>(io_status.write_iops.load()),
          srv_adaptive_flushing_io_util_lwm,
          static_cast<ulong>(io_status.last_extra.load()));
}

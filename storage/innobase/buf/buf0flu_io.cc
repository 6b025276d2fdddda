/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file buf/buf0flu_io.cc
 Device-paced flushing: the server side (sysvars, the once-a-second
 observation, metrics, status, device sampling). The controller is in
 buf0flu_pace.cc, the write latency in os0write_stats.cc, the diskstats
 parsing in os0diskstats.cc. */

#include "buf0flu_io.h"

#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "buf0buf.h"
#include "buf0flu_pace.h"
#include "fil0fil.h"
#include "fsp0sysspace.h"
#include "log0chkp.h"
#include "log0files_capacity.h"
#include "log0log.h"
#include "mtr0mtr.h"
#include "os0diskstats.h"
#include "os0write_stats.h"
#include "srv0mon.h"
#include "srv0srv.h"

bool srv_adaptive_flushing_device_pacing = false;
ulong srv_adaptive_flushing_device_latency_pct = 200;
ulong srv_adaptive_flushing_device_capacity_max = 0;
char *srv_adaptive_flushing_io_device = nullptr;

namespace {

using Clock = std::chrono::steady_clock;

/** The controller is updated at most once per this interval. */
constexpr auto UPDATE_INTERVAL = std::chrono::seconds{1};

/** State of the page cleaner coordinator (its only writer). */
struct Pace_state {
  bool on{false};
  buf_flush_pace::Controller controller;
  Clock::time_point last_update;
  os_write_stats::Totals last_writes;
  uint64_t last_wait_free{0};
  /** LSN at the last update, for the redo generated per second. */
  lsn_t last_lsn{0};
  /** What the checkpoint requests between updates read, as of the last
  update: the marks, the checkpoint limit (LSN) and the redo generated
  per second. */
  uint64_t ckpt_async_mark{0};
  uint64_t ckpt_sync_mark{0};
  lsn_t ckpt_limit{0};
  double ckpt_redo_rate{0};
  /** Pages the page cleaner flushed from the flush lists since the last
  update. */
  uint64_t list_flushed{0};
  /** Pages upstream asked for since the last update. */
  uint64_t upstream{0};
  /** Of list_flushed, the pages of sync flush rounds. */
  uint64_t sync_flushed{0};
  /** Page writes of the LRU batches since the last update, and a second
  over the last interval, with its free-page waits, for
  buf_flush_pace::upstreams_round(). */
  uint64_t lru_flushed{0};
  uint64_t lru_writes{0};
  uint64_t free_waits{0};
  /** The current iteration is upstream's own round
  (buf_flush_pace::upstreams_round()): not cut into slices. */
  bool iter_upstreams{false};
  /** The current iteration is a sync flush round. */
  bool iter_sync{false};
  /** The current sync flush round flushes its target past upstream's LSN
  limit (buf_flush_pace::sync_past_limit()). */
  bool iter_past_limit{false};
  /** The window of sync flush rounds that sync_past_limit() reads. */
  buf_flush_pace::Sync_window sync_window;
  /** The coordinator ran a round with no server activity since the last
  update. */
  bool idle{false};
  /** Upstream's and our target in the current iteration (a second, or
  a sync flush round), and the flush-list pages flushed for it so far
  (its slices add up), of which counted as beyond upstream's. */
  ulint iter_upstream{0};
  ulint iter_target{0};
  ulint iter_list{0};
  ulint iter_beyond{0};
  /** The second's target, cut in slices spread over the second. */
  buf_flush_pace::Slicer slicer;
  /** The requests of the round are slices of the iteration's target,
  taken from slice_plan (buf_flush_pace::slice_of_plan()). */
  bool sliced{false};
  /** Per buffer pool instance, its share of the sliced target. */
  uint64_t slice_plan[MAX_BUFFER_POOLS];
  /** When the coordinator wakes up within its second. */
  buf_flush_pace::Wakeup wakeup;
  /** Block devices, resolved when pacing is first turned on. */
  bool devices_resolved{false};
  os_diskstats::Disk_util_sampler sampler;
};
Pace_state pace;

/** Free-page target of the LRU batch per instance; 0 = innodb_lru_scan_depth.
Written by the coordinator, read by the page cleaner threads. */
std::atomic<ulint> lru_depth{0};

/** What SHOW ENGINE INNODB STATUS prints, published by the coordinator. */
struct Pace_status {
  std::atomic<bool> updated{false};
  std::atomic<uint64_t> budget{0};
  std::atomic<uint64_t> capability{0};
  std::atomic<uint64_t> ceiling{0};
  std::atomic<buf_flush_pace::Ceiling> ceiling_by{
      buf_flush_pace::Ceiling::CAPABILITY};
  std::atomic<uint64_t> latency_us{0};
  std::atomic<uint64_t> baseline_us{0};
  std::atomic<uint64_t> p_ckpt{0};
  std::atomic<uint64_t> p_dirty{0};
  std::atomic<uint64_t> p_free{0};
  std::atomic<uint64_t> lru_depth{0};
  std::atomic<uint64_t> slices{1};
  /** Checkpoints pacing asked the log checkpointer for, since start. */
  std::atomic<uint64_t> checkpoints{0};
  /** The checkpoint age the age follower holds and the age at which
  upstream's sync-mode flushing starts, bytes of redo. */
  std::atomic<uint64_t> age_target{0};
  std::atomic<uint64_t> sync_mark{0};
  /** Pages of upstream's targets not kept below the adaptive-flushing
  low-water mark (buf_flush_pace::kept_upstream()), since start. */
  std::atomic<uint64_t> young_declined{0};
  /** Rounds that were upstream's own (buf_flush_pace::upstreams_round()):
  pages made without redo, since start. */
  std::atomic<uint64_t> upstream_rounds{0};
  std::atomic<bool> dev_valid{false};
  std::atomic<uint64_t> util_x100{0};
  std::atomic<uint64_t> queue_x100{0};
  std::atomic<uint64_t> write_iops{0};
  std::atomic<uint64_t> read_iops{0};
};
Pace_status status;
/** Devices sampled, set once by the coordinator. */
char devices[256];
std::atomic<bool> devices_set{false};

/** @return a time point as seconds, for the Slicer */
double seconds(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::duration<double>>(
             t.time_since_epoch())
      .count();
}

/** @return whether the free list of some buffer pool instance is below
the LRU depth (read without the free list mutex: a hint for when to run
the next LRU batch) */
bool free_list_below(ulint depth) {
  for (ulint i = 0; i < srv_buf_pool_instances; i++) {
    if (UT_LIST_GET_LEN(buf_pool_from_array(i)->free) < depth) return true;
  }
  return false;
}

/** @return pages of the smallest buffer pool instance (curr_size, read
without a mutex: it changes only while the pool is resized) */
uint64_t smallest_instance_pages() {
  uint64_t pages = 0;
  for (ulint i = 0; i < srv_buf_pool_instances; i++) {
    const uint64_t n = buf_pool_from_array(i)->curr_size;
    if (i == 0 || n < pages) pages = n;
  }
  return pages;
}

bool is_auto(const char *value) {
  return value == nullptr || *value == '\0' || strcasecmp(value, "auto") == 0;
}

/** Add the block device holding a path, if it is on one. */
void add_device_of(const std::string &path,
                   std::vector<os_diskstats::Dev> *devs) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return;
  if (major(st.st_dev) == 0) return; /* tmpfs, overlayfs, btrfs, NFS... */
  const os_diskstats::Dev d{major(st.st_dev), minor(st.st_dev)};
  if (std::find(devs->begin(), devs->end(), d) == devs->end()) {
    devs->push_back(d);
  }
}

/** Resolve the devices under the data and redo files, once. */
void resolve_devices() {
  pace.devices_resolved = true;
  std::vector<os_diskstats::Dev> devs;
  if (!is_auto(srv_adaptive_flushing_io_device)) {
    os_diskstats::Dev d;
    if (os_diskstats::parse_dev(srv_adaptive_flushing_io_device, &d)) {
      devs.push_back(d);
    }
  } else {
    add_device_of(MySQL_datadir_path.path(), &devs);
    const auto *sys = srv_sys_space.first_datafile();
    if (sys != nullptr && sys->filepath() != nullptr) {
      add_device_of(sys->filepath(), &devs);
    }
    if (srv_log_group_home_dir != nullptr) {
      add_device_of(srv_log_group_home_dir, &devs);
    }
  }
  if (pace.sampler.init("/sys", devs) > 0) {
    snprintf(devices, sizeof(devices), "%s", pace.sampler.describe().c_str());
  } else {
    snprintf(devices, sizeof(devices), "%s", "none (not on a block device)");
  }
  devices_set.store(true);
}

void sample_devices() {
  if (!pace.sampler.active()) return;
  const auto ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(
          Clock::now().time_since_epoch())
          .count());
  const auto s = pace.sampler.sample(ms);
  status.dev_valid.store(s.valid);
  if (!s.valid) return;
  MONITOR_SET(MONITOR_FLUSH_IO_UTIL_PCT, static_cast<int64_t>(s.util_pct));
  MONITOR_SET(MONITOR_FLUSH_IO_AVG_QUEUE,
              static_cast<int64_t>(s.avg_queue * 100));
  status.util_x100.store(static_cast<uint64_t>(s.util_pct * 100));
  status.queue_x100.store(static_cast<uint64_t>(s.avg_queue * 100));
  status.write_iops.store(static_cast<uint64_t>(s.write_iops));
  status.read_iops.store(static_cast<uint64_t>(s.read_iops));
}

/** Start measuring from now: no interval reaches back to before pacing was
turned on. */
void start(Clock::time_point now) {
  pace.on = true;
  os_write_stats::set_enabled(true);
  pace.controller.reset();
  pace.last_update = now;
  pace.wakeup = buf_flush_pace::Wakeup();
  pace.wakeup.round(seconds(now));
  pace.last_writes = os_write_stats::read();
  pace.last_wait_free = srv_stats.buf_pool_wait_free;
  pace.last_lsn = log_get_lsn(*log_sys);
  pace.ckpt_async_mark = 0; /* no checkpoint request before an update */
  pace.list_flushed = 0;
  pace.upstream = 0;
  pace.sync_flushed = 0;
  pace.lru_flushed = 0;
  pace.lru_writes = 0;
  pace.free_waits = 0;
  pace.idle = false;
  if (!pace.devices_resolved) resolve_devices();
  sample_devices(); /* the first sample only sets the baseline */
}

void stop() {
  pace.on = false;
  os_write_stats::set_enabled(false);
  pace.controller.reset();
  pace.slicer = buf_flush_pace::Slicer();
  pace.sliced = false;
  pace.sync_window.close();
  lru_depth.store(0);
  status.updated.store(false);
  MONITOR_SET(MONITOR_FLUSH_PACE_BUDGET, 0);
  MONITOR_SET(MONITOR_FLUSH_PACE_CEILING, 0);
  MONITOR_SET(MONITOR_FLUSH_PACE_LRU_DEPTH, 0);
}

/** @return the checkpoint age as get_pct_for_lsn() reads it, LSN
@param[in]  lsn  the current LSN */
lsn_t checkpoint_age(lsn_t lsn) {
  const lsn_t oldest = buf_pool_get_oldest_modification_approx();
  return oldest != 0 && lsn > oldest ? lsn - oldest : 0;
}

/** @return innodb_adaptive_flushing_lwm's mark as get_pct_for_lsn() reads
it, LSN; 0 if it is 0 or redo logging is disabled (upstream's target then
comes from the dirty pages, see set_flush_target_by_page()) */
lsn_t adaptive_flushing_lwm_age() {
  if (srv_adaptive_flushing_lwm == 0 || !mtr_t::s_logging.is_enabled()) {
    return 0;
  }
  lsn_t free_check_limit = 0, dirty_age_limit = 0;
  log_files_capacity_get_limits(*log_sys, free_check_limit, dirty_age_limit);
  return static_cast<lsn_t>(srv_adaptive_flushing_lwm * free_check_limit / 100);
}

/** Asks the log checkpointer for a checkpoint if
buf_flush_pace::checkpoint_wanted() says so, with the marks, limit and redo
rate of the last update.
@param[in]  lsn      the current LSN
@param[in]  lsn_age  checkpoint_age(lsn)
@param[in]  lead_s   seconds of redo ahead of the limit to ask from */
void request_checkpoint_if_due(lsn_t lsn, lsn_t lsn_age, double lead_s) {
  const lsn_t ckpt_lsn = log_sys->last_checkpoint_lsn.load();
  if (buf_flush_pace::checkpoint_wanted(
          lsn > ckpt_lsn ? lsn - ckpt_lsn : 0, lsn_age, pace.ckpt_redo_rate,
          pace.ckpt_limit, pace.ckpt_async_mark, pace.ckpt_sync_mark,
          lead_s)) {
    log_request_checkpoint(*log_sys, false);
    status.checkpoints.fetch_add(1);
  }
}

/** Observe the last interval and let the controller decide. */
void update(Clock::time_point now) {
  buf_flush_pace::Config cfg;
  cfg.io_capacity = srv_io_capacity;
  cfg.io_capacity_max = srv_max_io_capacity;
  cfg.capability_ceiling = srv_adaptive_flushing_device_capacity_max;
  cfg.latency_pct = srv_adaptive_flushing_device_latency_pct;
  cfg.lru_scan_depth = srv_LRU_scan_depth;
  cfg.dirty_lwm_pct = srv_max_dirty_pages_pct_lwm;
  cfg.dirty_max_pct = srv_max_buf_pool_modified_pct;

  buf_flush_pace::Observation obs;
  obs.interval_s = std::chrono::duration_cast<std::chrono::duration<double>>(
                       now - pace.last_update)
                       .count();
  const auto writes = os_write_stats::read();
  obs.writes = writes.writes - pace.last_writes.writes;
  obs.submitted = writes.submitted - pace.last_writes.submitted;
  obs.write_latency_us =
      os_write_stats::mean_latency_us(pace.last_writes, writes);
  obs.list_flushed = pace.list_flushed;
  obs.upstream = pace.upstream;
  obs.sync_flushed = pace.sync_flushed;
  obs.after_idle = pace.idle;

  const lsn_t lsn = log_get_lsn(*log_sys);
  obs.lsn_age = checkpoint_age(lsn);
  obs.lsn = lsn;
  /* The marks as upstream applies them to this age: less the free-check
  margin (the concurrency margin, about 6% of the redo capacity with
  innodb_thread_concurrency=0), see get_pct_for_lsn() and
  log_sync_flush_lsn(). */
  lsn_t free_check_limit = 0, dirty_age_limit = 0;
  log_files_capacity_get_limits(*log_sys, free_check_limit, dirty_age_limit);
  const lsn_t margin = log_free_check_margin(*log_sys);
  const lsn_t sync_age = log_sys->m_capacity.adaptive_flush_max_age();
  obs.async_mark = dirty_age_limit;
  obs.sync_mark = sync_age > margin ? sync_age - margin : 0;
  ulint lru_len = 0, free_len = 0, flush_len = 0;
  buf_get_total_list_len(&lru_len, &free_len, &flush_len);
  /* buf_get_modified_ratio_pct() of the same lengths, read once. */
  obs.dirty_pct =
      static_cast<double>(100 * flush_len) / (1 + lru_len + free_len);
  obs.free_pages = free_len;
  obs.dirty_pages = flush_len;
  obs.pool_pages = lru_len + free_len;
  obs.instances = srv_buf_pool_instances;
  obs.instance_pages = smallest_instance_pages();
  const uint64_t wait_free = srv_stats.buf_pool_wait_free;
  obs.free_waits = wait_free - std::min(wait_free, pace.last_wait_free);

  const auto &d = pace.controller.update(cfg, obs);

  /* The checkpoint keeps up with the age pacing holds (under load
  upstream writes one only every seven seconds), asked for when the
  checkpoint age nears the point where it is late: user threads wait for
  redo space at the free-check limit, and upstream's checkpointer takes
  over from its aggressive-checkpoint age. */
  pace.ckpt_async_mark = obs.async_mark;
  pace.ckpt_sync_mark = obs.sync_mark;
  pace.ckpt_limit = std::min<lsn_t>(
      free_check_limit, log_sys->m_capacity.aggressive_checkpoint_min_age());
  pace.ckpt_redo_rate =
      lsn > pace.last_lsn && obs.interval_s > 0
          ? static_cast<double>(lsn - pace.last_lsn) / obs.interval_s
          : 0;
  request_checkpoint_if_due(lsn, obs.lsn_age, buf_flush_pace::CKPT_LEAD_S);

  pace.last_update = now;
  pace.last_writes = writes;
  pace.last_wait_free = wait_free;
  pace.last_lsn = lsn;
  pace.list_flushed = 0;
  pace.upstream = 0;
  pace.sync_flushed = 0;
  pace.lru_writes = static_cast<uint64_t>(
      static_cast<double>(pace.lru_flushed) /
      (obs.interval_s > 0 ? obs.interval_s : 1.0));
  pace.lru_flushed = 0;
  pace.free_waits = obs.free_waits;
  pace.idle = false;
  lru_depth.store(static_cast<ulint>(d.lru_depth));

  MONITOR_SET(MONITOR_FLUSH_PACE_CAPABILITY, d.capability);
  MONITOR_SET(MONITOR_FLUSH_PACE_BUDGET, d.budget);
  MONITOR_SET(MONITOR_FLUSH_PACE_CEILING, d.ceiling);
  MONITOR_SET(MONITOR_FLUSH_PACE_PRESSURE_CKPT,
              static_cast<int64_t>(d.p_ckpt * 100));
  MONITOR_SET(MONITOR_FLUSH_PACE_PRESSURE_DIRTY,
              static_cast<int64_t>(d.p_dirty * 100));
  MONITOR_SET(MONITOR_FLUSH_PACE_PRESSURE_FREE,
              static_cast<int64_t>(d.p_free * 100));
  MONITOR_SET(MONITOR_FLUSH_PACE_WRITE_LATENCY,
              static_cast<int64_t>(d.latency_us));
  MONITOR_SET(MONITOR_FLUSH_PACE_BASELINE_LATENCY,
              static_cast<int64_t>(d.baseline_us));
  MONITOR_SET(MONITOR_FLUSH_PACE_LRU_DEPTH, d.lru_depth);

  status.budget.store(d.budget);
  status.capability.store(d.capability);
  status.ceiling.store(d.ceiling);
  status.ceiling_by.store(d.ceiling_by);
  status.latency_us.store(static_cast<uint64_t>(d.latency_us));
  status.baseline_us.store(static_cast<uint64_t>(d.baseline_us));
  status.p_ckpt.store(static_cast<uint64_t>(d.p_ckpt * 100));
  status.p_dirty.store(static_cast<uint64_t>(d.p_dirty * 100));
  status.p_free.store(static_cast<uint64_t>(d.p_free * 100));
  status.lru_depth.store(d.lru_depth);
  status.age_target.store(d.age_target);
  status.sync_mark.store(obs.sync_mark);
  status.updated.store(true);

  sample_devices();
}

}  // namespace

bool buf_flush_io_device_option_valid(const char *value) {
  os_diskstats::Dev d;
  return is_auto(value) || os_diskstats::parse_dev(value, &d);
}

void buf_flush_pace_idle() { pace.idle = true; }

/** Per buffer pool instance, pages at or before the target LSN of the
last round that counted them. Page cleaner coordinator only. */
static uint64_t age_weights[MAX_BUFFER_POOLS];

/** @return buffer pool instances the page cleaner requests pages from */
static size_t instances() {
  return std::min<size_t>(srv_buf_pool_instances, MAX_BUFFER_POOLS);
}

ulint buf_flush_pace_target(ulint n_pages, ulint dirty_pages, bool sync_flush) {
  pace.iter_upstream = n_pages;
  pace.iter_target = n_pages;
  pace.iter_list = 0;
  pace.iter_beyond = 0;
  pace.iter_sync = sync_flush;
  pace.iter_past_limit = false;
  /* A new iteration: its whole target is split by age until it is cut. */
  pace.sliced = false;
  pace.iter_upstreams = false;
  if (!srv_adaptive_flushing_device_pacing) {
    if (pace.on) stop();
    return n_pages;
  }
  const auto now = Clock::now();
  if (!pace.on) {
    start(now);
  } else if (now - pace.last_update >= UPDATE_INTERVAL) {
    update(now);
  }
  /* This second's decision, read once: the coordinator is the only thread
  that updates the controller, so it holds for the whole round. */
  const auto &last = pace.controller.last();
  if (sync_flush) {
    pace.iter_past_limit = pace.sync_window.round(last.budget, seconds(now));
  } else {
    pace.sync_window.close();
  }
  pace.iter_upstreams =
      !sync_flush &&
      buf_flush_pace::upstreams_round(last.budget, last.redo_per_dirtied,
                                      pace.lru_writes, pace.free_waits);
  /* A sync round keeps upstream's whole target: no age or limits to read;
  so does upstream's own round. */
  const ulint kept =
      sync_flush || pace.iter_upstreams
          ? n_pages
          : static_cast<ulint>(buf_flush_pace::kept_upstream(
                n_pages, dirty_pages, checkpoint_age(log_get_lsn(*log_sys)),
                adaptive_flushing_lwm_age(), false));
  status.young_declined.fetch_add(n_pages - kept);
  if (pace.iter_upstreams) status.upstream_rounds.fetch_add(1);
  pace.iter_upstream = kept;
  pace.upstream += kept;
  const uint64_t budget = last.budget;
  const auto round = static_cast<ulint>(
      buf_flush_pace::round_target(kept, budget, sync_flush));
  pace.iter_target = round;
  if (sync_flush) {
    /* The rest of the second's budget in slices after the round, which
    run if the coordinator sleeps between sync rounds. */
    const double now_s = seconds(now);
    const double due = pace.slicer.due();
    const uint64_t rest = buf_flush_pace::sync_second_rest(
        budget, round, pace.sync_window.opened(), due >= 0 && due > now_s - 1);
    if (rest > 0) {
      pace.slicer.after(round + rest, round, now_s);
      status.slices.store(pace.slicer.count());
      pace.sliced = true;
      buf_flush_pace::split_by_age(round + rest, age_weights, instances(),
                                   pace.slice_plan);
      pace.iter_target = static_cast<ulint>(round + rest);
    }
  }
  return round;
}

ulint buf_flush_pace_slice_first(ulint n_pages) {
  if (!pace.on) return n_pages;
  /* Upstream's own target is cut too: sent at once, it is one long
  round, in which no LRU batch runs and the free lists drain (stall lab
  B, 2026-11-26: with the LRU batches spread and upstream's target of
  ~800 pages sent at once, TPS alternated between ~300 and ~600 and some
  seconds completed no flush at all, most likely that round; with it
  sliced the line was flat). A slice flushes from the instances whose
  shares of the second it overlaps: buf_flush_pace_split(). */
  const bool ours = n_pages == pace.iter_target && !pace.iter_upstreams;
  const auto first =
      pace.slicer.first(ours ? n_pages : 0, seconds(Clock::now()));
  status.slices.store(pace.slicer.count());
  pace.sliced = pace.slicer.count() > 1;
  if (pace.sliced) {
    buf_flush_pace::split_by_age(n_pages, age_weights, instances(),
                                 pace.slice_plan);
  }
  return ours ? static_cast<ulint>(first) : n_pages;
}

ulint buf_flush_pace_slice_next() {
  if (!pace.on || !srv_adaptive_flushing_device_pacing) return 0;
  const auto n = static_cast<ulint>(pace.slicer.next(seconds(Clock::now())));
  /* A slice after a sync round is not one: it flushes past no limit and
  is paced as any slice. */
  if (n > 0) pace.iter_sync = false;
  return n;
}

std::chrono::steady_clock::time_point buf_flush_pace_slice_due(
    std::chrono::steady_clock::time_point next_loop_time) {
  if (!pace.on) return next_loop_time;
  const auto now = Clock::now();
  const double due = pace.wakeup.next(
      seconds(now), seconds(next_loop_time) - 1,
      free_list_below(buf_flush_pace_lru_depth()), &pace.slicer);
  if (due < 0) return next_loop_time;
  const auto wait = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(0.0, due - seconds(now))));
  return std::min(next_loop_time, now + wait);
}

void buf_flush_pace_flushed(ulint n_list, ulint n_lru) {
  if (!pace.on) return;
  pace.wakeup.round(seconds(Clock::now()));
  /* Between updates too: at a fast redo rate the checkpoint age reaches
  the limit within one update interval (buf_flush_pace::CKPT_ROUND_LEAD_S).
  Below the limit less that lead no checkpoint is wanted
  (checkpoint_wanted() asks from no earlier), so the oldest modification,
  which takes every instance's flush list mutex, is read only past it. */
  if (pace.ckpt_async_mark != 0) {
    const lsn_t lsn = log_get_lsn(*log_sys);
    const lsn_t ckpt_lsn = log_sys->last_checkpoint_lsn.load();
    const double ckpt_age = lsn > ckpt_lsn ? lsn - ckpt_lsn : 0;
    if (pace.ckpt_limit == 0 ||
        ckpt_age + buf_flush_pace::CKPT_ROUND_LEAD_S * pace.ckpt_redo_rate >=
            static_cast<double>(pace.ckpt_limit)) {
      request_checkpoint_if_due(lsn, checkpoint_age(lsn),
                                buf_flush_pace::CKPT_ROUND_LEAD_S);
    }
  }
  pace.list_flushed += n_list;
  pace.lru_flushed += n_lru;
  if (pace.iter_sync) pace.sync_flushed += n_list;
  /* Slices after a sync round count towards its window too (a window's
  count restarts when it opens). */
  pace.sync_window.flushed(n_list);
  /* Pages beyond upstream's target, over all the slices of the target. */
  pace.iter_list += n_list;
  const ulint beyond = std::min(pace.iter_list, pace.iter_target) -
                       std::min(pace.iter_list, pace.iter_upstream);
  if (beyond > pace.iter_beyond) {
    MONITOR_INC_VALUE(MONITOR_FLUSH_PACE_LIST_PAGES, beyond - pace.iter_beyond);
    pace.iter_beyond = beyond;
  }
  if (n_lru > 0 &&
      lru_depth.load(std::memory_order_relaxed) > srv_LRU_scan_depth) {
    MONITOR_INC_VALUE(MONITOR_FLUSH_PACE_LRU_PAGES, n_lru);
  }
}

lsn_t buf_flush_pace_sync_limit(lsn_t lsn_limit) {
  return pace.on && pace.iter_past_limit ? LSN_MAX : lsn_limit;
}

ulint buf_flush_pace_lru_depth() {
  const ulint d = lru_depth.load(std::memory_order_relaxed);
  return d != 0 && srv_adaptive_flushing_device_pacing ? d : srv_LRU_scan_depth;
}

ulint buf_flush_pace_lru_batch() {
  const ulint d = lru_depth.load(std::memory_order_relaxed);
  if (d == 0 || !srv_adaptive_flushing_device_pacing) return srv_LRU_scan_depth;
  return static_cast<ulint>(buf_flush_pace::lru_batch(d));
}

void buf_flush_pace_note_age(ulint instance, ulint pages) {
  ut_ad(instance < MAX_BUFFER_POOLS);
  age_weights[instance] = pages;
}

void buf_flush_pace_split(ulint n_pages, ulint *requests) {
  const size_t n = instances();
  uint64_t out[MAX_BUFFER_POOLS];
  if (pace.sliced) {
    buf_flush_pace::slice_of_plan(pace.slicer.offset(), n_pages,
                                  pace.slice_plan, n, out);
  } else {
    buf_flush_pace::split_by_age(n_pages, age_weights, n, out);
  }
  for (size_t i = 0; i < n; i++) requests[i] = static_cast<ulint>(out[i]);
}

void buf_flush_io_print(FILE *file) {
  if (!srv_adaptive_flushing_device_pacing) {
    fputs(
        "Device-paced flushing: off "
        "(innodb_adaptive_flushing_device_pacing=OFF)\n",
        file);
    return;
  }
  if (!status.updated.load()) {
    fputs("Device-paced flushing: on, first interval not over yet\n", file);
    return;
  }
  fprintf(file,
          "Device-paced flushing: budget %lu pages/s, ceiling %lu pages/s"
          " (%s), capability %lu pages/s, page write latency %lu us (baseline %lu us), pressure:"
          " checkpoint age %lu%%, dirty pages %lu%%, free pages %lu%%,"
          " LRU depth %lu, %lu flush slices per second,"
          " %lu checkpoints requested, %lu pages of upstream's targets not"
          " kept below the adaptive flushing low-water mark,"
          " %lu rounds left to upstream (pages made without redo),"
          " checkpoint age target %lu bytes (sync-mode flushing from %lu)\n",
          static_cast<ulong>(status.budget.load()),
          static_cast<ulong>(status.ceiling.load()),
          buf_flush_pace::ceiling_name(status.ceiling_by.load()),
          static_cast<ulong>(status.capability.load()),
          static_cast<ulong>(status.latency_us.load()),
          static_cast<ulong>(status.baseline_us.load()),
          static_cast<ulong>(status.p_ckpt.load()),
          static_cast<ulong>(status.p_dirty.load()),
          static_cast<ulong>(status.p_free.load()),
          static_cast<ulong>(status.lru_depth.load()),
          static_cast<ulong>(status.slices.load()),
          static_cast<ulong>(status.checkpoints.load()),
          static_cast<ulong>(status.young_declined.load()),
          static_cast<ulong>(status.upstream_rounds.load()),
          static_cast<ulong>(status.age_target.load()),
          static_cast<ulong>(status.sync_mark.load()));
  if (devices_set.load()) {
    if (status.dev_valid.load()) {
      fprintf(file,
              "Flushing devices %s: util %.2f%%, avg queue %.2f,"
              " %lu reads/s, %lu writes/s\n",
              devices, status.util_x100.load() / 100.0,
              status.queue_x100.load() / 100.0,
              static_cast<ulong>(status.read_iops.load()),
              static_cast<ulong>(status.write_iops.load()));
    } else {
      fprintf(file, "Flushing devices %s: no sample yet\n", devices);
    }
  }
}

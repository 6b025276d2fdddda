/* The closed-loop simulator for the device-paced flushing controller's
unit tests (buf0flu_pace.h): a simulated device (a capacity in writes per
second, an idle latency, a latency curve or a throttle that queues, a
speed change) and a simulated engine (redo generation, the checkpoint
age it drives towards the async and sync marks, what 9.7.2's page
cleaner asks for with innodb_io_capacity_max far below the device, a
free list drained by reads and refilled by the LRU batch), stepped one
second at a time with or without the controller. Set PACE_TRACE in the
environment to print every second of a run. */

#ifndef pace_sim_h
#define pace_sim_h

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "buf0flu_pace.h"

namespace pace_sim {

using buf_flush_pace::Ceiling;
using buf_flush_pace::Config;
using buf_flush_pace::Controller;
using buf_flush_pace::Decision;
using buf_flush_pace::Observation;

/** A block device: serves up to `capacity` writes per second; what is
offered beyond that waits in a queue (a throttle or a saturated device). */
struct Device {
  double capacity{8000};
  double idle_us{200};
  /** true: latency stays at idle until the cap, then only queueing adds
  (a blkio throttle); false: it also rises as utilisation nears 1 (an
  SSD's curve). */
  bool flat_until_cap{false};
  /** Steepness of that rise: latency x (1 + curve x u / (1 - u)), u the
  utilisation (capped at 0.97); 1 is an M/M/1 queue, whose mean depth is
  u / (1 - u). */
  double curve{0.2};
  /** +/- this share of random noise on the latency. */
  double noise{0};
  /** Share of the completed writes the engine reports as completed, with
  their latency (0: none, simulated AIO without the completion hook). */
  double reported{1};
  double backlog{0};
  std::mt19937 rng{42};

  /** Offer `offered` writes for one second.
  @return writes served; *latency_us their mean latency */
  double serve(double offered, double *latency_us) {
    const double want = offered + backlog;
    const double served = std::min(want, capacity);
    backlog = want - served;
    const double util = served / capacity;
    double lat = idle_us;
    if (!flat_until_cap) {
      const double u = std::min(util, 0.97);
      lat *= 1 + curve * u / (1 - u);
    }
    lat += backlog / capacity * 1e6; /* time to drain the queue */
    if (noise > 0) {
      std::uniform_real_distribution<double> d(1 - noise, 1 + noise);
      lat *= d(rng);
    }
    *latency_us = lat;
    return served;
  }
};

/** The flush list as a FIFO of dirty pages ordered by their oldest
modification (Engine::list): a page becomes dirty when a transaction
first changes it after it was last written, and leaves the list when the
page cleaner writes it, oldest first. A load that changes a fixed set of
`hot_pages` pages, each every `touch_s` seconds on average, puts back
into the list within seconds every page it writes: the pages written in
one second come back together, and one age later they are the oldest
again. The advance a page write gives the checkpoint is then not a
property of the load but of the flushing one age before (stall lab A
under oltp_insert, whose secondary index's leaves are all dirty). */
struct Flush_list {
  bool on{false};
  /** Pages the load changes. */
  double hot_pages{25000};
  /** Mean seconds between two changes of one of them. */
  double touch_s{4};
  /** Oldest first: {LSN of the first change, pages}. */
  std::deque<std::pair<double, double>> buckets;
  double pages{0};

  /** One step of `dt` seconds ending at `lsn`, `flush` pages written
  from the oldest. @return pages written */
  double step(double lsn, double dt, double flush) {
    double written = 0;
    while (flush > written && !buckets.empty()) {
      auto &b = buckets.front();
      const double take = std::min(b.second, flush - written);
      b.second -= take;
      written += take;
      if (b.second <= 1e-9) buckets.pop_front();
    }
    pages -= written;
    const double dirtied =
        std::max(0.0, hot_pages - pages) * (1 - std::exp(-dt / touch_s));
    buckets.emplace_back(lsn, dirtied);
    pages += dirtied;
    return written;
  }
  /** @return the age of the oldest dirty page at `lsn` (0: none) */
  double age(double lsn) const {
    return buckets.empty() ? 0 : lsn - buckets.front().first;
  }
  /** @return dirty pages first changed before `lsn` */
  double older_than(double lsn) const {
    double n = 0;
    for (const auto &b : buckets) {
      if (b.first >= lsn) break;
      n += b.second;
    }
    return n;
  }
};

/** The engine around the page cleaner, one step per second. */
struct Engine {
  /** Redo generated per second (LSN units). */
  double redo_rate{3e6};
  /** Page flushes per second that keep the checkpoint age constant at the
  async mark. */
  double need{2000};
  /** Write combining: at a younger checkpoint age each page has taken
  fewer changes when it is flushed, so more flushes are needed, as
  need x (async_mark / age)^combining (0: no such effect). */
  double combining{0};
  /** Share of the redo generation (the transactions) that each page
  flushed per second takes: flushing competes with them for CPU and for
  the device (stall lab A's scenario loses about 0.00015 of its
  throughput per page a second). 0: none. */
  double flush_cost{0};
  /** The controller misses every this-many-th second (0: never): the
  coordinator's rounds make its updates come every 1-1.5 s. */
  int skip_update_every{0};
  /** Current LSN. */
  double lsn{1e9};
  double async_mark{80e6};
  double sync_mark{90e6};
  double age{0};
  /** Writes by other threads (single-page flushes, doublewrite aside). */
  double foreground_writes{500};
  double dirty_pct{5};
  /** Buffer pool pages. */
  double pool_pages{65536};
  /** The controller is told the pool's size and dirty pages (false: as
  before the hold rate, pressure x capability in the whole band). */
  bool tell_pool{true};
  /** Pages made dirty a second; 0: dirty_pct is set by the test, else it
  follows from these, the flush list's pages and the dirty pages the LRU
  batch evicts (a share of them as the pool's). */
  double dirtied{0};
  /** Free pages taken per second by reads of new pages. */
  double free_use{0};
  uint64_t instances{4};
  double free_pages{4096};
  /** +/- this share of the async mark of random error on the age the
  controller sees (the oldest modification is read without the flush
  order latch; flush batches end at page boundaries). */
  double age_noise{0};
  /** true: a second's flushing moves the age one second later (the
  batch is written over the second, the age is read at its start). */
  bool flush_lag{false};
  /** The advance of the last second's flushing, when flush_lag. */
  double pending_advance{0};
  /** Upstream's checkpointer under load: a checkpoint (to the oldest
  modification) every this many seconds; 0: the checkpoint is not
  modelled. */
  int ckpt_every{0};
  /** Also one whenever checkpoint_wanted() says so (pacing's request),
  asked at the controller's updates only... */
  bool request_ckpt{false};
  /** ...and written this many seconds after it is asked for (the log
  checkpointer syncs the data files first; 0: at once). */
  int ckpt_delay{0};
  /** Also asked for in the seconds between the controller's updates, as
  after each page cleaner round, from CKPT_ROUND_LEAD_S of redo ahead of
  the limit. */
  bool ckpt_between_updates{false};
  /** LSN of the last checkpoint. */
  double ckpt_lsn{0};
  /** Checkpoint age at which user threads wait for redo space (upstream's
  free-check limit). */
  double free_check{90e6};
  /** The checkpoint requests are told the free-check limit (false: as
  when it is unknown, asked for from the age target on). */
  bool tell_ckpt_limit{true};
  /** Past the sync mark, 9.7.2's sync-mode flushing (false: upstream's
  target is then twice innodb_io_capacity_max, paced like any other):
  rounds of up to twice innodb_io_capacity_max pages each, written at once
  and back to back, towards buf_flush_lsn_scan_factor (3) seconds of redo
  below the sync mark, at most sync_pages_ps a second (one round waits for
  the last; the budget does not reach into them, see round_target()). The
  rounds take their share of the second, the paced rounds the rest; the
  page writes' latency in the rounds' share is sync_latency_factor times
  the device's (the round's queue), and a second that ends in a round ends
  with the round's writes in flight. */
  bool sync_rounds{false};
  double sync_pages_ps{2400};
  double sync_latency_factor{6};
  /** With sync_rounds: 9.7.2's rounds stop at the sync mark itself, not
  three seconds of redo below it: in sync mode its average redo rate
  falls to nothing (buf_flush_pace::sync_past_limit()), and the rounds
  flush only the pages older than the mark, back to back for the whole
  second. Pacing's rounds carry a slice of the budget each past that limit
  while sync_past_limit() lets them. Every sync_pin_s seconds in sync mode
  a refresh over a whole second lets one second's rounds reach three
  seconds below the mark (the lab: after 12-20 s). */
  bool sync_pins{false};
  int sync_pin_s{20};
  /** With sync_rounds, outside a pinned stretch: 9.7.2's coordinator as
  stall lab A under oltp_insert showed it near the sync mark, one sync
  round a second of sync_round_pages (upstream's target, twice
  innodb_io_capacity_max; with pacing, round_target() of it), after which
  it sleeps out its second; the rest of the second flushes only the slices
  buf_flush_pace::sync_second_rest() arms, not the budget. */
  bool sync_round_sleeps{false};
  double sync_round_pages{800};
  /** Seconds in sync mode so far (sync_pins). */
  int pinned_s{0};
  /** The coordinator's window of sync rounds (sync_pins). */
  buf_flush_pace::Sync_window sync_window;
  /** The page cleaner flushes nothing this second (a stall). */
  bool cleaner_stalled{false};
  /** Writes submitted and not completed at the end of the last second. */
  double in_flight{0};
  /** on: the age and the dirty pages come from this flush list, not from
  `need` and `dirtied` (the list's pages are the pool's dirty pages). */
  Flush_list list;
  std::mt19937 rng{7};
};

/** The checkpoint age pacing holds, for the engine's marks. */
inline double age_target(const Engine &e) {
  return buf_flush_pace::age_target(static_cast<uint64_t>(e.async_mark),
                                    static_cast<uint64_t>(e.sync_mark),
                                    e.redo_rate);
}

/** Flush-list pages an age of `age` holds at the density `need` pages
per second's redo (with write combining, the density the load has at
that age). */
inline double need_at(const Engine &e, double age) {
  if (e.combining > 0 && age > 0) {
    return e.need * std::pow(e.async_mark / std::max(age, 0.1 * e.async_mark),
                             e.combining);
  }
  return e.need;
}

/** The dirty pages the controller is told: the flush list's when it is
modelled (Engine::list), the pool's share when the dirty pages are
(Engine::dirtied), else the list the age implies, `need_at()` pages per
second's redo over the age (dirty_pct is then the tests' knob for the
dirty-page pressure only). */
inline double list_pages(const Engine &e) {
  if (e.list.on) return e.list.pages;
  if (e.dirtied > 0) return e.dirty_pct / 100 * e.pool_pages;
  return e.age / e.redo_rate * need_at(e, e.age);
}

/** Most the age may reach settled or on an approach: its transients use no
more than half the room the target leaves below the sync mark. */
inline double age_bound(const Engine &e) {
  return (age_target(e) + e.sync_mark) / 2;
}

struct Result {
  std::vector<double> age, budget, capability, latency, flushed;
  /** The ceiling decided each second, and what set it. */
  std::vector<double> ceiling;
  std::vector<Ceiling> ceiling_by;
  /** Redo generated each second (the transactions' throughput). */
  std::vector<double> generated;
  std::vector<uint64_t> free_waits;
  /** The LRU depth decided each second. */
  std::vector<double> lru_depth;
  /** Dirty-page share at the end of each second. */
  std::vector<double> dirty_pct;
  /** Pages flushed by sync rounds each second (Engine::sync_rounds). */
  std::vector<double> sync_flushed;
  int sync_seconds{0};
  int async_seconds{0};
  /** Checkpoint age at the end of each second, when modelled. */
  std::vector<double> ckpt_age;
  int checkpoints{0};
  /** Seconds that ended with the checkpoint age at the free-check limit. */
  int redo_wait_seconds{0};
};

inline Config config() {
  Config cfg;
  cfg.io_capacity = 200;
  cfg.io_capacity_max = 400;
  cfg.latency_pct = 200;
  cfg.lru_scan_depth = 1024;
  cfg.dirty_lwm_pct = 10;
  cfg.dirty_max_pct = 90;
  return cfg;
}

/** What 9.7.2's page cleaner asks for: adaptive flushing grows with the
age but is clipped at innodb_io_capacity_max; past the sync mark it
flushes up to twice that. */
inline double upstream_target(const Config &cfg, const Engine &e) {
  if (e.age >= e.sync_mark) return 2.0 * cfg.io_capacity_max;
  if (e.age < 0.1 * e.async_mark) return 0;
  const double t = cfg.io_capacity + e.age / e.async_mark * cfg.io_capacity_max;
  return std::min<double>(t, cfg.io_capacity_max);
}

/** Runs `seconds` steps; `with_controller` false gives upstream alone.
`change` may alter the device or engine at each second. */
template <typename Change>
Result run(int seconds, Device dev, Engine eng, bool with_controller,
           Change change, Config cfg = config()) {
  Controller ctl;
  Result r;
  Observation obs;
  obs.instances = eng.instances;
  uint64_t lru_depth = cfg.lru_scan_depth;
  eng.ckpt_lsn = eng.lsn - eng.age;
  /* Second at which pacing's requested checkpoint is written (-1: none
  pending). */
  int ckpt_due = -1;
  for (int t = 0; t < seconds; ++t) {
    change(t, &dev, &eng);
    const bool skipped =
        eng.skip_update_every > 0 && t % eng.skip_update_every == 0;

    /* The checkpointer: upstream's periodic one, and pacing's request. */
    if (eng.ckpt_every > 0) {
      const auto ckpt_age = static_cast<uint64_t>(eng.lsn - eng.ckpt_lsn);
      const auto wanted = [&](double lead_s) {
        return buf_flush_pace::checkpoint_wanted(
            ckpt_age, static_cast<uint64_t>(eng.age), eng.redo_rate,
            eng.tell_ckpt_limit ? static_cast<uint64_t>(eng.free_check) : 0,
            static_cast<uint64_t>(eng.async_mark),
            static_cast<uint64_t>(eng.sync_mark), lead_s);
      };
      const bool asked =
          with_controller && eng.request_ckpt &&
          ((!skipped && wanted(buf_flush_pace::CKPT_LEAD_S)) ||
           (eng.ckpt_between_updates &&
            wanted(buf_flush_pace::CKPT_ROUND_LEAD_S)));
      if (asked && ckpt_due < 0) ckpt_due = t + eng.ckpt_delay;
      const bool due = ckpt_due >= 0 && t >= ckpt_due;
      if (due || t % eng.ckpt_every == 0) {
        eng.ckpt_lsn = eng.lsn - eng.age;
        r.checkpoints++;
        ckpt_due = -1;
      }
    }

    /* The controller decides from the last interval. */
    Decision d = ctl.last();
    if (with_controller && !skipped) {
      obs.lsn = static_cast<uint64_t>(eng.lsn);
      double seen = eng.age;
      if (eng.age_noise > 0) {
        std::uniform_real_distribution<double> n(-eng.age_noise, eng.age_noise);
        seen = std::max(0.0, seen + n(eng.rng) * eng.async_mark);
      }
      obs.lsn_age = static_cast<uint64_t>(seen);
      obs.async_mark = static_cast<uint64_t>(eng.async_mark);
      obs.sync_mark = static_cast<uint64_t>(eng.sync_mark);
      obs.dirty_pct = eng.dirty_pct;
      obs.pool_pages =
          eng.tell_pool ? static_cast<uint64_t>(eng.pool_pages) : 0;
      obs.dirty_pages = static_cast<uint64_t>(list_pages(eng));
      obs.free_pages = static_cast<uint64_t>(eng.free_pages);
      obs.instance_pages =
          static_cast<uint64_t>(eng.pool_pages / eng.instances);
      d = ctl.update(cfg, obs);
      lru_depth = d.lru_depth;
    }
    /* 9.7.2's sync mode: the rounds flush towards three seconds of redo
    below the sync mark, as fast as they complete, for their share of the
    second. */
    /* Pinned rounds hold the age at the mark all through the second; a
    whole second's step ends a little below it, by what the second's
    redo fell short: within half a second of redo of the mark counts as
    at it. */
    const bool in_sync =
        eng.sync_rounds &&
        (eng.age >= eng.sync_mark ||
         (eng.sync_pins && eng.pinned_s > 0 &&
          eng.age >= eng.sync_mark - 0.5 * eng.redo_rate));
    eng.pinned_s = in_sync ? eng.pinned_s + 1 : 0;
    if (!in_sync) eng.sync_window.close();
    const bool pinned =
        in_sync && eng.sync_pins && eng.pinned_s % eng.sync_pin_s != 0;
    double sync_pages = 0;
    if (in_sync) {
      const double to =
          eng.sync_mark - (pinned ? 0 : 3) * eng.redo_rate;
      sync_pages = std::min(
          eng.sync_pages_ps,
          eng.list.on
              ? eng.list.older_than(eng.lsn + eng.redo_rate - to)
              : eng.need * (eng.age - to + eng.redo_rate) / eng.redo_rate);
    }
    if (pinned && with_controller) {
      /* Ten rounds a second; those that the coordinator's window of sync
      rounds lets carry a slice of the budget from the oldest page on, the
      pages older than the mark among them. */
      uint64_t past = 0;
      for (int i = 0; i < 10; ++i) {
        if (eng.sync_window.round(d.budget, t + i / 10.0)) {
          const uint64_t n = buf_flush_pace::round_target(0, d.budget, true);
          eng.sync_window.flushed(n);
          past += n;
        }
      }
      sync_pages = std::max(
          sync_pages, std::min(eng.sync_pages_ps, static_cast<double>(past)));
    }
    /* Pages flushed in the second after its sync round when the
    coordinator sleeps out the second (sync_round_sleeps); negative: the
    rest of the second runs upstream's and the budget's targets. */
    double after_round = -1;
    if (in_sync && !pinned && eng.sync_round_sleeps) {
      const auto upstream_round = static_cast<uint64_t>(eng.sync_round_pages);
      const uint64_t round =
          with_controller
              ? buf_flush_pace::round_target(upstream_round, d.budget, true)
              : upstream_round;
      sync_pages = std::min(eng.sync_pages_ps, static_cast<double>(round));
      /* One round a second: each opens a window, and the slices armed by
      the last one are over. */
      after_round = with_controller ? static_cast<double>(
                                          buf_flush_pace::sync_second_rest(
                                              d.budget, round, true, false))
                                    : 0;
    }
    if (eng.cleaner_stalled) sync_pages = 0;
    /* Pinned, the rounds run back to back for the whole second. */
    const double sync_share =
        pinned ? 1.0 : sync_pages / eng.sync_pages_ps;
    const double up =
        after_round >= 0
            ? sync_pages
            : sync_pages + (1 - sync_share) * upstream_target(cfg, eng);
    const double target =
        eng.cleaner_stalled ? 0
        : after_round >= 0
            ? sync_pages + after_round
            : sync_pages + (1 - sync_share) *
                               std::max(upstream_target(cfg, eng),
                                        static_cast<double>(d.budget));

    /* The LRU batch refills the free list once per second. */
    const double lru_target = static_cast<double>(lru_depth) * eng.instances;
    const double lru_evicted = std::max(0.0, lru_target - eng.free_pages);
    eng.free_pages += lru_evicted;
    /* A fifth of the evicted pages are dirty and cost a write (with the
    dirty pages modelled, the pool's share of them). */
    const double lru_writes =
        lru_evicted * (eng.dirtied > 0 ? eng.dirty_pct / 100 : 0.2);

    double lat = 0;
    const double offered = target + eng.foreground_writes + lru_writes;
    const double served = dev.serve(offered, &lat);
    lat *= 1 + sync_share * (eng.sync_latency_factor - 1);
    const double in_flight_before = eng.in_flight;
    eng.in_flight = sync_share >= 1 ? 2.0 * cfg.io_capacity_max : 0;
    /* The page cleaner gets its share of what the device served. */
    const double flushed = offered > 0 ? served * target / offered : 0;

    const double need = need_at(eng, eng.age);
    const double generated =
        eng.redo_rate * std::max(0.1, 1 - eng.flush_cost * flushed);
    if (eng.list.on) {
      /* In tenths of a second: the writes and the changes interleave. */
      constexpr int STEPS = 10;
      for (int i = 0; i < STEPS; ++i) {
        eng.lsn += generated / STEPS;
        eng.list.step(eng.lsn, 1.0 / STEPS, flushed / STEPS);
      }
      eng.age = eng.list.age(eng.lsn);
      eng.dirty_pct = 100 * eng.list.pages / eng.pool_pages;
    } else {
      eng.lsn += generated;
      double advance = flushed / need * eng.redo_rate;
      if (eng.flush_lag) std::swap(advance, eng.pending_advance);
      eng.age += generated - advance;
      eng.age = std::max(eng.age, 0.0);
    }
    if (eng.age >= eng.sync_mark) r.sync_seconds++;
    if (eng.age >= eng.async_mark) r.async_seconds++;
    if (eng.ckpt_every > 0) {
      r.ckpt_age.push_back(eng.lsn - eng.ckpt_lsn);
      if (r.ckpt_age.back() >= eng.free_check) r.redo_wait_seconds++;
    }

    if (!eng.list.on && eng.dirtied > 0 && eng.pool_pages > 0) {
      const double dirty = eng.dirty_pct / 100 * eng.pool_pages + eng.dirtied -
                           flushed - lru_writes;
      eng.dirty_pct = std::clamp(100 * dirty / eng.pool_pages, 0.0, 99.0);
    }

    double waits = 0;
    eng.free_pages -= eng.free_use;
    if (eng.free_pages < 0) {
      waits = -eng.free_pages;
      eng.free_pages = 0;
    }

    /* A skipped update leaves the last second's counts unread: the next
    update's interval spans both seconds, as the coordinator's does. */
    const bool spans = with_controller && skipped;
    obs.interval_s = spans ? obs.interval_s + 1 : 1;
    const auto count = [spans](uint64_t before, double now) {
      return static_cast<uint64_t>(now) + (spans ? before : 0);
    };
    obs.submitted = count(obs.submitted, offered);
    obs.writes = count(obs.writes, (served - eng.in_flight + in_flight_before) *
                                       dev.reported);
    obs.write_latency_us = dev.reported > 0 ? lat : 0;
    obs.list_flushed = count(obs.list_flushed, flushed);
    obs.upstream = count(obs.upstream, up);
    const double sync_flushed = offered > 0 ? served * sync_pages / offered : 0;
    obs.sync_flushed = count(obs.sync_flushed, sync_flushed);
    obs.free_waits = count(obs.free_waits, waits);

    if (std::getenv("PACE_TRACE") != nullptr) {
      std::printf(
          "t=%d age=%.0f%% up=%.0f budget=%lu cap=%lu lat=%.0f flushed=%.0f "
          "backlog=%.0f p=%.2f gen=%.0f dirty=%.1f%%\n",
          t, 100 * eng.age / eng.async_mark, up,
          static_cast<unsigned long>(d.budget),
          static_cast<unsigned long>(d.capability), lat, flushed, dev.backlog,
          d.pressure, generated / 1000, eng.dirty_pct);
    }
    r.age.push_back(eng.age);
    r.budget.push_back(static_cast<double>(d.budget));
    r.capability.push_back(static_cast<double>(d.capability));
    r.ceiling.push_back(static_cast<double>(d.ceiling));
    r.ceiling_by.push_back(d.ceiling_by);
    r.latency.push_back(lat);
    r.flushed.push_back(flushed);
    r.generated.push_back(generated);
    r.free_waits.push_back(static_cast<uint64_t>(waits));
    r.lru_depth.push_back(static_cast<double>(lru_depth));
    r.dirty_pct.push_back(eng.dirty_pct);
    r.sync_flushed.push_back(sync_flushed);
  }
  return r;
}

inline constexpr auto no_change = [](int, Device *, Engine *) {};

/** A device (or an IOPS throttle) that serves writes in FIFO order, in
1 ms steps: page writes and the commits' redo and binary log writes. */
struct Write_queue {
  double capacity_per_ms;
  double pages{0};
  double commits{0};

  /** @return how long a commit write arriving now waits, ms */
  double commit_wait_ms() const { return (pages + commits) / capacity_per_ms; }

  /** One ms: commit writes arrive, and a ms of capacity is served in the
  order of the queue. */
  void step(double commits_per_ms) {
    const double ahead = pages + commits;
    commits += commits_per_ms;
    double serve = capacity_per_ms;
    const double p = std::min(pages, serve * pages / std::max(ahead, 1e-9));
    pages -= p;
    serve -= p;
    commits -= std::min(commits, serve);
  }
};

inline double max_of(const std::vector<double> &v, size_t from, size_t to) {
  return *std::max_element(v.begin() + from, v.begin() + to);
}
inline double min_of(const std::vector<double> &v, size_t from, size_t to) {
  return *std::min_element(v.begin() + from, v.begin() + to);
}
inline double mean_of(const std::vector<double> &v, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += v[i];
  return s / (to - from);
}

/** Direction changes of the budget by more than `pct` percent. */
inline int reversals(const std::vector<double> &v, size_t from, double pct) {
  int n = 0;
  int last_dir = 0;
  for (size_t i = from + 1; i < v.size(); ++i) {
    const double delta = v[i] - v[i - 1];
    if (std::fabs(delta) <= v[i - 1] * pct / 100) continue;
    const int dir = delta > 0 ? 1 : -1;
    if (last_dir != 0 && dir != last_dir) n++;
    last_dir = dir;
  }
  return n;
}

}  // namespace pace_sim

#endif /* pace_sim_h */

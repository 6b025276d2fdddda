/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file buf/buf0flu_pace_rounds.cc
 Device-paced flushing within the second, see include/buf0flu_pace_rounds.h. */

#include "buf0flu_pace_rounds.h"

#include <algorithm>
#include <cmath>

namespace buf_flush_pace {

namespace {

/** No early LRU wake-up once the page cleaner has run no round for this
many seconds (it runs rounds only while the server is active). */
constexpr double LRU_IDLE_S = 1.0;
/** The LRU batches of a second may take up to this multiple of the
depth. */
constexpr double LRU_RATE = 2.0;

}  // namespace

uint64_t lru_batch(uint64_t depth) {
  return std::max<uint64_t>(
      1, static_cast<uint64_t>(
             std::ceil(LRU_RATE * static_cast<double>(depth) / LRU_ROUNDS)));
}

double lru_due(double last_s, bool below) {
  return below ? last_s + 1.0 / LRU_ROUNDS : -1;
}

uint64_t kept_upstream(uint64_t upstream, uint64_t dirty_pages, uint64_t age,
                       uint64_t lwm_age, bool sync_flush) {
  if (sync_flush || lwm_age == 0 || age >= lwm_age) return upstream;
  return std::min(upstream, dirty_pages);
}

bool upstreams_round(uint64_t budget, double redo_per_dirtied,
                     uint64_t lru_writes, uint64_t free_waits) {
  return budget == 0 && free_waits == 0 && lru_writes < LRU_CLEAN_WRITES &&
         redo_per_dirtied >= 0 && redo_per_dirtied < NO_REDO_BYTES_PER_PAGE;
}

uint64_t round_target(uint64_t upstream, uint64_t budget, bool sync_flush) {
  if (!sync_flush) return std::max(upstream, budget);
  return std::max(upstream, (budget + MAX_SLICES - 1) / MAX_SLICES);
}

bool sync_past_limit(uint64_t budget, double since_s, uint64_t flushed) {
  if (budget == 0) return false;
  const double due =
      static_cast<double>(budget) * (std::clamp(since_s, 0.0, 1.0) +
                                     1.0 / MAX_SLICES);
  return static_cast<double>(flushed) < due;
}

bool Sync_window::round(uint64_t budget, double now_s) {
  m_opened = m_start < 0 || now_s - m_start >= 1.0;
  if (m_opened) {
    m_start = now_s;
    m_flushed = 0;
  }
  return sync_past_limit(budget, now_s - m_start, m_flushed);
}

uint64_t sync_second_rest(uint64_t budget, uint64_t round, bool opened,
                          bool pending) {
  return opened && !pending && budget > round ? budget - round : 0;
}

uint64_t Slicer::first(uint64_t n_pages, double now_s) {
  m_start = now_s;
  m_count = static_cast<unsigned>(
      std::clamp<uint64_t>(n_pages / SLICE_MIN_PAGES, 1, MAX_SLICES));
  m_per_slice = n_pages / m_count;
  m_next = 1;
  m_offset = 0;
  /* The first slice takes the remainder of the division. */
  m_first = n_pages - m_per_slice * (m_count - 1);
  m_extra = 0;
  return m_first;
}

void Slicer::after(uint64_t n_pages, uint64_t taken, double now_s) {
  const uint64_t rest = n_pages > taken ? n_pages - taken : 0;
  const auto slices = static_cast<unsigned>(
      std::clamp<uint64_t>(rest / SLICE_MIN_PAGES, 1, MAX_SLICES));
  /* Slot 0 is the round; slices 1..slices follow at i / (slices + 1). */
  m_start = now_s;
  m_count = slices + 1;
  m_per_slice = rest / slices;
  m_extra = rest - m_per_slice * slices;
  m_first = taken;
  m_next = 1;
  m_offset = 0;
}

uint64_t Slicer::next(double now_s) {
  /* A sleep ends up to a clock tick early: a millisecond early is due. */
  if (m_next >= m_count || now_s + 0.001 < due()) return 0;
  const uint64_t extra = m_next == 1 ? m_extra : 0;
  m_offset = m_first + (m_next > 1 ? m_extra : 0) + m_per_slice * (m_next - 1);
  m_next++;
  return m_per_slice + extra;
}

double Slicer::due() const {
  if (m_next >= m_count) return -1;
  return m_start + static_cast<double>(m_next) / m_count;
}

double Wakeup::next(double now_s, double second_start_s, bool below,
                    Slicer *slicer) {
  if (slicer->due() >= 0 && slicer->due() < second_start_s) {
    *slicer = Slicer();
  }
  double due = slicer->due();
  if (below && now_s - m_last_round < LRU_IDLE_S) {
    const double lru = lru_due(m_last_round, true);
    if (due < 0 || lru < due) due = lru;
  }
  if (due < 0 || due > now_s) return due;
  /* Due now: the coordinator wakes at once. If the last such wake-up ran
  no round (the server went idle with slices or an LRU batch due), the
  same time would come back at once: not before the next LRU round. */
  const double tick = 1.0 / LRU_ROUNDS;
  if (m_last_wake > m_last_round && now_s < m_last_wake + tick) {
    return m_last_wake + tick;
  }
  m_last_wake = now_s;
  return due;
}

void split_by_age(uint64_t total, const uint64_t *weights, size_t n,
                  uint64_t *out) {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; i++) sum += weights[i];
  /* One page each, the rest in proportion to the weights (evenly without
  any), rounded down. */
  const uint64_t rest = total > n ? total - n : 0;
  uint64_t given = 0;
  for (size_t i = 0; i < n; i++) {
    const uint64_t share =
        sum == 0 ? rest / n
                 : static_cast<uint64_t>(static_cast<long double>(rest) *
                                         weights[i] / sum);
    out[i] = 1 + share;
    given += share;
  }
  /* Each share lost less than a page to the rounding, so fewer than n
  pages are left: one more each to the heaviest instances (the first ones
  when the weights tie). Instances are taken in the order (heavier first,
  then lower index) without a list: each pick is the first in that order
  after the previous one. */
  const auto before = [weights](size_t a, size_t b) {
    return weights[a] > weights[b] || (weights[a] == weights[b] && a < b);
  };
  size_t prev = n;
  for (uint64_t left = rest - given; left > 0; left--) {
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
      if (prev != n && !before(prev, i)) continue;
      if (best == n || before(i, best)) best = i;
    }
    out[best]++;
    prev = best;
  }
}

void slice_of_plan(uint64_t offset, uint64_t n_pages, const uint64_t *plan,
                   size_t n, uint64_t *out) {
  const uint64_t end = offset + n_pages;
  uint64_t start_i = 0;
  uint64_t given = 0;
  for (size_t i = 0; i < n; i++) {
    const uint64_t end_i = start_i + plan[i];
    const uint64_t from = std::max(start_i, offset);
    const uint64_t to = std::min(end_i, end);
    out[i] = to > from ? to - from : 0;
    given += out[i];
    start_i = end_i;
  }
  out[n - 1] += n_pages - given;
}

}  // namespace buf_flush_pace

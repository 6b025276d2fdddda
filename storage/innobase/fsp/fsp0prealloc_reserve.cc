/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file fsp/fsp0prealloc_reserve.cc
 The free-space reserve of ALTER TABLESPACE ... SET EXTENT_SIZE across
 statements and across chunks. */

#include "fsp0prealloc_reserve.h"

#include <algorithm>

#include "fsp0prealloc_plan.h"

namespace fsp_prealloc {

Grant Reservations::decide(uint64_t others, uint64_t bytes,
                           const Fs_probe &probe, uint32_t min_free_pct) {
  Grant grant;
  grant.others_bytes = others;
  grant.asked_bytes = bytes;
  if (!probe(&grant.fs)) {
    /* As the statement's own guard: what cannot be asked is not refused. */
    return grant;
  }
  grant.probed = true;
  const uint64_t usable =
      grant.fs.free_bytes > others ? grant.fs.free_bytes - others : 0;
  const Space_check check =
      check_free_space(bytes, 0, usable, grant.fs.total_bytes, min_free_pct);
  grant.reserve_bytes = check.reserve_bytes;
  grant.granted = check.fits;
  return grant;
}

Grant Reservations::open(Claim *claim, uint64_t fs_id, uint64_t bytes,
                         const Fs_probe &probe, uint32_t min_free_pct) {
  std::lock_guard<std::mutex> guard(m_mutex);
  const auto it = m_claimed.find(fs_id);
  const uint64_t others = it == m_claimed.end() ? 0 : it->second;
  const Grant grant = decide(others, bytes, probe, min_free_pct);
  if (grant.granted && bytes > 0) {
    claim->m_fs_id = fs_id;
    claim->m_left = bytes;
    claim->m_open = true;
    m_claimed[fs_id] += bytes;
  }
  return grant;
}

Grant Reservations::next_chunk(const Claim &claim, uint64_t chunk_bytes,
                               const Fs_probe &probe, uint32_t min_free_pct) {
  std::lock_guard<std::mutex> guard(m_mutex);
  uint64_t others = 0;
  if (claim.m_open) {
    const auto it = m_claimed.find(claim.m_fs_id);
    const uint64_t all = it == m_claimed.end() ? 0 : it->second;
    others = all > claim.m_left ? all - claim.m_left : 0;
  }
  return decide(others, chunk_bytes, probe, min_free_pct);
}

void Reservations::drop(uint64_t fs_id, uint64_t bytes) {
  const auto it = m_claimed.find(fs_id);
  if (it == m_claimed.end()) {
    return;
  }
  it->second -= std::min(it->second, bytes);
  if (it->second == 0) {
    m_claimed.erase(it);
  }
}

void Reservations::wrote(Claim *claim, uint64_t bytes) {
  std::lock_guard<std::mutex> guard(m_mutex);
  if (!claim->m_open) {
    return;
  }
  const uint64_t used = std::min(bytes, claim->m_left);
  claim->m_left -= used;
  drop(claim->m_fs_id, used);
}

void Reservations::close(Claim *claim) {
  std::lock_guard<std::mutex> guard(m_mutex);
  if (!claim->m_open) {
    return;
  }
  drop(claim->m_fs_id, claim->m_left);
  claim->m_left = 0;
  claim->m_open = false;
}

uint64_t Reservations::claimed(uint64_t fs_id) const {
  std::lock_guard<std::mutex> guard(m_mutex);
  const auto it = m_claimed.find(fs_id);
  return it == m_claimed.end() ? 0 : it->second;
}

Reservations &reservations() {
  static Reservations book;
  return book;
}

}  // namespace fsp_prealloc

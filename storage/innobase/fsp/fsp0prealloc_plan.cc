/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file fsp/fsp0prealloc_plan.cc
 Size arithmetic of ALTER TABLESPACE ... SET EXTENT_SIZE. */

#include "fsp0prealloc_plan.h"

#include <algorithm>

namespace fsp_prealloc {

namespace {
uint64_t align_down(uint64_t pages, uint32_t extent_pages) {
  return pages - pages % extent_pages;
}
}  // namespace

uint64_t max_bytes(const Geometry &geo) {
  return align_down(geo.max_pages, geo.extent_pages) * geo.page_bytes;
}

Target plan_target(uint64_t requested_bytes, uint64_t current_pages,
                   const Geometry &geo) {
  if (requested_bytes > max_bytes(geo)) {
    return {Verdict::TOO_LARGE, 0};
  }
  /* No overflow: requested_bytes <= max_bytes(), far below 2^64. */
  const uint64_t pages =
      (requested_bytes + geo.page_bytes - 1) / geo.page_bytes;
  const uint64_t extents = (pages + geo.extent_pages - 1) / geo.extent_pages;
  const uint64_t target = extents * geo.extent_pages;

  if (target <= current_pages) {
    return {Verdict::LARGE_ENOUGH, 0};
  }
  return {Verdict::GROW, target};
}

uint64_t chunk_pages(const Geometry &geo) {
  const uint64_t extent_bytes =
      uint64_t{geo.extent_pages} * uint64_t{geo.page_bytes};
  const uint64_t extents =
      std::max<uint64_t>(1, (CHUNK_BYTES + extent_bytes - 1) / extent_bytes);
  return extents * geo.extent_pages;
}

uint64_t next_size(uint64_t current_pages, uint64_t target_pages,
                   const Geometry &geo) {
  const uint64_t next =
      align_down(current_pages, geo.extent_pages) + chunk_pages(geo);
  return std::min(next, target_pages);
}

uint64_t header_pages_after(uint64_t file_pages, uint64_t header_pages,
                            const Geometry &geo) {
  return std::max(header_pages, align_down(file_pages, geo.extent_pages));
}

Space_check check_free_space(uint64_t target_bytes, uint64_t file_bytes,
                             uint64_t fs_free_bytes, uint64_t fs_total_bytes,
                             uint32_t min_free_pct) {
  Space_check check;
  check.needed_bytes = target_bytes > file_bytes ? target_bytes - file_bytes : 0;
  const uint32_t pct = std::min<uint32_t>(min_free_pct, 100);
  /* Rounded up: 5% of a 2 GB file system is 107374183 bytes, not less. */
  check.reserve_bytes = fs_total_bytes / 100 * pct +
                        (fs_total_bytes % 100 * pct + 99) / 100;
  if (check.needed_bytes == 0) {
    return check;
  }
  check.fits = check.needed_bytes <= fs_free_bytes &&
               fs_free_bytes - check.needed_bytes >= check.reserve_bytes;
  return check;
}

}  // namespace fsp_prealloc

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file buf/buf0io_headroom.cc
 Policy of IO-utilisation-aware flushing, see include/buf0io_headroom.h. */

#include "buf0io_headroom.h"

#include <algorithm>

namespace buf_io_headroom {

double dirty_pressure(const Input &in) {
  if (!(in.dirty_pct > in.dirty_lwm_pct)) return 0; /* also NaN */
  if (in.dirty_max_pct <= in.dirty_lwm_pct) {
    return in.dirty_pct >= in.dirty_max_pct ? 1 : 0;
  }
  return std::min(1.0, (in.dirty_pct - in.dirty_lwm_pct) /
                           (in.dirty_max_pct - in.dirty_lwm_pct));
}

uint64_t extra_pages(const Input &in) {
  if (in.util_lwm_pct == 0 || in.headroom_pct == 0 || !in.sample_valid ||
      in.sync_flush || in.dirty_pages == 0) {
    return 0;
  }
  const double pressure = dirty_pressure(in);
  if (pressure == 0) return 0;
  const double lwm = static_cast<double>(std::min<unsigned long>(in.util_lwm_pct, 100));
  if (!(in.util_pct >= 0) || in.util_pct >= lwm) return 0; /* busy, or NaN */

  if (in.planned_pages >= in.io_capacity_max ||
      in.planned_pages >= in.dirty_pages) {
    return 0;
  }
  const double headroom = (lwm - in.util_pct) / lwm; /* (0, 1] */
  const double share =
      static_cast<double>(std::min<unsigned long>(in.headroom_pct, 100)) / 100;
  const double spare = static_cast<double>(in.io_capacity_max - in.planned_pages);

  auto extra = static_cast<uint64_t>(headroom * share * pressure * spare);
  extra = std::min(extra, in.io_capacity_max - in.planned_pages);
  extra = std::min(extra, in.dirty_pages - in.planned_pages);
  return extra;
}

}  // namespace buf_io_headroom

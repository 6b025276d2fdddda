/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file os/os0aio_depth.cc
 Sizing of the asynchronous I/O arrays (innodb_aio_pending_ios_per_thread).
 See include/os0aio_depth.h. */

#include "os0aio_depth.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

unsigned long srv_aio_pending_ios_per_thread = os_aio_depth::DEFAULT;

namespace os_aio_depth {

Plan plan(size_t n_segments, size_t configured, const Kernel_budget &budget) {
  Plan result;
  result.slots_per_segment = configured;
  result.events_needed = uint64_t{n_segments} * configured;

  if (!budget.known || n_segments == 0 ||
      result.events_needed <= budget.available()) {
    result.mode = Mode::NATIVE;
    return result;
  }

  /* fs.aio-max-nr is shared by the whole host: leave a quarter of what is
  free for other processes (another mysqld, backup tools) instead of
  starving them. */
  const uint64_t usable = budget.available() / 4 * 3;
  const uint64_t fitting = usable / n_segments;
  if (fitting < MIN) {
    result.mode = Mode::SIMULATED;
    return result;
  }
  result.mode = Mode::NATIVE_REDUCED;
  result.slots_per_segment = static_cast<size_t>(fitting);
  return result;
}

bool parse_proc_counter(const char *text, size_t len, uint64_t *value) {
  size_t i = 0;
  uint64_t v = 0;
  for (; i < len && text[i] >= '0' && text[i] <= '9'; ++i) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false; /* overflow */
    v = v * 10 + digit;
  }
  if (i == 0) return false;
  for (; i < len; ++i) {
    if (text[i] != '\n' && text[i] != ' ' && text[i] != '\t') return false;
  }
  *value = v;
  return true;
}

/** Read one /proc/sys counter with open/read/close (no stdio, no allocation).
@param[in]  path   file to read
@param[out] value  the counter
@return true on success */
static bool read_counter(const char *path, uint64_t *value) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[32];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof(buf));
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  return n > 0 && parse_proc_counter(buf, static_cast<size_t>(n), value);
}

Kernel_budget read_kernel_budget() {
  Kernel_budget budget;
  budget.known = read_counter("/proc/sys/fs/aio-max-nr", &budget.max_nr) &&
                 read_counter("/proc/sys/fs/aio-nr", &budget.nr);
  return budget;
}

}  // namespace os_aio_depth

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file os/os0diskstats.cc
 Block device statistics for IO-utilisation-aware flushing.
 See include/os0diskstats.h. */

#include "os0diskstats.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace os_diskstats {

namespace {

/** Skip blanks (not newlines) from text[i]; return the new index. */
size_t skip_blanks(const char *text, size_t len, size_t i) {
  while (i < len && (text[i] == ' ' || text[i] == '\t')) ++i;
  return i;
}

/** Parse an unsigned decimal at text[*i], moving *i past it. */
bool parse_u64(const char *text, size_t len, size_t *i, uint64_t *value) {
  size_t j = *i;
  uint64_t v = 0;
  while (j < len && text[j] >= '0' && text[j] <= '9') {
    const uint64_t digit = static_cast<uint64_t>(text[j] - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;
    v = v * 10 + digit;
    ++j;
  }
  if (j == *i) return false;
  *i = j;
  *value = v;
  return true;
}

/** Parse the stat fields starting at text[i] up to the end of the line.
@return true if at least 11 numbers were found */
bool parse_fields(const char *text, size_t len, size_t i, Counters *out) {
  uint64_t f[11];
  size_t n = 0;
  for (;;) {
    i = skip_blanks(text, len, i);
    if (i >= len || text[i] == '\n') break;
    uint64_t v;
    if (!parse_u64(text, len, &i, &v)) return false;
    if (n < 11) f[n] = v;
    ++n;
  }
  if (n < 11) return false;
  out->reads = f[0];
  out->writes = f[4];
  out->io_ticks_ms = f[9];
  out->queue_time_ms = f[10];
  return true;
}

/** Read a small file into buf (NUL-terminated); false on error or if empty. */
bool read_file(const std::string &path, char *buf, size_t size, size_t *len) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  size_t got = 0;
  while (got + 1 < size) {
    const ssize_t n = ::read(fd, buf + got, size - 1 - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  buf[got] = '\0';
  *len = got;
  return got > 0;
}

/** Read a sysfs "dev" file ("8:1\n") into a Dev. */
bool read_dev_file(const std::string &path, Dev *dev) {
  char buf[64];
  size_t len;
  if (!read_file(path, buf, sizeof(buf), &len)) return false;
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ')) {
    buf[--len] = '\0';
  }
  return parse_dev(buf, dev);
}

std::string dev_dir(const std::string &root, Dev dev) {
  return root + "/dev/block/" + std::to_string(dev.major) + ":" +
         std::to_string(dev.minor);
}

bool exists(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

void resolve(const std::string &root, Dev dev, int depth,
             std::vector<Dev> *leaves) {
  if (depth < 0) return;
  std::string dir = dev_dir(root, dev);
  if (!exists(dir + "/stat")) return; /* not a block device we can sample */

  /* A partition: its parent directory (through the symlink) is the disk. */
  if (exists(dir + "/partition")) {
    Dev parent;
    if (read_dev_file(dir + "/../dev", &parent) && !(parent == dev)) {
      resolve(root, parent, depth - 1, leaves);
      return;
    }
  }

  /* Stacked devices (dm, md) list what they are built on in slaves/. */
  std::vector<Dev> slaves;
  if (DIR *d = ::opendir((dir + "/slaves").c_str())) {
    while (const struct dirent *e = ::readdir(d)) {
      if (e->d_name[0] == '.') continue;
      Dev slave;
      if (read_dev_file(dir + "/slaves/" + e->d_name + "/dev", &slave)) {
        slaves.push_back(slave);
      }
    }
    ::closedir(d);
  }
  if (slaves.empty()) {
    if (std::find(leaves->begin(), leaves->end(), dev) == leaves->end()) {
      leaves->push_back(dev);
    }
    return;
  }
  for (const Dev &s : slaves) resolve(root, s, depth - 1, leaves);
}

}  // namespace

bool parse_stat(const char *text, size_t len, Counters *out) {
  return parse_fields(text, len, 0, out);
}

bool parse_diskstats(const char *text, size_t len, Dev dev, Counters *out) {
  size_t i = 0;
  while (i < len) {
    size_t eol = i;
    while (eol < len && text[eol] != '\n') ++eol;
    size_t j = skip_blanks(text, eol, i);
    uint64_t major, minor;
    if (parse_u64(text, eol, &j, &major) &&
        (j = skip_blanks(text, eol, j), parse_u64(text, eol, &j, &minor)) &&
        major == dev.major && minor == dev.minor) {
      j = skip_blanks(text, eol, j);
      while (j < eol && text[j] != ' ' && text[j] != '\t') ++j; /* name */
      if (j < eol && parse_fields(text, eol, j, out)) return true;
    }
    i = eol + 1;
  }
  return false;
}

bool parse_dev(const char *text, Dev *out) {
  size_t len = 0;
  while (text[len] != '\0') ++len;
  size_t i = 0;
  uint64_t major, minor;
  if (!parse_u64(text, len, &i, &major) || i >= len || text[i] != ':') {
    return false;
  }
  ++i;
  if (!parse_u64(text, len, &i, &minor) || i != len) return false;
  if (major > 0xFFFFFFFFu || minor > 0xFFFFFFFFu) return false;
  out->major = static_cast<unsigned>(major);
  out->minor = static_cast<unsigned>(minor);
  return true;
}

Sample compute_sample(const Counters &prev, const Counters &cur,
                      double elapsed_ms) {
  Sample s;
  if (elapsed_ms <= 0 || cur.reads < prev.reads || cur.writes < prev.writes ||
      cur.io_ticks_ms < prev.io_ticks_ms ||
      cur.queue_time_ms < prev.queue_time_ms) {
    return s;
  }
  const double busy = static_cast<double>(cur.io_ticks_ms - prev.io_ticks_ms);
  s.util_pct = std::min(100.0, busy * 100.0 / elapsed_ms);
  s.avg_queue =
      static_cast<double>(cur.queue_time_ms - prev.queue_time_ms) / elapsed_ms;
  s.read_iops = static_cast<double>(cur.reads - prev.reads) * 1000.0 / elapsed_ms;
  s.write_iops =
      static_cast<double>(cur.writes - prev.writes) * 1000.0 / elapsed_ms;
  s.valid = true;
  return s;
}

Sample combine(const std::vector<Sample> &samples) {
  Sample out;
  if (samples.empty()) return out;
  for (const Sample &s : samples) {
    if (!s.valid) return Sample{};
    out.util_pct = std::max(out.util_pct, s.util_pct);
    out.avg_queue = std::max(out.avg_queue, s.avg_queue);
    out.read_iops += s.read_iops;
    out.write_iops += s.write_iops;
  }
  out.valid = true;
  return out;
}

std::vector<Dev> resolve_leaves(const std::string &sysfs_root, Dev dev,
                                int max_depth) {
  std::vector<Dev> leaves;
  resolve(sysfs_root, dev, max_depth, &leaves);
  /* readdir() order is arbitrary: sort, so logs and tests are stable. */
  std::sort(leaves.begin(), leaves.end(), [](const Dev &a, const Dev &b) {
    return a.major != b.major ? a.major < b.major : a.minor < b.minor;
  });
  return leaves;
}

size_t Disk_util_sampler::init(const std::string &sysfs_root,
                               const std::vector<Dev> &devs) {
  m_sysfs_root = sysfs_root;
  m_leaves.clear();
  for (const Dev &d : devs) {
    for (const Dev &leaf : resolve_leaves(sysfs_root, d)) {
      if (std::find(m_leaves.begin(), m_leaves.end(), leaf) == m_leaves.end()) {
        m_leaves.push_back(leaf);
      }
    }
  }
  m_stat_paths.clear();
  for (const Dev &leaf : m_leaves) {
    m_stat_paths.push_back(dev_dir(sysfs_root, leaf) + "/stat");
  }
  m_prev.assign(m_leaves.size(), Counters{});
  m_cur.assign(m_leaves.size(), Counters{});
  m_samples.assign(m_leaves.size(), Sample{});
  m_diskstats_buf.assign(64 * 1024, '\0');
  m_have_prev = false;
  return m_leaves.size();
}

bool Disk_util_sampler::read(size_t i, Counters *out) {
  char buf[512];
  size_t len;
  if (read_file(m_stat_paths[i], buf, sizeof(buf), &len)) {
    return parse_stat(buf, len, out);
  }
  /* Fallback: /proc/diskstats, into the buffer sized at init(); a host with
  so many devices that ours is beyond it simply gets no sample. */
  if (!read_file("/proc/diskstats", m_diskstats_buf.data(),
                 m_diskstats_buf.size(), &len)) {
    return false;
  }
  return parse_diskstats(m_diskstats_buf.data(), len, m_leaves[i], out);
}

Sample Disk_util_sampler::sample(uint64_t now_ms) {
  bool all_read = !m_leaves.empty();
  for (size_t i = 0; i < m_leaves.size(); ++i) {
    if (!read(i, &m_cur[i])) all_read = false;
  }
  if (!all_read) {
    m_have_prev = false; /* the next good reading starts a new interval */
    return Sample{};
  }
  Sample result;
  if (m_have_prev) {
    const double elapsed = static_cast<double>(now_ms - m_prev_ms);
    for (size_t i = 0; i < m_leaves.size(); ++i) {
      m_samples[i] = compute_sample(m_prev[i], m_cur[i],
                                    now_ms > m_prev_ms ? elapsed : 0);
    }
    result = combine(m_samples);
  }
  m_prev.swap(m_cur);
  m_prev_ms = now_ms;
  m_have_prev = true;
  return result;
}

std::string Disk_util_sampler::describe() const {
  std::string s;
  for (const Dev &d : m_leaves) {
    if (!s.empty()) s += ",";
    s += std::to_string(d.major) + ":" + std::to_string(d.minor);
  }
  return s;
}

}  // namespace os_diskstats

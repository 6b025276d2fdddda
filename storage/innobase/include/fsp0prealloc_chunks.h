/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fsp0prealloc_chunks.h
 The chunk loop of ALTER TABLESPACE ... SET EXTENT_SIZE, as an order of
 steps over an interface, so that the order is tested without a server.

 Each chunk:
 1. stops if the statement was killed;
 2. waits for redo space, as DML does (the chunk writes MLOG_FILE_EXTEND and
    an FSP_SIZE update);
 3. reads FSP_SIZE and the file's size;
 4. asks the free-space reserve whether the file may grow by the chunk;
 5. grows the file with no latch held: fil_space_extend() serialises
    extensions of one file by itself, and a file larger than FSP_SIZE is
    what autoextension leaves too, so neither the tablespace latch nor
    page 0 need be held through fallocate or the zero-fill. Held, they
    would stop the page cleaner from flushing page 0 and every thread
    allocating pages in the tablespace for the whole IO;
 6. raises FSP_SIZE to the whole extents the file now holds, a short
    mini-transaction under the tablespace latch and page 0.
 FSP_SIZE is raised only after the file grew, so it never names pages the
 file lacks. */

#ifndef fsp0prealloc_chunks_h
#define fsp0prealloc_chunks_h

#include <cstdint>

#include "fsp0prealloc_plan.h"

namespace fsp_prealloc {

/** What the chunk loop does to the server. */
class Chunk_ops {
 public:
  virtual ~Chunk_ops() = default;
  /** @return true if the statement was killed */
  virtual bool interrupted() = 0;
  /** Wait until the redo log has room for a chunk's records. */
  virtual void wait_for_redo_space() = 0;
  /** Read the sizes, latching page 0 only while reading.
  @param[out]  header_pages  FSP_SIZE
  @param[out]  file_pages    pages in the data file */
  virtual void read_sizes(uint64_t *header_pages, uint64_t *file_pages) = 0;
  /** Ask the free-space reserve.
  @param[in]  bytes  bytes the file is about to grow by
  @return false to stop before growing */
  virtual bool may_grow(uint64_t bytes) = 0;
  /** Grow the file to pages, holding no tablespace or page latch.
  @param[in]   pages     size to reach
  @param[out]  os_errno  errno of a failure, 0 if unknown
  @return false if the file could not reach pages */
  virtual bool extend_file(uint64_t pages, int *os_errno) = 0;
  /** @return pages in the data file now */
  virtual uint64_t file_pages() = 0;
  /** The file grew by bytes (the reserve's claim shrinks).
  @param[in]  bytes  growth of the data file */
  virtual void grew(uint64_t bytes) = 0;
  /** Raise FSP_SIZE to at least pages, in one mini-transaction under the
  tablespace latch and page 0 (a concurrent extension may have raised it
  further).
  @param[in]  pages  whole extents the file holds
  @return FSP_SIZE after the update */
  virtual uint64_t raise_header(uint64_t pages) = 0;
};

/** How the chunk loop ended. */
enum class Chunks_end {
  /** FSP_SIZE reached the target. */
  DONE,
  /** interrupted() said stop. */
  INTERRUPTED,
  /** may_grow() refused a chunk: the reserve would be crossed. */
  RESERVE,
  /** extend_file() failed. */
  EXTEND_FAILED,
  /** The file grew by less than an extent: never spin. */
  NO_PROGRESS
};

/** Grow a tablespace to target_pages one chunk at a time.
@param[in,out]  ops           the server
@param[in]      target_pages  size to reach, whole extents
@param[in]      geo           the tablespace geometry
@param[out]     reached       FSP_SIZE at the end
@param[out]     os_errno      errno of a failed extension, else 0
@return how the loop ended */
inline Chunks_end grow_in_chunks(Chunk_ops &ops, uint64_t target_pages,
                                 const Geometry &geo, uint64_t *reached,
                                 int *os_errno) {
  *os_errno = 0;
  *reached = 0;
  for (;;) {
    if (ops.interrupted()) {
      return Chunks_end::INTERRUPTED;
    }
    ops.wait_for_redo_space();
    uint64_t header = 0;
    uint64_t file = 0;
    ops.read_sizes(&header, &file);
    *reached = header;
    if (header >= target_pages) {
      return Chunks_end::DONE;
    }
    const uint64_t next = next_size(header, target_pages, geo);
    const uint64_t growth =
        next > file ? (next - file) * uint64_t{geo.page_bytes} : 0;
    if (growth > 0 && !ops.may_grow(growth)) {
      return Chunks_end::RESERVE;
    }
    const bool extended = ops.extend_file(next, os_errno);
    const uint64_t file_after = ops.file_pages();
    if (file_after > file) {
      ops.grew((file_after - file) * uint64_t{geo.page_bytes});
    }
    const uint64_t want = header_pages_after(file_after, header, geo);
    if (want > header) {
      *reached = ops.raise_header(want);
    }
    if (!extended) {
      return Chunks_end::EXTEND_FAILED;
    }
    *os_errno = 0;
    if (*reached <= header) {
      return Chunks_end::NO_PROGRESS;
    }
  }
}

}  // namespace fsp_prealloc

#endif /* fsp0prealloc_chunks_h */

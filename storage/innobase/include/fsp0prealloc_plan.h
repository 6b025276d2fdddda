/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fsp0prealloc_plan.h
 Size arithmetic of ALTER TABLESPACE ... SET EXTENT_SIZE, as pure functions:
 what page count a requested byte size means, and how the growth is cut into
 chunks.

 The statement grows a tablespace file up front so that a bulk load never
 waits for file extension. The file grows in bounded chunks, each under the
 tablespace latch for a short time, so concurrent DML keeps allocating pages
 and KILL QUERY is honoured between chunks. Sizes are kept in whole extents
 because InnoDB hands out free space extent by extent (fsp_fill_free_list()
 only uses extents that fit entirely below FSP_SIZE). */

#ifndef fsp0prealloc_plan_h
#define fsp0prealloc_plan_h

#include <cstdint>

namespace fsp_prealloc {

/** Bytes grown under one hold of the tablespace latch. Large enough that the
fsync per chunk is cheap next to the writes, small enough that inserts
waiting for a new page are not held up for long. */
constexpr uint64_t CHUNK_BYTES = 64ULL << 20;

/** What a SET EXTENT_SIZE request asks of a tablespace. */
enum class Verdict {
  /** The tablespace must grow to Target::pages. */
  GROW,
  /** The tablespace already holds the requested size: nothing to do. */
  LARGE_ENOUGH,
  /** The request is beyond what the tablespace can address. */
  TOO_LARGE
};

struct Target {
  Verdict verdict{Verdict::LARGE_ENOUGH};
  /** Size to reach, in pages, a multiple of the extent size (GROW only). */
  uint64_t pages{0};
};

/** Geometry of one tablespace. */
struct Geometry {
  /** Physical page size in bytes (1K..64K; compressed spaces < 16K). */
  uint32_t page_bytes{0};
  /** Pages per extent for that page size. */
  uint32_t extent_pages{0};
  /** Largest page count a tablespace may have (PAGE_NO_MAX). */
  uint64_t max_pages{0};
};

/** Largest size in bytes a request may name: max_pages rounded down to
whole extents.
@param[in]  geo  the tablespace geometry
@return the limit in bytes */
uint64_t max_bytes(const Geometry &geo);

/** Turn a requested size into the page count to reach.
@param[in]  requested_bytes  the EXTENT_SIZE value, in bytes
@param[in]  current_pages    usable pages now (FSP_SIZE)
@param[in]  geo              the tablespace geometry
@return GROW with the size rounded up to whole extents; LARGE_ENOUGH when
that size is not above current_pages; TOO_LARGE above max_bytes() */
Target plan_target(uint64_t requested_bytes, uint64_t current_pages,
                   const Geometry &geo);

/** Pages per chunk: CHUNK_BYTES rounded up to whole extents.
@param[in]  geo  the tablespace geometry
@return pages, at least one extent */
uint64_t chunk_pages(const Geometry &geo);

/** Size to extend to in the next chunk: one chunk past the last whole
extent below current_pages, never past target_pages.
@param[in]  current_pages  usable pages now (FSP_SIZE)
@param[in]  target_pages   the size to reach, whole extents
@param[in]  geo            the tablespace geometry
@return the next size, > current_pages when current_pages < target_pages */
uint64_t next_size(uint64_t current_pages, uint64_t target_pages,
                   const Geometry &geo);

/** New FSP_SIZE after the file grew: the whole extents the file now holds,
never less than before. A file can be larger than FSP_SIZE (a crash between
the extension and the header update, or autoextend rounding to 1 MiB), and
those pages are usable once they form whole extents.
@param[in]  file_pages    pages in the data file now
@param[in]  header_pages  FSP_SIZE before the chunk
@param[in]  geo           the tablespace geometry
@return the new FSP_SIZE */
uint64_t header_pages_after(uint64_t file_pages, uint64_t header_pages,
                            const Geometry &geo);

/** What the free-space guard decides before the first chunk. */
struct Space_check {
  /** true: the growth fits and leaves the reserve free. */
  bool fits{true};
  /** Bytes the data file must still grow by (0: nothing to write). */
  uint64_t needed_bytes{0};
  /** Bytes that must stay free on the file system afterwards. */
  uint64_t reserve_bytes{0};
};

/** The free-space guard: a preallocation may not fill the file system that
also holds (often) the binary log, the redo log and temporary files. When
fallocate() is not supported InnoDB zero-fills, and on a full disk the file
keeps what was written, so the check is made before a byte is written.
@param[in]  target_bytes     size the data file must reach
@param[in]  file_bytes       size of the data file now
@param[in]  fs_free_bytes    bytes the server may still allocate on its file
                             system (statvfs f_bavail x f_frsize)
@param[in]  fs_total_bytes   size of that file system (f_blocks x f_frsize)
@param[in]  min_free_pct     innodb_extent_size_min_free_pct, 0 to 100
@return fits = false when the growth exceeds the free space or would leave
less than min_free_pct percent of the file system free */
Space_check check_free_space(uint64_t target_bytes, uint64_t file_bytes,
                             uint64_t fs_free_bytes, uint64_t fs_total_bytes,
                             uint32_t min_free_pct);

}  // namespace fsp_prealloc

#endif /* fsp0prealloc_plan_h */

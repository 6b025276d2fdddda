/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fsp0prealloc.h
 Grow a tablespace file now (ALTER TABLESPACE ... SET EXTENT_SIZE), so that
 later inserts find free extents below FSP_SIZE and never wait for the file
 to be extended. */

#ifndef fsp0prealloc_h
#define fsp0prealloc_h

#include <cstdint>
#include <functional>
#include <string>

#include "fil0fil.h"
#include "fsp0prealloc_plan.h"
#include "fsp0prealloc_reserve.h"
#include "univ.i"

/** innodb_extent_size_min_free_pct: percentage of the file system holding a
tablespace that SET EXTENT_SIZE must leave free. */
extern ulong srv_extent_size_min_free_pct;

/** The file system holding a tablespace's (first) data file.
@param[in]   space  tablespace
@param[out]  path   the data file's path, absolute where realpath() can tell
@param[out]  fs_id  the file system (st_dev of the data file)
@return false if the tablespace has no file or stat() failed */
bool fsp_preallocate_fs(const fil_space_t *space, std::string *path,
                        uint64_t *fs_id);

/** A probe asking statvfs() for the space of the file system holding path:
free is f_bavail (the blocks ext4 keeps for root are not the server's when
it runs as the mysql user).
@param[in]  path  a file on the file system
@return the probe, false when statvfs() fails */
fsp_prealloc::Fs_probe fsp_preallocate_probe(const std::string &path);

/** The geometry the size arithmetic needs, from a tablespace's flags.
@param[in]  space  tablespace
@return page size, extent size in pages, and PAGE_NO_MAX */
fsp_prealloc::Geometry fsp_preallocate_geometry(const fil_space_t *space);

/** Why a tablespace cannot be preallocated with SET EXTENT_SIZE.
@param[in]  space_id  tablespace id
@return a reason for the error message, or nullptr if it can */
const char *fsp_preallocate_refusal(space_id_t space_id);

/** Grow a tablespace until FSP_SIZE is at least target_pages, one chunk at
a time (fsp_prealloc::grow_in_chunks()). Before each chunk it waits for
redo space (log_free_check()), as DML does, and asks the free-space reserve
(claim): a chunk that would leave less than innodb_extent_size_min_free_pct
of the file system free, counting what other preallocations in flight have
claimed, is refused. The file grows (MLOG_FILE_EXTEND redo, posix_fallocate()
with zeros written only where it fails, whatever innodb_extend_and_initialize
says (fsp0prealloc_fill.h), fsync) with no tablespace or page latch held;
then a short mini-transaction raises FSP_SIZE, so FSP_SIZE
never exceeds the durable file size. On return the redo of the last FSP_SIZE
update is flushed.
@param[in,out]  space         tablespace, acquired by the caller
@param[in]      target_pages  size to reach, whole extents
@param[in]      interrupted   called between chunks; true stops the growth
@param[in,out]  claim         the statement's claim on the reserve, or
                              nullptr when the file system cannot be asked
@param[in]      probe         asks the data file's file system for its space
@param[out]     reached_pages FSP_SIZE when the function returns
@param[out]     os_errno      errno of the failed extension, 0 if unknown
@param[out]     refusal       the reserve's figures when it refused a chunk
@retval DB_SUCCESS            FSP_SIZE >= target_pages
@retval DB_INTERRUPTED        interrupted() said stop
@retval DB_OUT_OF_DISK_SPACE  the reserve refused the next chunk (refusal)
@retval DB_OUT_OF_FILE_SPACE  the file could not grow: disk full or quota
                              (or no errno to tell)
@retval DB_IO_ERROR           the file could not grow for another OS error
@retval DB_ERROR              the file grew by less than an extent */
dberr_t fsp_preallocate(fil_space_t *space, page_no_t target_pages,
                        const std::function<bool()> &interrupted,
                        fsp_prealloc::Reservations::Claim *claim,
                        const fsp_prealloc::Fs_probe &probe,
                        page_no_t *reached_pages, int *os_errno,
                        fsp_prealloc::Grant *refusal);

#endif /* fsp0prealloc_h */

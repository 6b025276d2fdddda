/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file fsp/fsp0prealloc.cc
 Grow a tablespace file now (ALTER TABLESPACE ... SET EXTENT_SIZE).

 Crash safety follows from the order inside each chunk, which is the order
 autoextension already uses: fil_space_extend() writes MLOG_FILE_EXTEND,
 grows the file and fsyncs it before the mini-transaction that raises
 FSP_SIZE can commit. A crash before that commit leaves a file larger than
 FSP_SIZE, which InnoDB tolerates (the next extension reuses the pages); a
 crash during the file growth is repaired by recovery from MLOG_FILE_EXTEND.
 Nothing is undone on error or kill: the pages already added stay usable.

 Debug builds carry crash points at each step, used by the steady suite's
 alter_tablespace_extent_size_crash test beside upstream's own points inside
 fil_space_extend() (ib_crash_during_tablespace_extension,
 ib_crash_after_writing_redo_extend_1, fil_crash_after_extend):
 - ib_prealloc_crash_after_chunk_commit: FSP_SIZE committed, redo not
   flushed by this statement yet;
 - ib_prealloc_crash_after_redo_flush: the size reached is durable, the
   client has not heard OK;
 - ib_prealloc_simulate_enospc, ib_prealloc_simulate_eio: the second chunk's
   extension fails as on a full disk or a failing device, without touching
   the file (the size reached after the first chunk is reported);
 - DEBUG_SYNC point ib_prealloc_after_chunk after each chunk's commit. */

#include "fsp0prealloc.h"

#include <sys/statvfs.h>
#include <cerrno>

#include "fsp0fsp.h"
#include "fsp0prealloc_plan.h"
#include "log0chkp.h"
#include "log0write.h"
#include "mtr0mtr.h"
#include "my_dbug.h"
#include "my_sys.h"

ulong srv_extent_size_min_free_pct = 5;

const char *fsp_preallocate_refusal(space_id_t space_id) {
  if (fsp_is_system_tablespace(space_id)) {
    return "the system tablespace is sized by innodb_data_file_path";
  }
  if (fsp_is_system_temporary(space_id)) {
    return "the temporary tablespace is sized by innodb_temp_data_file_path"
           " and recreated at startup";
  }
  if (fsp_is_undo_tablespace(space_id)) {
    return "undo tablespaces are sized by InnoDB"
           " (see innodb_max_undo_log_size)";
  }
  if (fsp_is_dd_tablespace(space_id)) {
    return "the data dictionary tablespace is managed by the server";
  }
  return nullptr;
}

fsp_prealloc::Geometry fsp_preallocate_geometry(const fil_space_t *space) {
  const page_size_t page_size(space->flags);
  fsp_prealloc::Geometry geo;
  geo.page_bytes = static_cast<uint32_t>(page_size.physical());
  geo.extent_pages = fsp_get_extent_size_in_pages(page_size);
  geo.max_pages = PAGE_NO_MAX;
  return geo;
}

bool fsp_preallocate_fs_space(const fil_space_t *space, std::string *path,
                              uint64_t *free_bytes, uint64_t *total_bytes) {
  if (space->files.empty()) {
    return false;
  }
  *path = space->files.front().name;
  struct statvfs st;
  if (statvfs(path->c_str(), &st) != 0) {
    return false;
  }
  /* f_bavail, not f_bfree: the blocks ext4 reserves for root are not the
  server's to use when it runs as the mysql user. */
  *free_bytes = uint64_t{st.f_bavail} * st.f_frsize;
  *total_bytes = uint64_t{st.f_blocks} * st.f_frsize;
  return true;
}

/** Debug builds: fail the extension of the second chunk as a full disk
(ib_prealloc_simulate_enospc) or a failing device (ib_prealloc_simulate_eio)
would, leaving the file as it is.
@param[in]   chunk     1 for the statement's first chunk
@param[out]  os_errno  the errno the failure reports
@return true if the extension is to fail */
static bool simulated_extend_failure([[maybe_unused]] ulint chunk,
                                     [[maybe_unused]] int *os_errno) {
  DBUG_EXECUTE_IF("ib_prealloc_simulate_enospc", if (chunk == 2) {
    *os_errno = ENOSPC;
    return true;
  });
  DBUG_EXECUTE_IF("ib_prealloc_simulate_eio", if (chunk == 2) {
    *os_errno = EIO;
    return true;
  });
  return false;
}

dberr_t fsp_preallocate(fil_space_t *space, page_no_t target_pages,
                        const std::function<bool()> &interrupted,
                        page_no_t *reached_pages, int *os_errno) {
  const page_size_t page_size(space->flags);
  const fsp_prealloc::Geometry geo = fsp_preallocate_geometry(space);

  dberr_t err = DB_SUCCESS;
  lsn_t last_lsn = 0;
  *reached_pages = 0;
  *os_errno = 0;
  [[maybe_unused]] ulint chunk = 0;

  for (;;) {
    if (interrupted()) {
      err = DB_INTERRUPTED;
      break;
    }

    /* Each chunk writes redo (MLOG_FILE_EXTEND, FSP_SIZE) like any
    mini-transaction: make sure there is room for it first, as DML does. */
    log_free_check();

    mtr_t mtr;
    mtr.start();
    mtr_x_lock_space(space, &mtr);

    buf_block_t *block = nullptr;
    fsp_header_t *header =
        fsp_get_space_header_block(space->id, page_size, &mtr, &block);
    const page_no_t size = mach_read_from_4(header + FSP_SIZE);
    *reached_pages = size;

    if (size >= target_pages) {
      mtr.commit();
      break;
    }

    const auto next = static_cast<page_no_t>(
        fsp_prealloc::next_size(size, target_pages, geo));
    /* Extends the file, logs MLOG_FILE_EXTEND and fsyncs; on a full disk
    the file may have grown part of the way. */
    errno = 0;
    chunk++;
    bool extended;
    int extend_errno;
    if (simulated_extend_failure(chunk, &extend_errno)) {
      extended = false;
    } else {
      extended = fil_space_extend(space, next);
      /* The errno of the write or fallocate that failed, when the failure
      was the last system call (best effort: 0 when unknown). */
      extend_errno = errno;
    }

    const auto new_size = static_cast<page_no_t>(
        fsp_prealloc::header_pages_after(space->size, size, geo));
    if (new_size > size) {
      fsp_header_size_update(header, new_size, &mtr);
      space->size_in_header = new_size;
      *reached_pages = new_size;
    }
    mtr.commit();
    if (new_size > size) {
      last_lsn = mtr.commit_lsn();
      DBUG_EXECUTE_IF("ib_prealloc_crash_after_chunk_commit", DBUG_SUICIDE(););
      DEBUG_SYNC_C("ib_prealloc_after_chunk");
    }

    if (!extended) {
      *os_errno = extend_errno;
      err = extend_errno == ENOSPC || extend_errno == EDQUOT ||
                    extend_errno == 0
                ? DB_OUT_OF_FILE_SPACE
                : DB_IO_ERROR;
      break;
    }
    if (new_size <= size) {
      /* The file grew but not by a whole extent: never spin. */
      err = DB_ERROR;
      break;
    }
  }

  /* The statement owns no InnoDB transaction whose commit would flush the
  redo: make the size reached durable before the client hears about it. */
  if (last_lsn > 0) {
    log_write_up_to(*log_sys, last_lsn, true);
    DBUG_EXECUTE_IF("ib_prealloc_crash_after_redo_flush", DBUG_SUICIDE(););
  }
  return err;
}

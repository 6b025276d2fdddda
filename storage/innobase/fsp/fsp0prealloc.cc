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

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <cerrno>
#include <cstdlib>

#include "fsp0fsp.h"
#include "fsp0prealloc_chunks.h"
#include "fsp0prealloc_fill.h"
#include "fsp0prealloc_plan.h"
#include "log0chkp.h"
#include "log0write.h"
#include "mtr0mtr.h"
#include "my_dbug.h"
#include "my_sys.h"

ulong srv_extent_size_min_free_pct = 5;

namespace {
/** True while this thread grows a file for SET EXTENT_SIZE. */
thread_local bool extending_without_zeros = false;
}  // namespace

bool fsp_prealloc_extending_without_zeros() { return extending_without_zeros; }

Fsp_prealloc_without_zeros::Fsp_prealloc_without_zeros() {
  extending_without_zeros = true;
}

Fsp_prealloc_without_zeros::~Fsp_prealloc_without_zeros() {
  extending_without_zeros = false;
}

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

bool fsp_preallocate_fs(const fil_space_t *space, std::string *path,
                        uint64_t *fs_id) {
  if (space->files.empty()) {
    return false;
  }
  *path = space->files.front().name;
  struct stat st;
  if (stat(path->c_str(), &st) != 0) {
    return false;
  }
  /* InnoDB holds a file in the datadir by a relative path ("./ts.ibd");
  messages name the file a DBA can find. The server runs in its datadir, so
  realpath() resolves it; on failure the path stays as InnoDB holds it. */
  char *absolute = realpath(path->c_str(), nullptr);
  if (absolute != nullptr) {
    *path = absolute;
    free(absolute);
  }
  *fs_id = static_cast<uint64_t>(st.st_dev);
  return true;
}

fsp_prealloc::Fs_probe fsp_preallocate_probe(const std::string &path) {
  return [path](fsp_prealloc::Fs_space *fs) {
    struct statvfs st;
    if (statvfs(path.c_str(), &st) != 0) {
      return false;
    }
    /* f_bavail, not f_bfree: the blocks ext4 reserves for root are not the
    server's to use when it runs as the mysql user. */
    fs->free_bytes = uint64_t{st.f_bavail} * st.f_frsize;
    fs->total_bytes = uint64_t{st.f_blocks} * st.f_frsize;
    return true;
  };
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

namespace {

/** The chunk loop's steps on a running server. */
class Server_chunks : public fsp_prealloc::Chunk_ops {
 public:
  Server_chunks(fil_space_t *space, const std::function<bool()> &interrupted,
                fsp_prealloc::Reservations::Claim *claim,
                const fsp_prealloc::Fs_probe &probe)
      : m_space(space),
        m_page_size(space->flags),
        m_interrupted(interrupted),
        m_claim(claim),
        m_probe(probe) {}

  bool interrupted() override { return m_interrupted(); }

  void wait_for_redo_space() override { log_free_check(); }

  void read_sizes(uint64_t *header_pages, uint64_t *file_pages) override {
    mtr_t mtr;
    mtr.start();
    mtr_x_lock_space(m_space, &mtr);
    buf_block_t *block = nullptr;
    const fsp_header_t *header =
        fsp_get_space_header_block(m_space->id, m_page_size, &mtr, &block);
    *header_pages = mach_read_from_4(header + FSP_SIZE);
    *file_pages = m_space->size;
    mtr.commit();
  }

  bool may_grow(uint64_t bytes) override {
    if (m_claim == nullptr) {
      return true;
    }
    m_refusal = fsp_prealloc::reservations().next_chunk(
        *m_claim, bytes, m_probe,
        static_cast<uint32_t>(srv_extent_size_min_free_pct));
    return m_refusal.granted;
  }

  bool extend_file(uint64_t pages, int *os_errno) override {
    m_chunk++;
    if (simulated_extend_failure(m_chunk, os_errno)) {
      return false;
    }
    errno = 0;
    bool extended;
    {
      /* fallocate() reserves the chunk; zeros only where it fails. */
      Fsp_prealloc_without_zeros without_zeros;
      extended = fil_space_extend(m_space, static_cast<page_no_t>(pages));
    }
    /* The errno of the write that failed, when it was the last system
    call (best effort: 0 when unknown). */
    *os_errno = extended ? 0 : errno;
    return extended;
  }

  uint64_t file_pages() override { return m_space->size; }

  void grew(uint64_t bytes) override {
    if (m_claim != nullptr) {
      fsp_prealloc::reservations().wrote(m_claim, bytes);
    }
  }

  uint64_t raise_header(uint64_t pages) override {
    mtr_t mtr;
    mtr.start();
    mtr_x_lock_space(m_space, &mtr);
    buf_block_t *block = nullptr;
    fsp_header_t *header =
        fsp_get_space_header_block(m_space->id, m_page_size, &mtr, &block);
    const page_no_t size = mach_read_from_4(header + FSP_SIZE);
    const auto want = static_cast<page_no_t>(pages);
    if (want <= size) {
      mtr.commit();
      return size;
    }
    fsp_header_size_update(header, want, &mtr);
    m_space->size_in_header = want;
    mtr.commit();
    m_last_lsn = mtr.commit_lsn();
    DBUG_EXECUTE_IF("ib_prealloc_crash_after_chunk_commit", DBUG_SUICIDE(););
    DEBUG_SYNC_C("ib_prealloc_after_chunk");
    return want;
  }

  /** @return end LSN of the last FSP_SIZE update, 0 if none */
  lsn_t last_lsn() const { return m_last_lsn; }
  /** @return the reserve's answer to the last chunk asked */
  const fsp_prealloc::Grant &refusal() const { return m_refusal; }

 private:
  fil_space_t *m_space;
  const page_size_t m_page_size;
  const std::function<bool()> &m_interrupted;
  fsp_prealloc::Reservations::Claim *m_claim;
  const fsp_prealloc::Fs_probe &m_probe;
  fsp_prealloc::Grant m_refusal;
  lsn_t m_last_lsn{0};
  ulint m_chunk{0};
};

}  // namespace

dberr_t fsp_preallocate(fil_space_t *space, page_no_t target_pages,
                        const std::function<bool()> &interrupted,
                        fsp_prealloc::Reservations::Claim *claim,
                        const fsp_prealloc::Fs_probe &probe,
                        page_no_t *reached_pages, int *os_errno,
                        fsp_prealloc::Grant *refusal) {
  Server_chunks ops(space, interrupted, claim, probe);
  uint64_t reached = 0;
  const fsp_prealloc::Chunks_end end = fsp_prealloc::grow_in_chunks(
      ops, target_pages, fsp_preallocate_geometry(space), &reached, os_errno);
  *reached_pages = static_cast<page_no_t>(reached);
  *refusal = ops.refusal();

  /* The statement owns no InnoDB transaction whose commit would flush the
  redo: make the size reached durable before the client hears about it. */
  if (ops.last_lsn() > 0) {
    log_write_up_to(*log_sys, ops.last_lsn(), true);
    DBUG_EXECUTE_IF("ib_prealloc_crash_after_redo_flush", DBUG_SUICIDE(););
  }

  switch (end) {
    case fsp_prealloc::Chunks_end::DONE:
      return DB_SUCCESS;
    case fsp_prealloc::Chunks_end::INTERRUPTED:
      return DB_INTERRUPTED;
    case fsp_prealloc::Chunks_end::RESERVE:
      return DB_OUT_OF_DISK_SPACE;
    case fsp_prealloc::Chunks_end::EXTEND_FAILED:
      return *os_errno == ENOSPC || *os_errno == EDQUOT || *os_errno == 0
                 ? DB_OUT_OF_FILE_SPACE
                 : DB_IO_ERROR;
    case fsp_prealloc::Chunks_end::NO_PROGRESS:
      break;
  }
  return DB_ERROR;
}

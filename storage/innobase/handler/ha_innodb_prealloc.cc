/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file handler/ha_innodb_prealloc.cc
 InnoDB's handling of ALTER TABLESPACE ... SET EXTENT_SIZE: pick the
 tablespace, check the request, grow the file, and report in MySQL terms. */

#include "ha_innodb_prealloc.h"

#include <string>

#include "my_base.h"
#include "my_sys.h"
#include "mysql/plugin.h"
#include "mysqld_error.h"
#include "sql/dd/properties.h"
#include "sql/dd/types/tablespace.h"
#include "sql/derror.h"
#include "sql/handler.h"
#include "sql/sql_error.h"

#include "dict0dd.h"
#include "fil0fil.h"
#include "fsp0prealloc.h"
#include "fsp0prealloc_plan.h"
#include "srv0srv.h"
#include "ut0ut.h"

namespace {

unsigned long long ull(uint64_t v) { return static_cast<unsigned long long>(v); }

/** Report that the free-space reserve stopped a preallocation (or refused
it before its first chunk because of other statements' claims).
@param[in]  name     tablespace name
@param[in]  reached  size of the tablespace now, bytes
@param[in]  target   size requested, bytes
@param[in]  path     the data file on the file system
@param[in]  grant    the reserve's figures */
void report_reserve(const char *name, uint64_t reached, uint64_t target,
                    const std::string &path,
                    const fsp_prealloc::Grant &grant) {
  my_error(ER_STEADY_PREALLOC_RESERVE, MYF(0), name, ull(reached),
           ull(target), ull(grant.asked_bytes), ull(grant.reserve_bytes),
           srv_extent_size_min_free_pct, path.c_str(),
           ull(grant.fs.free_bytes), ull(grant.others_bytes));
}

}  // namespace

int innobase_preallocate_tablespace(THD *thd,
                                    const st_alter_tablespace *alter_info,
                                    const dd::Tablespace *dd_space) {
  const char *name = alter_info->tablespace_name;

  if (srv_read_only_mode) {
    return HA_ERR_INNODB_READ_ONLY;
  }

  space_id_t space_id = SPACE_UNKNOWN;
  if (dd_space->se_private_data().get(dd_space_key_strings[DD_SPACE_ID],
                                      &space_id) ||
      space_id == SPACE_UNKNOWN) {
    my_error(ER_TABLESPACE_MISSING_WITH_NAME, MYF(0), name);
    return 1;
  }

  if (const char *why = fsp_preallocate_refusal(space_id)) {
    my_error(ER_STEADY_PREALLOC_UNSUPPORTED_SPACE, MYF(0), name, why);
    return 1;
  }
  /* Asked before the tables are locked: the kind is all there is to check. */
  if (alter_info->ts_alter_tablespace_type ==
      ALTER_TABLESPACE_CHECK_EXTENT_SIZE) {
    return 0;
  }

  /* The pin keeps DROP TABLESPACE and truncation from freeing the space. */
  fil_space_t *space = fil_space_acquire_silent(space_id);
  if (space == nullptr) {
    my_error(ER_TABLESPACE_MISSING_WITH_NAME, MYF(0), name);
    return 1;
  }

  const fsp_prealloc::Geometry geo = fsp_preallocate_geometry(space);

  const uint64_t requested = alter_info->extent_size;
  const uint64_t current_bytes =
      uint64_t{space->size_in_header} * geo.page_bytes;
  const fsp_prealloc::Target target =
      fsp_prealloc::plan_target(requested, space->size_in_header, geo);

  int error = 0;
  switch (target.verdict) {
    case fsp_prealloc::Verdict::TOO_LARGE:
      my_error(ER_STEADY_PREALLOC_TOO_LARGE, MYF(0), ull(requested), name,
               ull(fsp_prealloc::max_bytes(geo)), geo.page_bytes);
      error = 1;
      break;

    case fsp_prealloc::Verdict::LARGE_ENOUGH:
      push_warning_printf(thd, Sql_condition::SL_NOTE,
                          ER_STEADY_PREALLOC_LARGE_ENOUGH,
                          ER_THD(thd, ER_STEADY_PREALLOC_LARGE_ENOUGH), name,
                          ull(current_bytes), ull(requested));
      break;

    case fsp_prealloc::Verdict::GROW: {
      const uint64_t target_bytes = target.pages * geo.page_bytes;
      const uint64_t file_bytes = uint64_t{space->size} * geo.page_bytes;
      const uint32_t min_free_pct =
          static_cast<uint32_t>(srv_extent_size_min_free_pct);
      /* The free-space reserve, before a byte is written: a typo (10T for
      10G) or two statements at once must not fill the file system the
      binary log and redo log may share. The statement claims what it will
      write; the claims of other statements in flight count as used. Where
      the file system cannot be asked, nothing is refused. */
      std::string path;
      uint64_t fs_id = 0;
      const bool fs_known = fsp_preallocate_fs(space, &path, &fs_id);
      const fsp_prealloc::Fs_probe probe =
          fs_known ? fsp_preallocate_probe(path)
                   : fsp_prealloc::Fs_probe(
                         [](fsp_prealloc::Fs_space *) { return false; });
      fsp_prealloc::Reservations::Claim claim;
      const fsp_prealloc::Grant grant = fsp_prealloc::reservations().open(
          &claim, fs_id,
          target_bytes > file_bytes ? target_bytes - file_bytes : 0, probe,
          min_free_pct);
      if (!grant.granted && grant.others_bytes == 0) {
        my_error(ER_STEADY_PREALLOC_NO_SPACE, MYF(0), ull(requested), name,
                 ull(grant.asked_bytes), path.c_str(),
                 ull(grant.fs.free_bytes), ull(grant.fs.total_bytes),
                 srv_extent_size_min_free_pct, ull(grant.reserve_bytes));
        error = 1;
        break;
      }
      if (!grant.granted) {
        report_reserve(name, current_bytes, target_bytes, path, grant);
        error = 1;
        break;
      }

      page_no_t reached = 0;
      int os_errno = 0;
      fsp_prealloc::Grant refusal;
      const dberr_t err = fsp_preallocate(
          space, static_cast<page_no_t>(target.pages),
          [thd]() { return thd_killed(thd) != 0; },
          fs_known ? &claim : nullptr, probe, &reached, &os_errno, &refusal);
      fsp_prealloc::reservations().close(&claim);
      const uint64_t reached_bytes = uint64_t{reached} * geo.page_bytes;
      char errbuf[MYSYS_STRERROR_SIZE];
      const char *os_msg =
          os_errno != 0 ? my_strerror(errbuf, sizeof(errbuf), os_errno)
                        : "unknown";

      switch (err) {
        case DB_SUCCESS:
          break;
        case DB_INTERRUPTED:
          my_error(ER_QUERY_INTERRUPTED, MYF(0));
          error = 1;
          break;
        case DB_OUT_OF_DISK_SPACE:
          report_reserve(name, reached_bytes, target_bytes, path, refusal);
          error = 1;
          break;
        case DB_OUT_OF_FILE_SPACE:
          /* Reported here rather than as HA_ERR_RECORD_FILE_FULL: the
          caller would report ER_ALTER_FILEGROUP_FAILED first. */
          my_error(ER_STEADY_PREALLOC_DISK_FULL, MYF(0), name,
                   ull(reached_bytes), ull(target_bytes), os_errno, os_msg);
          error = 1;
          break;
        default:
          my_error(ER_STEADY_PREALLOC_IO_ERROR, MYF(0), name,
                   ull(reached_bytes), ut_strerr(err), os_errno, os_msg);
          error = 1;
          break;
      }
      break;
    }
  }

  fil_space_release(space);
  return error;
}

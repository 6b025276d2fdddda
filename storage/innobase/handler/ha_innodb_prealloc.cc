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

#include "my_base.h"
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
    my_printf_error(ER_WRONG_TABLESPACE_NAME,
                    "Cannot SET EXTENT_SIZE on tablespace `%s`: %s.", MYF(0),
                    name, why);
    return 1;
  }

  /* The pin keeps DROP TABLESPACE and truncation from freeing the space. */
  fil_space_t *space = fil_space_acquire(space_id);
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
      my_printf_error(ER_WRONG_ARGUMENTS,
                      "EXTENT_SIZE %llu is larger than tablespace `%s` can "
                      "hold (%llu bytes with %u-byte pages).",
                      MYF(0), static_cast<unsigned long long>(requested), name,
                      static_cast<unsigned long long>(
                          fsp_prealloc::max_bytes(geo)),
                      geo.page_bytes);
      error = 1;
      break;

    case fsp_prealloc::Verdict::LARGE_ENOUGH:
      push_warning_printf(thd, Sql_condition::SL_NOTE, WARN_OPTION_IGNORED,
                          "Tablespace `%s` already holds %llu bytes; "
                          "EXTENT_SIZE %llu changes nothing.",
                          name, static_cast<unsigned long long>(current_bytes),
                          static_cast<unsigned long long>(requested));
      break;

    case fsp_prealloc::Verdict::GROW: {
      page_no_t reached = 0;
      const dberr_t err = fsp_preallocate(
          space, static_cast<page_no_t>(target.pages),
          [thd]() { return thd_killed(thd) != 0; }, &reached);
      const auto reached_bytes =
          static_cast<unsigned long long>(uint64_t{reached} * geo.page_bytes);

      switch (err) {
        case DB_SUCCESS:
          break;
        case DB_INTERRUPTED:
          my_error(ER_QUERY_INTERRUPTED, MYF(0));
          error = 1;
          break;
        case DB_OUT_OF_FILE_SPACE:
          /* Reported here rather than as HA_ERR_RECORD_FILE_FULL: the
          caller would report ER_ALTER_FILEGROUP_FAILED first. */
          my_error(ER_RECORD_FILE_FULL, MYF(0), name);
          push_warning_printf(thd, Sql_condition::SL_WARNING,
                              ER_RECORD_FILE_FULL,
                              "Tablespace `%s` grew to %llu bytes before the "
                              "disk was full.",
                              name, reached_bytes);
          error = 1;
          break;
        default:
          my_printf_error(ER_GET_ERRNO,
                          "Could not grow tablespace `%s` past %llu bytes.",
                          MYF(0), name, reached_bytes);
          error = 1;
          break;
      }
      break;
    }
  }

  fil_space_release(space);
  return error;
}

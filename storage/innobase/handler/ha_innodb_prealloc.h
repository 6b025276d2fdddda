/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file handler/ha_innodb_prealloc.h
 InnoDB's handling of ALTER TABLESPACE ... SET EXTENT_SIZE. */

#ifndef ha_innodb_prealloc_h
#define ha_innodb_prealloc_h

class THD;
class st_alter_tablespace;
namespace dd {
class Tablespace;
}

/** Grow a general or file-per-table tablespace to at least
alter_info->extent_size bytes (ALTER_TABLESPACE_SET_EXTENT_SIZE), or only
check that the tablespace is one that can be grown
(ALTER_TABLESPACE_CHECK_EXTENT_SIZE, asked before its tables are locked).
Before the file grows, the free-space guard compares the growth with the
free space of the file system (innodb_extent_size_min_free_pct).
@param[in]  thd         session, for KILL QUERY and the messages
@param[in]  alter_info  statement; extent_size is the requested size
@param[in]  dd_space    the tablespace's data dictionary object
@return 0 on success, 1 if an error was reported, or a HA_ERR_* code */
int innobase_preallocate_tablespace(THD *thd,
                                    const st_alter_tablespace *alter_info,
                                    const dd::Tablespace *dd_space);

#endif /* ha_innodb_prealloc_h */

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/fsp0prealloc_fill.h
 How ALTER TABLESPACE ... SET EXTENT_SIZE asks fil_space_extend() to reserve
 blocks without writing zeros into them.

 The statement exists to reserve space ahead of a load. posix_fallocate()
 reserves it and a fallocated range reads as zeros, so writing zeros over it
 (innodb_extend_and_initialize=ON, the default) only spends the device's
 bandwidth: several GB of zeros hold every commit's redo and binary log
 write behind them for as long as they take. While a thread grows a file for
 the statement, fil_space_t::initialize_while_extending() answers false, as
 it does for upstream's bulk load; fil_space_extend() still writes zeros when
 posix_fallocate() fails (a file system without it, or O_DIRECT on ext3). */

#ifndef fsp0prealloc_fill_h
#define fsp0prealloc_fill_h

/** @return true while the calling thread grows a file for SET EXTENT_SIZE */
bool fsp_prealloc_extending_without_zeros();

/** Marks the calling thread as growing a file for SET EXTENT_SIZE for the
object's lifetime. */
class Fsp_prealloc_without_zeros {
 public:
  Fsp_prealloc_without_zeros();
  ~Fsp_prealloc_without_zeros();
  Fsp_prealloc_without_zeros(const Fsp_prealloc_without_zeros &) = delete;
  Fsp_prealloc_without_zeros &operator=(const Fsp_prealloc_without_zeros &) =
      delete;
};

#endif /* fsp0prealloc_fill_h */

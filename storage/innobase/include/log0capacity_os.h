/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/log0capacity_os.h
 What the file system says for the redo capacity default
 (log0capacity_default.h): the room on the redo directory's file system. */

#ifndef log0capacity_os_h
#define log0capacity_os_h

#include <cstdint>
#include <filesystem>
#include <system_error>

/** The room redo could take on its file system: the bytes available to
mysqld there plus the bytes of the files already in #innodb_redo, so that
the answer does not depend on the size the redo files have now.
@param[in]  home_dir  innodb_log_group_home_dir (the datadir if unset)
@return bytes; 0 if the file system cannot be asked */
inline uint64_t log_redo_room_bytes(const char *home_dir) {
  std::error_code ec;
  const std::filesystem::path dir(home_dir);
  const auto space = std::filesystem::space(dir, ec);
  if (ec) {
    return 0;
  }
  uint64_t room = space.available;
  for (const auto &entry :
       std::filesystem::directory_iterator(dir / "#innodb_redo", ec)) {
    std::error_code size_ec;
    const auto size = entry.file_size(size_ec);
    if (!size_ec) {
      room += size;
    }
  }
  return room;
}

#endif /* log0capacity_os_h */

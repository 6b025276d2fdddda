/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

#include "sql/binlog_group_commit_counters.h"

Binlog_group_commit_stats binlog_group_commit_stats;

Binlog_group_close_trigger binlog_group_close_trigger(bool delay_applied,
                                                      long delay_usec,
                                                      bool count_reached) {
  /* Without a delay the count option has no effect: the group is what
  queued behind the previous group's locks. */
  if (!delay_applied || delay_usec <= 0) {
    return Binlog_group_close_trigger::NO_WAIT;
  }
  return count_reached ? Binlog_group_close_trigger::COUNT
                       : Binlog_group_close_trigger::TIMEOUT;
}

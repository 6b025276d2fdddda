/* Copyright (c) 2026, Steady Server authors.

   This program is free software; you can redistribute it and/or modify
   it under the terms of the GNU General Public License, version 2.0,
   as published by the Free Software Foundation. */

/**
  @file sql/binlog_group_commit_status_vars.cc

  SHOW STATUS export of the binary log group commit counters. Registered in
  mysqld.cc's status_vars[] as the array "Binlog", so the names below get
  the "Binlog_" prefix: Binlog_commits, Binlog_group_commits, ...
  Only the registration lives here; the counters and their logic are in
  binlog_group_commit_counters.h, the adaptive wait's figures in
  binlog_group_commit_adaptive.h.
*/

#include "mysql/plugin.h"
#include "mysql/status_var.h"
#include "sql/binlog_group_commit_adaptive.h"
#include "sql/binlog_group_commit_counters.h"

namespace {

/** Report one figure of a counters object (binlog_group_commit_stats,
binlog_group_commit_adaptive) as SHOW_LONGLONG, read without a lock. */
template <auto &object, auto figure>
int show_figure(THD *, SHOW_VAR *var, char *buff) {
  var->type = SHOW_LONGLONG;
  var->value = buff;
  *reinterpret_cast<unsigned long long *>(buff) = (object.*figure)();
  return 0;
}

/** Report one of the group close trigger counters as SHOW_LONGLONG. */
template <Binlog_group_close_trigger why>
int show_trigger(THD *, SHOW_VAR *var, char *buff) {
  var->type = SHOW_LONGLONG;
  var->value = buff;
  *reinterpret_cast<unsigned long long *>(buff) =
      binlog_group_commit_stats.triggered(why);
  return 0;
}

/** Report one bucket of the adaptive wait-time histogram as SHOW_LONGLONG. */
template <int bucket>
int show_wait_bucket(THD *, SHOW_VAR *var, char *buff) {
  var->type = SHOW_LONGLONG;
  var->value = buff;
  *reinterpret_cast<unsigned long long *>(buff) =
      binlog_group_commit_adaptive.waits_in_bucket(bucket);
  return 0;
}

}  // namespace

SHOW_VAR binlog_group_commit_status_vars[] = {
    {"commits",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_stats,
                      &Binlog_group_commit_stats::commits>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commits",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_stats,
                      &Binlog_group_commit_stats::groups>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_stop_budget",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::stops_budget>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_stop_cap",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::stops_cap>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_stop_count",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::stops_count>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_stop_joined",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::stops_joined>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_gt_10ms",
     reinterpret_cast<char *>(&show_wait_bucket<3>), SHOW_FUNC,
     SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_last_usec",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::last_wait_usec>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_le_100us",
     reinterpret_cast<char *>(&show_wait_bucket<0>), SHOW_FUNC,
     SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_le_10ms",
     reinterpret_cast<char *>(&show_wait_bucket<2>), SHOW_FUNC,
     SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_le_1ms",
     reinterpret_cast<char *>(&show_wait_bucket<1>), SHOW_FUNC,
     SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_wait_usec",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::wait_usec>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_adaptive_waits",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::waits>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_sync_avg_usec",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_adaptive,
                      &Binlog_group_commit_adaptive::fsync_usec>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_syncs",
     reinterpret_cast<char *>(
         &show_figure<binlog_group_commit_stats,
                      &Binlog_group_commit_stats::syncs>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_trigger_count",
     reinterpret_cast<char *>(&show_trigger<Binlog_group_close_trigger::COUNT>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_trigger_no_wait",
     reinterpret_cast<char *>(
         &show_trigger<Binlog_group_close_trigger::NO_WAIT>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {"group_commit_trigger_timeout",
     reinterpret_cast<char *>(
         &show_trigger<Binlog_group_close_trigger::TIMEOUT>),
     SHOW_FUNC, SHOW_SCOPE_GLOBAL},
    {nullptr, nullptr, SHOW_LONG, SHOW_SCOPE_GLOBAL}};

/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file log/log0flush_stats.cc
 Redo log flush batch counters, see include/log0flush_stats.h. */

#include "log0flush_stats.h"

Log_flush_stats log_flush_stats;

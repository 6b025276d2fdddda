/*****************************************************************************

Copyright (c) 2026, Steady Server authors.

This program is free software; you can redistribute it and/or modify it under
the terms of the GNU General Public License, version 2.0, as published by the
Free Software Foundation.

*****************************************************************************/

/** @file include/buf0flu_io.h
 IO-utilisation-aware adaptive flushing: the page cleaner samples the data
 device's utilisation (os0diskstats.h) and, while the device has headroom,
 flushes extra pages (buf0io_headroom.h), so the dirty-page and
 checkpoint-age limits that force sync flushing are not reached. */

#ifndef buf0flu_io_h
#define buf0flu_io_h

#include <cstdio>

#include "univ.i"

/** innodb_adaptive_flushing_io_util_lwm: device utilisation % below which
extra pages are flushed; 0 turns the feature off. Dynamic. */
extern ulong srv_adaptive_flushing_io_util_lwm;

/** innodb_adaptive_flushing_io_headroom_pct: the share (%) of the spare IO
capacity used at full headroom. Dynamic. */
extern ulong srv_adaptive_flushing_io_headroom_pct;

/** innodb_adaptive_flushing_io_device: "auto" or "MAJOR:MINOR". Read-only. */
extern char *srv_adaptive_flushing_io_device;

/** Check the innodb_adaptive_flushing_io_device value at startup.
@param[in]  value  the option value (nullptr means "auto")
@return true if it is "auto" or MAJOR:MINOR */
bool buf_flush_io_device_option_valid(const char *value);

/** Extra pages the page cleaner should flush in this adaptive iteration
because the data device has headroom. Samples the device at most once per
second. Called by the page cleaner coordinator only.
@param[in]  planned_pages  pages adaptive flushing asked for
@param[in]  dirty_pages    flush list length
@param[in]  sync_flush     true in sync flush mode
@return extra pages, 0 if none */
ulint buf_flush_io_headroom_pages(ulint planned_pages, ulint dirty_pages,
                                  bool sync_flush);

/** Print the IO-aware flushing state for SHOW ENGINE INNODB STATUS.
@param[in,out]  file  output */
void buf_flush_io_print(FILE *file);

#endif /* buf0flu_io_h */

/* Unit tests for the IO-aware flushing policy: a table of inputs with the
expected extra pages. */

#include <gtest/gtest.h>

#include <cmath>

#include "buf0io_headroom.h"

namespace {

using buf_io_headroom::Input;

Input base() {
  Input in;
  in.util_lwm_pct = 80;
  in.headroom_pct = 100;
  in.sample_valid = true;
  in.util_pct = 0;
  in.sync_flush = false;
  in.planned_pages = 1000;
  in.io_capacity_max = 4000;
  in.dirty_pages = 100000;
  in.dirty_pct = 90; /* at innodb_max_dirty_pages_pct: full pressure */
  in.dirty_lwm_pct = 10;
  in.dirty_max_pct = 90;
  return in;
}

struct Row {
  const char *what;
  Input in;
  uint64_t expected;
};

TEST(IoHeadroomPolicy, Table) {
  std::vector<Row> rows;
  auto add = [&](const char *what, auto change, uint64_t expected) {
    Input in = base();
    change(in);
    rows.push_back({what, in, expected});
  };
  add("idle device: all the spare capacity", [](Input &) {}, 3000);
  add("util 40 of lwm 80: half", [](Input &i) { i.util_pct = 40; }, 1500);
  add("util 60 of lwm 80: a quarter", [](Input &i) { i.util_pct = 60; }, 750);
  add("util at lwm: nothing", [](Input &i) { i.util_pct = 80; }, 0);
  add("util above lwm: nothing", [](Input &i) { i.util_pct = 95; }, 0);
  add("busy with reads counts as busy", [](Input &i) { i.util_pct = 99; }, 0);
  add("feature off", [](Input &i) { i.util_lwm_pct = 0; }, 0);
  add("invalid sample", [](Input &i) { i.sample_valid = false; }, 0);
  add("sync flush", [](Input &i) { i.sync_flush = true; }, 0);
  add("no dirty pages", [](Input &i) { i.dirty_pages = 0; }, 0);
  add("headroom share 50%", [](Input &i) { i.headroom_pct = 50; }, 1500);
  add("dirty below the dirty lwm: nothing",
      [](Input &i) { i.dirty_pct = 5; }, 0);
  add("dirty at the dirty lwm: nothing (the ramp starts there)",
      [](Input &i) { i.dirty_pct = 10; }, 0);
  add("dirty halfway from lwm 10 to max 90: half",
      [](Input &i) { i.dirty_pct = 50; }, 1500);
  add("dirty 12: 1/40 of the way", [](Input &i) { i.dirty_pct = 12; }, 75);
  add("dirty above the max counts as the max",
      [](Input &i) { i.dirty_pct = 99; }, 3000);
  add("util 40 of 80 and dirty halfway: a quarter", [](Input &i) {
        i.util_pct = 40;
        i.dirty_pct = 50;
      }, 750);
  add("dirty lwm 0: the ramp starts at 0", [](Input &i) {
        i.dirty_lwm_pct = 0;
        i.dirty_pct = 45;
      }, 1500);
  add("planned already at the max",
      [](Input &i) { i.planned_pages = 4000; }, 0);
  add("planned above the max", [](Input &i) { i.planned_pages = 5000; }, 0);
  add("capped by the flush list",
      [](Input &i) { i.dirty_pages = 1200; }, 200);
  add("planned covers the flush list",
      [](Input &i) { i.dirty_pages = 900; }, 0);
  add("nothing planned, idle",
      [](Input &i) { i.planned_pages = 0; }, 4000);
  add("lwm 100, util 99.5",
      [](Input &i) { i.util_lwm_pct = 100; i.util_pct = 99.5; }, 15);
  add("NaN utilisation is not headroom",
      [](Input &i) { i.util_pct = std::nan(""); }, 0);
  add("negative utilisation is not headroom",
      [](Input &i) { i.util_pct = -1; }, 0);
  for (const Row &r : rows) {
    EXPECT_EQ(buf_io_headroom::extra_pages(r.in), r.expected) << r.what;
  }
}

TEST(IoHeadroomPolicy, BacksOffMonotonicallyAndNeverExceedsTheMax) {
  uint64_t prev = UINT64_MAX;
  for (int u = 0; u <= 100; ++u) {
    Input in = base();
    in.util_pct = u;
    const uint64_t extra = buf_io_headroom::extra_pages(in);
    EXPECT_LE(extra, prev) << "util " << u;
    EXPECT_LE(in.planned_pages + extra, in.io_capacity_max) << "util " << u;
    prev = extra;
  }
}

TEST(IoHeadroomPolicy, DirtyPressureIsContinuousFromTheLwm) {
  Input in = base();
  in.dirty_pct = 10.0;
  EXPECT_EQ(buf_io_headroom::dirty_pressure(in), 0.0);
  in.dirty_pct = 10.8; /* 1% of the ramp: a small push, not a jump */
  EXPECT_NEAR(buf_io_headroom::dirty_pressure(in), 0.01, 1e-9);
  in.dirty_pct = 90.0;
  EXPECT_EQ(buf_io_headroom::dirty_pressure(in), 1.0);
  in.dirty_pct = std::nan("");
  EXPECT_EQ(buf_io_headroom::dirty_pressure(in), 0.0);
  /* lwm equal to the max (or above it): all or nothing at the max */
  in.dirty_lwm_pct = 75;
  in.dirty_max_pct = 75;
  in.dirty_pct = 74.9;
  EXPECT_EQ(buf_io_headroom::dirty_pressure(in), 0.0);
  in.dirty_pct = 75.1;
  EXPECT_EQ(buf_io_headroom::dirty_pressure(in), 1.0);
}

}  // namespace

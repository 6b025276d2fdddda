/* Unit tests for os0aio_depth: AIO slots per segment vs the kernel's
native AIO event budget. */

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>

#include "os0aio_depth.h"

namespace {

using os_aio_depth::Kernel_budget;
using os_aio_depth::Mode;
using os_aio_depth::plan;

Kernel_budget budget(uint64_t max_nr, uint64_t nr) {
  Kernel_budget b;
  b.known = true;
  b.max_nr = max_nr;
  b.nr = nr;
  return b;
}

TEST(AioDepthPlan, FitsUsesConfiguredValue) {
  /* Default server: 1 + 4 + 4 segments x 256 on a default host. */
  const auto p = plan(9, 256, budget(65536, 0));
  EXPECT_EQ(p.mode, Mode::NATIVE);
  EXPECT_EQ(p.slots_per_segment, 256u);
  EXPECT_EQ(p.events_needed, 9u * 256);
}

TEST(AioDepthPlan, ExactFitIsNotReduced) {
  const auto p = plan(16, 4096, budget(65536, 0));
  EXPECT_EQ(p.events_needed, 65536u);
  EXPECT_EQ(p.mode, Mode::NATIVE);
  EXPECT_EQ(p.slots_per_segment, 4096u);
}

TEST(AioDepthPlan, OneEventShortReducesAndLeavesAQuarter) {
  const auto p = plan(16, 4096, budget(65536, 1));
  EXPECT_EQ(p.mode, Mode::NATIVE_REDUCED);
  EXPECT_EQ(p.slots_per_segment, (65535u / 4 * 3) / 16);
  EXPECT_LE(16u * p.slots_per_segment, 65535u * 3 / 4);
}

TEST(AioDepthPlan, MaxThreadsMaxDepthOnDefaultHostReduces) {
  /* 1 + 64 + 64 segments x 4096 = 528384 events > default 65536. */
  const auto p = plan(129, 4096, budget(65536, 1000));
  EXPECT_EQ(p.events_needed, 528384u);
  EXPECT_EQ(p.mode, Mode::NATIVE_REDUCED);
  EXPECT_EQ(p.slots_per_segment, ((65536u - 1000) / 4 * 3) / 129);
  EXPECT_GE(p.slots_per_segment, os_aio_depth::MIN);
  /* a quarter of the free events stays for the rest of the host */
  EXPECT_GE(65536u - 1000 - 129u * p.slots_per_segment, (65536u - 1000) / 4);
}

TEST(AioDepthPlan, TooFewEventsFallsBackToSimulated) {
  /* 129 x 32 = 4128 events for the smallest depth must fit in 3/4 of the
  free events: 5504 free is enough, 5500 is not. */
  auto p = plan(129, 4096, budget(10000, 10000 - 5500));
  EXPECT_EQ(p.mode, Mode::SIMULATED);
  p = plan(129, 4096, budget(10000, 10000 - 5504));
  EXPECT_EQ(p.mode, Mode::NATIVE_REDUCED);
  EXPECT_EQ(p.slots_per_segment, 32u);
}

TEST(AioDepthPlan, ExhaustedOrOverCommittedBudget) {
  /* aio-nr can exceed aio-max-nr after the limit was lowered. */
  EXPECT_EQ(plan(9, 256, budget(65536, 70000)).mode, Mode::SIMULATED);
  EXPECT_EQ(plan(9, 256, budget(65536, 65536)).mode, Mode::SIMULATED);
}

TEST(AioDepthPlan, UnknownBudgetLetsIoSetupDecide) {
  const auto p = plan(129, 4096, Kernel_budget{});
  EXPECT_EQ(p.mode, Mode::NATIVE);
  EXPECT_EQ(p.slots_per_segment, 4096u);
}

TEST(AioDepthPlan, NoOverflowAtExtremes) {
  const auto p = plan(130, 4096, budget(UINT64_MAX, 0));
  EXPECT_EQ(p.mode, Mode::NATIVE);
  EXPECT_EQ(p.events_needed, 130u * 4096);
}

bool parse(const char *s, uint64_t *v) {
  return os_aio_depth::parse_proc_counter(s, std::strlen(s), v);
}

TEST(AioDepthParse, ProcCounterText) {
  uint64_t v = 7;
  EXPECT_TRUE(parse("65536\n", &v));
  EXPECT_EQ(v, 65536u);
  EXPECT_TRUE(parse("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(parse("18446744073709551615\n", &v));
  EXPECT_EQ(v, UINT64_MAX);
}

TEST(AioDepthParse, RejectsGarbage) {
  uint64_t v = 7;
  EXPECT_FALSE(parse("", &v));
  EXPECT_FALSE(parse("\n", &v));
  EXPECT_FALSE(parse("-1\n", &v));
  EXPECT_FALSE(parse("12x\n", &v));
  EXPECT_FALSE(parse("18446744073709551616", &v)); /* 2^64 overflows */
  EXPECT_EQ(v, 7u);                                 /* untouched on failure */
}

TEST(AioDepthRead, ReadsThisHostsBudget) {
  const auto b = os_aio_depth::read_kernel_budget();
  if (access("/proc/sys/fs/aio-max-nr", R_OK) != 0) {
    GTEST_SKIP() << "no /proc/sys/fs/aio-max-nr on this host";
  }
  EXPECT_TRUE(b.known);
  EXPECT_GT(b.max_nr, 0u);
}

}  // namespace

/* Unit tests for os0diskstats: stat and /proc/diskstats parsing in the
kernel's 14, 18 and 20 field formats, samples and counter wraps, and device
resolution on a fake sysfs tree. */

#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "os0diskstats.h"

namespace {

using os_diskstats::Counters;
using os_diskstats::Dev;
using os_diskstats::Sample;

bool stat_of(const char *s, Counters *c) {
  return os_diskstats::parse_stat(s, std::strlen(s), c);
}

TEST(DiskstatsParse, SysfsStatElevenFields) {
  /* kernel < 4.18: 11 fields */
  Counters c;
  ASSERT_TRUE(stat_of(
      "  1000   20  30000  400  2000  50  60000  700  3  5000  9000\n", &c));
  EXPECT_EQ(c.reads, 1000u);
  EXPECT_EQ(c.writes, 2000u);
  EXPECT_EQ(c.io_ticks_ms, 5000u);
  EXPECT_EQ(c.queue_time_ms, 9000u);
}

TEST(DiskstatsParse, SysfsStatFifteenAndSeventeenFields) {
  Counters c;
  /* 4.18+: discard fields; 5.5+: flush fields */
  ASSERT_TRUE(stat_of("1 0 8 0 2 0 16 0 0 7 11 0 0 0 0\n", &c));
  EXPECT_EQ(c.io_ticks_ms, 7u);
  ASSERT_TRUE(stat_of("1 0 8 0 2 0 16 0 0 7 11 0 0 0 0 4 1\n", &c));
  EXPECT_EQ(c.writes, 2u);
  EXPECT_EQ(c.queue_time_ms, 11u);
}

TEST(DiskstatsParse, SysfsStatGarbage) {
  Counters c;
  EXPECT_FALSE(stat_of("", &c));
  EXPECT_FALSE(stat_of("1 2 3 4 5 6 7 8 9 10\n", &c)); /* too few */
  EXPECT_FALSE(stat_of("1 2 3 4 5 x 7 8 9 10 11\n", &c));
  EXPECT_FALSE(stat_of("-1 2 3 4 5 6 7 8 9 10 11\n", &c));
  EXPECT_FALSE(stat_of("99999999999999999999 2 3 4 5 6 7 8 9 10 11\n", &c));
}

/* Real-format lines: 14 fields (old kernels), 18 (4.18+), 20 (5.5+). */
const char *kDiskstats =
    "   7       0 loop0 5 0 10 0 0 0 0 0 0 4 4\n"
    "   8       0 sda 1000 20 30000 400 2000 50 60000 700 3 5000 9000 0 0 0 0\n"
    "   8       1 sda1 900 20 29000 390 1900 50 59000 690 0 4900 8900 0 0 0 0\n"
    " 259       0 nvme0n1 10 0 80 1 20 0 160 2 0 30 40 0 0 0 0 5 6\n"
    "garbage line without numbers\n"
    " 253 0 dm-0 1 2\n"
    " 253       1 dm-1 7 0 56 1 9 0 72 2 0 13 17 0 0 0 0 0 0\n";

TEST(DiskstatsParse, ProcDiskstatsFindsEachFormat) {
  Counters c;
  const size_t len = std::strlen(kDiskstats);
  ASSERT_TRUE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{7, 0}, &c));
  EXPECT_EQ(c.reads, 5u);
  EXPECT_EQ(c.io_ticks_ms, 4u);
  ASSERT_TRUE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{8, 0}, &c));
  EXPECT_EQ(c.writes, 2000u);
  ASSERT_TRUE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{8, 1}, &c));
  EXPECT_EQ(c.reads, 900u);
  ASSERT_TRUE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{259, 0}, &c));
  EXPECT_EQ(c.queue_time_ms, 40u);
  ASSERT_TRUE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{253, 1}, &c));
  EXPECT_EQ(c.io_ticks_ms, 13u);
}

TEST(DiskstatsParse, ProcDiskstatsMissingOrTruncated) {
  Counters c;
  const size_t len = std::strlen(kDiskstats);
  EXPECT_FALSE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{8, 2}, &c));
  EXPECT_FALSE(os_diskstats::parse_diskstats(kDiskstats, len, Dev{253, 0}, &c));
  EXPECT_FALSE(os_diskstats::parse_diskstats("", 0, Dev{8, 0}, &c));
}

TEST(DiskstatsParse, DeviceOverride) {
  Dev d;
  ASSERT_TRUE(os_diskstats::parse_dev("8:16", &d));
  EXPECT_EQ(d.major, 8u);
  EXPECT_EQ(d.minor, 16u);
  EXPECT_FALSE(os_diskstats::parse_dev("auto", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("8:", &d));
  EXPECT_FALSE(os_diskstats::parse_dev(":1", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("8:1:2", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("8:1 ", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("-8:1", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("", &d));
  EXPECT_FALSE(os_diskstats::parse_dev("99999999999:1", &d));
}

TEST(DiskstatsSample, UtilisationQueueAndIops) {
  Counters a, b;
  a.reads = 100; a.writes = 1000; a.io_ticks_ms = 5000; a.queue_time_ms = 9000;
  b = a;
  b.reads += 50; b.writes += 2000; b.io_ticks_ms += 600; b.queue_time_ms += 1500;
  const Sample s = os_diskstats::compute_sample(a, b, 1000);
  ASSERT_TRUE(s.valid);
  EXPECT_DOUBLE_EQ(s.util_pct, 60.0);
  EXPECT_DOUBLE_EQ(s.avg_queue, 1.5);
  EXPECT_DOUBLE_EQ(s.read_iops, 50.0);
  EXPECT_DOUBLE_EQ(s.write_iops, 2000.0);
}

TEST(DiskstatsSample, UtilisationIsCappedAt100) {
  Counters a, b;
  b.io_ticks_ms = 1100; /* ticks can run ahead of the wall clock a little */
  EXPECT_DOUBLE_EQ(os_diskstats::compute_sample(a, b, 1000).util_pct, 100.0);
}

TEST(DiskstatsSample, WrapAndZeroIntervalAreInvalidNotSpikes) {
  Counters a, b;
  a.io_ticks_ms = 4294967000u;
  b.io_ticks_ms = 200; /* 32-bit counter wrapped */
  EXPECT_FALSE(os_diskstats::compute_sample(a, b, 1000).valid);
  a = Counters{};
  a.writes = 10;
  b = Counters{}; /* device reset */
  EXPECT_FALSE(os_diskstats::compute_sample(a, b, 1000).valid);
  EXPECT_FALSE(os_diskstats::compute_sample(Counters{}, Counters{}, 0).valid);
  EXPECT_FALSE(os_diskstats::compute_sample(Counters{}, Counters{}, -5).valid);
}

TEST(DiskstatsSample, CombineBusiestLeafDecides) {
  Sample x, y;
  x.valid = y.valid = true;
  x.util_pct = 20; x.avg_queue = 0.5; x.write_iops = 100;
  y.util_pct = 70; y.avg_queue = 0.2; y.write_iops = 300;
  const Sample c = os_diskstats::combine({x, y});
  ASSERT_TRUE(c.valid);
  EXPECT_DOUBLE_EQ(c.util_pct, 70);
  EXPECT_DOUBLE_EQ(c.avg_queue, 0.5);
  EXPECT_DOUBLE_EQ(c.write_iops, 400);
  y.valid = false;
  EXPECT_FALSE(os_diskstats::combine({x, y}).valid);
  EXPECT_FALSE(os_diskstats::combine({}).valid);
}

/* A fake sysfs: /dev/block/M:m are symlinks into devices/, as on Linux. */
class FakeSysfs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/steady-sysfs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root = tmpl;
    mk("/dev/block");
    /* sda with partition sda1 */
    disk("devices/pci/block/sda", "8:0");
    disk("devices/pci/block/sda/sda1", "8:1", true);
    /* sdb, sdc under dm-0 (e.g. LVM striped over two disks) */
    disk("devices/pci/block/sdb", "8:16");
    disk("devices/pci/block/sdc", "8:32");
    disk("devices/virtual/block/dm-0", "253:0");
    slave("devices/virtual/block/dm-0", "sdb", "devices/pci/block/sdb");
    slave("devices/virtual/block/dm-0", "sdc", "devices/pci/block/sdc");
    /* dm-1 over a partition of sda (LUKS on sda1) */
    disk("devices/virtual/block/dm-1", "253:1");
    slave("devices/virtual/block/dm-1", "sda1", "devices/pci/block/sda/sda1");
    /* dm-2 over dm-0 and sdb again (stacked, duplicate leaf) */
    disk("devices/virtual/block/dm-2", "253:2");
    slave("devices/virtual/block/dm-2", "dm-0", "devices/virtual/block/dm-0");
    slave("devices/virtual/block/dm-2", "sdb", "devices/pci/block/sdb");
    /* loop0 */
    disk("devices/virtual/block/loop0", "7:0");
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + root + "'";
    ASSERT_EQ(system(cmd.c_str()), 0);
  }
  void mk(const std::string &rel) {
    const std::string cmd = "mkdir -p '" + root + rel + "'";
    ASSERT_EQ(system(cmd.c_str()), 0);
  }
  void write(const std::string &rel, const std::string &text) {
    std::ofstream(root + rel) << text;
  }
  void disk(const std::string &dir, const std::string &dev, bool part = false) {
    mk("/" + dir);
    write("/" + dir + "/dev", dev + "\n");
    write("/" + dir + "/stat", "1 0 8 0 2 0 16 0 0 7 11\n");
    if (part) write("/" + dir + "/partition", "1\n");
    const std::string link = root + "/dev/block/" + dev;
    ASSERT_EQ(symlink((root + "/" + dir).c_str(), link.c_str()), 0);
  }
  void slave(const std::string &dir, const std::string &name,
             const std::string &target) {
    mk("/" + dir + "/slaves");
    const std::string link = root + "/" + dir + "/slaves/" + name;
    ASSERT_EQ(symlink((root + "/" + target).c_str(), link.c_str()), 0);
  }
  std::string root;
};

std::string leaves(const std::string &root, Dev d, int depth = 8) {
  std::string s;
  for (const Dev &x : os_diskstats::resolve_leaves(root, d, depth)) {
    if (!s.empty()) s += ",";
    s += std::to_string(x.major) + ":" + std::to_string(x.minor);
  }
  return s;
}

TEST_F(FakeSysfs, DiskIsItsOwnLeaf) { EXPECT_EQ(leaves(root, {8, 0}), "8:0"); }

TEST_F(FakeSysfs, PartitionResolvesToDisk) {
  EXPECT_EQ(leaves(root, {8, 1}), "8:0");
}

TEST_F(FakeSysfs, DeviceMapperResolvesToBothLeaves) {
  EXPECT_EQ(leaves(root, {253, 0}), "8:16,8:32");
}

TEST_F(FakeSysfs, DeviceMapperOverPartitionResolvesToDisk) {
  EXPECT_EQ(leaves(root, {253, 1}), "8:0");
}

TEST_F(FakeSysfs, StackedDevicesAreDeduplicatedAndDepthBounded) {
  EXPECT_EQ(leaves(root, {253, 2}), "8:16,8:32");
  EXPECT_EQ(leaves(root, {253, 2}, 0), ""); /* too deep to follow */
}

TEST_F(FakeSysfs, LoopIsItsOwnLeaf) { EXPECT_EQ(leaves(root, {7, 0}), "7:0"); }

TEST_F(FakeSysfs, NoBlockDevice) {
  /* tmpfs, overlayfs, NFS: st_dev major 0, nothing in /sys/dev/block */
  EXPECT_EQ(leaves(root, {0, 45}), "");
  EXPECT_EQ(leaves(root, {8, 99}), "");
}

TEST_F(FakeSysfs, SamplerReadsLeavesAndFirstSampleIsInvalid) {
  os_diskstats::Disk_util_sampler s;
  ASSERT_EQ(s.init(root, {{253, 0}, {8, 16}}), 2u);
  EXPECT_EQ(s.describe(), "8:16,8:32");
  EXPECT_FALSE(s.sample(1000).valid); /* first reading */
  write("/devices/pci/block/sdc/stat", "1 0 8 0 502 0 16 0 0 757 1511\n");
  const Sample x = s.sample(2000);
  ASSERT_TRUE(x.valid);
  EXPECT_DOUBLE_EQ(x.util_pct, 75.0);
  EXPECT_DOUBLE_EQ(x.write_iops, 500.0);
  EXPECT_DOUBLE_EQ(x.avg_queue, 1.5);
  /* counters going backwards: invalid, then valid again */
  write("/devices/pci/block/sdc/stat", "1 0 8 0 2 0 16 0 0 7 11\n");
  EXPECT_FALSE(s.sample(3000).valid);
  EXPECT_TRUE(s.sample(4000).valid);
}

TEST_F(FakeSysfs, SamplerWithNothingToSample) {
  os_diskstats::Disk_util_sampler s;
  EXPECT_EQ(s.init(root, {{0, 45}}), 0u);
  EXPECT_FALSE(s.active());
  EXPECT_FALSE(s.sample(1000).valid);
}

TEST(DiskstatsHost, ThisHostsRootIsResolvableOrNotABlockDevice) {
  /* Smoke test on the real /sys: must not crash; any answer is fine. */
  struct stat st;
  ASSERT_EQ(stat("/", &st), 0);
  Dev d{major(st.st_dev), minor(st.st_dev)};
  (void)os_diskstats::resolve_leaves("/sys", d);
}

}  // namespace

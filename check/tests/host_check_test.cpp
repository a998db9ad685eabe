// Covers host_check.hpp: reading nvidia-smi's answer and running it within its limit.
#include "run/host_check.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>

#include "util/tests/temp_dir.hpp"

namespace kd {
namespace {

using test::TempDir;

TEST(ParseNvidiaSmi, OneGpu) {
  auto r = parse_nvidia_smi("535.104.05, 81559\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, "ok");
  EXPECT_EQ(r->driver_version, "535.104.05");
  EXPECT_EQ(r->memory_total_mib, 81559);
}

TEST(ParseNvidiaSmi, SeveralGpusAreSummed) {
  auto r = parse_nvidia_smi("550.54.15, 81559\n550.54.15, 81559\n550.54.15, 40960\n");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->driver_version, "550.54.15");
  EXPECT_EQ(r->memory_total_mib, 81559LL + 81559LL + 40960LL);
}

TEST(ParseNvidiaSmi, ToleratesSpacesCarriageReturnsAndBlankLines) {
  auto r = parse_nvidia_smi("\n  470.82.01 ,   16160 \r\n\n470.82.01,16160");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->driver_version, "470.82.01");
  EXPECT_EQ(r->memory_total_mib, 32320);
}

TEST(ParseNvidiaSmi, GarbageIsRefused) {
  EXPECT_FALSE(parse_nvidia_smi("NVIDIA-SMI has failed because it couldn't communicate with the "
                                "NVIDIA driver. Make sure that the latest NVIDIA driver is "
                                "installed and running.\n")
                   .has_value());
  EXPECT_FALSE(parse_nvidia_smi("No devices were found\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("driver_version, memory.total [MiB]\n535.1, 10\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("\x01\x02\xff,\xfe").has_value());
}

TEST(ParseNvidiaSmi, EmptyIsRefused) {
  EXPECT_FALSE(parse_nvidia_smi("").has_value());
  EXPECT_FALSE(parse_nvidia_smi("\n\n  \n").has_value());
}

TEST(ParseNvidiaSmi, NonNumericMemoryIsRefused) {
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, [N/A]\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, 81559 MiB\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, -1\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, \n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, 0x100\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, 99999999999999999999999\n").has_value());
}

TEST(ParseNvidiaSmi, ATotalBeyondALongLongIsRefused) {
  // Each line reads, their sum does not: refused, never a wrapped (negative) total.
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, 9223372036854775807\n535.104.05, 1\n").has_value());
  auto largest = parse_nvidia_smi("535.104.05, 9223372036854775806\n535.104.05, 1\n");
  ASSERT_TRUE(largest.has_value());
  EXPECT_EQ(largest->memory_total_mib, 9223372036854775807LL);
}

TEST(ParseNvidiaSmi, OneBadLineSpoilsTheAnswer) {
  EXPECT_FALSE(parse_nvidia_smi("535.104.05, 81559\n535.104.05, [N/A]\n").has_value());
}

TEST(ParseNvidiaSmi, DriverMustLookLikeAVersion) {
  EXPECT_FALSE(parse_nvidia_smi("/home/alice, 10\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("v535, 10\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi(", 10\n").has_value());
  EXPECT_FALSE(parse_nvidia_smi("535.104.05\n").has_value());
}

// A folder of fake programs for PATH look-ups.
// Runs run_host_check with PATH pointing at one fake nvidia-smi, then
// restores PATH: ctest runs each test in its own process, but a direct run
// of the binary must not be disturbed either.
class RunHostCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = getenv("PATH");
    if (path != nullptr) saved_path_ = path;
  }
  void TearDown() override {
    if (saved_path_) {
      setenv("PATH", saved_path_->c_str(), 1);
    } else {
      unsetenv("PATH");
    }
  }
  void fake_nvidia_smi(const std::string& script_body) {
    std::string path = tmp_.file("nvidia-smi");
    test::write_file(path, "#!/bin/sh\n" + script_body);
    ASSERT_EQ(chmod(path.c_str(), 0755), 0);
    setenv("PATH", tmp_.path().c_str(), 1);
  }
  TempDir tmp_;
  std::optional<std::string> saved_path_;
};

TEST_F(RunHostCheck, ParsesAnAnswer) {
  fake_nvidia_smi("echo '550.54.15, 81559'\necho '550.54.15, 81559'\n");
  int interrupted = -1;
  HostCheckResult r = run_host_check(interrupted);
  EXPECT_EQ(interrupted, 0);
  EXPECT_EQ(r.status, "ok");
  EXPECT_EQ(r.driver_version, "550.54.15");
  EXPECT_EQ(r.memory_total_mib, 163118);
}

TEST_F(RunHostCheck, NotFoundWhenAbsentFromPath) {
  setenv("PATH", tmp_.path().c_str(), 1);
  int interrupted = -1;
  HostCheckResult r = run_host_check(interrupted);
  EXPECT_EQ(r.status, "not_found");
  EXPECT_FALSE(r.driver_version.has_value());
  EXPECT_FALSE(r.memory_total_mib.has_value());
}

TEST_F(RunHostCheck, FailedOnANonZeroExit) {
  fake_nvidia_smi("echo '550.54.15, 81559'\nexit 9\n");
  int interrupted = -1;
  HostCheckResult r = run_host_check(interrupted);
  EXPECT_EQ(r.status, "failed");
  EXPECT_FALSE(r.driver_version.has_value());
}

TEST_F(RunHostCheck, FailedOnGarbage) {
  fake_nvidia_smi("echo 'No devices were found'\n");
  int interrupted = -1;
  EXPECT_EQ(run_host_check(interrupted).status, "failed");
}

TEST_F(RunHostCheck, TimeoutAfterItsOwnLimit) {
  // PATH names only the fake, so the script finds sleep itself.
  fake_nvidia_smi("PATH=/usr/bin:/bin exec sleep 30\n");
  int interrupted = -1;
  auto start = std::chrono::steady_clock::now();
  HostCheckResult r = run_host_check(interrupted);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, "timeout");
  EXPECT_EQ(interrupted, 0);
  EXPECT_GE(elapsed, kHostCheckLimitS - 0.1);
  EXPECT_LT(elapsed, kHostCheckLimitS + 3.0);
}

}  // namespace
}  // namespace kd

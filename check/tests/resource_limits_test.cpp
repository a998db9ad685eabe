// Covers resource_limits.hpp: the limits read from this process, and the
// words that name each limit and its value. Which failures a limit explains,
// and the sentences around these words, are the cause catalogue's
// (causes_test.cpp).
#include "facts/resource_limits.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

namespace kd {
namespace {

constexpr unsigned long long kMiB = 1024 * 1024;

TEST(SizeText, WholeAndFractionalUnits) {
  EXPECT_EQ(size_text(512), "512 bytes");
  EXPECT_EQ(size_text(16 * kMiB), "16 MiB");
  EXPECT_EQ(size_text(256 * kMiB), "256 MiB");
  EXPECT_EQ(size_text(1024 * kMiB), "1 GiB");
  EXPECT_EQ(size_text(1536 * kMiB), "1.5 GiB");
  EXPECT_EQ(size_text(300000000), "286.1 MiB");
}

TEST(MemoryLimitsText, NamesEachLimitSet) {
  ResourceLimits limits;
  EXPECT_EQ(memory_limits_text(limits), "");
  limits.address_space = 256 * kMiB;
  EXPECT_EQ(memory_limits_text(limits), "the address-space limit (ulimit -v) is 256 MiB");
  limits.cgroup_memory = 1024 * kMiB;
  EXPECT_EQ(memory_limits_text(limits), "the address-space limit (ulimit -v) is 256 MiB and the "
                                        "memory limit of this cgroup is 1 GiB");
}

TEST(ProcessLimitsText, NamesEachLimitSet) {
  ResourceLimits limits;
  EXPECT_EQ(process_limits_text(limits), "");
  limits.processes = 1;
  EXPECT_EQ(process_limits_text(limits), "the process limit (ulimit -u) is 1");
  limits.cgroup_pids = 4;
  EXPECT_EQ(process_limits_text(limits),
            "the process limit (ulimit -u) is 1 and the pids limit of this cgroup is 4");
}

TEST(OpenFileLimitText, NamesTheLimitSet) {
  ResourceLimits limits;
  EXPECT_EQ(open_file_limit_text(limits), "");
  limits.open_files = 8;
  EXPECT_EQ(open_file_limit_text(limits), "the open-file limit (ulimit -n) is 8");
}

TEST(ReadResourceLimits, SeesThisProcesssAddressSpaceLimit) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
#ifdef KERNODECK_SANITIZED
  GTEST_SKIP() << "built with AddressSanitizer (the asan build), whose shadow memory already "
                  "holds terabytes of reserved addresses: under an 8 GiB address-space limit its "
                  "own next mapping fails; the other builds run this test";
#endif
  rlimit lower = saved;
  lower.rlim_cur = 8ULL << 30;
  if (saved.rlim_max != RLIM_INFINITY && saved.rlim_max < lower.rlim_cur) {
    GTEST_SKIP() << "the hard address-space limit is below 8 GiB here";
  }
  ASSERT_EQ(setrlimit(RLIMIT_AS, &lower), 0);
  ResourceLimits limits = read_resource_limits();
  ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
  ASSERT_TRUE(limits.address_space);
  EXPECT_EQ(*limits.address_space, 8ULL << 30);
}

}  // namespace
}  // namespace kd

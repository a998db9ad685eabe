// Covers resource_limits.hpp: the limits read from this process, and the
// words that name each limit and its value. Which failures a limit explains,
// and the sentences around these words, are the cause catalogue's
// (causes_process_test.cpp, causes_words_test.cpp).
#include "facts/resource_limits.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
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

TEST(CgroupMemoryLimitText, NamesTheCgroupsLimitAlone) {
  ResourceLimits limits;
  limits.address_space = 256 * kMiB;
  EXPECT_EQ(cgroup_memory_limit_text(limits), "");
  limits.cgroup_memory = 16 * kMiB;
  EXPECT_EQ(cgroup_memory_limit_text(limits), "the memory limit of this cgroup is 16 MiB");
}

// A made-up /proc/<pid>/cgroup and cgroup file systems, in a folder of the test's own.
class CgroupTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("kd-cgroup-tree-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_ / "fs");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    const std::filesystem::path path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::optional<unsigned long long> kills() {
    return read_cgroup_oom_kills((root_ / "cgroup").string(), (root_ / "fs").string());
  }
  std::filesystem::path root_;
};

std::string v1_oom_control(int kills) {
  return "oom_kill_disable 0\nunder_oom 0\noom_kill " + std::to_string(kills) + "\n";
}

std::string v2_events(int kills) {
  return "low 0\nhigh 0\nmax 4\noom 2\noom_kill " + std::to_string(kills) +
         "\noom_group_kill 7\n";
}

// v1: the memory hierarchy's memory.oom_control, from this cgroup up to the root, summed; the
// other controllers' lines and a hybrid machine's controller-less v2 line count nothing.
TEST_F(CgroupTree, V1CountsMemoryOomControlOnTheWayUp) {
  write("cgroup", "5:devices:/\n4:memory:/pod/box\n1:cpu,cpuacct:/\n0::/\n");
  write("fs/memory/memory.oom_control", v1_oom_control(0));
  write("fs/memory/pod/memory.oom_control", v1_oom_control(2));
  write("fs/memory/pod/box/memory.oom_control", v1_oom_control(1));
  EXPECT_EQ(kills(), 3u);
  write("fs/memory/pod/box/memory.oom_control", v1_oom_control(2));
  EXPECT_EQ(kills(), 4u);
}

// v2: memory.events' oom_kill, not oom_group_kill; the root has no memory.events.
TEST_F(CgroupTree, V2CountsMemoryEventsOnTheWayUp) {
  write("cgroup", "0::/kubepods/pod1\n");
  write("fs/cgroup.controllers", "cpu memory pids\n");
  write("fs/kubepods/memory.events", v2_events(1));
  write("fs/kubepods/pod1/memory.events", v2_events(1));
  EXPECT_EQ(kills(), 2u);
}

// Nothing to read is no count, never zero: a SIGKILL then stays one from outside.
TEST_F(CgroupTree, NoCountWhereNoneCanBeRead) {
  EXPECT_FALSE(kills());
  write("cgroup", "4:memory:/box\n");
  EXPECT_FALSE(kills());
  write("fs/memory/box/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\n");
  EXPECT_FALSE(kills()) << "a kernel older than the oom_kill field";
}

TEST(OomKillsSince, TheRiseOrNothingWhereEitherIsUnknown) {
  EXPECT_EQ(oom_kills_since(3, 4), 1u);
  EXPECT_EQ(oom_kills_since(3, 3), 0u);
  EXPECT_EQ(oom_kills_since(5, 3), 0u);  // a cgroup gone between the reads
  EXPECT_FALSE(oom_kills_since(std::nullopt, 4));
  EXPECT_FALSE(oom_kills_since(3, std::nullopt));
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

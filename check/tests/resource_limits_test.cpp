// Covers resource_limits.hpp: which failures a resource limit explains, and
// that the words name the limit, its value and what to raise.
#include "resource_limits.hpp"

#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <string>

namespace kd {
namespace {

constexpr unsigned long long kMiB = 1024 * 1024;

bool has(const std::string& text, const std::string& word) {
  return text.find(word) != std::string::npos;
}

WaitStatus killed_by(int sig) { return WaitStatus{true, true, -1, sig}; }
WaitStatus exited_with(int code) { return WaitStatus{true, false, code, 0}; }

TEST(SizeText, WholeAndFractionalUnits) {
  EXPECT_EQ(size_text(512), "512 bytes");
  EXPECT_EQ(size_text(16 * kMiB), "16 MiB");
  EXPECT_EQ(size_text(256 * kMiB), "256 MiB");
  EXPECT_EQ(size_text(1024 * kMiB), "1 GiB");
  EXPECT_EQ(size_text(1536 * kMiB), "1.5 GiB");
  EXPECT_EQ(size_text(300000000), "286.1 MiB");
}

TEST(SpawnFailureCause, AProcessLimitNamesUlimitAndItsValue) {
  ResourceLimits limits;
  limits.processes = 1;
  auto cause = spawn_failure_cause(EAGAIN, limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "could not be started")) << cause->what;
  EXPECT_TRUE(has(cause->what, "the process limit (ulimit -u) is 1")) << cause->what;
  EXPECT_TRUE(has(cause->next_action, "Raise the process limit")) << cause->next_action;
  EXPECT_TRUE(has(cause->next_action, "two processes")) << cause->next_action;
}

TEST(SpawnFailureCause, APidsLimitOfTheCgroupIsNamedToo) {
  ResourceLimits limits;
  limits.cgroup_pids = 4;
  auto cause = spawn_failure_cause(EAGAIN, limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "the pids limit of this cgroup is 4")) << cause->what;
}

TEST(SpawnFailureCause, LackOfMemoryNamesTheMemoryLimits) {
  ResourceLimits limits;
  limits.address_space = 64 * kMiB;
  limits.cgroup_memory = 32 * kMiB;
  auto cause = spawn_failure_cause(ENOMEM, limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "lack of memory")) << cause->what;
  EXPECT_TRUE(has(cause->what, "the address-space limit (ulimit -v) is 64 MiB")) << cause->what;
  EXPECT_TRUE(has(cause->what, "the memory limit of this cgroup is 32 MiB")) << cause->what;
  EXPECT_TRUE(has(cause->next_action, "Raise the memory or address-space limit"));
}

TEST(SpawnFailureCause, WithoutAKnownLimitTheSentenceStillEnds) {
  auto cause = spawn_failure_cause(EAGAIN, ResourceLimits{});
  ASSERT_TRUE(cause);
  EXPECT_EQ(cause->what.back(), '.');
  EXPECT_FALSE(has(cause->what, ";"));
}

TEST(SpawnFailureCause, OpenFiles) {
  ResourceLimits limits;
  limits.open_files = 8;
  auto cause = spawn_failure_cause(EMFILE, limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "the open-file limit (ulimit -n) is 8")) << cause->what;
}

TEST(SpawnFailureCause, OtherErrorsAreNoResourceLimit) {
  EXPECT_FALSE(spawn_failure_cause(ENOENT, ResourceLimits{}));
  EXPECT_FALSE(spawn_failure_cause(EACCES, ResourceLimits{}));
  EXPECT_FALSE(spawn_failure_cause(0, ResourceLimits{}));
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

TEST(WorkerDeathCause, AnOutsideSigkillPointsAtTheOutOfMemoryKiller) {
  ResourceLimits limits;
  limits.cgroup_memory = 16 * kMiB;
  auto cause = worker_death_cause(killed_by(SIGKILL), "", "import", limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "during the import stage")) << cause->what;
  EXPECT_TRUE(has(cause->what, "out-of-memory killer")) << cause->what;
  EXPECT_TRUE(has(cause->what, "the memory limit of this cgroup is 16 MiB")) << cause->what;
}

TEST(WorkerDeathCause, ABadAllocIsLackOfMemory) {
  ResourceLimits limits;
  limits.address_space = 500 * kMiB;
  auto cause = worker_death_cause(killed_by(SIGABRT), "  what():  std::bad_alloc", "import",
                                  limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "lack of memory")) << cause->what;
  EXPECT_TRUE(has(cause->what, "500 MiB")) << cause->what;
}

TEST(WorkerDeathCause, AThreadThatCouldNotStartIsAProcessLimit) {
  ResourceLimits limits;
  limits.processes = 3;
  auto cause = worker_death_cause(
      exited_with(1), "libgomp: Thread creation failed: Resource temporarily unavailable",
      "compute", limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "thread")) << cause->what;
  EXPECT_TRUE(has(cause->what, "the process limit (ulimit -u) is 3")) << cause->what;
}

TEST(WorkerDeathCause, OtherDeathsAreNoResourceLimit) {
  EXPECT_FALSE(worker_death_cause(killed_by(SIGSEGV), "", "compute", ResourceLimits{}));
  EXPECT_FALSE(worker_death_cause(exited_with(3), "some last words", "compute", ResourceLimits{}));
}

TEST(AllocationCause, OnlyWithAnAddressSpaceLimit) {
  EXPECT_FALSE(allocation_cause(ResourceLimits{}));
  ResourceLimits limits;
  limits.address_space = 256 * kMiB;
  auto cause = allocation_cause(limits);
  ASSERT_TRUE(cause);
  EXPECT_TRUE(has(cause->what, "the address-space limit (ulimit -v) is 256 MiB")) << cause->what;
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

// Covers causes.hpp, the worker process: which cause its start's error number, its end (a
// signal, an out-of-memory kill, its last words) and an allocation under a limit are.
#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "causes_test_support.hpp"

namespace kd {
namespace {

// ---- the worker's start and end, an allocation ----

TEST(RecogniseWorkerStart, ByTheSystemsErrorNumber) {
  EXPECT_EQ(recognise_worker_start(EAGAIN), CauseId::ProcessLimitAtStart);
  EXPECT_EQ(recognise_worker_start(ENOMEM), CauseId::OutOfMemoryAtStart);
  EXPECT_EQ(recognise_worker_start(EMFILE), CauseId::OpenFileLimitAtStart);
  EXPECT_EQ(recognise_worker_start(ENFILE), CauseId::OpenFileLimitAtStart);
}

TEST(RecogniseWorkerStart, OtherErrorsAreNoResourceLimit) {
  // A missing or unrunnable program: a defect of the check or its installation.
  for (int other : {ENOENT, EACCES, ENOEXEC, 0}) {
    EXPECT_EQ(recognise_worker_start(other), CauseId::SpawnFailed) << other;
  }
}

WaitStatus killed_by(int sig) { return WaitStatus{true, true, -1, sig}; }
WaitStatus exited_with(int code) { return WaitStatus{true, false, code, 0}; }

// The worker's end under `limits`: by default, no out-of-memory kill counted while it ran.
CauseId worker_end(const WaitStatus& status, std::string_view last_words,
                   const ResourceLimits& limits = {}) {
  return recognise_worker_end(status, last_words, limits);
}

ResourceLimits oom_kills_while_running(std::optional<unsigned long long> kills) {
  ResourceLimits limits;
  limits.cgroup_memory = 16ULL << 20;
  limits.oom_kills_while_running = kills;
  return limits;
}

// The sign is the cgroups' own count of kills, not a guess from the signal: a SIGKILL while it
// rose is the out-of-memory killer's, whatever the last words.
TEST(RecogniseWorkerEnd, ASigkillWhileTheOomKillCountRoseIsTheOutOfMemoryKillers) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(1)),
            CauseId::KilledForMemory);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "  what():  std::bad_alloc", oom_kills_while_running(2)),
            CauseId::KilledForMemory);
  EXPECT_EQ(cause_info(CauseId::KilledForMemory).outcome, Outcome::OutOfMemory);
}

// Without a rise, or without a count to read, a SIGKILL stays one from outside; and a rise
// beside another end is not the out-of-memory killer's (it kills with SIGKILL only).
TEST(RecogniseWorkerEnd, WithoutTheCountsRiseASigkillStaysFromOutside) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(0)),
            CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "", oom_kills_while_running(std::nullopt)),
            CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGSEGV), "", oom_kills_while_running(1)),
            CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(1), "fatal: out of memory", oom_kills_while_running(1)),
            CauseId::DiedForLackOfMemory);
}

TEST(RecogniseWorkerEnd, AnOutsideSigkillComesBeforeTheLastWords) {
  EXPECT_EQ(worker_end(killed_by(SIGKILL), ""), CauseId::KilledFromOutside);
  EXPECT_EQ(worker_end(killed_by(SIGKILL), "terminate called after throwing an "
                                                     "instance of 'std::bad_alloc'"),
            CauseId::KilledFromOutside);
}

TEST(RecogniseWorkerEnd, LastWordsOfLackOfMemory) {
  EXPECT_EQ(worker_end(killed_by(SIGABRT), "  what():  std::bad_alloc"),
            CauseId::DiedForLackOfMemory);
  EXPECT_EQ(worker_end(exited_with(1), "mmap: Cannot allocate memory"),
            CauseId::DiedForLackOfMemory);
  EXPECT_EQ(worker_end(exited_with(1), "fatal: out of memory"),
            CauseId::DiedForLackOfMemory);
}

TEST(RecogniseWorkerEnd, LastWordsOfAThreadThatCouldNotStart) {
  EXPECT_EQ(worker_end(exited_with(1), "libgomp: Thread creation failed: Resource "
                                                 "temporarily unavailable"),
            CauseId::ThreadStartFailed);
  EXPECT_EQ(worker_end(killed_by(SIGABRT), "pthread_create failed"),
            CauseId::ThreadStartFailed);
}

TEST(RecogniseWorkerEnd, OtherEndsAreTheGenericRow) {
  EXPECT_EQ(worker_end(killed_by(SIGSEGV), ""), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(killed_by(SIGTERM), ""), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(3), "some last words"), CauseId::WorkerFailed);
  EXPECT_EQ(worker_end(exited_with(0), ""), CauseId::WorkerFailed);
}

TEST(RecogniseAllocation, OnlyUnderAnAddressSpaceLimit) {
  ResourceLimits limits;
  EXPECT_FALSE(recognise_allocation(limits));
  limits.cgroup_memory = 1ULL << 30;  // the out-of-memory killer's, not an allocation's
  EXPECT_FALSE(recognise_allocation(limits));
  limits.address_space = 256ULL << 20;
  EXPECT_EQ(recognise_allocation(limits), CauseId::AllocationUnderAddressSpaceLimit);
}

}  // namespace
}  // namespace kd

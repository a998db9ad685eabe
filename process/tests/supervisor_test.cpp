// Covers kd/supervisor.hpp: spawning, wait-status decoding, deadlines, group teardown, captures,
// the event pipe and signals across fork. From several threads at once:
// supervisor_threads_test.cpp.
#include "kd/supervisor.hpp"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "child.hpp"
#include "util/tests/temp_dir.hpp"

namespace kd {
namespace {

using test::child;
using test::TempDir;
using Lines = std::vector<std::string>;

// Generous: the suite runs in parallel on small CI machines.
constexpr double kSlack = 1.5;
// A bound for runs that should end on their own.
constexpr double kLongDeadline = 30.0;

RunResult run(const SpawnSpec& spec, double deadline_s = kLongDeadline,
              const RunHooks& hooks = {}) {
  return run_supervised(spec, deadline_in(deadline_s), hooks);
}

// Runs `spec` with its event pipe, each event line it writes into `lines`.
RunResult run_events(SpawnSpec spec, Lines& lines, double deadline_s = kLongDeadline) {
  spec.event_pipe = true;
  RunHooks hooks;
  hooks.on_event_line = [&lines](std::string_view l) { lines.emplace_back(l); };
  return run(spec, deadline_s, hooks);
}

// The process id a child reported as its one event line (its grandchild).
pid_t reported_pid(const Lines& lines) {
  return lines.size() == 1 ? static_cast<pid_t>(std::stol(lines[0])) : 0;
}

// True once `pid` no longer runs. A killed orphan may stay a zombie until
// init reaps it; a zombie runs nothing, so it counts as gone.
bool gone_within(pid_t pid, double seconds) {
  auto until = deadline_in(seconds);
  for (;;) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(')');
    if (paren != std::string::npos && paren + 2 < text.size()) {
      char state = text[paren + 2];
      if (state == 'Z' || state == 'X') return true;
    }
    if (Clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

TEST(WaitStatus, Describe) {
  EXPECT_EQ(WaitStatus{}.describe(), "did not end");
  WaitStatus exited{true, false, 3, 0};
  EXPECT_TRUE(exited.exited());
  EXPECT_EQ(exited.describe(), "exited with code 3");
  WaitStatus killed{true, true, -1, SIGSEGV};
  EXPECT_FALSE(killed.exited());
  EXPECT_EQ(killed.describe(), "killed by signal SIGSEGV");
  EXPECT_FALSE(WaitStatus{}.exited());
}

TEST(DeadlineIn, IsThatFarOnTheMonotonicClock) {
  auto before = Clock::now();
  auto deadline = deadline_in(1.5);
  double ahead = seconds_between(before, deadline);
  EXPECT_GE(ahead, 1.5);
  EXPECT_LT(ahead, 1.5 + kSlack);
}

TEST(RunSupervised, ExitCodesAreDecoded) {
  for (int code : {0, 1, 3, 127, 255}) {
    RunResult r = run(child({"exit", std::to_string(code)}));
    EXPECT_EQ(r.end, RunEnd::Exited) << code;
    EXPECT_TRUE(r.status.valid) << code;
    EXPECT_TRUE(r.status.exited()) << code;
    EXPECT_FALSE(r.status.signaled) << code;
    EXPECT_EQ(r.status.code, code);
    EXPECT_EQ(r.spawn_errno, 0);
  }
}

TEST(RunSupervised, DeathBySignalIsDecoded) {
  for (auto [name, sig] : {std::pair{"SEGV", SIGSEGV}, std::pair{"ABRT", SIGABRT}}) {
    RunResult r = run(child({"signal", name}));
    EXPECT_EQ(r.end, RunEnd::Exited) << name;
    EXPECT_TRUE(r.status.valid) << name;
    EXPECT_TRUE(r.status.signaled) << name;
    EXPECT_FALSE(r.status.exited()) << name;
    EXPECT_EQ(r.status.signal, sig) << name;
    EXPECT_EQ(r.status.describe(), "killed by signal SIG" + std::string(name));
  }
}

TEST(RunSupervised, NonexistentProgramIsASpawnFailureNotAnExit127) {
  SpawnSpec spec;
  spec.argv = {"/nonexistent-kd-folder/no-such-program", "arg"};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_EQ(r.spawn_errno, ENOENT);
  EXPECT_FALSE(r.spawn_error.empty());
  EXPECT_FALSE(r.status.valid);
  EXPECT_NE(r.status.code, 127);
}

TEST(RunSupervised, NoPathSearchForABareName) {
  // argv[0] is executed as is: "sh" alone is not looked up on PATH.
  SpawnSpec spec;
  spec.argv = {"sh", "-c", "exit 0"};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_EQ(r.spawn_errno, ENOENT);
}

TEST(RunSupervised, AFileWithoutExecutePermissionIsASpawnFailure) {
  TempDir dir;
  std::string path = dir.file("not-executable");
  test::write_file(path, "#!/bin/sh\nexit 0\n");
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  SpawnSpec spec;
  spec.argv = {path};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_EQ(r.spawn_errno, EACCES);
}

TEST(RunSupervised, EmptyArgvIsASpawnFailure) {
  RunResult r = run(SpawnSpec{});
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_NE(r.spawn_errno, 0);
}

TEST(RunSupervised, AMissingWorkingDirectoryIsASpawnFailure) {
  SpawnSpec spec = child({"exit", "0"});
  spec.cwd = "/nonexistent-kd-folder";
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_EQ(r.spawn_errno, ENOENT);
}

TEST(RunSupervised, AnImpossibleLimitIsASpawnFailure) {
  SpawnSpec spec = child({"exit", "0"});
  // A soft limit above the hard one is refused by the kernel (EINVAL).
  spec.rlimits.push_back({RLIMIT_NOFILE, rlimit{100, 10}});
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::SpawnFailed);
  EXPECT_EQ(r.spawn_errno, EINVAL);
}

TEST(RunSupervised, TheDeadlineEndsTheRunOnTime) {
  const double deadline = 1.0;
  auto start = Clock::now();
  RunResult r = run(child({"sleep", "30"}), deadline);
  double elapsed = seconds_since(start);
  EXPECT_EQ(r.end, RunEnd::Deadline);
  EXPECT_GE(elapsed, deadline - 0.05);
  EXPECT_LT(elapsed, deadline + kSlack);
  EXPECT_GE(r.elapsed_s, deadline - 0.05);
  EXPECT_LE(r.elapsed_s, elapsed + 0.01);
  // SIGTERM was enough for a program that does not resist.
  EXPECT_TRUE(r.status.signaled);
  EXPECT_EQ(r.status.signal, SIGTERM);
}

TEST(RunSupervised, ADeadlineAlreadyPastStillStopsTheChild) {
  auto start = Clock::now();
  RunResult r = run_supervised(child({"sleep", "30"}), Clock::now() - std::chrono::seconds(1), {});
  EXPECT_EQ(r.end, RunEnd::Deadline);
  EXPECT_LT(seconds_since(start), kSlack);
}

TEST(RunSupervised, SigtermIgnoredEscalatesToSigkill) {
  // Long enough for the child to start ignoring SIGTERM on a loaded machine.
  const double deadline = 2.0;
  SpawnSpec spec = child({"ignore-term"});
  Lines lines;
  auto start = Clock::now();
  RunResult r = run_events(spec, lines, deadline);
  double elapsed = seconds_since(start);
  ASSERT_EQ(lines, Lines{"ready"}) << "the child did not get to ignore SIGTERM in time";
  EXPECT_EQ(r.end, RunEnd::Deadline);
  EXPECT_TRUE(r.status.signaled);
  EXPECT_EQ(r.status.signal, SIGKILL);
  EXPECT_GE(elapsed, deadline + spec.kill_grace_s - 0.05);
  EXPECT_LT(elapsed, deadline + spec.kill_grace_s + kSlack);
}

TEST(RunSupervised, TheWholeGroupIsKilledOnDeadline) {
  Lines lines;
  RunResult r = run_events(child({"grandchild"}), lines, 2.0);
  EXPECT_EQ(r.end, RunEnd::Deadline);
  ASSERT_EQ(lines.size(), 1u) << "the child never reported its grandchild";
  pid_t grandchild = reported_pid(lines);
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(gone_within(grandchild, 3.0)) << "grandchild " << grandchild << " still runs";
  if (kill(grandchild, 0) == 0) kill(grandchild, SIGKILL);
}

TEST(RunSupervised, ALeaderThatExitsLeavesNoProcessOfItsGroup) {
  Lines lines;
  auto start = Clock::now();
  RunResult r = run_events(child({"orphan"}), lines);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_TRUE(r.status.exited());
  EXPECT_EQ(r.status.code, 0);
  // The grandchild holds the pipes open; the run must not wait for it.
  EXPECT_LT(seconds_since(start), 10.0);
  ASSERT_EQ(lines.size(), 1u);
  pid_t grandchild = reported_pid(lines);
  ASSERT_GT(grandchild, 1);
  EXPECT_TRUE(gone_within(grandchild, 3.0)) << "grandchild " << grandchild << " still runs";
  if (kill(grandchild, 0) == 0) kill(grandchild, SIGKILL);
}

namespace {

// Runs `mode` (a child that tells its grandchild's pid on fd 3) with an
// on_event_line hook that throws on that line, and an on_started hook that
// holds the watch back for `hold`. The exception must come through, with the
// grandchild gone and the leader reaped.
void expect_a_throwing_hook_leaves_nothing(const std::string& mode,
                                           std::chrono::milliseconds hold) {
  SpawnSpec spec = child({mode});
  spec.event_pipe = true;
  pid_t leader = 0;
  pid_t grandchild = 0;
  RunHooks hooks;
  hooks.on_started = [&leader, hold](int pid) {
    leader = pid;
    std::this_thread::sleep_for(hold);
  };
  hooks.on_event_line = [&grandchild](std::string_view line) {
    grandchild = static_cast<pid_t>(std::stol(std::string(line)));
    throw std::runtime_error("a hook failed");
  };
  EXPECT_THROW(run(spec, kLongDeadline, hooks), std::runtime_error);
  ASSERT_GT(leader, 1);
  ASSERT_GT(grandchild, 1) << "the child never reported its grandchild";
  EXPECT_TRUE(gone_within(grandchild, 3.0)) << "grandchild " << grandchild << " still runs";
  int st = 0;
  const pid_t reaped = waitpid(leader, &st, WNOHANG);
  const int wait_errno = errno;
  EXPECT_TRUE(reaped == -1 && wait_errno == ECHILD)
      << "the leader " << leader << " was not reaped (waitpid gave " << reaped << ")";
  for (pid_t pid : {leader, grandchild}) {
    if (kill(pid, 0) == 0) kill(pid, SIGKILL);
  }
  waitpid(leader, &st, 0);
}

}  // namespace

TEST(RunSupervised, AHookThatThrowsLeavesNoProcessOfTheGroupBehind) {
  expect_a_throwing_hook_leaves_nothing("grandchild", std::chrono::milliseconds(0));
}

TEST(RunSupervised, AHookThatThrowsOnTheLastLinesStillLeavesTheLeaderReaped) {
  // The child tells its grandchild's pid and exits while on_started holds the
  // watch back, so the line is delivered after the exit was seen, while the
  // run collects the child's last output.
  expect_a_throwing_hook_leaves_nothing("orphan", std::chrono::milliseconds(500));
}

TEST(RunSupervised, AHarnessCanKeepWhatALeaderLeftToSeeIt) {
  // end_group_on_exit = false: the straggler survives the run, so whoever
  // asked can find it (and must end it).
  SpawnSpec spec = child({"orphan"});
  spec.end_group_on_exit = false;
  Lines lines;
  RunResult r = run_events(spec, lines);
  EXPECT_EQ(r.end, RunEnd::Exited);
  ASSERT_EQ(lines.size(), 1u);
  pid_t grandchild = reported_pid(lines);
  ASSERT_GT(grandchild, 1);
  EXPECT_EQ(kill(grandchild, 0), 0) << "the straggler was ended although it was to be kept";
  kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone_within(grandchild, 3.0));
}

TEST(RunSupervised, TheChildLeadsItsOwnGroupAndIsReaped) {
  SpawnSpec spec = child({"group"});
  int started_pid = 0;
  RunHooks hooks;
  hooks.on_started = [&started_pid](int pid) { started_pid = pid; };
  RunResult r = run(spec, kLongDeadline, hooks);
  ASSERT_EQ(r.end, RunEnd::Exited);
  ASSERT_GT(started_pid, 0);
  EXPECT_EQ(r.out.data, std::to_string(started_pid) + " " + std::to_string(started_pid));
  EXPECT_NE(getpgid(0), started_pid);
  // Reaped: no zombie stays behind.
  pid_t waited = waitpid(started_pid, nullptr, WNOHANG);
  int wait_errno = errno;
  EXPECT_EQ(waited, -1);
  EXPECT_EQ(wait_errno, ECHILD);
}

TEST(RunSupervised, AChildThatClosesItsOutputStillRunsToItsEnd) {
  auto start = Clock::now();
  RunResult r = run(child({"close-std", "1.0", "7"}));
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_TRUE(r.status.exited());
  EXPECT_EQ(r.status.code, 7);
  EXPECT_GE(seconds_since(start), 0.95);
}

TEST(RunSupervised, AChildThatClosesItsOutputIsStillStoppedAtTheDeadline) {
  auto start = Clock::now();
  RunResult r = run(child({"close-std", "30", "0"}), 1.0);
  EXPECT_EQ(r.end, RunEnd::Deadline);
  EXPECT_LT(seconds_since(start), 1.0 + kSlack);
}

// poll fails with EINVAL once it is asked about more descriptors than
// RLIMIT_NOFILE allows: a real failure of the watch, made on purpose here.
TEST(RunSupervised, AFailedPollIsAWatchFailureAndStopsTheChild) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  pid_t child_pid = 0;
  RunHooks hooks;
  hooks.on_started = [&](int pid) {
    child_pid = pid;
    rlimit one = saved;
    one.rlim_cur = 1;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &one), 0);
  };
  auto start = Clock::now();
  RunResult r = run(child({"sleep", "60"}), kLongDeadline, hooks);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_EQ(r.end, RunEnd::WatchFailed) << "spawn_error: '" << r.spawn_error << "'";
  EXPECT_EQ(r.watch_errno, EINVAL);
  EXPECT_EQ(r.watch_error, std::string("poll: ") + strerror(EINVAL));
  EXPECT_TRUE(r.spawn_error.empty()) << r.spawn_error;
  EXPECT_TRUE(r.status.signaled) << r.status.describe();
  EXPECT_LT(seconds_since(start), 10.0);
  ASSERT_GT(child_pid, 0);
  EXPECT_TRUE(gone_within(child_pid, 5.0));
}

TEST(RunSupervised, StdinIsEmpty) {
  RunResult r = run(child({"stdin"}), 10.0);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.out.data, "0");
}

constexpr size_t kFlood = 4 * 1024 * 1024;

TEST(Capture, KeepsTheTailAndCountsTheRest) {
  SpawnSpec spec = child({"flood-out", std::to_string(kFlood)});
  spec.out = CaptureSpec{true, 64 * 1024, true};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.status.code, 0);
  EXPECT_EQ(r.out.data.size(), 64u * 1024);
  EXPECT_EQ(r.out.dropped, kFlood - 64 * 1024);
  EXPECT_EQ(r.out.data.substr(r.out.data.size() - 4), "TAIL");
  EXPECT_EQ(r.out.data.find("HEAD"), std::string::npos);
}

TEST(Capture, KeepsTheHeadAndCountsTheRest) {
  SpawnSpec spec = child({"flood-out", std::to_string(kFlood)});
  spec.out = CaptureSpec{true, 10000, false};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.status.code, 0);
  EXPECT_EQ(r.out.data.size(), 10000u);
  EXPECT_EQ(r.out.dropped, kFlood - 10000);
  EXPECT_EQ(r.out.data.substr(0, 4), "HEAD");
  EXPECT_EQ(r.out.data.find("TAIL"), std::string::npos);
}

TEST(Capture, StderrHasItsOwnLimit) {
  SpawnSpec spec = child({"flood-err", std::to_string(kFlood)});
  spec.err = CaptureSpec{true, 4096, true};
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.err.data.size(), 4096u);
  EXPECT_EQ(r.err.dropped, kFlood - 4096);
  EXPECT_EQ(r.out.data, "");
  EXPECT_EQ(r.out.dropped, 0u);
}

TEST(Capture, UnderTheLimitNothingIsDropped) {
  SpawnSpec spec = child({"flood-out", "5000"});
  RunResult r = run(spec);
  EXPECT_EQ(r.out.data.size(), 5000u);
  EXPECT_EQ(r.out.dropped, 0u);
  EXPECT_EQ(r.out.data.substr(0, 4), "HEAD");
  EXPECT_EQ(r.out.data.substr(4996), "TAIL");
}

TEST(Capture, DisabledCaptureNeitherBlocksNorKeeps) {
  SpawnSpec spec = child({"flood-out", std::to_string(kFlood)});
  spec.out.enabled = false;
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.status.code, 0);
  EXPECT_EQ(r.out.data, "");
  EXPECT_EQ(r.out.dropped, 0u);
}

TEST(Capture, SeparateStreams) {
  RunResult r = run(child({"interleave"}));
  EXPECT_EQ(r.out.data, "out1out2");
  EXPECT_EQ(r.err.data, "err1");
}

TEST(Capture, MergedStreamsKeepTheirOrder) {
  SpawnSpec spec = child({"interleave"});
  spec.merge_err_into_out = true;
  RunResult r = run(spec);
  EXPECT_EQ(r.out.data, "out1err1out2");
  EXPECT_EQ(r.err.data, "");
}

TEST(Capture, StdoutToADescriptorOfTheCaller) {
  TempDir dir;
  std::string path = dir.file("out.txt");
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  SpawnSpec spec = child({"interleave"});
  spec.out_fd = fd;
  RunResult r = run(spec);
  close(fd);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.out.data, "");
  EXPECT_EQ(r.err.data, "err1");
  EXPECT_EQ(test::read_file(path), "out1out2");
}

TEST(Capture, StdoutToAFullDeviceFailsTheChildsWrites) {
  int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full here";
  SpawnSpec spec = child({"flood-out", "100"});
  spec.out_fd = fd;
  RunResult r = run(spec);
  close(fd);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.status.code, 90);  // the child's own "write failed"
}

TEST(EventPipe, DeliversEachLine) {
  Lines lines;
  RunResult r = run_events(child({"events", "first", "{\"event\":\"stage\"}", "with space", ""}), lines);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(lines, (Lines{"first", "{\"event\":\"stage\"}", "with space", ""}));
  EXPECT_FALSE(r.event_line_overflow);
  // Events do not leak into the captured output.
  EXPECT_EQ(r.out.data, "");
}

TEST(EventPipe, ALineCutShortByTheEndIsNoEvent) {
  Lines lines;
  RunResult r = run_events(child({"raw-event", "complete\nincompl"}), lines);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(lines, Lines{"complete"});
}

TEST(EventPipe, ALineOfTheMaximumLengthIsDelivered) {
  Lines lines;
  RunResult r = run_events(child({"long-event", std::to_string(kMaxEventLine)}), lines);
  EXPECT_FALSE(r.event_line_overflow);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].size(), kMaxEventLine);
  EXPECT_EQ(lines[1], "after");
}

TEST(EventPipe, AnOversizedLineIsFlaggedAndDropped) {
  Lines lines;
  RunResult r = run_events(child({"long-event", std::to_string(kMaxEventLine + 1)}), lines);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_TRUE(r.event_line_overflow);
  // The rest of the stream still arrives, line by line.
  EXPECT_EQ(lines, Lines{"after"});
}

TEST(SpawnSpec, AnExplicitEnvironmentReplacesTheInheritedOne) {
  ASSERT_EQ(setenv("KD_UNIT_INHERITED", "from-parent", 1), 0);
  SpawnSpec spec = child({"env", "KD_UNIT_INHERITED"});
  spec.env = std::vector<std::string>{"KD_UNIT_GIVEN=given-value"};
  RunResult replaced = run(spec);
  spec.argv.back() = "KD_UNIT_GIVEN";
  RunResult given = run(spec);
  unsetenv("KD_UNIT_INHERITED");
  EXPECT_EQ(replaced.out.data, "<unset>");
  EXPECT_EQ(given.out.data, "given-value");
}

TEST(SpawnSpec, WithoutAnEnvironmentTheParentsIsInherited) {
  ASSERT_EQ(setenv("KD_UNIT_INHERITED", "from-parent", 1), 0);
  RunResult r = run(child({"env", "KD_UNIT_INHERITED"}));
  unsetenv("KD_UNIT_INHERITED");
  EXPECT_EQ(r.out.data, "from-parent");
}

TEST(SpawnSpec, WorkingDirectoryIsApplied) {
  TempDir dir;
  char* real = realpath(dir.path().c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  std::string expected = real;
  free(real);
  SpawnSpec spec = child({"cwd"});
  spec.cwd = dir.path();
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.out.data, expected);
}

TEST(SpawnSpec, ResourceLimitsAreApplied) {
  rlimit current{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &current), 0);
  rlim_t wanted = 37;
  if (current.rlim_max != RLIM_INFINITY && current.rlim_max < wanted) {
    GTEST_SKIP() << "hard limit too low";
  }
  SpawnSpec spec = child({"nofile"});
  spec.rlimits.push_back({RLIMIT_NOFILE, rlimit{wanted, current.rlim_max}});
  RunResult r = run(spec);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_EQ(r.out.data, "37");
  // The parent's own limit is untouched.
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &after), 0);
  EXPECT_EQ(after.rlim_cur, current.rlim_cur);
}

TEST(RunHooks, ATickMaySignalTheGroup) {
  RunHooks hooks;
  int ticks = 0;
  hooks.on_tick = [&ticks](double elapsed) {
    ++ticks;
    return elapsed >= 0.2 ? SIGUSR1 : 0;
  };
  auto start = Clock::now();
  RunResult r = run(child({"sleep", "30"}), kLongDeadline, hooks);
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_TRUE(r.status.signaled);
  EXPECT_EQ(r.status.signal, SIGUSR1);
  EXPECT_GE(ticks, 2);
  EXPECT_LT(seconds_since(start), 0.2 + kSlack * 2);
}

TEST(RunSupervised, AnInterruptStopsTheChildAndIsReported) {
  // The interrupt flag is process-wide and stays set, so this runs in a
  // forked copy of the test; the exit code says which check failed.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    install_signal_handling(true);
    SpawnSpec spec = child({"grandchild"});
    spec.event_pipe = true;
    pid_t grandchild = 0;
    bool raised = false;
    RunHooks hooks;
    hooks.on_event_line = [&grandchild](std::string_view l) {
      grandchild = static_cast<pid_t>(std::stol(std::string(l)));
    };
    hooks.on_tick = [&](double elapsed) {
      if (!raised && grandchild > 0 && elapsed >= 0.2) {
        raised = true;
        raise(SIGTERM);
      }
      return 0;
    };
    auto start = Clock::now();
    RunResult r = run_supervised(spec, deadline_in(kLongDeadline), hooks);
    if (r.end != RunEnd::Interrupted) _exit(10);
    if (r.interrupt_signal != SIGTERM) _exit(11);
    if (pending_interrupt() != SIGTERM) _exit(12);
    if (seconds_since(start) > 10.0) _exit(13);
    if (grandchild <= 0) _exit(14);
    if (!gone_within(grandchild, 3.0)) {
      kill(grandchild, SIGKILL);
      _exit(15);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: not Interrupted, 11: wrong signal, 12: not pending, 13: too slow, "
         "14: no grandchild reported, 15: grandchild left running";
}

namespace {

// The fork-mask test's record, written on the child's side of the fork: 'f'
// once the signal was raised there, 'h' for each run of this process's
// handler there.
int g_child_record = -1;
pid_t g_test_process = 0;
std::atomic<bool> g_raise_after_fork{false};

void note_a_run_in_a_child(int) {
  if (getpid() != g_test_process) {
    ssize_t ignored = write(g_child_record, "h", 1);
    (void)ignored;
  }
}

// A pthread_atfork child handler: a signal for the child arrives right after
// the fork, before the child had the time to reset anything, as a signal sent
// to the caller's process group reaches a child that has not left it yet.
void raise_in_the_child() {
  if (!g_raise_after_fork.load()) return;
  ssize_t ignored = write(g_child_record, "f", 1);
  (void)ignored;
  raise(SIGWINCH);
}

}  // namespace

TEST(RunSupervised, NoHandlerOfTheCallerRunsInTheChild) {
  int record[2];
  ASSERT_EQ(pipe2(record, O_CLOEXEC | O_NONBLOCK), 0);
  g_child_record = record[1];
  g_test_process = getpid();
  struct sigaction handler {};
  struct sigaction saved {};
  handler.sa_handler = note_a_run_in_a_child;
  sigemptyset(&handler.sa_mask);
  ASSERT_EQ(sigaction(SIGWINCH, &handler, &saved), 0);
  // A handler cannot be unregistered: it acts only while the flag is set.
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(nullptr, nullptr, raise_in_the_child); });
  g_raise_after_fork = true;
  RunResult r = run(child({"exit", "0"}));
  g_raise_after_fork = false;
  sigaction(SIGWINCH, &saved, nullptr);
  char buf[16];
  const ssize_t n = read(record[0], buf, sizeof buf);
  close(record[0]);
  close(record[1]);
  // SIGWINCH is ignored by default: once reset, the pending one is dropped and
  // the program runs as usual.
  EXPECT_EQ(r.end, RunEnd::Exited);
  EXPECT_TRUE(r.status.exited() && r.status.code == 0) << r.status.describe();
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<size_t>(n) : 0), "f")
      << "f: the child got the signal; h: the caller's handler ran in the child";
}

}  // namespace
}  // namespace kd

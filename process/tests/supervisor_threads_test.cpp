// Covers kd/supervisor.hpp used from several threads at once, as the conformance harness uses it
// (copies of a case in parallel): the one-time signal set-up, raced by the first runs of a
// process, and runs that overlap. The tsan build (process/CMakePresets.json, ./ci/test) runs it
// under ThreadSanitizer, where a data race ends the program and so fails the test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "child.hpp"
#include "kd/supervisor.hpp"
#include "util/files.hpp"

namespace kd {
namespace {

constexpr int kThreads = 6;
constexpr int kRunsPerThread = 4;

// One thread's runs, started together with the others' at `go`: each child writes its own line
// on its event pipe. Half the threads also ask for the interrupt handlers first, racing on that
// set-up too. Returns what went wrong, one line each.
std::string runs_of_one_thread(int thread, const std::atomic<bool>& go) {
  while (!go.load()) std::this_thread::yield();
  if (thread % 2 == 1) install_signal_handling(true);
  std::string problems;
  for (int i = 0; i < kRunsPerThread; ++i) {
    const std::string line = std::to_string(thread) + "." + std::to_string(i);
    SpawnSpec spec = test::child({"events", line});
    spec.event_pipe = true;
    std::vector<std::string> lines;
    RunHooks hooks;
    hooks.on_event_line = [&lines](std::string_view l) { lines.emplace_back(l); };
    const RunResult r = run_supervised(spec, deadline_in(30.0), hooks);
    if (r.end != RunEnd::Exited || !r.status.exited() || r.status.code != 0 ||
        lines != std::vector<std::string>{line}) {
      problems += "run " + line + ": " + r.status.describe() + ", " +
                  std::to_string(lines.size()) + " event line(s), spawn error '" +
                  r.spawn_error + "'\n";
    }
  }
  return problems;
}

// All threads' runs; what went wrong, if anything.
std::string runs_of_all_threads() {
  std::atomic<bool> go{false};
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { problems[static_cast<size_t>(t)] = runs_of_one_thread(t, go); });
  }
  go = true;
  for (auto& t : threads) t.join();
  std::string all;
  for (const auto& p : problems) all += p;
  return all;
}

TEST(RunSupervised, RunsFromSeveralThreadsAtOnce) {
  // In a forked copy of the test, whose interrupt handlers end with it. ctest runs each test in
  // a process of its own, so the copy's first runs are the process's first: they race on the
  // signal set-up.
  int report[2];
  ASSERT_EQ(pipe2(report, O_CLOEXEC), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Ended with the test, should the test be stopped first.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(report[0]);
    const std::string problems = runs_of_all_threads();
    _exit(write_all(report[1], problems) == 0 && problems.empty() ? 0 : 1);
  }
  close(report[1]);
  std::string problems;
  char buf[4096];
  for (ssize_t n; (n = read(report[0], buf, sizeof buf)) != 0;) {
    if (n > 0) problems.append(buf, static_cast<size_t>(n));
    if (n < 0 && errno != EINTR) break;
  }
  close(report[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: a run went wrong; 86: a sanitizer found a defect (its report is above)\n"
      << problems;
}

}  // namespace
}  // namespace kd

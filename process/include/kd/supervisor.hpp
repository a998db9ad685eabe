// Starts a program in its own process group and supervises it to the end:
// captured output, an optional line-oriented event pipe, a deadline on the
// monotonic clock, interruption by SIGINT/SIGTERM/SIGHUP, and a teardown that
// leaves no process of the group running (SIGTERM, a short grace, SIGKILL).
//
//   kd::SpawnSpec spec;
//   spec.argv = {"/usr/bin/nvidia-smi", "--query-gpu=driver_version"};
//   auto run = kd::run_supervised(spec, kd::deadline_in(3.0), {});
//   if (run.end == kd::RunEnd::Exited && run.status.exited() && run.status.code == 0) ...
//
// Used by the check (worker, nvidia-smi) and by the conformance harness, which
// supervises several runs at once from as many threads: runs share nothing but
// the process's signal set-up, made once by whichever thread comes first.
#pragma once

#include <sys/resource.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/time.hpp"  // Clock, deadline_in

namespace kd {

// A capture keeps the first or the last `limit` bytes of a stream and counts
// the rest, so a flooding child can neither block nor exhaust memory.
struct CaptureSpec {
  bool enabled = true;
  size_t limit = 64 * 1024;
  bool keep_tail = true;
};

struct SpawnSpec {
  std::vector<std::string> argv;                // argv[0] is executed as is (no PATH search)
  std::optional<std::vector<std::string>> env;  // whole environment; nullopt inherits
  std::string cwd;                              // empty: inherit
  CaptureSpec out;                              // the child's stdout
  // When >= 0, the child's stdout is this descriptor instead (not captured):
  // a file, a device, a pipe of the caller's, opened close-on-exec. It stays
  // open in the caller.
  int out_fd = -1;
  CaptureSpec err;                              // the child's stderr
  bool merge_err_into_out = false;              // one stream, in order
  bool event_pipe = false;                      // a pipe on the child's fd 3
  std::vector<std::pair<int, rlimit>> rlimits;  // applied in the child
  bool die_with_parent = true;                  // PR_SET_PDEATHSIG(SIGKILL)
  double kill_grace_s = 0.15;                   // SIGTERM -> SIGKILL delay on teardown
  // After the child ends on its own, end whatever is left of its group. A
  // harness that must see what a program leaves behind turns this off.
  bool end_group_on_exit = true;
};

struct WaitStatus {
  bool valid = false;
  bool signaled = false;
  int code = -1;    // exit code when !signaled
  int signal = 0;   // terminating signal when signaled
  bool exited() const { return valid && !signaled; }
  std::string describe() const;  // "exited with code 3", "killed by signal SIGSEGV"
};

enum class RunEnd {
  Exited,        // the child ended on its own
  Deadline,      // the deadline passed; the group was killed
  Interrupted,   // this process got SIGINT/SIGTERM/SIGHUP; the group was killed
  SpawnFailed,   // the program could not be started (see spawn_error)
  WatchFailed,   // the child ran but could no longer be watched (see watch_error);
                 // the group was killed
};

struct Captured {
  std::string data;
  size_t dropped = 0;  // bytes beyond the limit
};

struct RunResult {
  RunEnd end = RunEnd::SpawnFailed;
  WaitStatus status;      // how the child ended (also after a kill)
  Captured out, err;
  int interrupt_signal = 0;
  std::string spawn_error;  // when SpawnFailed: "No such file or directory"
  int spawn_errno = 0;
  std::string watch_error;  // when WatchFailed: "poll: Invalid argument"
  int watch_errno = 0;
  bool event_line_overflow = false;  // an event line exceeded kMaxEventLine
  double elapsed_s = 0;
};

inline constexpr size_t kMaxEventLine = 64 * 1024;

// A hook may throw: the exception leaves run_supervised after the child's
// whole group has been killed and the child reaped.
struct RunHooks {
  // Each complete line written by the child on its fd 3 (without '\n').
  std::function<void(std::string_view)> on_event_line;
  // Called once the child runs, with its pid (= its process group id).
  std::function<void(int pid)> on_started;
  // Called between waits; may return a signal to send to the child's group
  // now (0 for none). Lets a harness interrupt a child at a chosen moment.
  std::function<int(double elapsed_s)> on_tick;
  double tick_interval_s = 0.05;
  // Where on_tick's signal goes: the child's whole group, or the child alone
  // (as `kill PID` from a supervisor would).
  bool tick_signal_to_group = true;
};

// Installs (once) the handlers this module needs: SIGCHLD always; SIGINT,
// SIGTERM and SIGHUP when `catch_interrupts` is set, so that an interrupted
// check can end its children before it exits. Ignores SIGPIPE and SIGXFSZ so
// that write errors come back as errno.
void install_signal_handling(bool catch_interrupts);

// An interrupt received outside run_supervised (0 if none).
int pending_interrupt();

RunResult run_supervised(const SpawnSpec& spec, Clock::time_point deadline,
                         const RunHooks& hooks);

// Re-raises `signal` with its default action, ending this process.
[[noreturn]] void die_by_signal(int signal);

}  // namespace kd

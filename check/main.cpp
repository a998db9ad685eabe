// kernodeck-diagnostic: the parent process (parse, supervise, report) or,
// when re-executed with the internal worker argument, the worker.
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "run/cli.hpp"
#include "run/orchestrator.hpp"
#include "facts/outcome.hpp"
#include "kd/supervisor.hpp"
#include "util/files.hpp"
#include "util/signals.hpp"
#include "run/worker.hpp"

namespace {

// Descriptors 0-2 must exist so that pipes never take their numbers.
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) < 0) {
      int null_fd = open("/dev/null", O_RDWR);
      if (null_fd >= 0 && null_fd != fd) {
        dup2(null_fd, fd);
        close(null_fd);
      }
    }
  }
}


std::string self_executable(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  char resolved[PATH_MAX];
  if (argv0 != nullptr && realpath(argv0, resolved) != nullptr) return resolved;
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (!args.empty() && args[0] == kd::kWorkerArg) kd::worker_main(args);

  ensure_standard_fds();
  kd::ParseResult parsed = kd::parse_command_line(args);
  if (auto* request = std::get_if<kd::InfoRequest>(&parsed)) {
    const bool ends_line = !request->text.empty() && request->text.back() == '\n';
    return kd::write_all(1, request->text + (ends_line ? "" : "\n")) == 0 ? 0 : 1;
  }
  if (auto* error = std::get_if<kd::UsageError>(&parsed)) {
    kd::write_all(2, error->message + "\n");
    return kd::kUsageExitCode;
  }
  const auto& options = std::get<kd::Options>(parsed);
  const std::string self = self_executable(argc > 0 ? argv[0] : nullptr);
  // A usage error the probe that serves tells: before any check runs, nothing on stdout.
  if (auto refused = kd::refused_for_probe(options, self)) {
    kd::write_all(2, *refused + "\n");
    return kd::kUsageExitCode;
  }

  // SIGPIPE is ignored from here on: a stdout whose reader left is EPIPE.
  kd::install_signal_handling(/*catch_interrupts=*/true);
  const kd::ReportWriter to_stdout = [](const std::string& report) {
    return kd::write_all(1, report);
  };
  kd::CheckRun run;
  try {
    if (self.empty()) throw std::runtime_error("the check cannot locate its own executable");
    run = kd::run_check(options, self, to_stdout);
  } catch (const std::exception& e) {
    // Still a report: a defect of the check must not look like silence.
    run = kd::internal_error_run(options, e.what(), to_stdout);
  }
  if (run.die_signal != 0) {
    kd::write_all(2, "kernodeck-diagnostic: interrupted by " + kd::signal_name(run.die_signal) +
                         "; the worker was stopped and no report was made\n");
    kd::die_by_signal(run.die_signal);
  }
  if (!run.stdout_problem.empty()) {
    kd::write_all(2, "kernodeck-diagnostic: " + run.stdout_problem + "\n");
  }
  for (const std::string& warning : run.warnings) kd::write_all(2, warning + "\n");
  kd::write_all(2, run.verdict + "\n");
  return run.exit_code;
}

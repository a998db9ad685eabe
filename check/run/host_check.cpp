#include "run/host_check.hpp"

#include <charconv>
#include <cstdlib>
#include <limits>

#include "kd/supervisor.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace kd {
namespace {

bool is_driver_version(std::string_view s) {
  if (s.empty() || s.size() > 32 || s.front() < '0' || s.front() > '9') return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  }
  return true;
}

}  // namespace

std::optional<HostCheckResult> parse_nvidia_smi(std::string_view output) {
  HostCheckResult result{"ok", std::nullopt, 0};
  long long total = 0;
  int gpus = 0;
  for (std::string_view line : split_lines(output)) {
    line = trim(line);
    if (line.empty()) continue;
    size_t comma = line.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    std::string_view driver = trim(line.substr(0, comma));
    std::string_view memory = trim(line.substr(comma + 1));
    if (!is_driver_version(driver)) return std::nullopt;
    long long mib = 0;
    auto [ptr, ec] = std::from_chars(memory.data(), memory.data() + memory.size(), mib);
    if (ec != std::errc() || ptr != memory.data() + memory.size() || mib < 0) {
      return std::nullopt;
    }
    // A sum beyond a long long is no amount nvidia-smi could mean: refused.
    if (mib > std::numeric_limits<long long>::max() - total) return std::nullopt;
    if (!result.driver_version) result.driver_version = std::string(driver);
    total += mib;
    ++gpus;
  }
  if (gpus == 0) return std::nullopt;
  result.memory_total_mib = total;
  return result;
}

HostCheckResult run_host_check(int& interrupted) {
  interrupted = 0;
  const char* path = std::getenv("PATH");
  auto program = find_on_path("nvidia-smi", path != nullptr ? path : "");
  if (!program) return {"not_found", std::nullopt, std::nullopt};

  SpawnSpec spec;
  spec.argv = {*program, "--query-gpu=driver_version,memory.total",
               "--format=csv,noheader,nounits"};
  spec.out = CaptureSpec{true, 64 * 1024, /*keep_tail=*/false};
  spec.err = CaptureSpec{true, 4 * 1024, true};
  RunResult run = run_supervised(spec, deadline_in(kHostCheckLimitS), {});
  switch (run.end) {
    case RunEnd::Interrupted:
      interrupted = run.interrupt_signal;
      return {"failed", std::nullopt, std::nullopt};
    case RunEnd::Deadline:
      return {"timeout", std::nullopt, std::nullopt};
    case RunEnd::SpawnFailed:
    case RunEnd::WatchFailed:
      return {"failed", std::nullopt, std::nullopt};
    case RunEnd::Exited:
      break;
  }
  if (!run.status.exited() || run.status.code != 0 || run.out.dropped > 0) {
    return {"failed", std::nullopt, std::nullopt};
  }
  auto parsed = parse_nvidia_smi(run.out.data);
  if (!parsed) return {"failed", std::nullopt, std::nullopt};
  return *parsed;
}

}  // namespace kd

// The optional host check: asks nvidia-smi, when it is on PATH, for the
// driver version and the total memory it sees, within 3 s of its own.
// Informative only; its outcome never changes the check's exit code.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "run/report.hpp"

namespace kd {

inline constexpr double kHostCheckLimitS = 3.0;

// Parses `--query-gpu=driver_version,memory.total --format=csv,noheader,nounits`
// output: one "driver, MiB" line per GPU. Total memory is the sum over GPUs.
std::optional<HostCheckResult> parse_nvidia_smi(std::string_view output);

// Runs it. `interrupted` is set to the signal when SIGINT/SIGTERM arrived.
HostCheckResult run_host_check(int& interrupted);

}  // namespace kd

// The command line of the check (CONTRACT.md, "Command line"), parsed with
// CLI11. A usage error is a value here; main() prints it and exits 2.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "stages/stage.hpp"

namespace kd {

struct Options {
  Device device = Device::Cuda;
  long long device_index = 0;
  double timeout_s = 30.0;
  std::optional<std::string> output;
  bool host_check = false;
  // Modules of the application to import after the computation (--import), in order, each
  // once: dotted Python names ("torchvision", "torchvision.ops").
  std::vector<std::string> imports;
  // Weights files of the application to open after the computation (--weights), in order, each
  // once: the path as given, and its base name.
  std::vector<WeightsAsked> weights;
  // The computation a second time through torch.compile (--compile).
  bool compile = false;
  // Precisions to run the computation in after the weights (--dtype), in order, each once:
  // names of kPrecisions.
  std::vector<std::string> dtypes;
};

// The precisions --dtype takes, torch's names (the python probe's PRECISIONS, check/probe/python/
// precision.py, the same list: checked by the test Cli.PrecisionsAreTheProbes).
inline constexpr std::array<std::string_view, 6> kPrecisions = {
    "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float32", "float64"};

// "float16, bfloat16, ..., float64".
std::string joined_precisions();

inline constexpr double kMinTimeoutS = 5.0;
inline constexpr double kMaxTimeoutS = 120.0;

// Seconds as the contract writes them: "30" (not "30.000000"), "7.5".
std::string seconds_text(double seconds);

// --help or --version: print `text` on stdout and exit 0.
struct InfoRequest {
  std::string text;
};

// Bad arguments: print `message` on stderr and exit 2, nothing on stdout.
struct UsageError {
  std::string message;
};

using ParseResult = std::variant<Options, InfoRequest, UsageError>;

ParseResult parse_command_line(const std::vector<std::string>& args);

}  // namespace kd

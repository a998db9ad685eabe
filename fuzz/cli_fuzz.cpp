// The command line (check/run/cli.hpp): any argument list is an answer, never an exception;
// accepted options respect the contract's ranges, a usage error says something.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "run/cli.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // One argument per line, as a shell would hand them over (without quoting).
  std::vector<std::string> args;
  std::string current;
  bool any = false;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(current);
      current.clear();
      any = false;
    } else {
      current.push_back(static_cast<char>(data[i]));
      any = true;
    }
  }
  if (any) args.push_back(current);

  kd::ParseResult parsed = kd::parse_command_line(args);
  if (const auto* options = std::get_if<kd::Options>(&parsed)) {
    KD_FUZZ_REQUIRE(std::isfinite(options->timeout_s), "an accepted timeout is a number");
    KD_FUZZ_REQUIRE(options->timeout_s >= kd::kMinTimeoutS && options->timeout_s <= kd::kMaxTimeoutS,
                    "an accepted timeout is within the contract's range");
    KD_FUZZ_REQUIRE(!options->output || !options->output->empty(),
                    "an accepted --output names something");
    KD_FUZZ_REQUIRE(options->device == kd::Device::Cuda || options->device == kd::Device::Cpu,
                    "an accepted device is cuda or cpu");
  } else if (const auto* error = std::get_if<kd::UsageError>(&parsed)) {
    KD_FUZZ_REQUIRE(!error->message.empty(), "a usage error has a message");
  } else {
    const auto& info = std::get<kd::InfoRequest>(parsed);
    KD_FUZZ_REQUIRE(!info.text.empty(), "--help and --version print something");
  }
  return 0;
}

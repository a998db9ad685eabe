// The nvidia-smi parser (check/run/host_check.hpp): any output is read or refused, never
// invented: an answer holds a driver version made of digits and dots that appears in the
// output, and a total memory that is not negative.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "run/host_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view output(reinterpret_cast<const char*>(data), size);
  auto parsed = kd::parse_nvidia_smi(output);
  if (!parsed) return 0;
  KD_FUZZ_REQUIRE(parsed->status == "ok", "a parsed answer is ok");
  KD_FUZZ_REQUIRE(parsed->driver_version && !parsed->driver_version->empty(),
                  "a parsed answer has a driver version");
  KD_FUZZ_REQUIRE(output.find(*parsed->driver_version) != std::string_view::npos,
                  "the driver version is one nvidia-smi printed");
  for (char c : *parsed->driver_version) {
    KD_FUZZ_REQUIRE((c >= '0' && c <= '9') || c == '.', "a driver version is digits and dots");
  }
  KD_FUZZ_REQUIRE(parsed->memory_total_mib && *parsed->memory_total_mib >= 0,
                  "a parsed answer has a total memory, not negative");
  return 0;
}

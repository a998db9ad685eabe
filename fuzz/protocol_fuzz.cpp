// The worker's event lines (check/facts/protocol.hpp), as the parent folds them: whatever a confused
// worker or a fixture sends, the findings keep exactly the report's keys, the stage stays a
// worker stage, and nothing throws.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "facts/protocol.hpp"

namespace {

std::vector<std::string> keys_of(const kd::ojson& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

// The keys the report has, in its order: the skeleton's.
void require_same_keys(const kd::ojson& found, const kd::ojson& skeleton, const char* what) {
  KD_FUZZ_REQUIRE(found.is_object(), what);
  KD_FUZZ_REQUIRE(keys_of(found) == keys_of(skeleton), what);
  for (const auto& [key, value] : skeleton.items()) {
    if (value.is_object()) {
      const auto& inner = found.at(key);
      KD_FUZZ_REQUIRE(inner.is_null() || keys_of(inner) == keys_of(value), what);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  kd::WorkerFindings findings;
  std::size_t start = 0;
  while (start <= input.size()) {
    std::size_t nl = input.find('\n', start);
    if (nl == std::string_view::npos) nl = input.size();
    kd::apply_event(findings, input.substr(start, nl - start));
    start = nl + 1;
  }
  require_same_keys(findings.pytorch, kd::pytorch_skeleton(),
                    "pytorch keeps exactly the report's keys");
  require_same_keys(findings.execution, kd::execution_skeleton(),
                    "execution keeps exactly the report's keys");
  KD_FUZZ_REQUIRE(findings.stage <= kd::kLastWorkerStage, "the worker's stage is a worker stage");
  KD_FUZZ_REQUIRE(!findings.outcome_stage || findings.outcome,
                  "an outcome's stage comes only with an outcome");
  // The parent serializes what it kept into the report.
  (void)findings.pytorch.dump();
  (void)findings.execution.dump();
  return 0;
}

// The JUnit converter's inputs (reporting/junit_inputs.hpp): CTest's JUnit, a case's record
// (contract/case_record.hpp) and `ctest --show-only=json-v1`. An input is read or refused (an
// InputError; a record, nullopt); any other exception, a crash or a leak is a defect. One program
// per input kind (KD_FUZZ_INPUT).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "fuzz_check.hpp"
#include "junit_inputs.hpp"

#if !defined(KD_FUZZ_INPUT)
#error "KD_FUZZ_INPUT names the parser: 1 CTest JUnit, 2 a case record, 3 CTest's JSON"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  try {
#if KD_FUZZ_INPUT == 1
    kd::junit::CtestRun run = kd::junit::parse_ctest_junit(input);
    for (const auto& c : run.cases) KD_FUZZ_REQUIRE(!c.name.empty(), "a CTest case has a name");
#elif KD_FUZZ_INPUT == 2
    if (const std::optional<kdh::CaseRecord> record = kdh::parse_record(input)) {
      KD_FUZZ_REQUIRE(!record->name.empty(), "a record has a name");
      // What is read is written again as it was read.
      const std::optional<kdh::CaseRecord> again = kdh::parse_record(kdh::record_text(*record));
      KD_FUZZ_REQUIRE(again && kdh::record_text(*again) == kdh::record_text(*record),
                      "a record read back reads the same");
    }
#else
    auto tests = kd::junit::parse_ctest_tests_json(input);
    (void)tests;
#endif
  } catch (const kd::junit::InputError&) {
    // Refused, with a reason: what the converter promises for input it cannot read.
  }
  return 0;
}

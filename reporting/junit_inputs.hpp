// What the converter reads: CTest's JUnit (ctest --output-junit), the record each case leaves
// where it runs (contract/case_record.hpp) and ctest --show-only=json-v1. Each parser refuses
// what it cannot read with an InputError.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contract/case_record.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// ---- CTest's own JUnit (ctest --output-junit) -------------------------------------------------

// Started: no CTest verdict exists (a run converted by its own cleanup test, which reads only the
// records of the cases that started, see run_from_records).
enum class CtestStatus { Passed, Failed, NotRun, Disabled, Started };

struct CtestCase {
  std::string name;    // the CTest test name, e.g. "cli.run/usage_unknown_option"
  CtestStatus status = CtestStatus::Failed;
  std::string reason;  // CTest's skipped/failure message: why it did not run, or empty
  double time = 0;     // seconds, as CTest measured the process
  std::string output;  // what CTest captured from the process
};

struct CtestRun {
  double time = 0;
  std::vector<CtestCase> cases;
};

CtestRun parse_ctest_junit(const std::string& xml);

// ---- The cases' records (contract/case_record.hpp) ---------------------------------------------

using kdh::CaseRecord;

// Each case's record, by its full GoogleTest name.
using CaseRecords = std::map<std::string, CaseRecord>;

// Adds `record` to `records`; where two files record the same case, the later start wins.
void add_record(CaseRecords& records, CaseRecord record);

// Every record under `dir`, recursively (a value-parameterized case's name makes a subfolder).
// A file that cannot be read or is not a record (half-written by a killed process, foreign) is
// reported through `warnings` and otherwise ignored: it must not stop the report.
CaseRecords load_records(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// ---- A run without CTest's JUnit --------------------------------------------------------------

// The run as the cases themselves recorded it, for the cleanup test of a plain `ctest` run,
// which cannot see CTest's selection: every case that left a record in the folder (emptied when
// the run began), in name order, each Started with GoogleTest's time: convert() takes the verdict
// from the record, and reports a case whose record never ended (crashed, killed, timed out) as
// an error.
CtestRun run_from_records(const CaseRecords& records);

// ---- ctest --show-only=json-v1 -----------------------------------------------------------------

struct TestInfo {
  bool gtest = false;
  std::string gtest_name;  // the --gtest_filter value when it names exactly one test
  std::optional<double> timeout;
  bool will_fail = false;
};

std::map<std::string, TestInfo> parse_ctest_tests_json(const std::string& json);

}  // namespace kd::junit

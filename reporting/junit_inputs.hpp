// What the converter reads: CTest's JUnit (ctest --output-junit), GoogleTest's XML of each case
// (--gtest_output=xml) with the ".started" marks beside it, and ctest --show-only=json-v1.
// Each parser refuses what it cannot read with an InputError.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "junit_report.hpp"
#include "started_mark.hpp"

namespace kd::junit {

// ---- CTest's own JUnit (ctest --output-junit) -------------------------------------------------

// Started: no CTest verdict exists (a run converted by its own cleanup test, which reads only
// GoogleTest's XML and the marks of the cases that started, see run_from_started).
enum class CtestStatus { Passed, Failed, NotRun, Disabled, Started };

struct CtestCase {
  std::string name;    // the CTest test name, e.g. "cli.run/usage_unknown_option"
  CtestStatus status = CtestStatus::Failed;
  std::string reason;  // CTest's skipped/failure message: why it did not run, or empty
  double time = 0;     // seconds, as CTest measured the process
  std::string output;  // what CTest captured from the process
};

struct CtestRun {
  std::string timestamp;  // when the run started, local time, "YYYY-MM-DDTHH:MM:SS"
  double time = 0;
  std::vector<CtestCase> cases;
};

CtestRun parse_ctest_junit(const std::string& xml);

// ---- GoogleTest's XML (--gtest_output=xml) ----------------------------------------------------

struct GtestCase {
  std::string suite;  // e.g. "cli"
  std::string name;   // e.g. "run/usage_unknown_option"
  bool skipped = false;
  std::vector<std::string> failures;  // full text of each failed assertion
  std::string skip_text;
  std::string timestamp;  // when the case started, local time; may be empty
  std::string source;     // the file it came from, for messages
  double time = 0;        // seconds, as GoogleTest measured the case
  // What the case guards: from GoogleTest's value_param, which the harness prints as
  // "<layer>.<id> guards: <promise>" (harness/case.cpp, PrintTo); empty for other tests.
  std::string promise;
  // Where the case is declared, as GoogleTest recorded it (the <testcase>'s file and line
  // attributes: a TEST's, a TEST_P's, or what RegisterTest was given); empty and 0 when absent.
  std::string file;
  int line = 0;

  std::string full_name() const { return suite + "." + name; }
};

std::vector<GtestCase> parse_gtest_xml(const std::string& xml, const std::string& source);

// "<file>:<line>", or empty without a file.
std::string declaration(const std::string& file, int line);

// Files are found by what they contain, not by their names: GoogleTest derives the name from
// the test name, which holds a '/' for parameterized cases and so lands in a subfolder.
class GtestIndex {
 public:
  // Where two files describe the same case (an older build layout left behind), the most
  // recent one wins.
  void add(GtestCase c);
  // A case's ".started" mark (see started_mark.hpp); a later mark of the same case wins.
  void add_started(StartedCase c);
  const GtestCase* find(const std::string& full_name) const;
  // Where the case is declared: from its XML, else from its mark; empty when neither says.
  std::string declared(const std::string& full_name) const;
  std::size_t size() const { return cases_.size(); }
  const std::map<std::string, GtestCase>& cases() const { return cases_; }
  const std::map<std::string, StartedCase>& started() const { return started_; }

 private:
  std::map<std::string, GtestCase> cases_;
  std::map<std::string, StartedCase> started_;
};

// Every *.xml (GoogleTest's verdicts) and every "*.started" mark under `dir`, recursively.
// Unreadable or foreign files are reported through `warnings` and otherwise ignored: a
// half-written file from a killed process must not stop the report.
GtestIndex load_gtest_dir(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// ---- A run without CTest's JUnit --------------------------------------------------------------

// The run as the cases themselves recorded it, for the cleanup test of a plain `ctest` run,
// which cannot see CTest's selection: every case that left a ".started" mark or a verdict in
// the folder `gtest` was read from (emptied when the run began), in name order, each Started
// with GoogleTest's time: convert() takes the verdict from GoogleTest's XML, and reports a case
// that started and wrote none (crashed, killed, timed out) as an error.
CtestRun run_from_started(const GtestIndex& gtest);

// ---- ctest --show-only=json-v1 -----------------------------------------------------------------

struct TestInfo {
  bool gtest = false;
  std::string gtest_name;  // the --gtest_filter value when it names exactly one test
  std::optional<double> timeout;
  bool will_fail = false;
};

std::map<std::string, TestInfo> parse_ctest_tests_json(const std::string& json);

}  // namespace kd::junit

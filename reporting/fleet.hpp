// A fleet: the check's own JSON reports of many GPUs on many nodes (a Slurm job, a CI matrix),
// one file "<node>.<unit>.json" per GPU in one folder, turned into one JUnit report (a testsuite
// per node, a testcase per GPU) plus a fleet view for the Markdown summary and HTML certificate.
// A GPU that was expected and left no report is an error, never a silent gap.
//
//   Fleet fleet = read_fleet("reports/fleet", parse_expected(read("expected.txt")));
//   Report report = fleet_report(fleet, "image 1.2 on the cluster");
//   std::string xml = write_junit(report);
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cause_coverage.hpp"
#include "certificate.hpp"
#include "check_report.hpp"
#include "junit_report.hpp"

namespace kd::junit {

// What one GPU's report said, or why there is nothing to believe.
enum class UnitState {
  Passed,      // status "passed": the check verified the computation
  Failed,      // status "failed": the check found the first layer that fails
  Missing,     // expected, and no report was written
  Unreadable,  // a file is there but is not a whole, consistent report of the real check
};

struct FleetUnit {
  std::string node;  // the part of the file name before the last '.': the node or runner
  std::string unit;  // the part after it: which GPU (task) of that node
  UnitState state = UnitState::Missing;
  bool expected = false;  // named by the expected list (an unexpected report is still shown)
  std::string code;       // the report's code, e.g. "TORCH_IMPORT_FAILED"
  int exit_code = -1;
  std::string stage;      // the layer the check stopped at ("import", ..., "complete")
  std::string message;    // the report's message, or why the unit is Missing / Unreadable
  std::string error;      // "type: message" of the report's error, or empty
  std::string device;     // requested.device
  std::string json;       // the report itself, pretty-printed; empty when none could be read
  CheckReport report = {};  // the report read, shown pretty-printed
  double seconds = 0;     // the check's timings_ms, summed
  bool simulated = false;  // Unreadable as made through the fault-injection seam

  std::string id() const { return node + "." + unit; }
  // "TORCH_IMPORT_FAILED(4) import", the words a drained node's reason uses too.
  std::string verdict_words() const;
};

struct Fleet {
  std::vector<FleetUnit> units;  // by node, then unit
  std::vector<std::string> warnings;
  Certificate facts;  // what the real probe's reports say (libtorch, backend, GPU model, ...)
};

// The expected "<node>.<unit>" names, one per line; blank lines and '#' comments are ignored.
// A name that is not "<node>.<unit>" made of letters, digits, '.', '_' and '-' is an InputError.
std::vector<std::string> parse_expected(const std::string& text);

// Reads every "<node>.<unit>.json" of `dir` (not recursive). `expected` must not be empty: a
// fleet without a list of what should be there cannot tell a gap. A missing folder is an
// InputError; other files are warnings.
Fleet read_fleet(const std::filesystem::path& dir, const std::vector<std::string>& expected);

// One suite per node (its name is the node), one case per unit (classname "kernodeck.<node>",
// name the unit): passed, a failure whose type is the code and whose message is
// "CODE(exit) stage: message", or an error (missing-report, unreadable-report,
// fault-injection). A first suite "certificate" states the fleet in plain words. Sealed.
Report fleet_report(const Fleet& fleet, const std::string& title);

// The Markdown summary of `report` (fleet_report's), each failed unit
// with the cause its report names (of `causes`) and its next action, followed by the fleet view:
// nodes by outcome, and which layer fails where.
std::string fleet_markdown(const Fleet& fleet, const Report& report, const Causes& causes);

// The HTML certificate of `report` (fleet_report's) with each unit's JSON report inline (and the cause of
// `causes` it names, as certificate_html shows it), where the ladder of the layers counts
// GPUs instead of cases (how many passed each layer, failed at it, or never reached it), the
// fleet view above the environment.
std::string fleet_html(const Fleet& fleet, const Report& report, const Causes& causes);

}  // namespace kd::junit

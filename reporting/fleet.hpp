// A fleet: the check's own JSON reports of many GPUs on many nodes (a Slurm job, a CI matrix),
// one file "<node>.<unit>.json" per GPU in one folder, turned into one report (a testsuite per
// node, a testcase per GPU) with the fleet's view (its nodes by outcome, where each layer fails,
// its ladder counting GPUs), which junit.xml, the Markdown summary and the HTML certificate render
// as they render any report. A GPU that was expected and left no report is an error, never a
// silent gap.
//
//   Fleet fleet = read_fleet("reports/fleet", parse_expected(read("expected.txt")));
//   Report report = fleet_report(fleet, "image 1.2 on the cluster");
//   std::string xml = write_junit(report);
//   std::string md = summary_markdown(report, fleet_reports(fleet), causes);
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
  std::string message;    // the report's message, or why the unit is Missing / Unreadable
  // The report, when the file is a JSON object (`text` pretty-printed); its verdict (code,
  // exit_code, stage, requested.device, timings) counts only when it is the check's (`ours`).
  CheckReport report = {};
  bool simulated = false;  // Unreadable as made through the fault-injection seam

  std::string id() const { return node + "." + unit; }
  // "TORCH_IMPORT_FAILED(4) import", the words a drained node's reason uses too; without the
  // stage, "TORCH_IMPORT_FAILED(4)".
  std::string verdict_words(bool with_stage = true) const;
  // "type: message" of the report's error, or empty.
  std::string error() const;
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

// One suite per node, one case per unit, as docs/fleets.md tables them; a first suite
// "certificate" states the fleet in plain words. Its view: the nodes by outcome (table "nodes",
// failing nodes first), which layer fails where (table "where": the layers in their order, then
// any other stage a failed report names, then "no report"), the ladder counting GPUs. Sealed.
Report fleet_report(const Fleet& fleet, const std::string& title);

// Each unit's report, keyed "<node>.<unit>" as its case is: what summary_markdown and
// certificate_html show of each case of fleet_report's report.
CaseReports fleet_reports(const Fleet& fleet);

}  // namespace kd::junit
